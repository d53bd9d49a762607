"""Acme Payments SDK for Python, modelled on Stripe's and OpenAI's clients.

Quick start::

    from acme_payments import AcmeClient

    client = AcmeClient("sk_test_123")
    customer = client.customers.create(email="ada@example.com")
    client.billing.invoices.pay(invoice_id)
"""

from ._client import AcmeClient, create_client
from ._models import Customer, Invoice, Subscription
from .resources import BillingResources, CustomerService, InvoiceService, SubscriptionService

__all__ = [
    "AcmeClient",
    "BillingResources",
    "Customer",
    "CustomerService",
    "Invoice",
    "InvoiceService",
    "Subscription",
    "SubscriptionService",
    "create_client",
]
