#!/usr/bin/env python3
"""Independent oracle for the HTTP requests of Python function bodies: Python's own `ast`.

    python3 py_requests.py ROOT > calls.json

For every function (any depth) of every .py file under ROOT, every call in its body (nested
functions included) that sends a request by the rules of src/extract/requests.rs, written
again here from their statement, not from the Rust code:
- a callee named like an HTTP method (`_post`, `get`, `_get_api_list`) with a path literal
  first;
- a string argument that is an HTTP method followed by a path literal;
- keywords `method=` and `path=`/`url=`/`uri=`.
A path literal is a str, an f-string, `"...".format(...)`, `"..." % x` or `"..." + x`; it
starts with `/`. Output: [file, def_line, call_line, key] rows, key like `POST /v1/x/{}`;
def_line is the first decorator's line when there is one (where refgraph puts a def).
"""
import ast
import json
import os
import re
import sys

METHODS = {"get", "post", "put", "patch", "delete", "head", "options"}


def template(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            else:
                out.append("{x}")
        return "".join(out)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"):
        return template(node.func.value)
    if isinstance(node, ast.BinOp):
        left = template(node.left)
        if left is None:
            return None
        if isinstance(node.op, ast.Mod):
            return left
        if isinstance(node.op, ast.Add):
            return left + "{x}"
    return None


def path_key(text):
    if text is None:
        return None
    text = re.split(r"[?#]", text)[0]
    if (not text.startswith("/") or text.startswith("//") or "://" in text
            or re.search(r"\s", text) or not re.search(r"[A-Za-z]", text)):
        return None
    text = re.sub(r"%\([^)]*\)[a-z]", "{x}", text)
    text = re.sub(r"%[a-zA-Z]", "{x}", text)
    text = text.replace("${", "{")
    depth = 0
    for c in text:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            return None
    if depth:
        return None
    return re.sub(r"\{[^{}]*\}", "{}", text)


def callee_method(name):
    n = name.lstrip("_").lower()
    if n in METHODS:
        return n.upper()
    if n in ("get_api_list", "getapilist"):
        return "GET"
    return None


def request(call):
    f = call.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
    if name is None:
        return None
    positional = [template(a) for a in call.args]
    keywords = {k.arg: template(k.value) for k in call.keywords if k.arg}
    first_path_kw = next((k.arg for k in call.keywords if k.arg in ("path", "url", "uri")), None)
    path_kw = path_key(keywords[first_path_kw]) if first_path_kw else None
    m = callee_method(name)
    if m:
        p = path_key(positional[0]) if positional else None
        p = p or path_kw
        if p:
            return f"{m} {p}"
    for a, b in zip(positional, positional[1:]):
        if a is not None and a.lower() in METHODS and path_key(b):
            return f"{a.upper()} {path_key(b)}"
    m = keywords.get("method")
    if m is not None and m.lower() in METHODS:
        p = path_kw or (path_key(positional[0]) if positional else None)
        if p:
            return f"{m.upper()} {p}"
    return None


def main():
    root = sys.argv[1]
    rows = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".py"):
                continue
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            try:
                tree = ast.parse(open(full, "rb").read())
            except (SyntaxError, ValueError):
                continue
            for fn in ast.walk(tree):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                def_line = min([d.lineno for d in fn.decorator_list] + [fn.lineno])
                for stmt in fn.body:
                    for node in ast.walk(stmt):
                        if isinstance(node, ast.Call):
                            key = request(node)
                            if key:
                                rows.append([rel, def_line, node.lineno, key])
    json.dump(rows, sys.stdout)


main()
