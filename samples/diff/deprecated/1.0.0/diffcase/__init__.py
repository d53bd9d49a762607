"""diffcase: a tiny package whose two releases differ by one kind of change."""

def fetch_all(url: str) -> list:
    """Fetch every page."""
    return []


def iter_pages(url: str):
    """Yield pages one by one."""
    yield from ()
