"""Louvain community detection."""

__all__ = ["louvain_communities", "louvain_partitions"]


def louvain_communities(graph, weight="weight", resolution=1, seed=None):
    """Find the best partition of a graph with the Louvain method."""
    return []


def louvain_partitions(graph, weight="weight", resolution=1, seed=None):
    """Yield the partitions at each level of the Louvain method."""
    yield []
