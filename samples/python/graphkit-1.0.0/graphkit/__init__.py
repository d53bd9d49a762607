"""Graphs and algorithms on them (modelled on networkx's package layout).

The package namespace is built by two star imports, in this order. Each subpackage binds a
submodule named `community` as a side effect of importing it, so at run time
`graphkit.community` is the later one's: `graphkit.algorithms.community`.
"""

from graphkit.generators import *
from graphkit.algorithms import *

# Unpacking binds every name of the pattern.
MIN_NODES, MAX_NODES = 1, 100_000
(DEFAULT_SEED, [DEFAULT_WEIGHT, *OTHER_WEIGHTS]) = (42, [1.0, 0.5, 0.25])

__version__ = "1.0.0"
