"""Figures (modelled on plotly 4 and 5's lazy modules).

`figlib.objects` branches on the Python version: before 3.7 it imports its names, after it
serves them through `relative_import`'s `__getattr__`. A stale `objects.py` is shipped beside
the `objects/` package, which shadows it. `figlib.validators` only has the lazy form, and
`figlib.themes` a lazy form no reader knows: its names are unknown, never absent.
"""

from figlib import graph
