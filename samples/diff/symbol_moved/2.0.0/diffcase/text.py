def helper(text: str) -> str:
    """Normalise text."""
    return text
