class Dark:
    """A dark theme."""

    background = "#111111"
