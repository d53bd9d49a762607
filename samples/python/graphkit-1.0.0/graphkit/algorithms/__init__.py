"""Graph algorithms."""

from graphkit.algorithms.shortest_paths import *
import graphkit.algorithms.community
from graphkit.algorithms.community import louvain_communities
