"""diffcase: a tiny package whose two releases differ by one kind of change."""

def copy(src: str, dest: str, buffer_size: int = 65536) -> None:
    """Copy a file."""
