"""Acme Storage SDK for Python.

Quick start::

    import acme_storage

    client = acme_storage.StorageClient(region="eu-west-1")
    bucket = client.create_bucket("photos")
"""

from ._client import DEFAULT_RETRIES
from ._client import StorageClient
from .errors import NotFoundError, PermissionDeniedError, StorageError
from .models import Bucket as Bucket
from .models import ObjectInfo as ObjectInfo
from .models import TransferConfig

Client = StorageClient
"""Short alias for :class:`StorageClient`."""

__version__ = "1.0.0"

__all__ = [
    "Bucket",
    "Client",
    "DEFAULT_RETRIES",
    "NotFoundError",
    "ObjectInfo",
    "PermissionDeniedError",
    "StorageClient",
    "StorageError",
    "TransferConfig",
]
