# A stale module left beside the `objects/` package: the package shadows it at import.
from figlib.graph import *

__all__ = ["Bar", "Scatter", "Histogram"]
