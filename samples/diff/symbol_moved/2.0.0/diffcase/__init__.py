"""diffcase: a tiny package whose two releases differ by one kind of change."""
