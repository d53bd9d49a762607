from .retry import RetryPolicy

class Client:
    base_url: str
    timeout: float | None
    def __init__(self, base_url: str, timeout: float | None = ..., retry: RetryPolicy | None = ...) -> None: ...
    def get(self, path: str) -> tuple[str, str]: ...

def connect(url: str, *, timeout: float | None = ...) -> Client: ...

class AsyncClient:
    """Announced in the stub; the source has no such class yet."""

    def __init__(self, base_url: str) -> None: ...
