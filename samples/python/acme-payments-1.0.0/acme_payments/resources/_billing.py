from __future__ import annotations

from typing import TYPE_CHECKING

from .._models import Invoice, Subscription
from ._base import _Service

if TYPE_CHECKING:
    from .._requestor import Requestor


class InvoiceService(_Service):
    """``client.billing.invoices``."""

    def create(self, *, customer: str, amount: int) -> Invoice:
        """Draft an invoice for a customer."""
        return Invoice(id="in_1", customer=customer, amount_due=amount)

    def pay(self, invoice_id: str, *, source: str | None = None) -> Invoice:
        """Pay an open invoice."""
        self._requestor.request("POST", "/v1/invoices/%s/pay" % invoice_id, source=source)
        return Invoice(id=invoice_id, customer="", amount_due=0, paid=True)


class SubscriptionService(_Service):
    """``client.billing.subscriptions``."""

    def cancel(self, subscription_id: str) -> Subscription:
        """Cancel at the end of the period."""
        return Subscription(id=subscription_id, customer="", items=[], status="canceled")


class BillingResources:
    """``client.billing``: groups the billing services."""

    def __init__(self, requestor: "Requestor") -> None:
        self.invoices = InvoiceService(requestor)
        self.subscriptions: SubscriptionService = SubscriptionService(requestor)
        self.currency: str = "usd"
