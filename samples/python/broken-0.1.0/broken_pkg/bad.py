"""This module contains a deliberate syntax error (unclosed parenthesis)."""


def fine_before(x: int) -> int:
    """Defined before the error."""
    return x + 1


def broken(a: int, b: int = 2:
    """The parameter list above is never closed."""
    return a + b


def fine_after(y: str) -> str:
    """Defined after the error."""
    return y.upper()
