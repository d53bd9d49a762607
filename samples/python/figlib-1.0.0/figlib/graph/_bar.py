class Bar:
    """A bar trace."""

    def __init__(self, x=None, y=None, orientation="v"):
        self.x, self.y, self.orientation = x, y, orientation
