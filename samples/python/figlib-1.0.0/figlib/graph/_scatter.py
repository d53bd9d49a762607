class Scatter:
    """A scatter trace."""

    def __init__(self, x=None, y=None, mode="markers"):
        self.x, self.y, self.mode = x, y, mode
