#!/usr/bin/env python3
"""Runtime oracle for refgraph's Python extractor.

Imports an installed release and lists every public class, function and class member with its
signature, as the interpreter itself sees them (``inspect``).  Default values are reported as the
text written in the source (read back with ``ast``) so they can be compared with what a static
extractor reads from the same files.  Standard library only; meant for Python 3.11:

    python3 -S tests/oracle/py_inspect.py --path SITE_DIR [--path DEPS_DIR ...] \
        --import ROOT --out OUT.json

``-S`` keeps the interpreter's own site-packages out of the picture: only the stdlib and the
--path directories are importable.

What counts as public
---------------------
* Modules: ROOT, then (breadth-first) every module attribute of a walked module that is one of
  its submodules, and for packages every submodule reported by ``pkgutil.iter_modules``.  A module
  is skipped when a component of its dotted name starts with "_" or is a test module (test, tests,
  testing, conftest, test_*).  Submodules that fail to import go to "import_failures".  At most
  500 modules are walked.
* Members of a module: the names of ``__all__`` (when it is a list or tuple); packages also
  contribute every non-underscore attribute whose ``__module__`` lies inside ROOT; plain modules
  without ``__all__`` contribute the non-underscore attributes they define themselves
  (``__module__`` equal to the module's name).  Only classes and plain Python functions whose
  ``__module__`` lies inside ROOT are kept.
* The same object reached through several paths is one symbol: all its paths are "aliases" and
  the canonical name is the shortest one (fewest dots, then a last component equal to the
  object's ``__name__``, then the shorter string, then alphabetical order).
* Class members: walking the MRO up to (not including) ``object``, the first class that defines a
  name owns it.  Public names whose raw attribute is a function, classmethod, staticmethod or
  property, owned by a class whose ``__module__`` lies inside ROOT, are listed as CANON.name
  (with ``inherited_from`` when the owner is a base class).
* A class has "params" (those of ``inspect.signature(cls)``) only when the ``__init__`` it
  resolves through its MRO is a Python function defined inside ROOT.

"line" is the line of the ``def`` / ``class`` keyword (not of a decorator); "file" is relative
to the --path directory that holds it.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import os
import pkgutil
import re
import sys
import tokenize
import types
import warnings

MAX_MODULES = 500
TEST_NAMES = frozenset({"test", "tests", "testing", "conftest"})
ADDRESS_RE = re.compile(r" at 0x[0-9a-fA-F]+")
LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")

PARAM_KIND = {
    inspect.Parameter.POSITIONAL_ONLY: "positional_only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
    inspect.Parameter.VAR_POSITIONAL: "var_positional",
    inspect.Parameter.KEYWORD_ONLY: "keyword_only",
    inspect.Parameter.VAR_KEYWORD: "var_keyword",
}
POSITIONAL_KINDS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
VARIADIC_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def describe_error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    text = ADDRESS_RE.sub("", text)
    return text if len(text) <= 400 else text[:400] + "..."


# --------------------------------------------------------------------------------------------
# Source files: parsed once, used for default-value text and def/class line numbers.
# --------------------------------------------------------------------------------------------
class SourceIndex:
    def __init__(self, roots: list[str]):
        self.roots = roots  # real paths of the --path directories, in command-line order
        self._parsed: dict[str, tuple[str, ast.Module] | None] = {}
        self._defs: dict[str, dict[str, list]] = {}  # file -> def name -> FunctionDef nodes
        self._lines: dict[int, tuple[str, list[str]]] = {}  # id(source text) -> its lines

    def parsed(self, filename: str | None):
        if not filename:
            return None
        if filename not in self._parsed:
            try:
                with tokenize.open(filename) as fh:  # honours PEP 263 encoding cookies
                    text = fh.read()
                self._parsed[filename] = (text, ast.parse(text, filename))
            except Exception:
                self._parsed[filename] = None
        return self._parsed[filename]

    def segment(self, text: str, node: ast.AST):
        """Source text of ``node``: ast.get_source_segment, with the file's lines split once."""
        lines = self._lines.get(id(text))
        if lines is None or lines[0] is not text:
            # same line splitting as the tokenizer/ast: only \r\n, \r and \n end a line
            lines = (text, LINE_RE.findall(text))
            self._lines[id(text)] = lines
        lines = lines[1]
        try:
            first, last = node.lineno - 1, node.end_lineno - 1
            start, end = node.col_offset, node.end_col_offset
        except AttributeError:
            return None
        if end is None or last >= len(lines):
            return None
        # column offsets are UTF-8 byte offsets
        if first == last:
            return lines[first].encode()[start:end].decode()
        head = lines[first].encode()[start:].decode()
        tail = lines[last].encode()[:end].decode()
        return "".join([head, *lines[first + 1:last], tail])

    def relative(self, filename: str) -> str:
        real = os.path.realpath(filename)
        for root in self.roots:
            if real == root or real.startswith(root + os.sep):
                return os.path.relpath(real, root).replace(os.sep, "/")
        return real

    def function_node(self, func):
        """(source text, FunctionDef/AsyncFunctionDef) defining ``func``'s code, or None."""
        code = getattr(func, "__code__", None)
        if code is None:
            return None
        parsed = self.parsed(code.co_filename)
        if parsed is None:
            return None
        text, tree = parsed
        by_name = self._defs.get(code.co_filename)
        if by_name is None:
            by_name = {}
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    by_name.setdefault(node.name, []).append(node)
            self._defs[code.co_filename] = by_name
        for node in by_name.get(code.co_name, ()):
            starts = {node.lineno, *(d.lineno for d in node.decorator_list)}
            if code.co_firstlineno in starts:
                return text, node
        return None

    def class_line(self, cls):
        """(file, line of the ``class`` keyword) for ``cls``, or None."""
        module = sys.modules.get(getattr(cls, "__module__", None) or "")
        filename = getattr(module, "__file__", None)
        parsed = self.parsed(filename)
        if parsed is not None:
            wanted = cls.__qualname__
            hits: list[int] = []

            def visit(body, prefix):
                for node in body:
                    if isinstance(node, ast.ClassDef):
                        qual = prefix + node.name
                        if qual == wanted:
                            hits.append(node.lineno)
                        visit(node.body, qual + ".")
                    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        visit(node.body, prefix + node.name + ".<locals>.")
                    else:
                        # class statements nested in if/try/with/for blocks at the same scope
                        for field in ("body", "orelse", "finalbody", "handlers"):
                            sub = getattr(node, field, None)
                            if isinstance(sub, list):
                                visit(sub, prefix)
                        for case in getattr(node, "cases", ()) or ():
                            visit(case.body, prefix)

            visit(parsed[1].body, "")
            if hits:
                return filename, hits[0]
        try:
            return inspect.getsourcefile(cls), inspect.getsourcelines(cls)[1]
        except Exception:
            return None

    def function_line(self, func):
        code = getattr(func, "__code__", None)
        if code is None:
            return None
        found = self.function_node(func)
        line = found[1].lineno if found else code.co_firstlineno
        return code.co_filename, line


