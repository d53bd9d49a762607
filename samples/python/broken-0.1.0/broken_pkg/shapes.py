"""Simple geometric shapes."""

from dataclasses import dataclass


@dataclass
class Square:
    """An axis-aligned square."""

    side: float = 1.0

    @property
    def area(self) -> float:
        """Area of the square."""
        return self.side * self.side
