"""Exceptions raised by the Acme Storage SDK."""

from __future__ import annotations

from typing import Optional


class StorageError(Exception):
    """Base class for every error raised by :mod:`acme_storage`.

    Args:
        message: Human readable description of the failure.
        status: HTTP status code returned by the service, if any.
    """

    def __init__(self, message: str, *, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status

    @property
    def retryable(self) -> bool:
        """Whether repeating the request may succeed."""
        return self.status is None or self.status >= 500


class NotFoundError(StorageError):
    """The requested bucket or object does not exist."""


class PermissionDeniedError(StorageError):
    """The credentials in use may not perform the requested operation."""
