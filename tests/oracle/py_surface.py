#!/usr/bin/env python3
"""Run-time oracle of a release's public surface: what Python itself can reach by name.

Run with `python3 -S` and `--path` pointing at a folder where the release and its dependencies
were installed (`uv pip install --target`), so nothing else is importable.

  walk:   print the public names of the import root and its public submodules, as JSON
          {"modules": [...], "names": {qualified_name: kind}, "failed": {module: error}}
  install: install `--spec name==version` with its dependencies into `--target` with uv, each
          dependency at its newest version uploaded before the release's own upload (+2 days),
          or before `--floor` when that is later (the oldest date with CPython 3.11 wheels for
          the compiled dependencies). Run without -S: it only downloads.
  check:  read dotted names (one per line, each optionally followed by tab-separated fields:
          the file that defines it, then the module and test of an optional-dependency guard
          refgraph reports) on stdin and print {name: true|false|"needs X"}: whether `import`
          plus attribute access reaches each at run time; "needs X" when it does not and either
          the guard's test, run in its module, fails here, or its file cannot be imported
          without X, a dependency outside the release that was not installed (an optional
          one), so the oracle cannot tell.

What `walk` calls public (the definition the surface test in tests/it/surface_oracle.rs holds
refgraph to):
  * modules: the import root and, breadth first, every submodule found by pkgutil whose dotted
    name has no component starting with "_" and that is not a test module; a module whose import
    fails is left out (and reported under "failed");
  * names of a walked module: every entry of `__all__` that resolves, when `__all__` is a list or
    tuple of strings; else every attribute in `dir(module)` (taken right after the import, so a
    lazy module's `__dir__` counts) not starting with "_" that is a class, a function or a module
    defined inside the import root. An attribute that raises on access is left out;
  * names through an alias: an attribute of the import root that is one of its modules under
    another name (`networkx.community` is `networkx.algorithms.community`, bound by a star
    import) gives that module's names under the alias's path too, one level deep.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import pkgutil
import sys
import types
import warnings

TESTS = ("test", "tests", "testing", "conftest")


def is_test(part: str) -> bool:
    return part in TESTS or part.startswith("test_")


def inside(root: str, name) -> bool:
    return isinstance(name, str) and (name == root or name.startswith(root + "."))


def kind_of(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "value"


def members(mod, root: str) -> dict[str, str]:
    out: dict[str, str] = {}
    all_ = getattr(mod, "__all__", None)
    explicit = isinstance(all_, (list, tuple)) and all(isinstance(n, str) for n in all_)
    names = list(all_) if explicit else [n for n in dir(mod) if not n.startswith("_")]
    for n in names:
        try:
            obj = getattr(mod, n)
        except Exception:  # a broken __all__ entry, a lazy import that fails: not reachable
            continue
        kind = kind_of(obj)
        if not explicit:
            if kind == "value":
                continue
            home = obj.__name__ if kind == "module" else getattr(obj, "__module__", None)
            if not inside(root, home):
                continue
        out[f"{mod.__name__}.{n}"] = kind
    return out


def walk(root: str, max_modules: int) -> dict:
    names: dict[str, str] = {}
    failed: dict[str, str] = {}
    walked: list[str] = []
    aliases: list[tuple[str, object]] = []
    queue = [root]
    seen = {root}
    while queue and len(walked) < max_modules:
        modname = queue.pop(0)
        try:
            mod = importlib.import_module(modname)
        except BaseException as e:  # SystemExit, ImportError of an optional dependency, ...
            failed[modname] = f"{type(e).__name__}: {e}"[:200]
            continue
        walked.append(modname)
        found = members(mod, root)
        names.update(found)
        for path, kind in found.items():
            if kind == "module" and modname == root:
                aliases.append((path, getattr(mod, path.rsplit(".", 1)[1], None)))
        for info in pkgutil.iter_modules(getattr(mod, "__path__", None) or []):
            sub = f"{modname}.{info.name}"
            if info.name.startswith("_") or is_test(info.name) or sub in seen:
                continue
            seen.add(sub)
            queue.append(sub)
    for m in walked:
        names.setdefault(m, "module")
    for path, target in aliases:
        if not isinstance(target, types.ModuleType) or target.__name__ == path:
            continue
        for name, kind in members(target, root).items():
            names.setdefault(f"{path}.{name.rsplit('.', 1)[1]}", kind)
    return {"modules": walked, "names": names, "failed": failed}


def needs(file: str, root: str):
    """The dependency outside the release that the module in `file` cannot be imported
    without (an optional one the install left out: torch for transformers' models), if any."""
    stem = file.rsplit(".", 1)[0].replace("/", ".")
    module = stem[: -len(".__init__")] if stem.endswith(".__init__") else stem
    try:
        importlib.import_module(module)
    except ImportError as e:
        missing = getattr(e, "name", None)
        if missing and not inside(root.split(".")[0], missing):
            return missing
    except BaseException:
        return None
    return None


def check(line: str, root: str):
    name, file, module, test = (line.split("\t") + ["", "", ""])[:4]
    if reachable(name):
        return True
    if module and test and not guard_passes(module, test):
        return f"needs {test}"
    missing = needs(file, root) if file else None
    return f"needs {missing}" if missing else False


def guard_passes(module: str, test: str) -> bool:
    """Whether the optional-dependency test a module makes (`is_torch_available()`), run in
    that module's namespace, passes here; a test that cannot run counts as passing, so the
    name is then held to being reachable."""
    try:
        namespace = dict(vars(importlib.import_module(module)))
        # A lazy module (`sys.modules[__name__] = _LazyModule(...)`) has lost its own
        # imports: take each name the test uses from a loaded module of the same package.
        root = module.split(".")[0]
        for name in compile(test, "<guard>", "eval").co_names:
            if name in namespace:
                continue
            for loaded, mod in list(sys.modules.items()):
                # The module's own dict: no lazy `__getattr__` runs.
                found = getattr(mod, "__dict__", {}).get(name) if inside(root, loaded) else None
                if found is not None:
                    namespace[name] = found
                    break
        return bool(eval(test, namespace))
    except BaseException:
        return True


def reachable(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except BaseException:
            continue
        try:
            for p in parts[i:]:
                obj = getattr(obj, p)
        except BaseException:
            return False
        return True
    return False


def install(uv: str, target: str, spec: str, floor: str) -> None:
    import datetime
    import subprocess
    import urllib.request

    name, version = spec.split("==")
    with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=60) as r:
        files = json.load(r)["releases"][version]
    uploaded = min(datetime.date.fromisoformat(f["upload_time"][:10]) for f in files)
    era = max(uploaded + datetime.timedelta(days=2), datetime.date.fromisoformat(floor))
    cmd = [uv, "pip", "install", "--quiet", "--python", sys.executable, "--target", target,
           "--exclude-newer", era.isoformat(), spec]
    subprocess.run(cmd, check=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["walk", "check", "install"])
    ap.add_argument("--path", action="append", default=[])
    ap.add_argument("--uv")
    ap.add_argument("--target")
    ap.add_argument("--spec")
    ap.add_argument("--floor", default="2023-01-01")
    ap.add_argument("--import", dest="imp")
    ap.add_argument("--max-modules", type=int, default=300)
    args = ap.parse_args()
    if args.mode == "install":
        install(args.uv, args.target, args.spec, args.floor)
        return
    for p in reversed(args.path):
        sys.path.insert(0, p)
    warnings.simplefilter("ignore")
    out_stream, sys.stdout = sys.stdout, sys.stderr  # what imports print is not the answer
    if args.mode == "walk":
        out = walk(args.imp, args.max_modules)
    else:
        lines = [line for line in sys.stdin.read().splitlines() if line.strip()]
        out = {line.partition("\t")[0]: check(line, args.imp or line.split(".")[0]) for line in lines}
    json.dump(out, out_stream, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
