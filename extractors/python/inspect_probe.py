"""refgraph's run-time probe: imports the modules it is given and says what each binds.

refgraph runs this file inside its sandbox (src/inspect.rs), never outside it:

    python -I -S -B inspect_probe.py CONFIG.json

CONFIG holds `paths` (put first on sys.path: the release's source tree, or the folder its
wheel and dependencies were installed into), `modules` (dotted names, imported in order) and
`limits` (`memory_bytes`, `cpu_seconds`, `processes`, `file_bytes`), which are set before any
package code runs and bind every process it starts.

Output, one JSON object per line on the descriptor that was stdout when the probe started
(package code that prints goes to stderr instead), each line prefixed with `@@refgraph `:
  {"python": "3.11.7", "implementation": "CPython", "platform": "linux-x86_64"}
  {"begin": MODULE}
  {"done": MODULE, "ok": true, "names": {NAME: INFO}}
  {"done": MODULE, "ok": false, "error": "ImportError: ..."}
INFO: {"id": id() of the object (the same object bound under two names has one),
"kind": "module"|"class"|"function"|"value", "home": where it is defined
("pkg.mod.Class", or the module's own name for a module), "type": the type of a value,
"signature": "(a, b=1)", "params": [{name, kind, annotation, default}], "returns",
"doc", "file", "line"}; a field that cannot be had is left out.
"""

import importlib
import inspect
import json
import os
import platform
import resource
import sys
import types
import warnings

PREFIX = "@@refgraph "
MAX_DOC = 4000
MAX_NAMES = 20000


def limit(config):
    lim = config.get("limits", {})
    pairs = [
        (resource.RLIMIT_AS, lim.get("memory_bytes")),
        (resource.RLIMIT_CPU, lim.get("cpu_seconds")),
        (resource.RLIMIT_NPROC, lim.get("processes")),
        (resource.RLIMIT_FSIZE, lim.get("file_bytes")),
        (resource.RLIMIT_CORE, 0),
    ]
    for which, value in pairs:
        if value is not None:
            # CPU time: SIGXCPU at the limit, SIGKILL a second later if that is caught.
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))


def text(value, cap=400):
    try:
        s = value if isinstance(value, str) else repr(value)
    except BaseException:
        return None
    return s if len(s) <= cap else s[:cap] + "..."


def annotation(a):
    if a is inspect.Parameter.empty:
        return None
    try:
        return inspect.formatannotation(a)
    except BaseException:
        return None


def signature(obj, info):
    try:
        sig = inspect.signature(obj)
    except BaseException:
        return
    info["signature"] = text(str(sig), 2000)
    params = []
    for p in sig.parameters.values():
        item = {"name": p.name, "kind": p.kind.name.lower()}
        ann = annotation(p.annotation)
        if ann is not None:
            item["annotation"] = ann
        if p.default is not inspect.Parameter.empty:
            item["default"] = text(p.default, 200)
        params.append(item)
    info["params"] = params
    ret = annotation(sig.return_annotation)
    if ret is not None:
        info["returns"] = ret


def source(obj, info):
    try:
        file = inspect.getsourcefile(obj)
        if file:
            info["file"] = os.path.realpath(file)
            info["line"] = inspect.getsourcelines(obj)[1]
    except BaseException:
        pass


def describe(obj):
    info = {"id": id(obj)}
    if isinstance(obj, types.ModuleType):
        info["kind"] = "module"
        info["home"] = text(getattr(obj, "__name__", None))
        return info
    if inspect.isclass(obj):
        info["kind"] = "class"
    elif inspect.isroutine(obj):
        info["kind"] = "function"
    else:
        info["kind"] = "value"
        t = type(obj)
        info["type"] = text(f"{t.__module__}.{t.__qualname__}")
        return info
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str):
        info["home"] = f"{module}.{qualname}"
    signature(obj, info)
    try:
        doc = inspect.getdoc(obj)
        if doc:
            info["doc"] = doc[:MAX_DOC]
    except BaseException:
        pass
    source(obj, info)
    return info


def names_of(mod):
    """Every public name the module binds, and the entries of its `__all__`."""
    try:
        names = [n for n in dir(mod) if isinstance(n, str) and not n.startswith("_")]
    except BaseException:
        names = []
    all_ = getattr(mod, "__all__", None)
    if isinstance(all_, (list, tuple)):
        names += [n for n in all_ if isinstance(n, str)]
    out = {}
    for n in names[:MAX_NAMES]:
        if n in out:
            continue
        try:
            obj = getattr(mod, n)
        except BaseException:
            continue
        try:
            out[n] = describe(obj)
        except BaseException:
            out[n] = {"kind": "value"}
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    # Our own channel: a copy of stdout; package code that prints writes to stderr.
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def say(obj):
        channel.write(PREFIX + json.dumps(obj) + "\n")
        channel.flush()

    limit(config)
    sys.path[:0] = config.get("paths", [])
    warnings.simplefilter("ignore")
    say(
        {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "platform": f"{sys.platform}-{platform.machine()}",
        }
    )
    for name in config.get("modules", []):
        say({"begin": name})
        try:
            mod = importlib.import_module(name)
        except BaseException as e:  # SystemExit, MemoryError, ImportError: all reported
            say({"done": name, "ok": False, "error": text(f"{type(e).__name__}: {e}", 500)})
            continue
        say({"done": name, "ok": True, "names": names_of(mod)})
    channel.close()
    os._exit(0)


if __name__ == "__main__":
    main()
