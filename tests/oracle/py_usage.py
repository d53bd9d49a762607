#!/usr/bin/env python3
"""Oracle for refgraph's usage paths: runs each path's attribute chain on the installed release.

Reads a JSON list of cases on stdin and prints one JSON object {id: "ok" | reason}. A case is

    {"id": "...", "module": "stripe", "name": "StripeClient" (dotted: "Client.from_env"),
     "root": "construct" | "call" | "class",
     "args": [{"name": "api_key", "kind": "positional_or_keyword"}, ...],
     "chain": [{"name": "customers", "call": false}, ..., {"name": "create", "call": true}]}

"construct" builds an instance of the imported class and "class" uses the class object itself
(class and static methods). "call" is a factory: it is checked to be callable but not called
(it may send a request); the chain runs on an instance of the class it returns, given as
"instance_of": {"module", "name", "args"} and built like a "construct" root. Required
arguments get a dummy string ("sk_test_refgraph"), keyword-only ones by keyword. The chain is followed with
getattr; a step marked "call" must be callable, and only the last step may be one (nothing is
called: no request leaves the machine). Standard library only:

    python3 -S tests/oracle/py_usage.py --path SITE_DIR < cases.json
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

DUMMY = "sk_test_refgraph"


def lookup(obj, dotted: str):
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return None
        obj = getattr(obj, part)
    return obj


def construct(cls, name: str, params):
    args, kwargs = [], {}
    for a in params:
        if a["kind"] == "keyword_only":
            kwargs[a["name"]] = DUMMY
        elif a["kind"] in ("positional_only", "positional_or_keyword"):
            args.append(DUMMY)
    try:
        return cls(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 - the reason is the answer
        return None, f"{name}(...) raised {type(e).__name__}: {e}"


def check(case) -> str:
    try:
        module = importlib.import_module(case["module"])
    except Exception as e:  # noqa: BLE001 - the reason is the answer
        return f"import {case['module']} failed: {type(e).__name__}: {e}"
    obj = lookup(module, case["name"])
    if obj is None:
        return f"{case['module']} has no attribute {case['name']}"
    root = case["root"]
    if root == "call":
        if not callable(obj):
            return f"{case['name']} is not callable"
        spec = case["instance_of"]
        try:
            cls = lookup(importlib.import_module(spec["module"]), spec["name"])
        except Exception as e:  # noqa: BLE001
            return f"import {spec['module']} failed: {type(e).__name__}: {e}"
        if cls is None:
            return f"{spec['module']} has no attribute {spec['name']}"
        obj, err = construct(cls, spec["name"], spec.get("args", []))
        if err:
            return err
    elif root == "construct":
        obj, err = construct(obj, case["name"], case.get("args", []))
        if err:
            return err
    chain = case["chain"]
    for i, step in enumerate(chain):
        name = step["name"]
        try:
            nxt = getattr(obj, name)
        except AttributeError:
            return f"{type(obj).__name__} has no attribute {name!r} (step {i + 1})"
        except Exception as e:  # noqa: BLE001 - a property that fails offline
            return f"reading {name!r} raised {type(e).__name__}: {e}"
        if step.get("call"):
            if not callable(nxt):
                return f"{name!r} is not callable"
            if i != len(chain) - 1:
                return f"{name!r} must be called mid-chain; not checked offline"
        obj = nxt
    return "ok"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--path", action="append", default=[])
    opts = ap.parse_args()
    for p in reversed(opts.path):
        sys.path.insert(0, p)
    os.environ.setdefault("OPENAI_API_KEY", DUMMY)
    cases = json.load(sys.stdin)
    print(json.dumps({c["id"]: check(c) for c in cases}))


if __name__ == "__main__":
    main()
