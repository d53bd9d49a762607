"""A model API client after its 1.0 rewrite (modelled on openai 1.x).

The 0.x module-level API (`modelhub.Completion.create(...)`) is gone. Its names are still
bound, to proxies whose every call raises `APIRemovedInV1`, so that old code fails with a
message that says what to do; type checkers are told the module exports none of them.
"""

from modelhub._client import Client
from modelhub._errors import ModelhubError
from modelhub.lib._old_api import *
from modelhub.lib._old_api import APIRemovedInV1Proxy as _Proxy
from modelhub.lib._pending import Pending as _Pending

# Bound one by one as well as from the table.
Engine = _Proxy(symbol="Engine")

# Not a removed API: a feature announced for a later release, whose call raises for now.
batches = _Pending("batches")

__all__ = ["Client", "ModelhubError"]
