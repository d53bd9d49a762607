"""diffcase: a tiny package whose two releases differ by one kind of change."""

def copy(dest: str, src: str) -> None:
    """Copy a file."""
