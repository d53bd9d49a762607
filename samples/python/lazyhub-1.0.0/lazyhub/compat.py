"""Names kept for code written against older releases."""

import warnings

from .client import Client


def __getattr__(name):
    """``OldClient`` still works, with a warning; nothing else is served."""
    if name in ("OldClient", "LegacyClient"):
        warnings.warn(f"{name} is deprecated; use Client", DeprecationWarning, stacklevel=2)
        return Client
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
