"""High-level transfer helpers built on top of :class:`acme_storage.StorageClient`."""

from .upload import TransferConfig, Uploader, upload_directory, upload_file

__all__ = ["TransferConfig", "Uploader", "upload_directory", "upload_file"]
