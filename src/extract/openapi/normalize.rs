//! OpenAPI 3.1 to 3.0: rewrites what has a 3.0 spelling, reports every construct it loses.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::refs::escape_token;

/// JSON Schema 2020-12 keywords with no OpenAPI 3.0 counterpart: dropped, and reported.
const LOST_KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$defs",
    "$comment",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// What normalisation lost, grouped by construct: (count, first pointer).
#[derive(Default)]
pub struct Losses {
    by_what: BTreeMap<String, (usize, String)>,
}

impl Losses {
    fn add(&mut self, what: impl Into<String>, pointer: &str) {
        let e = self
            .by_what
            .entry(what.into())
            .or_insert((0, pointer.to_string()));
        e.0 += 1;
    }

    /// One message per construct: `(pointer, message)`.
    pub fn messages(&self) -> Vec<(String, String)> {
        self.by_what
            .iter()
            .map(|(what, (n, first))| {
                let more = if *n > 1 {
                    format!(" ({n} places; first shown)")
                } else {
                    String::new()
                };
                (
                    first.clone(),
                    format!("OpenAPI 3.1 {what} has no 3.0 form and is not recorded{more}"),
                )
            })
            .collect()
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    /// Anything that is not a schema.
    Other,
    Schema,
    /// A map of names to schemas (`properties`, `components/schemas`).
    SchemaMap,
    /// A list of schemas (`allOf`).
    SchemaList,
}

/// Rewrites a 3.1 document in place so that openapiv3 (3.0) reads it.
pub fn normalize_31(doc: &mut Value) -> Losses {
    let mut losses = Losses::default();
    if let Some(m) = doc.as_object_mut() {
        for key in ["webhooks", "jsonSchemaDialect"] {
            if m.remove(key).is_some() {
                losses.add(format!("top-level '{key}'"), &format!("#/{key}"));
            }
        }
        if !m.contains_key("paths") {
            m.insert("paths".into(), Value::Object(Map::new()));
        }
        if let Some(Value::Object(info)) = m.get_mut("info") {
            if info.remove("summary").is_some() {
                losses.add("'info.summary'", "#/info/summary");
            }
            if let Some(Value::Object(lic)) = info.get_mut("license")
                && lic.remove("identifier").is_some()
            {
                losses.add("'license.identifier'", "#/info/license/identifier");
            }
        }
        if let Some(Value::Object(c)) = m.get_mut("components")
            && c.remove("pathItems").is_some()
        {
            losses.add("'components.pathItems'", "#/components/pathItems");
        }
        m.insert("openapi".into(), Value::String("3.0.3".into()));
    }
    walk(doc, Ctx::Other, "#", "", &mut losses);
    losses
}

fn walk(v: &mut Value, ctx: Ctx, pointer: &str, key: &str, losses: &mut Losses) {
    match ctx {
        Ctx::Schema => schema(v, pointer, losses),
        Ctx::SchemaMap | Ctx::SchemaList => {}
        Ctx::Other => {}
    }
    let child_ctx = |k: &str| -> Ctx {
        match ctx {
            Ctx::SchemaMap | Ctx::SchemaList => Ctx::Schema,
            Ctx::Schema => match k {
                "properties" => Ctx::SchemaMap,
                "items" | "additionalProperties" | "not" => Ctx::Schema,
                "allOf" | "oneOf" | "anyOf" => Ctx::SchemaList,
                // Examples, defaults and enums are data, not schemas.
                _ => Ctx::Other,
            },
            Ctx::Other => match (key, k) {
                (_, "schema") => Ctx::Schema,
                ("components", "schemas") => Ctx::SchemaMap,
                _ => Ctx::Other,
            },
        }
    };
    let data_in_schema = ctx == Ctx::Schema;
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                let c = child_ctx(k);
                if data_in_schema && c == Ctx::Other {
                    continue;
                }
                walk(
                    child,
                    c,
                    &format!("{pointer}/{}", escape_token(k)),
                    k,
                    losses,
                );
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter_mut().enumerate() {
                let c = if ctx == Ctx::SchemaList {
                    Ctx::Schema
                } else {
                    Ctx::Other
                };
                walk(child, c, &format!("{pointer}/{i}"), "", losses);
            }
        }
        _ => {}
    }
}

