class Pending:
    """A feature announced for a later release."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"{self.name} arrives in modelhub 1.1")