def unwrap(func):
    try:
        return inspect.unwrap(func)
    except Exception:
        return func


def ast_parameters(node: ast.FunctionDef | ast.AsyncFunctionDef, drop_receiver: bool):
    """[(name, default expression node or None)] in signature order."""
    args = node.args
    positional = list(args.posonlyargs) + list(args.args)
    first_default = len(positional) - len(args.defaults)
    out = []
    for index, arg in enumerate(positional):
        out.append((arg.arg, args.defaults[index - first_default] if index >= first_default else None))
    if drop_receiver and out:
        out = out[1:]
    if args.vararg is not None:
        out.append((args.vararg.arg, None))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        out.append((arg.arg, default))
    if args.kwarg is not None:
        out.append((args.kwarg.arg, None))
    return out


def same_parameter_name(written: str, runtime: str) -> bool:
    """``written`` (as in the source) names the same parameter as ``runtime`` (as inspect sees it).

    Inside a class body the compiler mangles ``__name`` parameters to ``_Class__name``, so
    ``def invoke(__self, __callback)`` in class Context is seen as ``_Context__callback``.
    """
    if written == runtime:
        return True
    return (written.startswith("__") and not written.endswith("__")
            and runtime.endswith(written) and len(runtime) > len(written) + 1
            and runtime[0] == "_" and runtime[1] != "_")


def build_params(signature: inspect.Signature, drop_receiver: bool, ast_func, ast_drop_receiver: bool,
                 sources: SourceIndex):
    parameters = list(signature.parameters.values())
    if drop_receiver and parameters and parameters[0].kind in POSITIONAL_KINDS:
        parameters = parameters[1:]

    source_defaults = None
    if ast_func is not None:
        found = sources.function_node(ast_func)
        if found is not None:
            text, node = found
            from_ast = ast_parameters(node, ast_drop_receiver)
            if len(from_ast) == len(parameters) and all(
                    same_parameter_name(written, p.name) for (written, _), p in zip(from_ast, parameters)):
                source_defaults = []
                for _, expr in from_ast:
                    if expr is None:
                        source_defaults.append(None)
                    else:
                        segment = sources.segment(text, expr)
                        source_defaults.append(segment if segment is not None else ast.unparse(expr))

    result = []
    for index, param in enumerate(parameters):
        entry = {
            "name": param.name,
            "kind": PARAM_KIND[param.kind],
            "required": param.default is inspect.Parameter.empty and param.kind not in VARIADIC_KINDS,
        }
        if param.default is not inspect.Parameter.empty:
            text = source_defaults[index] if source_defaults is not None else None
            if text is not None:
                entry["default"] = text
            else:
                try:
                    entry["default"] = ADDRESS_RE.sub("", repr(param.default))
                except Exception:
                    entry["default"] = "<unrepresentable>"
                entry["default_from"] = "repr"
        result.append(entry)
    return result


