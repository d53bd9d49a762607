"""diffcase: a tiny package whose two releases differ by one kind of change."""

from diffcase.client import Client, connect

__all__ = ["Client", "connect"]


def _sign(payload: bytes, key: str) -> str:
    """Sign a request payload (internal since 2.0)."""
    return ""
