"""The client module."""

__all__ = ["Client", "connect", "retry_policy"]


class Client:
    """A storage client."""

    def get(self, key: str) -> bytes:
        """Fetch an object."""
        return b""

    def refresh_token(self) -> None:
        """Renew the session token."""


def connect(url: str) -> Client:
    """Open a client."""
    return Client()


def retry_policy(attempts: int = 3) -> dict:
    """The retry settings a client uses."""
    return {}
