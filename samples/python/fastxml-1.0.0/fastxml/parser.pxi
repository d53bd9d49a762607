# Included into tree.pyx: its lines keep their own file and line numbers.

cdef class Parser:
    """A reusable parser."""

    cdef object _target

    def __init__(self, *, bint recover=False, object target=None, int max_depth=256):
        self._target = target

    def feed(self, data not None):
        """Feed more bytes."""


def fromstring(text, Parser parser=None, *, base_url=None):
    """Parse a document from a string."""
    return Element("root")
