//! `$ref` resolution across the files of a release: JSON pointers, relative files, cycles.

use std::collections::{BTreeSet, HashMap};

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use serde::de::DeserializeOwned;
use serde_json::Value;

use openapiv3::ReferenceOr;

/// The parsed documents of a release, by path relative to the release root.
pub struct Docs {
    pub files: HashMap<String, Value>,
    /// `max_ref_hops` bounds a chain of `$ref`s; `max_schema_nesting` bounds schemas expanded
    /// inside one another.
    pub limits: crate::extract::ExtractLimits,
    /// Where `max_schema_nesting` cut an expansion (reported once, as a diagnostic).
    pub nesting_cut: std::cell::RefCell<Option<String>>,
}

impl Docs {
    pub fn new(limits: crate::extract::ExtractLimits) -> Self {
        Docs {
            files: HashMap::new(),
            limits,
            nesting_cut: Default::default(),
        }
    }

    /// Whether `seen` (the `$ref`s being expanded) is as deep as expansion may go; the first
    /// time, remembers where.
    pub fn too_deep(&self, seen: &[String]) -> bool {
        if seen.len() <= self.limits.max_schema_nesting {
            return false;
        }
        let mut cut = self.nesting_cut.borrow_mut();
        if cut.is_none() {
            *cut = seen.last().cloned();
        }
        true
    }
}

/// Where a value lives: file plus JSON pointer (`#/components/schemas/Pet`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    pub file: String,
    pub pointer: String,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.file, self.pointer)
    }
}

