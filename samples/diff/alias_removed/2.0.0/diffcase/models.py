class Record:
    """A stored record (Config moved to diffcase.settings)."""

    def __init__(self, key: str) -> None:
        self.key = key
