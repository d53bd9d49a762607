"""Classic graphs."""

__all__ = ["complete_graph", "path_graph"]


def complete_graph(n):
    """Return the complete graph on n nodes."""
    return None


def path_graph(n):
    """Return the path graph on n nodes."""
    return None
