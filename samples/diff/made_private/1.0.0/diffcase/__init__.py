"""diffcase: a tiny package whose two releases differ by one kind of change."""

from diffcase.client import Client, connect, retry_policy

__all__ = ["Client", "connect", "retry_policy", "sign"]


def sign(payload: bytes, key: str) -> str:
    """Sign a request payload."""
    return ""
