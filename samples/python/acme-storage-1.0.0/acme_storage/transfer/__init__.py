"""High-level transfer helpers built on top of :class:`acme_storage.StorageClient`."""

from .upload import Uploader, upload_bytes, upload_file

__all__ = ["Uploader", "upload_bytes", "upload_file"]