fn schema(v: &mut Value, pointer: &str, losses: &mut Losses) {
    let Value::Object(m) = v else {
        // `true`/`false` schemas.
        if v.is_boolean() {
            losses.add("boolean schema", pointer);
            *v = Value::Object(Map::new());
        }
        return;
    };
    if m.contains_key("$ref") && m.len() > 1 {
        let siblings: Vec<String> = m.keys().filter(|k| *k != "$ref").cloned().collect();
        m.retain(|k, _| k == "$ref");
        losses.add(
            format!("keyword beside $ref ({})", siblings.join(", ")),
            pointer,
        );
        return;
    }
    if let Some(Value::Array(types)) = m.get("type").cloned() {
        let nullable = types.iter().any(|t| t == "null");
        let rest: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
        if nullable {
            m.insert("nullable".into(), Value::Bool(true));
        }
        match rest.len() {
            0 => {
                m.remove("type");
            }
            1 => {
                m.insert("type".into(), rest[0].clone());
            }
            _ => {
                m.remove("type");
                losses.add("type array with several types", pointer);
            }
        }
    } else if m.get("type").and_then(Value::as_str) == Some("null") {
        m.remove("type");
        m.insert("nullable".into(), Value::Bool(true));
    }
    if let Some(c) = m.remove("const") {
        m.insert("enum".into(), Value::Array(vec![c]));
    }
    if let Some(Value::Array(mut list)) = m.remove("examples") {
        if list.len() > 1 {
            losses.add("schema 'examples' beyond the first", pointer);
        }
        if !list.is_empty() && !m.contains_key("example") {
            m.insert("example".into(), list.swap_remove(0));
        }
    }
    for (key, flag, bound) in [
        ("exclusiveMinimum", "exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "exclusiveMaximum", "maximum"),
    ] {
        if let Some(n @ Value::Number(_)) = m.get(key).cloned() {
            m.insert(bound.into(), n);
            m.insert(flag.into(), Value::Bool(true));
        }
    }
    for k in LOST_KEYWORDS {
        if m.remove(*k).is_some() {
            losses.add(format!("keyword '{k}'"), pointer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn three_one_constructs_become_three_zero_or_are_reported() {
        let mut doc = json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1", "summary": "s"},
            "webhooks": {},
            "components": {"schemas": {"Pet": {
                "type": "object",
                "properties": {
                    "const": {"type": ["string", "null"], "examples": ["a", "b"]},
                    "kind": {"const": "dog"},
                    "age": {"type": "integer", "exclusiveMinimum": 0},
                    "tags": {"type": "array", "prefixItems": [{"type": "string"}]},
                    "owner": {"$ref": "#/components/schemas/Owner", "description": "who"}
                }
            }}}
        });
        let losses = normalize_31(&mut doc);
        let p = &doc["components"]["schemas"]["Pet"]["properties"];
        assert_eq!(
            p["const"],
            json!({"type": "string", "nullable": true, "example": "a"})
        );
        assert_eq!(p["kind"], json!({"enum": ["dog"]}));
        assert_eq!(p["age"]["minimum"], json!(0));
        assert_eq!(p["age"]["exclusiveMinimum"], json!(true));
        assert_eq!(p["owner"], json!({"$ref": "#/components/schemas/Owner"}));
        assert_eq!(doc["openapi"], "3.0.3");
        assert_eq!(doc["paths"], json!({}));
        let msgs: Vec<String> = losses
            .messages()
            .into_iter()
            .map(|(p, m)| format!("{p} {m}"))
            .collect();
        let all = msgs.join("\n");
        for want in [
            "top-level 'webhooks'",
            "'info.summary'",
            "keyword 'prefixItems'",
            "keyword beside $ref (description)",
            "schema 'examples' beyond the first",
        ] {
            assert!(all.contains(want), "{want} missing from:\n{all}");
        }
        assert!(all.contains("#/components/schemas/Pet/properties/tags"));
    }
}
