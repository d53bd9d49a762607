"""diffcase: a tiny package whose two releases differ by one kind of change."""

class Client:
    """A storage client."""

    def get_obj(self, bucket: str, key: str) -> bytes:
        """Download one object."""
        return b""

    def delete(self, bucket: str, key: str) -> None:
        """Delete one object."""
