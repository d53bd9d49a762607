class FigureWidget:
    """A figure shown as a notebook widget."""

    def __init__(self, data=None):
        self.data = data
