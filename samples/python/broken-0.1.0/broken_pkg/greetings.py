"""Friendly greetings."""


def greet(name: str, *, punctuation: str = "!") -> str:
    """Return a greeting for *name*."""
    return f"Hello, {name}{punctuation}"
