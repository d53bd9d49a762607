"""diffcase: a tiny package whose two releases differ by one kind of change."""

def copy(src: str, dest: str, *extra: str, **options: object) -> None:
    """Copy a file."""
