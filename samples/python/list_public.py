"""List the public API of a sample package, as seen by runtime introspection.

Usage: python3 list_public.py DIST_DIR PACKAGE   (run once per version)
Private names (leading underscore) and private modules are skipped; a
package's public names come from ``__all__`` when it is defined, otherwise
from the names defined in that module.  Defaults are runtime reprs.
"""

import dataclasses, importlib, inspect, pkgutil, sys


class _Src(str):
    def __repr__(self):  # print string annotations without quotes
        return str(self)


def sig(obj):
    s = inspect.signature(obj)
    ps = [p.replace(annotation=_Src(p.annotation)) if isinstance(p.annotation, str) else p for p in s.parameters.values()]
    ret = _Src(s.return_annotation) if isinstance(s.return_annotation, str) else s.return_annotation
    return str(s.replace(parameters=ps, return_annotation=ret))


def notes(obj, raw=None):
    out, fn = [], getattr(raw, "fget", None) or getattr(raw, "__func__", None) or obj
    if getattr(fn, "__deprecated__", None):
        out.append("@deprecated")
    if ".. deprecated::" in (inspect.getdoc(fn) or ""):
        out.append("docstring deprecated")
    try:
        if "DeprecationWarning" in inspect.getsource(fn):
            out.append("warns DeprecationWarning")
    except (OSError, TypeError):
        pass
    return ("  [" + ", ".join(out) + "]") if out else ""


def members(cls, pkg):
    if dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            print(f"    field               {cls.__name__}.{f.name}")
    for name in sorted(dir(cls)):
        if name.startswith("_") and name != "__init__":
            continue
        owner = next(k for k in cls.__mro__ if name in k.__dict__)
        if not owner.__module__.startswith(pkg) or (name == "__init__" and dataclasses.is_dataclass(cls)):
            continue
        raw = owner.__dict__[name]
        via = f"  (inherited from {owner.__name__})" if owner is not cls else ""
        if isinstance(raw, property):
            kind, s = ("property (settable)" if raw.fset else "property"), ""
        elif isinstance(raw, (staticmethod, classmethod)):
            kind, s = type(raw).__name__, sig(getattr(cls, name))
        elif inspect.isfunction(raw):
            kind = "async method" if inspect.iscoroutinefunction(raw) else "method"
            s = sig(raw) + (f"  (alias of {raw.__name__})" if raw.__name__ != name else "")
        elif dataclasses.is_dataclass(cls) and name in cls.__dataclass_fields__:
            continue
        else:
            kind, s = "attribute", ""
        print(f"    {kind:<19} {cls.__name__}.{name}{s}{via}{notes(getattr(cls, name), raw)}")


def describe(mod, pkg):
    print(f"module {mod.__name__}")
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n, v in vars(mod).items() if not n.startswith("_") and getattr(v, "__module__", None) == mod.__name__]
    for name in sorted(names):
        obj = getattr(mod, name)
        where = "" if getattr(obj, "__module__", mod.__name__) == mod.__name__ else f"  (defined in {obj.__module__})"
        if inspect.isclass(obj):
            bases = ", ".join(b.__name__ for b in obj.__bases__)
            alias = f"  (alias of {obj.__name__})" if obj.__name__ != name else ""
            print(f"  class         {name}({bases}){alias}{where}")
            if not alias:
                members(obj, pkg)
        elif inspect.isfunction(obj):
            kind = "async function" if inspect.iscoroutinefunction(obj) else "function"
            print(f"  {kind:<13} {name}{sig(obj)}{where}{notes(obj)}")
        else:
            print(f"  attribute     {name} = {obj!r}")


if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])
    sys.dont_write_bytecode = True
    pkg = importlib.import_module(sys.argv[2])
    mods = [pkg] + [importlib.import_module(m.name) for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
    for mod in sorted(mods, key=lambda m: m.__name__):
        if not any(part.startswith("_") for part in mod.__name__.split(".")):
            describe(mod, sys.argv[2])
