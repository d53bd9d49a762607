class FontValidator:
    """Validates a font."""

