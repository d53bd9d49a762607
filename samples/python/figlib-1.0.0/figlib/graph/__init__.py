import sys

if sys.version_info < (3, 7):
    from ._bar import Bar
    from ._scatter import Scatter
    from . import bar
else:
    from figlib._importers import relative_import

    __all__, __getattr__, __dir__ = relative_import(
        __name__, [".bar"], ["._bar.Bar", "._scatter.Scatter"]
    )
