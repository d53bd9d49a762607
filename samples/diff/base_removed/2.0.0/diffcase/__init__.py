"""diffcase: a tiny package whose two releases differ by one kind of change."""

class Base:
    def close(self) -> None:
        pass


class Child:
    """A client, no longer a Base."""

    def close(self) -> None:
        pass
