"""diffcase: a tiny package whose two releases differ by one kind of change."""

def keep(path: str) -> bytes:
    """Read a file."""
    return b""


def gone(path: str) -> None:
    """Delete a file."""


class Gone:
    """A client that 2.0.0 drops, with its methods."""

    def fetch(self, key: str) -> bytes:
        return b""
