"""diffcase: a tiny package whose two releases differ by one kind of change."""

class Token:
    def parse(self, text: str) -> "Token":
        """Parse a token (instance method in 1.0.0)."""
        return self
