"""diffcase: a tiny package whose two releases differ by one kind of change."""

def keep(path: str) -> bytes:
    """Read a file."""
    return b""


def fresh(path: str, data: bytes) -> int:
    """Write a file, new in 2.0.0."""
    return 0


class Fresh:
    """A client new in 2.0.0."""

    def send(self, body: bytes) -> None:
        pass
