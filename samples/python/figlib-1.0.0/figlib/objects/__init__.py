import sys

if sys.version_info < (3, 7):
    from ..graph import Bar
    from ..graph import Scatter
    from ..graph import bar
else:
    from figlib._importers import relative_import

    __all__, __getattr__, __dir__ = relative_import(
        __name__,
        ["..graph.bar"],
        ["..graph.Bar", "..graph.Scatter"],
    )


if sys.version_info < (3, 7):
    from ..widgets import FigureWidget
else:
    __all__.append("FigureWidget")
    orig_getattr = __getattr__

    def __getattr__(import_name):
        if import_name == "FigureWidget":
            from ..widgets import FigureWidget

            return FigureWidget

        return orig_getattr(import_name)
