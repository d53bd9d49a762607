"""Generators of graphs with community structure."""

__all__ = ["planted_partition_graph"]


def planted_partition_graph(groups, size, p_in, p_out, seed=None):
    """Return a graph of `groups` communities of `size` nodes each."""
    return None
