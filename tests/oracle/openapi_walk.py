#!/usr/bin/env python3
"""Independent oracle for the OpenAPI test: a plain JSON/YAML walk of one spec file.

  python3 tests/oracle/openapi_walk.py SPEC OUT.json

No OpenAPI library: the document is read with json or PyYAML and walked by hand. Per
operation it writes method, path, operationId, the parameters (path-level merged with
operation-level, the operation-level one winning on the same (name, in); local $refs
followed) with name / in / required, and the request body: required, media types and the
top-level {name: required} of the body schema of application/json (else the first JSON media
type, else the first one) when that schema is an object with properties (allOf parts merged);
null when it is an array, a oneOf/anyOf or free form.
"""
import json
import sys

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def load(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if text.lstrip().startswith(("{", "[")):
        return json.loads(text)
    import yaml

    return yaml.safe_load(text)


class Doc:
    def __init__(self, doc):
        self.doc = doc

    def pointer(self, ref):
        node = self.doc
        for token in ref[2:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, list):
                node = node[int(token)]
            else:
                node = node[token]
        return node

    def deref(self, node):
        seen = []
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if not ref.startswith("#/") or ref in seen:
                return None
            seen.append(ref)
            node = self.pointer(ref)
        return node


def props_of(d, schema, stack):
    """{name: required} of an object schema with allOf merged, or None."""
    if isinstance(schema, dict) and "$ref" in schema:
        if schema["$ref"] in stack:
            return None
        stack = stack + [schema["$ref"]]
    schema = d.deref(schema)
    if not isinstance(schema, dict) or schema.get("oneOf") or schema.get("anyOf"):
        return None
    out = {}
    for part in schema.get("allOf") or []:
        sub = props_of(d, part, stack)
        if sub is None:
            return None
        for name, req in sub.items():
            out[name] = out.get(name, False) or req
    props = schema.get("properties")
    if isinstance(props, dict):
        required = set(schema.get("required") or [])
        for name in props:
            out[name] = out.get(name, False) or name in required
    elif not schema.get("allOf"):
        return None
    return out or None


def body_of(d, op):
    rb = d.deref(op.get("requestBody")) if "requestBody" in op else None
    if not isinstance(rb, dict):
        return None
    content = rb.get("content") or {}
    if "application/json" in content:
        media = "application/json"
    else:
        jsons = sorted(m for m in content if "json" in m)
        media = jsons[0] if jsons else next(iter(content), None)
    props = None
    if media is not None:
        schema = (content.get(media) or {}).get("schema")
        if schema is not None:
            props = props_of(d, schema, [])
    return {
        "required": bool(rb.get("required", False)),
        "media_types": sorted(content),
        "properties": None if props is None else [
            {"name": n, "required": r} for n, r in sorted(props.items())],
    }


def main():
    spec, out = sys.argv[1], sys.argv[2]
    d = Doc(load(spec))
    ops = []
    for path, item in (d.doc.get("paths") or {}).items():
        if path.startswith("x-"):
            continue
        item = d.deref(item) or {}
        shared = [d.deref(p) for p in item.get("parameters") or []]
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            merged = {}
            for p in shared + [d.deref(p) for p in op.get("parameters") or []]:
                if isinstance(p, dict) and "name" in p and "in" in p:
                    merged[(p["name"], p["in"])] = p
            params = [{"name": n, "in": loc, "required": bool(p.get("required", False)) or loc == "path"}
                      for (n, loc), p in merged.items()]
            ops.append({
                "method": method.upper(),
                "path": path,
                "operationId": op.get("operationId"),
                "params": sorted(params, key=lambda p: (p["in"], p["name"])),
                "body": body_of(d, op),
            })
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"openapi": d.doc.get("openapi"), "operations": ops}, fh, indent=1)


if __name__ == "__main__":
    main()
