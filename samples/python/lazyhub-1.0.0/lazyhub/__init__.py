"""lazyhub: a model-hub client whose top level loads its parts on first use.

Written for refgraph's tests, after the way large SDKs build their surface at run time: a
module ``__getattr__``, names listed for type checkers only, ``__all__`` arithmetic and a
compiled speed-up module shipped without its source (``_speedups.cpython-311-...so`` is an
empty stand-in: refgraph reads only the name of a compiled module).
"""

from typing import TYPE_CHECKING

from . import _speedups
from .client import Client

__all__ = ["Client", "download", "upload", "fast_hash"] + ["DEFAULT_ENDPOINT"]

DEFAULT_ENDPOINT = "https://hub.example"

fast_hash = _speedups.fast_hash

_LAZY = {"upload": ".transfer", "download": ".transfer"}

if TYPE_CHECKING:
    from .transfer import download, upload


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        return _moved(name)
    import importlib

    return getattr(importlib.import_module(module, __name__), name)


def _moved(name):
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
