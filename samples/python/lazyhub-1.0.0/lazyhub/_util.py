"""Private helpers."""


def retry_delay(attempt):
    """Seconds to wait before retry number ``attempt``."""
    return min(2**attempt, 30)
