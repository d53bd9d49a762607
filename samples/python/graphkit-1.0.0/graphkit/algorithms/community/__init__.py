"""Community detection."""

from graphkit.algorithms.community.louvain import *
from graphkit.algorithms.community.quality import modularity
