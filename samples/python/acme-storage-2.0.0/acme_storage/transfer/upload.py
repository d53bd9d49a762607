"""Upload files and directories, splitting large payloads into parts."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, TypeVar

from .._client import DEFAULT_RETRIES, StorageClient, _BaseService
from ..errors import StorageError
from ..models import ObjectInfo

_F = TypeVar("_F", bound=Callable[..., Any])


def _retrying(func: _F) -> _F:
    """Retry *func* when it raises a retryable :class:`StorageError`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for attempt in range(DEFAULT_RETRIES):
            try:
                return func(*args, **kwargs)
            except StorageError as exc:
                if not exc.retryable or attempt == DEFAULT_RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    return wrapper  # type: ignore[return-value]


@dataclass
class TransferConfig:
    """Tuning knobs for multipart transfers.

    Moved here from :mod:`acme_storage.models` in 2.0; still importable as
    ``acme_storage.TransferConfig``.

    Attributes:
        part_size: Size in bytes of each uploaded part.
        max_concurrency: Maximum number of parts in flight.
        use_threads: Whether to use a thread pool for transfers.
    """

    part_size: int = 8 * 1024 * 1024
    max_concurrency: int = 4
    use_threads: bool = True

    def __post_init__(self) -> None:
        if self.part_size < 5 * 1024 * 1024:
            raise ValueError("part_size must be at least 5 MiB")


class Uploader(_BaseService):
    """Multipart upload of a single object.

    Parts may be uploaded in any order; :meth:`complete` joins them by
    part number.
    """

    def __init__(
        self,
        client: StorageClient,
        bucket: str,
        key: str,
        config: Optional[TransferConfig] = None,
    ) -> None:
        super().__init__(client.endpoint, timeout=client.timeout)
        self._client = client
        self.bucket = bucket
        self.key = key
        self.config = config or TransferConfig()
        self._parts: Dict[int, bytes] = {}

    @property
    def part_count(self) -> int:
        """Number of parts uploaded so far."""
        return len(self._parts)

    async def upload_part(self, part_number: int, data: bytes) -> str:
        """Upload one part and return its ETag."""
        if part_number < 1:
            raise ValueError("part numbers start at 1")
        self._parts[part_number] = bytes(data)
        return f'"{part_number:05d}-{len(data):x}"'

    async def complete(self) -> ObjectInfo:
        """Join the uploaded parts into the final object."""
        body = b"".join(self._parts[n] for n in sorted(self._parts))
        return self._client.put_object(self.bucket, self.key, body)


@_retrying
def upload_file(client, path, bucket, key=None, *, content_type=None):
    """Upload the file at *path* to *bucket*.

    The object key defaults to the file's base name.  Since 2.0
    *content_type* is keyword-only.
    """
    with open(path, "rb") as fh:
        data = fh.read()
    key = key or os.path.basename(os.fspath(path))
    return client.put_object(bucket, key, data, content_type=content_type or "application/octet-stream")


def upload_directory(
    client: StorageClient,
    directory: str,
    bucket: str,
    *,
    prefix: str = "",
) -> List[ObjectInfo]:
    """Upload every file below *directory*, keyed by relative path.

    Files are uploaded in sorted order so results are reproducible.
    """
    results: List[ObjectInfo] = []
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            rel = os.path.relpath(full, directory).replace(os.sep, "/")
            results.append(upload_file(client, full, bucket, prefix + rel))
    return results
