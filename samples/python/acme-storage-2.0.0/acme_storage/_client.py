"""Client for the Acme Storage service.

This module is private: import :class:`StorageClient` from :mod:`acme_storage`.
The client keeps objects in memory so that the SDK can be exercised offline.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Dict, Iterator, List, Literal, Optional, Tuple, Union, overload

from ._compat import deprecated
from .errors import NotFoundError, StorageError
from .models import Bucket, ObjectInfo

DEFAULT_RETRIES = 3
"""Number of times a failed request is retried before giving up."""

DEFAULT_ENDPOINT = "https://storage.acme.example"


class _BaseService:
    """Shared plumbing for every Acme service object.

    Subclasses get request dispatch and context manager support for free.
    """

    def __init__(self, endpoint: str, /, *, timeout: float, retries: int = DEFAULT_RETRIES) -> None:
        self._endpoint = endpoint.rstrip("/")
        self._timeout = timeout
        self._retries = retries
        self._closed = False

    @property
    def endpoint(self) -> str:
        """Base URL that requests are sent to."""
        return self._endpoint

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Dict[str, str]] = None,
        body: Optional[bytes] = None,
    ) -> Dict[str, Any]:
        """Describe a request to the service.

        The SDK ships without a network transport; the returned mapping
        describes what would have been sent.
        """
        if self._closed:
            raise StorageError("client is closed")
        return {
            "method": method.upper(),
            "url": self._endpoint + "/" + path.lstrip("/"),
            "params": dict(params or {}),
            "body": body,
            "timeout": self._timeout,
        }

    def close(self) -> None:
        """Release the resources held by this object."""
        self._closed = True

    def __enter__(self) -> _BaseService:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class StorageClient(_BaseService):
    """Client for the Acme Storage REST API.

    Example::

        client = StorageClient(region="eu-west-1")
        client.create_bucket("photos")
        client.put_object("photos", "cat.jpg", b"...")

    Args:
        endpoint: Base URL of the service.
        region: Region to operate in; ``None`` uses the account default.
        *scopes: OAuth scopes to request.
        timeout: Per-request timeout in seconds.
        retries: How often failed requests are retried.
        user_agent: Product tokens sent in the ``User-Agent`` header.
        signature_version: Request signing algorithm.
        **transport_options: Passed through to the HTTP transport.
    """

    def __init__(
        self,
        endpoint: str = DEFAULT_ENDPOINT,
        /,
        region: Optional[str] = None,
        *scopes: str,
        timeout: float = 60.0,
        retries: int = DEFAULT_RETRIES,
        user_agent: Tuple[str, ...] = ("acme-storage", "python"),
        signature_version: str = 'auto',
        **transport_options: Any,
    ) -> None:
        super().__init__(endpoint, timeout=timeout, retries=retries)
        self._region = region
        self.scopes = scopes
        self.user_agent = " ".join(user_agent)
        self.signature_version = signature_version
        self.transport_options = transport_options
        self._buckets: Dict[str, Bucket] = {}
        self._objects: Dict[Tuple[str, str], Tuple[ObjectInfo, bytes]] = {}

    @classmethod
    def from_env(cls, prefix: str = "ACME_STORAGE_") -> StorageClient:
        """Create a client configured from environment variables.

        Reads ``<prefix>ENDPOINT`` and ``<prefix>REGION``.
        """
        endpoint = os.environ.get(prefix + "ENDPOINT", DEFAULT_ENDPOINT)
        return cls(endpoint, os.environ.get(prefix + "REGION"))

    @staticmethod
    def build_object_url(endpoint: str, bucket: str, key: str) -> str:
        """Return the canonical HTTPS URL of an object."""
        return f"{endpoint.rstrip('/')}/{bucket}/{key.lstrip('/')}"

    @property
    def timeout(self) -> float:
        """Per-request timeout in seconds."""
        return self._timeout

    @timeout.setter
    def timeout(self, value: float) -> None:
        if value <= 0:
            raise ValueError("timeout must be positive")
        self._timeout = value

    @property
    def region(self) -> Optional[str]:
        """Region this client operates in."""
        return self._region

    def create_bucket(self, name: str, *, acl: str = "private") -> Bucket:
        """Create a bucket and return it."""
        bucket = Bucket(name=name, region=self._region or "auto", acl=acl)
        self._buckets[name] = bucket
        return bucket

    def iter_buckets(self) -> Iterator[Bucket]:
        """Iterate over all buckets visible to the caller, sorted by name."""
        for name in sorted(self._buckets):
            yield self._buckets[name]

    @deprecated("Use iter_buckets() instead")
    def list_buckets(self) -> List[Bucket]:
        """Return all buckets visible to the caller as a list.

        .. deprecated:: 2.0
           Renamed to :meth:`iter_buckets`; this alias will be removed in 3.0.
        """
        warnings.warn(
            "list_buckets() is deprecated; use iter_buckets() instead",
            DeprecationWarning,
            stacklevel=2,
        )
        return list(self.iter_buckets())

    def list_objects(self, bucket: str, prefix: str = "", *, max_keys: int = 1000) -> Iterator[ObjectInfo]:
        """Iterate over objects in *bucket* whose key starts with *prefix*."""
        self._get_bucket(bucket)
        keys = sorted(k for (b, k) in self._objects if b == bucket and k.startswith(prefix))
        for key in keys[:max_keys]:
            yield self._objects[(bucket, key)][0]

    def put_object(
        self,
        bucket: str,
        key: str,
        data: bytes,
        *,
        content_type: str = "application/octet-stream",
        metadata: Optional[Dict[str, str]] = None,
    ) -> ObjectInfo:
        """Store *data* under *key* in *bucket*."""
        self._get_bucket(bucket)
        info = ObjectInfo(bucket, key, len(data), f'"{len(data):x}"', content_type, dict(metadata or {}))
        self._objects[(bucket, key)] = (info, bytes(data))
        return info

    upload_file = put_object

    @overload
    def get_object(self, bucket: str, key: str, *, as_text: Literal[False] = ...) -> bytes: ...

    @overload
    def get_object(self, bucket: str, key: str, *, as_text: Literal[True]) -> str: ...

    def get_object(self, bucket: str, key: str, *, as_text: bool = False) -> Union[bytes, str]:
        """Download an object.

        Returns the raw bytes, or the body decoded as UTF-8 when *as_text*
        is true.
        """
        try:
            _, data = self._objects[(bucket, key)]
        except KeyError:
            raise NotFoundError(f"{bucket}/{key} does not exist", status=404) from None
        return data.decode("utf-8") if as_text else data

    def delete_object(self, bucket: str, key: str) -> None:
        """Delete an object; deleting a missing object is not an error."""
        self._objects.pop((bucket, key), None)

    def generate_presigned_url(self, bucket: str, key: str, http_method: str, expires_in: int = 3600) -> str:
        """Return a URL granting temporary access to an object.

        *http_method* is the single HTTP method (``"GET"``, ``"PUT"``, ...)
        the URL is valid for.
        """
        url = self.build_object_url(self.endpoint, bucket, key)
        return f"{url}?X-Acme-Method={http_method.upper()}&X-Acme-Expires={expires_in}"

    def _get_bucket(self, name: str) -> Bucket:
        try:
            return self._buckets[name]
        except KeyError:
            raise NotFoundError(f"bucket {name!r} does not exist", status=404) from None
