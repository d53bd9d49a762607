"""diffcase: a tiny package whose two releases differ by one kind of change."""

def Session(url: str) -> object:
    """Open a session (a factory function in 1.0.0)."""
    return object()


class Response:
    def json(self) -> dict:
        """The body, parsed."""
        return {}
