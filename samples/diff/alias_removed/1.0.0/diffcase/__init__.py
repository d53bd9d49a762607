"""diffcase: a tiny package whose two releases differ by one kind of change."""

from diffcase.models import Config

__all__ = ["Config"]
