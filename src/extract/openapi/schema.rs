//! Schemas: one flat view over openapiv3's schema variants, type rendering, object flattening.

use indexmap::IndexMap;
use openapiv3::{AdditionalProperties, ReferenceOr, Schema, SchemaKind, Type};
use serde::Serialize;

use super::refs::Docs;
use crate::model::{BodyProperty, SchemaFacts};

/// How deep inline `allOf` parts and array items are rendered as a type; deeper is abuse, not
/// an API. (Nested `$ref`s are bounded by `ExtractLimits::max_schema_nesting`.)
const MAX_DEPTH: usize = 16;

/// The facts of one schema, whichever variant openapiv3 chose for it.
#[derive(Default)]
pub struct View<'a> {
    pub ty: Option<String>,
    pub format: Option<String>,
    pub properties: Option<&'a IndexMap<String, ReferenceOr<Box<Schema>>>>,
    pub required: &'a [String],
    pub all_of: &'a [ReferenceOr<Schema>],
    pub one_of: &'a [ReferenceOr<Schema>],
    pub any_of: &'a [ReferenceOr<Schema>],
    pub items: Option<&'a ReferenceOr<Box<Schema>>>,
    pub enum_values: Vec<String>,
    pub constraints: Vec<String>,
}

fn text_of(v: &impl Serialize) -> Option<String> {
    match serde_json::to_value(v).ok()? {
        serde_json::Value::String(s) if !s.is_empty() => Some(s),
        _ => None,
    }
}

fn enum_text<T: Serialize>(values: &[Option<T>]) -> Vec<String> {
    values
        .iter()
        .map(|v| serde_json::to_string(v).unwrap_or_default())
        .collect()
}

fn push<T: std::fmt::Display>(out: &mut Vec<String>, name: &str, v: Option<T>) {
    if let Some(v) = v {
        out.push(format!("{name}={v}"));
    }
}

pub fn view(schema: &Schema) -> View<'_> {
    let mut v = View::default();
    match &schema.schema_kind {
        SchemaKind::Type(Type::String(s)) => {
            v.ty = Some("string".into());
            v.format = text_of(&s.format);
            v.enum_values = enum_text(&s.enumeration);
            push(&mut v.constraints, "minLength", s.min_length);
            push(&mut v.constraints, "maxLength", s.max_length);
            push(&mut v.constraints, "pattern", s.pattern.as_ref());
        }
        SchemaKind::Type(Type::Number(n)) => {
            v.ty = Some("number".into());
            v.format = text_of(&n.format);
            v.enum_values = enum_text(&n.enumeration);
            let (min, max) = if n.exclusive_minimum || n.exclusive_maximum {
                ("exclusiveMinimum", "exclusiveMaximum")
            } else {
                ("minimum", "maximum")
            };
            push(&mut v.constraints, min, n.minimum);
            push(&mut v.constraints, max, n.maximum);
            push(&mut v.constraints, "multipleOf", n.multiple_of);
        }
        SchemaKind::Type(Type::Integer(n)) => {
            v.ty = Some("integer".into());
            v.format = text_of(&n.format);
            v.enum_values = enum_text(&n.enumeration);
            let min = if n.exclusive_minimum {
                "exclusiveMinimum"
            } else {
                "minimum"
            };
            let max = if n.exclusive_maximum {
                "exclusiveMaximum"
            } else {
                "maximum"
            };
            push(&mut v.constraints, min, n.minimum);
            push(&mut v.constraints, max, n.maximum);
            push(&mut v.constraints, "multipleOf", n.multiple_of);
        }
        SchemaKind::Type(Type::Boolean(b)) => {
            v.ty = Some("boolean".into());
            v.enum_values = enum_text(&b.enumeration);
        }
        SchemaKind::Type(Type::Object(o)) => {
            v.ty = Some("object".into());
            v.properties = Some(&o.properties);
            v.required = &o.required;
            push(&mut v.constraints, "minProperties", o.min_properties);
            push(&mut v.constraints, "maxProperties", o.max_properties);
            if let Some(AdditionalProperties::Any(false)) = o.additional_properties {
                v.constraints.push("additionalProperties=false".into());
            }
        }
        SchemaKind::Type(Type::Array(a)) => {
            v.ty = Some("array".into());
            v.items = a.items.as_ref();
            push(&mut v.constraints, "minItems", a.min_items);
            push(&mut v.constraints, "maxItems", a.max_items);
            if a.unique_items {
                v.constraints.push("uniqueItems=true".into());
            }
        }
        SchemaKind::OneOf { one_of } => v.one_of = one_of,
        SchemaKind::AllOf { all_of } => v.all_of = all_of,
        SchemaKind::AnyOf { any_of } => v.any_of = any_of,
        SchemaKind::Not { .. } => v.ty = Some("not".into()),
        SchemaKind::Any(a) => {
            v.ty = a.typ.clone();
            v.format = a.format.clone();
            if !a.properties.is_empty() || a.typ.as_deref() == Some("object") {
                v.properties = Some(&a.properties);
            }
            v.required = &a.required;
            v.all_of = &a.all_of;
            v.one_of = &a.one_of;
            v.any_of = &a.any_of;
            v.items = a.items.as_ref();
            push(&mut v.constraints, "minLength", a.min_length);
            push(&mut v.constraints, "maxLength", a.max_length);
            push(&mut v.constraints, "pattern", a.pattern.as_ref());
            push(&mut v.constraints, "minimum", a.minimum);
            push(&mut v.constraints, "maximum", a.maximum);
            push(&mut v.constraints, "minItems", a.min_items);
            push(&mut v.constraints, "maxItems", a.max_items);
        }
    }
    v
}

