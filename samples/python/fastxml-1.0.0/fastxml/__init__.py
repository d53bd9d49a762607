"""fastxml: a small XML toolkit compiled with Cython, modelled on lxml's layout."""

from fastxml.tree import Element, Parser, fromstring, tostring

__all__ = ["Element", "Parser", "fromstring", "tostring"]
