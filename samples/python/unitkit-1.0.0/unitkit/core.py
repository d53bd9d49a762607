"""The unit type and the function that defines named units."""


class Unit:
    """A named unit: a scale relative to its base unit."""

    def __init__(self, name, scale=1.0, doc=None):
        self.name = name
        self.scale = scale
        self.__doc__ = doc

    def to(self, other, value=1.0):
        """Convert ``value`` of this unit to ``other``."""
        return value * self.scale / other.scale


def def_unit(names, scale=1.0, namespace=None, doc=None):
    """Define a unit under each of ``names`` in ``namespace`` (a module's globals())."""
    unit = Unit(names[0], scale, doc)
    if namespace is not None:
        for n in names:
            namespace[n] = unit
    return unit