/// `Pet` for `#/components/schemas/Pet`, else the pointer's last token.
pub fn ref_name(reference: &str) -> String {
    let last = reference.rsplit('/').next().unwrap_or(reference);
    last.replace("~1", "/").replace("~0", "~")
}

/// A short type text: `string`, `integer(int64)`, `array<Pet>`, `Pet`, `oneOf<A|B>`.
pub fn type_text<S: std::borrow::Borrow<Schema>>(s: &ReferenceOr<S>) -> Option<String> {
    type_text_depth(s, 0)
}

fn type_text_depth<S: std::borrow::Borrow<Schema>>(
    s: &ReferenceOr<S>,
    depth: usize,
) -> Option<String> {
    let schema = match s {
        ReferenceOr::Reference { reference } => return Some(ref_name(reference)),
        ReferenceOr::Item(s) => s.borrow(),
    };
    if depth > MAX_DEPTH {
        return None;
    }
    let v = view(schema);
    let union = |kind: &str, parts: &[ReferenceOr<Schema>]| {
        let inner: Vec<String> = parts
            .iter()
            .map(|p| type_text_depth(p, depth + 1).unwrap_or_else(|| "any".into()))
            .collect();
        format!("{kind}<{}>", inner.join("|"))
    };
    let text = match v.ty.as_deref() {
        Some("array") => {
            let inner = v
                .items
                .and_then(|i| type_text_depth(i, depth + 1))
                .unwrap_or_else(|| "any".into());
            format!("array<{inner}>")
        }
        Some(t) => match &v.format {
            Some(f) => format!("{t}({f})"),
            None => t.to_string(),
        },
        None if !v.one_of.is_empty() => union("oneOf", v.one_of),
        None if !v.any_of.is_empty() => union("anyOf", v.any_of),
        None if !v.all_of.is_empty() => union("allOf", v.all_of),
        None if v.properties.is_some() => "object".into(),
        None => return None,
    };
    Some(text)
}

/// The facts of one schema (a component or a property).
pub fn facts_of(schema: &Schema, required: bool, recursive: bool) -> SchemaFacts {
    let v = view(schema);
    SchemaFacts {
        type_: type_text(&ReferenceOr::Item(schema)),
        format: v.format.clone(),
        required,
        nullable: schema.schema_data.nullable,
        read_only: schema.schema_data.read_only,
        write_only: schema.schema_data.write_only,
        enum_values: v.enum_values,
        constraints: v.constraints,
        recursive,
    }
}

