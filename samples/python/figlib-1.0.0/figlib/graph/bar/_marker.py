class Marker:
    """A bar's marker."""

    def __init__(self, color=None):
        self.color = color
