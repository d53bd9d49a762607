class ModelhubError(Exception):
    """Every error modelhub raises."""
