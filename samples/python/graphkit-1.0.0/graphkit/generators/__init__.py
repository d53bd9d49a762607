"""Graph generators."""

from graphkit.generators.community import *
from graphkit.generators.classic import *
