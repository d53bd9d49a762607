"""Objects the API returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional


@dataclass
class Customer:
    id: str
    email: str
    name: Optional[str] = None


@dataclass
class Invoice:
    id: str
    customer: str
    amount_due: int
    paid: bool = False
    customer_detail: Optional[Customer] = None


@dataclass
class Subscription:
    id: str
    customer: str
    items: List[str]
    status: str = "active"
