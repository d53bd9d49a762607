#!/usr/bin/env python3
"""Run-time oracle of the signatures of Cython-compiled functions: what `inspect` reads from
the compiled module (Cython's `binding=True` functions carry their signature).

    python3 -S tests/oracle/py_cython.py --path SITE --module lxml.etree [--module ...]

Prints {qualified_name: {"params": [{"name", "kind", "required", "default"}],
"defaults_hidden": bool}} as JSON for every public function of each module (its `__all__` when
it has one, as in tests/oracle/py_inspect.py) and every public method of its public classes
that is a Cython function (`cython_function_or_method`) defined there and whose signature
`inspect` can read.
"default" is `repr()` of the default value. The first parameter of a method (`self`) is left
out, as refgraph leaves it out.

Cython before 3.0 (lxml 4.9) does not expose defaults to `inspect` (`__defaults__` and
`__kwdefaults__` are None, and every parameter reads as required): a function whose defaults
are hidden so gets "defaults_hidden": true instead, and only its parameters' names and kinds
can be checked.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys

KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional_only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
    inspect.Parameter.VAR_POSITIONAL: "var_positional",
    inspect.Parameter.KEYWORD_ONLY: "keyword_only",
    inspect.Parameter.VAR_KEYWORD: "var_keyword",
}


def is_cython(obj) -> bool:
    return type(obj).__name__ in ("cython_function_or_method", "fused_cython_function")


def params(func, method: bool):
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    hidden = (
        getattr(func, "__defaults__", None) is None
        and getattr(func, "__kwdefaults__", None) is None
    )
    out = []
    for i, p in enumerate(sig.parameters.values()):
        if method and i == 0:
            continue
        entry = {"name": p.name, "kind": KINDS[p.kind], "required": False}
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            pass
        elif p.default is inspect.Parameter.empty:
            entry["required"] = True
        else:
            entry["default"] = repr(p.default)
        out.append(entry)
    return {"params": out, "defaults_hidden": hidden}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--path", action="append", default=[])
    ap.add_argument("--module", action="append", default=[])
    args = ap.parse_args()
    sys.path[:0] = args.path
    found: dict[str, list] = {}
    for name in args.module:
        mod = importlib.import_module(name)
        public = getattr(mod, "__all__", None) or [a for a in vars(mod) if not a.startswith("_")]
        for attr in sorted(public):
            if attr.startswith("_") or not hasattr(mod, attr):
                continue
            obj = getattr(mod, attr)
            if is_cython(obj) and getattr(obj, "__module__", None) == name:
                p = params(obj, method=False)
                if p is not None:
                    found[f"{name}.{attr}"] = p
            elif inspect.isclass(obj) and obj.__module__ == name and obj.__name__ == attr:
                for member, value in sorted(vars(obj).items()):
                    if member.startswith("_") or not is_cython(value):
                        continue
                    p = params(value, method=True)
                    if p is not None:
                        found[f"{name}.{attr}.{member}"] = p
    json.dump(found, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
