"""diffcase: a tiny package whose two releases differ by one kind of change."""


class Retrying:
    """Retries a call."""

    def retry(self, times: int = 3) -> None:
        """Retry the last call up to `times` times."""


class Client(Retrying):
    """A client, now with retries from its base."""

    def get(self, path: str) -> bytes:
        return b""
