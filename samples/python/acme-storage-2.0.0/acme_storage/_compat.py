"""Compatibility shims used internally by acme_storage.

Nothing in this module is part of the public API.
"""

from typing import Any, Callable, TypeVar

_T = TypeVar("_T", bound=Callable[..., Any])


def deprecated(message: str, /, *, category: type = DeprecationWarning, stacklevel: int = 1) -> Callable[[_T], _T]:
    """Mark a class or function as deprecated (PEP 702).

    This mirrors ``typing_extensions.deprecated`` / ``warnings.deprecated``
    so that the SDK has no third-party dependencies and behaves the same on
    every Python version: it records *message* in ``__deprecated__`` for
    type checkers and documentation tools and returns the object unchanged.
    Runtime warnings are emitted explicitly by the deprecated code itself.
    """

    def decorator(obj: _T) -> _T:
        obj.__deprecated__ = message
        return obj

    return decorator
