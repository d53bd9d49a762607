#!/usr/bin/env python3
"""Oracle for the parameter descriptions refgraph reads from Python docstrings.

For each qualified name given, imports the object from the installed release and parses its
own docstring (``__doc__``, cleaned as ``inspect.cleandoc`` does) with
the ``docstring_parser`` package, which reads reST (``:param x:``), Google (``Args:``) and NumPy
(``Parameters`` over dashes) styles. A class's parameters are those of its constructor: the
docstring of the ``__init__`` it resolves (its own or a base's, as refgraph takes the
constructor) first, then the class's own, the first description of a name winning.

    python3 -S tests/oracle/py_param_docs.py --path SITE [--path DEPS ...] \\
        --names NAMES.json --out OUT.json

NAMES.json is a JSON list of qualified names; OUT.json maps each name that could be imported
to {parameter name without stars: description}.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
import warnings


def resolve(name: str):
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def described(doc) -> dict:
    import docstring_parser

    if not isinstance(doc, str) or not doc.strip():
        return {}
    try:
        parsed = docstring_parser.parse(inspect.cleandoc(doc))
    except Exception:
        return {}
    out = {}
    for p in parsed.params:
        # `Attributes:` items describe attributes, not parameters.
        if p.args and p.args[0] in ("attribute", "attr", "ivar", "var", "cvar"):
            continue
        # numpydoc: "x1, x2 : array_like" describes both parameters.
        for name in p.arg_name.split(","):
            name = name.strip().lstrip("*")
            if p.description and name not in out:
                out[name] = p.description
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--path", action="append", default=[])
    ap.add_argument("--names", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    sys.path[:0] = args.path
    warnings.simplefilter("ignore")
    result = {}
    for name in json.load(open(args.names)):
        obj = resolve(name)
        if obj is None:
            continue
        if inspect.isclass(obj):
            init = getattr(obj, "__init__", None)
            docs = described(init.__doc__) if inspect.isfunction(init) else {}
            for k, v in described(obj.__dict__.get("__doc__")).items():
                docs.setdefault(k, v)
        else:
            raw = getattr(obj, "__func__", obj)
            if isinstance(raw, property):
                continue
            docs = described(getattr(raw, "__doc__", None))
        result[name] = docs
    json.dump(result, open(args.out, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
