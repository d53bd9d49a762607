import importlib


def attach_lazy_exports(name, table):
    """Return (__all__, __getattr__, __dir__) serving `table`'s names on first use."""

    def __getattr__(attr):
        if attr not in table:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        module, member = table[attr]
        return getattr(importlib.import_module(module), member)

    def __dir__():
        return sorted(table)

    return sorted(table), __getattr__, __dir__