/// Top-level properties of an object schema with `allOf` parts merged, like a client sees
/// them: `None` when the schema is not such an object (array, oneOf/anyOf, free form).
/// `seen` holds the `$ref`s being expanded, so a recursive schema is never inlined again.
pub fn object_properties(
    docs: &Docs,
    file: &str,
    schema: &ReferenceOr<Schema>,
    seen: &mut Vec<String>,
) -> Option<Vec<BodyProperty>> {
    if docs.too_deep(seen) {
        return None;
    }
    let (schema, loc) = docs.resolve(file, schema).ok()?;
    let file = loc.as_ref().map_or(file, |l| l.file.as_str()).to_string();
    if let Some(l) = &loc {
        let key = l.to_string();
        if seen.contains(&key) {
            return None;
        }
        seen.push(key);
    }
    let out = merged_properties(docs, &file, &schema, seen);
    if loc.is_some() {
        seen.pop();
    }
    out.filter(|p| !p.is_empty())
}

fn merged_properties(
    docs: &Docs,
    file: &str,
    schema: &Schema,
    seen: &mut Vec<String>,
) -> Option<Vec<BodyProperty>> {
    let v = view(schema);
    if !v.one_of.is_empty() || !v.any_of.is_empty() {
        return None;
    }
    let mut props: Vec<BodyProperty> = Vec::new();
    let mut add = |p: BodyProperty| match props.iter_mut().find(|q| q.name == p.name) {
        Some(q) => {
            q.required |= p.required;
            if q.type_.is_none() {
                q.type_ = p.type_;
            }
        }
        None => props.push(p),
    };
    for part in v.all_of {
        for p in object_properties(docs, file, part, seen)? {
            add(p);
        }
    }
    match v.properties {
        Some(map) => {
            for (name, s) in map {
                add(BodyProperty {
                    name: name.clone(),
                    required: v.required.contains(name),
                    type_: type_text(s),
                });
            }
        }
        None if v.all_of.is_empty() => return None,
        None => {}
    }
    props.sort_by(|a, b| a.name.cmp(&b.name));
    Some(props)
}

/// The properties of a component schema with their own schemas, allOf parts merged (own
/// properties win); used to make `Schema.property` symbols.
pub fn component_properties(
    docs: &Docs,
    file: &str,
    schema: &Schema,
    seen: &mut Vec<String>,
    out: &mut Vec<(String, bool, ReferenceOr<Schema>)>,
) {
    if docs.too_deep(seen) {
        return;
    }
    let v = view(schema);
    for part in v.all_of {
        let Ok((part_schema, loc)) = docs.resolve(file, part) else {
            continue;
        };
        let key = loc.as_ref().map(|l| l.to_string());
        if let Some(k) = &key {
            if seen.contains(k) {
                continue;
            }
            seen.push(k.clone());
        }
        let part_file = loc.as_ref().map_or(file, |l| l.file.as_str()).to_string();
        component_properties(docs, &part_file, &part_schema, seen, out);
        if key.is_some() {
            seen.pop();
        }
    }
    if let Some(map) = v.properties {
        for (name, s) in map {
            let s = match s {
                ReferenceOr::Reference { reference } => ReferenceOr::Reference {
                    reference: reference.clone(),
                },
                ReferenceOr::Item(b) => ReferenceOr::Item((**b).clone()),
            };
            let required = v.required.contains(name);
            match out.iter_mut().find(|(n, _, _)| n == name) {
                Some(slot) => *slot = (name.clone(), required || slot.1, s),
                None => out.push((name.clone(), required, s)),
            }
        }
    }
    for (name, required, _) in out.iter_mut() {
        if v.required.contains(name) {
            *required = true;
        }
    }
}
