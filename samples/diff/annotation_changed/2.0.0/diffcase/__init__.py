"""diffcase: a tiny package whose two releases differ by one kind of change."""

def copy(src: str, dest: str, mode: str = '0') -> None:
    """Copy a file."""
