class PadValidator:
    """Validates a pad."""

