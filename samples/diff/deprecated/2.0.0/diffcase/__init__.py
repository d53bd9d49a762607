"""diffcase: a tiny package whose two releases differ by one kind of change."""

import warnings


def fetch_all(url: str) -> list:
    """Fetch every page.

    .. deprecated:: 2.0
       Use iter_pages() instead.
    """
    warnings.warn("fetch_all is deprecated, use iter_pages() instead", DeprecationWarning, stacklevel=2)
    return list(iter_pages(url))


def iter_pages(url: str):
    """Yield pages one by one."""
    yield from ()