# --------------------------------------------------------------------------------------------
# The walk.
# --------------------------------------------------------------------------------------------
class Oracle:
    def __init__(self, root_name: str, sources: SourceIndex):
        self.root_name = root_name
        self.sources = sources
        self.modules: dict[str, types.ModuleType] = {}
        self.import_failures: dict[str, str] = {}
        self.errors: dict[str, str] = {}
        self.paths_of: dict[int, list[str]] = {}   # id(obj) -> public paths
        self.objects: dict[int, object] = {}        # keeps the objects (and their ids) alive
        self.symbols: dict[str, dict] = {}

    # -- predicates ---------------------------------------------------------------------------
    def inside(self, module_name) -> bool:
        return isinstance(module_name, str) and (
            module_name == self.root_name or module_name.startswith(self.root_name + "."))

    @staticmethod
    def public_module_name(dotted: str) -> bool:
        for part in dotted.split("."):
            if part.startswith("_") or part in TEST_NAMES or part.startswith("test_"):
                return False
        return True

    # -- modules ------------------------------------------------------------------------------
    def walk(self, root: types.ModuleType):
        self.modules[root.__name__] = root
        queue = [root]
        while queue:
            module = queue.pop(0)
            for child in self.child_modules(module):
                if child.__name__ in self.modules:
                    continue
                if len(self.modules) >= MAX_MODULES:
                    self.errors.setdefault("<walk>", f"module cap of {MAX_MODULES} reached")
                    break
                self.modules[child.__name__] = child
                queue.append(child)
            self.collect_members(module)

    def child_modules(self, module: types.ModuleType):
        prefix = module.__name__ + "."
        found: dict[str, types.ModuleType] = {}
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            try:
                value = getattr(module, name)
            except Exception:
                continue
            if isinstance(value, types.ModuleType):
                full = getattr(value, "__name__", None)
                if isinstance(full, str) and full.startswith(prefix) and self.public_module_name(full):
                    found.setdefault(full, value)
        path = getattr(module, "__path__", None)
        if path is not None:
            try:
                infos = sorted(pkgutil.iter_modules(path), key=lambda i: i.name)
            except Exception as exc:
                self.errors[module.__name__ + ".<iter_modules>"] = describe_error(exc)
                infos = []
            for info in infos:
                full = prefix + info.name
                if full in found or full in self.modules or not self.public_module_name(full):
                    continue
                try:
                    found[full] = importlib.import_module(full)
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # missing optional deps, SystemExit, ...
                    self.import_failures[full] = describe_error(exc)
        return [found[name] for name in sorted(found)]

    def collect_members(self, module: types.ModuleType):
        modname = module.__name__
        is_package = hasattr(module, "__path__")
        names: set[str] = set()
        try:
            declared = getattr(module, "__all__", None)
        except Exception:
            declared = None
        has_all = isinstance(declared, (list, tuple))
        if has_all:
            names.update(n for n in declared if isinstance(n, str))
        if is_package or not has_all:
            for name in dir(module):
                if name.startswith("_") or name in names:
                    continue
                try:
                    owner = getattr(getattr(module, name), "__module__", None)
                except Exception:
                    continue
                if (is_package and self.inside(owner)) or (not is_package and owner == modname):
                    names.add(name)
        for name in sorted(names):
            if name.startswith("_"):
                continue
            path = f"{modname}.{name}"
            try:
                value = getattr(module, name)
            except Exception as exc:
                self.errors[path] = describe_error(exc)
                continue
            try:
                wanted = (inspect.isclass(value) or inspect.isfunction(value)) and \
                    self.inside(getattr(value, "__module__", None))
            except Exception as exc:
                self.errors[path] = describe_error(exc)
                continue
            if wanted:
                self.objects[id(value)] = value
                self.paths_of.setdefault(id(value), []).append(path)

    # -- symbols ------------------------------------------------------------------------------
    @staticmethod
    def canonical(obj, paths):
        own = getattr(obj, "__name__", None)
        return min(paths, key=lambda p: (p.count("."), p.rsplit(".", 1)[-1] != own, len(p), p))

    def locate(self, entry: dict, where):
        if where and where[0]:
            entry["file"] = self.sources.relative(where[0])
            entry["line"] = where[1]

    def add_symbol(self, key: str, entry: dict):
        if key in self.symbols:
            self.errors[key] = "duplicate symbol name; first one kept"
            return
        self.symbols[key] = entry

    def build(self):
        for oid in sorted(self.paths_of, key=lambda i: min(self.paths_of[i])):
            obj = self.objects[oid]
            aliases = sorted(set(self.paths_of[oid]))
            canon = self.canonical(obj, aliases)
            try:
                if inspect.isclass(obj):
                    self.add_class(obj, canon, aliases)
                else:
                    self.add_function(obj, canon, aliases)
            except Exception as exc:
                self.errors[canon] = describe_error(exc)

    def add_function(self, func, canon, aliases):
        entry = {"kind": "function", "aliases": aliases}
        inner = unwrap(func)
        entry["async"] = inspect.iscoroutinefunction(inner)
        try:
            entry["params"] = build_params(inspect.signature(func), False, inner, False, self.sources)
        except Exception as exc:
            self.errors[canon] = describe_error(exc)
        self.locate(entry, self.sources.function_line(inner))
        self.add_symbol(canon, entry)

    def add_class(self, cls, canon, aliases):
        entry = {"kind": "class", "aliases": aliases}
        init = None
        for base in cls.__mro__:
            if "__init__" in vars(base):
                init = vars(base)["__init__"]
                break
        if inspect.isfunction(init) and self.inside(getattr(init, "__module__", None)):
            try:
                entry["params"] = build_params(inspect.signature(cls), False, unwrap(init), True, self.sources)
            except Exception as exc:
                entry["params_reason"] = "signature failed: " + describe_error(exc)
        else:
            entry["params_reason"] = "constructor not defined in package"
        try:
            self.locate(entry, self.sources.class_line(cls))
        except Exception as exc:
            self.errors[canon + ".<location>"] = describe_error(exc)
        self.add_symbol(canon, entry)

        claimed: set[str] = set()
        for owner in cls.__mro__:
            if owner is object:
                break
            for name, raw in list(vars(owner).items()):
                if name in claimed:
                    continue
                claimed.add(name)  # first definer wins, whatever it defines
                if name.startswith("_"):
                    continue
                key = f"{canon}.{name}"
                try:
                    self.add_member(cls, owner, name, raw, key, aliases)
                except Exception as exc:
                    self.errors[key] = describe_error(exc)

    def add_member(self, cls, owner, name, raw, key, class_aliases):
        if not self.inside(getattr(owner, "__module__", None)):
            return
        if isinstance(raw, property):
            kind, func = "property", raw.fget
        elif isinstance(raw, classmethod):
            kind, func = "classmethod", raw.__func__
        elif isinstance(raw, staticmethod):
            kind, func = "staticmethod", raw.__func__
        elif inspect.isfunction(raw):
            kind, func = "method", raw
        else:
            return
        entry = {"kind": kind, "aliases": sorted(f"{alias}.{name}" for alias in class_aliases)}
        if owner is not cls:
            entry["inherited_from"] = f"{owner.__module__}.{owner.__qualname__}"
        inner = unwrap(func) if func is not None else None
        if kind != "property":
            entry["async"] = inspect.iscoroutinefunction(inner)
            receiver = kind != "staticmethod"
            try:
                entry["params"] = build_params(inspect.signature(func), receiver, inner, receiver, self.sources)
            except Exception as exc:
                self.errors[key] = describe_error(exc)
        if inner is not None:
            self.locate(entry, self.sources.function_line(inner))
        self.add_symbol(key, entry)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", action="append", required=True,
                        help="directory to put first on sys.path (repeatable; first one wins)")
    parser.add_argument("--import", dest="root", required=True, help="top-level module to import")
    parser.add_argument("--out", required=True, help="JSON file to write")
    args = parser.parse_args(argv)

    roots = [os.path.realpath(p) for p in args.path]
    sys.path[:0] = roots
    warnings.simplefilter("ignore")
    sys.dont_write_bytecode = True  # leave the installed release untouched

    sources = SourceIndex(roots)
    oracle = Oracle(args.root, sources)
    status = 0
    try:
        root = importlib.import_module(args.root)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        oracle.import_failures[args.root] = describe_error(exc)
        root = None
        status = 1
    if root is not None:
        oracle.walk(root)
        oracle.build()

    report = {
        "import_root": args.root,
        "python": sys.version.split()[0],
        "modules": sorted(oracle.modules),
        "import_failures": oracle.import_failures,
        "errors": oracle.errors,
        "symbols": oracle.symbols,
    }
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1, sort_keys=True, ensure_ascii=False)
        fh.write("\n")

    counts: dict[str, int] = {}
    for sym in oracle.symbols.values():
        counts[sym["kind"]] = counts.get(sym["kind"], 0) + 1
    print(f"{args.root}: {len(oracle.modules)} modules, {len(oracle.symbols)} symbols "
          f"{dict(sorted(counts.items()))}, {len(oracle.import_failures)} import failures, "
          f"{len(oracle.errors)} errors", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
