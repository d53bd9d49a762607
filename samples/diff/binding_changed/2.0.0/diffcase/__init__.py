"""diffcase: a tiny package whose two releases differ by one kind of change."""

class Token:
    @classmethod
    def parse(cls, text: str) -> "Token":
        """Parse a token (classmethod in 2.0.0)."""
        return cls()
