"""A tiny package in which one module does not parse.

Used to check that a syntax error in one file is reported as a diagnostic
while the remaining modules are still ingested.
"""

from .greetings import greet
from .shapes import Square

__all__ = ["Square", "greet"]
