class Config:
    """Connection settings."""

    def __init__(self, host: str, port: int = 443) -> None:
        self.host = host
        self.port = port
