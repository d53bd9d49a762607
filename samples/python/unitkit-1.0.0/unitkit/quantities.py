"""Quantity classes, one per physical dimension, made in a loop at import, and a function
per dimension made by a factory."""

import sys

_DIMENSIONS = ["Length", "Mass", "Duration"]


class Quantity:
    """A value with a unit."""

    def __init__(self, value, unit):
        self.value = value
        self.unit = unit


def _converter(dimension):
    def convert(value, unit, *, to=None):
        """Convert a value of this dimension to the unit ``to``."""
        return value

    convert.__name__ = f"convert_{dimension.lower()}"
    convert.__qualname__ = convert.__name__
    return convert


for _d in _DIMENSIONS:
    globals()[_d] = type(_d, (Quantity,), {"__doc__": f"A quantity of {_d.lower()}."})
    globals()[f"convert_{_d.lower()}"] = _converter(_d)

if sys.platform == "win32":

    def windows_registry_units():
        """Units read from the Windows registry (Windows only)."""
        return []
