"""SI units, made at import."""

from .core import def_unit

_ns = globals()

for _names, _scale in [
    (["m", "meter"], 1.0),
    (["km", "kilometer"], 1000.0),
    (["s", "second"], 1.0),
    (["kg", "kilogram"], 1.0),
]:
    def_unit(_names, _scale, namespace=_ns)
