"""Data models returned by :class:`acme_storage.StorageClient`."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Dict, Iterator, Mapping, Optional

if TYPE_CHECKING:
    # Import cycle: _client imports this module at runtime.
    from ._client import StorageClient


@dataclass
class Bucket:
    """A storage bucket.

    Attributes:
        name: Globally unique bucket name.
        region: Region the bucket lives in.
        acl: Canned access control list, e.g. ``"private"``.
        created_at: Creation time reported by the service.
        tags: User supplied key/value tags.
    """

    name: str
    region: str = "auto"
    acl: str = "private"
    created_at: Optional[datetime] = None
    tags: Dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Bucket:
        """Build a bucket from a JSON response body."""
        created = data.get("created_at")
        return cls(
            name=str(data["name"]),
            region=str(data.get("region", "auto")),
            acl=str(data.get("acl", "private")),
            created_at=datetime.fromisoformat(created) if created else None,
            tags=dict(data.get("tags", {})),
        )

    @property
    def is_public(self) -> bool:
        """Whether anonymous users may read objects in this bucket.

        .. deprecated:: 0.9
           Inspect :attr:`acl` directly instead.
        """
        return self.acl in ("public-read", "public-read-write")

    def objects(self, client: StorageClient, prefix: str = "") -> Iterator[ObjectInfo]:
        """Iterate over the objects stored in this bucket."""
        return client.list_objects(self.name, prefix=prefix)


@dataclass
class ObjectInfo:
    """Metadata describing one stored object."""

    bucket: str
    key: str
    size: int = 0
    etag: Optional[str] = None
    content_type: str = "application/octet-stream"
    metadata: Dict[str, str] = field(default_factory=dict)

    @property
    def uri(self) -> str:
        """The ``acme://bucket/key`` URI of this object."""
        return f"acme://{self.bucket}/{self.key}"


@dataclass
class TransferConfig:
    """Tuning knobs for multipart transfers.

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


def bucket_from_dict(data: Mapping[str, Any]) -> Bucket:
    """Build a :class:`Bucket` from a response body."""
    warnings.warn(
        "bucket_from_dict() is deprecated; use Bucket.from_dict() instead",
        DeprecationWarning,
        stacklevel=2,
    )
    return Bucket.from_dict(data)
