import os
from typing import Union

from .._client import StorageClient, _BaseService
from ..models import ObjectInfo, TransferConfig

class Uploader(_BaseService):
    bucket: str
    key: str
    config: TransferConfig
    def __init__(
        self,
        client: StorageClient,
        bucket: str,
        key: str,
        config: TransferConfig | None = None,
    ) -> None: ...
    @property
    def part_count(self) -> int: ...
    def upload_part(self, part_number: int, data: bytes | bytearray | memoryview) -> str: ...
    async def complete(self) -> ObjectInfo: ...

def upload_file(
    client: StorageClient,
    path: Union[str, os.PathLike[str]],
    bucket: str,
    key: str | None = None,
    content_type: str | None = None,
) -> ObjectInfo: ...
def upload_bytes(client: StorageClient, data: bytes | bytearray, bucket: str, key: str) -> ObjectInfo: ...
