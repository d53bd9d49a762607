"""Private helpers."""


def retry_delay(attempt):
    """Seconds to wait before retry number ``attempt``."""
    return min(2**attempt, 30)


def is_fastxfer_available():
    """Whether the optional ``fastxfer`` package is installed."""
    import importlib.util

    return importlib.util.find_spec("fastxfer") is not None
