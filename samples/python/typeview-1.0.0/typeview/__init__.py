"""An HTTP client whose type checkers' view and run time differ (issue 49, item 4).

`RetryPolicy` is imported for type checkers only, as SDKs do to keep import time down: a
type checker accepts `from typeview import RetryPolicy`, and the run time raises ImportError.
Its home, `typeview.retry.RetryPolicy`, works in both views.
"""

from typing import TYPE_CHECKING

from .client import Client, connect

if TYPE_CHECKING:
    from .retry import RetryPolicy

    class Transport:
        """A protocol for annotations only."""

        def send(self, request: bytes) -> bytes: ...


__all__ = ["Client", "connect"]
