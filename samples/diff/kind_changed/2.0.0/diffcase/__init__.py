"""diffcase: a tiny package whose two releases differ by one kind of change."""

class Session:
    """A session (a class in 2.0.0)."""

    def __init__(self, url: str) -> None:
        self.url = url


class Response:
    @property
    def json(self) -> dict:
        """The body, parsed (a property in 2.0.0)."""
        return {}
