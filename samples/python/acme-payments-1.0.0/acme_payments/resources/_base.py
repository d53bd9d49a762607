"""Private base of the service objects."""

from .._requestor import Requestor


class _Service:
    def __init__(self, requestor: Requestor) -> None:
        self._requestor = requestor

    def ping(self) -> bool:
        """Whether the service answers."""
        return True
