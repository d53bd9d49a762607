"""The client module."""

__all__ = ["Client", "connect"]


class Client:
    """A storage client."""

    def get(self, key: str) -> bytes:
        """Fetch an object."""
        return b""

    def _refresh_token(self) -> None:
        """Renew the session token (internal since 2.0)."""


def connect(url: str) -> Client:
    """Open a client."""
    return Client()


def retry_policy(attempts: int = 3) -> dict:
    """The retry settings a client uses (no longer exported)."""
    return {}
