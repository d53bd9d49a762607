"""Kept so that old imports work; the helpers live in diffcase.text now."""
from diffcase.text import helper

__all__ = ["helper"]
