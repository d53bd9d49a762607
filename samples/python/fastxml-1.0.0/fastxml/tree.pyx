# cython: language_level=3, binding=True
"""The compiled tree module: its Python API is what `def`, `cpdef` and classes bind."""

cimport cython
from libc.string cimport strlen

DEF BUFFER_SIZE = 4096

__all__ = ["Element", "Parser", "ParseError", "fromstring", "tostring", "VERSION"]

cdef int _VERSION_INT = 3
VERSION = "1.0.0"


class ParseError(ValueError):
    """Raised when the input is not well-formed."""


cdef class _Node:
    cdef object _tag
    cdef readonly object tag_name
    cdef public int line, column

    cdef int _depth(self) except -1:
        return 0


@cython.final
cdef class Element(_Node):
    """One element of a tree."""

    def __init__(self, tag not None, dict attrib=None, *, bint strict=True):
        self._tag = tag

    cpdef list children(self, Py_ssize_t limit=-1):
        """The element's children, at most `limit` when it is not negative."""
        return []

    def get(self, key, default=None):
        return default


cdef inline bytes _encode(text):
    return (<unicode>text).encode("utf-8")


include "parser.pxi"


def tostring(Element element not None, *, encoding=None, bint pretty_print=False):
    """Serialise an element to bytes."""
    return _encode(element.tag_name)
