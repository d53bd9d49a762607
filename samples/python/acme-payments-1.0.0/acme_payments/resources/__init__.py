from ._billing import BillingResources, InvoiceService, SubscriptionService
from ._customers import CustomerService

__all__ = ["BillingResources", "CustomerService", "InvoiceService", "SubscriptionService"]