/// `~` and `/` escaped as a JSON pointer token.
pub fn escape_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn unescape_token(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

/// `dir/a.yaml` + `../b.yaml` -> `b.yaml`; `None` when it leaves the release.
fn join_relative(base_file: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = base_file.split('/').collect();
    parts.pop();
    for p in target.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

impl Docs {
    /// The location a `$ref` written in `from` points at.
    pub fn target(&self, from: &str, reference: &str) -> Result<Location, String> {
        let (file, pointer) = match reference.split_once('#') {
            Some((f, p)) => (f, format!("#{p}")),
            None => (reference, "#".to_string()),
        };
        if file.contains("://") {
            return Err(format!(
                "$ref '{reference}' points to a URL; only local files are read"
            ));
        }
        let file = if file.is_empty() {
            from.to_string()
        } else {
            join_relative(from, file)
                .ok_or_else(|| format!("$ref '{reference}' leaves the release folder"))?
        };
        if !self.files.contains_key(&file) {
            return Err(format!(
                "$ref '{reference}': file '{file}' is not part of the release"
            ));
        }
        Ok(Location { file, pointer })
    }

    /// The value at a location, if it exists.
    pub fn get(&self, loc: &Location) -> Option<&Value> {
        let mut cur = self.files.get(&loc.file)?;
        let path = loc.pointer.strip_prefix('#')?;
        if path.is_empty() {
            return Some(cur);
        }
        for token in path.strip_prefix('/')?.split('/') {
            let token = unescape_token(token);
            cur = match cur {
                Value::Object(m) => m.get(&token)?,
                Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    /// Follows a chain of `$ref`s from `value` (found in `file`) to a value that is not one.
    pub fn follow<'a>(
        &'a self,
        file: &str,
        value: &'a Value,
    ) -> Result<(Location, &'a Value), String> {
        let mut loc = Location {
            file: file.to_string(),
            pointer: String::new(),
        };
        let mut cur = value;
        let mut seen: Vec<Location> = Vec::new();
        while let Some(r) = cur.get("$ref").and_then(Value::as_str) {
            let next = self.target(&loc.file, r)?;
            if seen.contains(&next) {
                let chain: Vec<String> = seen.iter().map(|l| l.pointer.clone()).collect();
                return Err(format!(
                    "$ref cycle: {} -> {}",
                    chain.join(" -> "),
                    next.pointer
                ));
            }
            if seen.len() >= self.limits.max_ref_hops {
                return Err(format!(
                    "a chain of more than {} $refs from {r} (stopped at {next}); if the \
                     document is genuine, raise --max-ref-hops",
                    self.limits.max_ref_hops
                ));
            }
            cur = self
                .get(&next)
                .ok_or_else(|| format!("dangling $ref '{r}': nothing at {next}"))?;
            seen.push(next.clone());
            loc = next;
        }
        Ok((loc, cur))
    }

    /// A reference or an inline item, resolved and typed; the location says where the item
    /// lives (its own `$ref`s are relative to that file).
    pub fn resolve<T: DeserializeOwned + Clone>(
        &self,
        file: &str,
        item: &ReferenceOr<T>,
    ) -> Result<(T, Option<Location>), String> {
        match item {
            ReferenceOr::Item(t) => Ok((t.clone(), None)),
            ReferenceOr::Reference { reference } => {
                let start = serde_json::json!({ "$ref": reference });
                let (loc, value) = self.follow(file, &start)?;
                let t = T::deserialize(value)
                    .map_err(|e| format!("{reference} is not a valid target here: {e}"))?;
                Ok((t, Some(loc)))
            }
        }
    }
}

/// Every `$ref` in a document that does not lead to a value (dangling, cyclic, outside the
/// release): `(pointer of the $ref, reason)`. Every one is reported, even those no operation
/// uses, so a broken spec says where it is broken.
pub fn broken_refs(docs: &Docs, file: &str) -> Vec<(String, String)> {
    fn walk(
        docs: &Docs,
        file: &str,
        v: &Value,
        pointer: &mut String,
        out: &mut Vec<(String, String)>,
    ) {
        match v {
            Value::Object(m) => {
                if m.get("$ref").is_some_and(Value::is_string)
                    && let Err(e) = docs.follow(file, v)
                {
                    out.push((pointer.clone(), e));
                }
                for (k, child) in m {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&escape_token(k));
                    walk(docs, file, child, pointer, out);
                    pointer.truncate(len);
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push_str(&format!("/{i}"));
                    walk(docs, file, child, pointer, out);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(doc) = docs.files.get(file) {
        walk(docs, file, doc, &mut "#".to_string(), &mut out);
    }
    out
}

/// Every `$ref` string inside a value.
fn refs_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r.clone());
            }
            for v in m.values() {
                refs_in(v, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| refs_in(v, out)),
        _ => {}
    }
}

/// Component schemas that refer to themselves, directly or through others: the strongly
/// connected components of the reference graph. Recursive schemas are valid; knowing them
/// is what keeps flattening from inlining them forever.
pub fn recursive_schemas(docs: &Docs, root: &str) -> BTreeSet<String> {
    let Some(schemas) = docs
        .files
        .get(root)
        .and_then(|d| d.pointer("/components/schemas"))
        .and_then(Value::as_object)
    else {
        return BTreeSet::new();
    };
    let mut graph = DiGraph::<&str, ()>::new();
    let nodes: HashMap<&str, _> = schemas
        .keys()
        .map(|k| (k.as_str(), graph.add_node(k.as_str())))
        .collect();
    let mut self_loops = BTreeSet::new();
    for (name, schema) in schemas {
        let mut refs = Vec::new();
        refs_in(schema, &mut refs);
        for r in refs {
            let Some(target) = r.strip_prefix("#/components/schemas/") else {
                continue;
            };
            let target = unescape_token(target);
            if let Some(&t) = nodes.get(target.as_str()) {
                if target == *name {
                    self_loops.insert(name.clone());
                }
                graph.update_edge(nodes[name.as_str()], t, ());
            }
        }
    }
    let mut out = self_loops;
    for scc in tarjan_scc(&graph) {
        if scc.len() > 1 {
            out.extend(scc.into_iter().map(|n| graph[n].to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn docs(list: &[(&str, Value)]) -> Docs {
        let mut docs = Docs::new(Default::default());
        docs.files = list
            .iter()
            .map(|(p, v)| (p.to_string(), v.clone()))
            .collect();
        docs
    }

    #[test]
    fn refs_resolve_locally_and_across_files() {
        let d = docs(&[
            (
                "api/root.yaml",
                json!({"a": {"$ref": "#/b"}, "b": {"$ref": "../common.yaml#/c~1d"}}),
            ),
            ("common.yaml", json!({"c/d": {"type": "string"}})),
        ]);
        let start = json!({"$ref": "#/a"});
        let (loc, v) = d.follow("api/root.yaml", &start).unwrap();
        assert_eq!(v, &json!({"type": "string"}));
        assert_eq!(loc.file, "common.yaml");
        assert_eq!(loc.pointer, "#/c~1d");
    }

    #[test]
    fn cycles_and_dangling_refs_are_errors() {
        let d = docs(&[(
            "s.json",
            json!({"a": {"$ref": "#/b"}, "b": {"$ref": "#/a"}}),
        )]);
        let e = d.follow("s.json", &json!({"$ref": "#/a"})).unwrap_err();
        assert!(e.starts_with("$ref cycle"), "{e}");
        let e = d.follow("s.json", &json!({"$ref": "#/nope"})).unwrap_err();
        assert!(e.starts_with("dangling $ref"), "{e}");
        let e = d
            .follow("s.json", &json!({"$ref": "other.json#/a"}))
            .unwrap_err();
        assert!(e.contains("not part of the release"), "{e}");
    }

    #[test]
    fn recursive_schemas_are_found() {
        let d = docs(&[(
            "s.json",
            json!({"components": {"schemas": {
                "Node": {"properties": {"children": {"items": {"$ref": "#/components/schemas/Node"}}}},
                "A": {"properties": {"b": {"$ref": "#/components/schemas/B"}}},
                "B": {"properties": {"a": {"$ref": "#/components/schemas/A"}}},
                "Leaf": {"type": "string"}
            }}}),
        )]);
        let r: Vec<String> = recursive_schemas(&d, "s.json").into_iter().collect();
        assert_eq!(r, vec!["A", "B", "Node"]);
    }
}
