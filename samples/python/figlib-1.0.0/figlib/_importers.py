import importlib


def relative_import(parent_name, rel_modules=(), rel_classes=()):
    """Return (__all__, __getattr__, __dir__) that import the listed names on first use."""
    module_names = {m.split(".")[-1]: m for m in rel_modules}
    class_names = {c.split(".")[-1]: c.rsplit(".", 1)[0] for c in rel_classes}

    def __getattr__(name):
        if name in module_names:
            return importlib.import_module(module_names[name], parent_name)
        if name in class_names:
            module = importlib.import_module(class_names[name], parent_name)
            return getattr(module, name)
        raise AttributeError(f"module {parent_name!r} has no attribute {name!r}")

    names = sorted(list(module_names) + list(class_names))

    def __dir__():
        return names

    return names, __getattr__, __dir__
