"""Names kept for code written against older releases."""

import warnings

from .client import Client


def __getattr__(name):
    """``OldClient`` still works, with a warning; ``RemovedClient`` says where it went;
    nothing else is served."""
    if name == "RemovedClient":
        raise AttributeError("RemovedClient was removed in 1.0: use Client")
    if name in ("OldClient", "LegacyClient"):
        warnings.warn(f"{name} is deprecated; use Client", DeprecationWarning, stacklevel=2)
        return Client
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
