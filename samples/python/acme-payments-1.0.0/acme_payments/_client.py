"""The client users construct; services hang off it as attributes."""

from __future__ import annotations

from typing import Optional

from ._requestor import Requestor
from .resources import BillingResources, CustomerService

DEFAULT_BASE_URL = "https://api.acme-payments.example"


class AcmeClient:
    """Entry point of the SDK.

    Args:
        api_key: Secret key, ``sk_test_...`` or ``sk_live_...``.
        base_url: Where requests go.
    """

    billing: BillingResources
    """Invoices and subscriptions."""

    def __init__(self, api_key: str, *, base_url: str = DEFAULT_BASE_URL, timeout: Optional[float] = None) -> None:
        self._requestor = Requestor(api_key, base_url)
        self.customers = CustomerService(self._requestor)
        self.billing = BillingResources(self._requestor)
        self.timeout = timeout

        def _later() -> None:
            self.hidden = CustomerService(self._requestor)

    def with_options(self, *, timeout: float) -> AcmeClient:
        """A copy of the client with other options."""
        client = AcmeClient(self._requestor.api_key, base_url=self._requestor.base_url, timeout=timeout)
        return client


def create_client(api_key: str) -> AcmeClient:
    """Build a client from a key; the same as ``AcmeClient(api_key)``."""
    return AcmeClient(api_key)
