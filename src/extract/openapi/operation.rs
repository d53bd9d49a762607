//! One operation or one component schema of an OpenAPI document, as symbols and HTTP facts.

use indexmap::IndexMap;
use openapiv3::{
    MediaType, Operation, Parameter, ParameterSchemaOrContent, PathItem, ReferenceOr, Response,
    Schema, SecurityRequirement,
};
use serde_json::Value;

use super::schema::{self, ref_name, type_text};
use super::{Extractor, refs::escape_token};
use crate::model::{
    Deprecation, HttpOperation, HttpParamDetail, HttpResponse, Param, ParamKind, RequestBody,
    Symbol, SymbolKind,
};

/// The media type whose schema describes a body: JSON first, like the clients that send it.
fn body_media(content: &IndexMap<String, MediaType>) -> Option<&MediaType> {
    if let Some(m) = content.get("application/json") {
        return Some(m);
    }
    let mut names: Vec<&String> = content.keys().collect();
    names.sort();
    names
        .into_iter()
        .find(|m| m.contains("json"))
        .and_then(|m| content.get(m))
        .or_else(|| content.values().next())
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.is_empty() && s != "false",
        Some(Value::Null) | None => false,
        Some(_) => true,
    }
}

/// `deprecated: true` or `x-deprecated`, with `x-sunset` as the message when given.
fn deprecation(deprecated: bool, ext: &IndexMap<String, Value>) -> Option<Deprecation> {
    let x = ext.get("x-deprecated");
    let sunset = ext.get("x-sunset").map(|v| match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    });
    if !deprecated && !truthy(x) {
        return None;
    }
    let message = match (x, &sunset) {
        (Some(Value::String(s)), _) => Some(s.clone()),
        (_, Some(s)) => Some(format!("sunset {s}")),
        _ => None,
    };
    Some(Deprecation {
        since: None,
        message,
        replacement: None,
        source: if deprecated {
            "openapi".into()
        } else {
            "x-deprecated".into()
        },
    })
}

/// One line per alternative requirement, each scheme written by `part(name, scopes)` and
/// joined by ` + ` (sorted when `sorted`, for comparing; else as the document orders them).
fn requirement_lines(
    reqs: &[SecurityRequirement],
    sorted: bool,
    part: impl Fn(&str, &[String]) -> String,
) -> Vec<String> {
    reqs.iter()
        .map(|r| {
            let mut parts: Vec<String> =
                r.iter().map(|(name, scopes)| part(name, scopes)).collect();
            if sorted {
                parts.sort();
            }
            parts.join(" + ")
        })
        .collect()
}

/// As the document names them: `scheme[scope,...]`.
fn security_text(reqs: &[SecurityRequirement]) -> Vec<String> {
    requirement_lines(reqs, false, |name, scopes| {
        if scopes.is_empty() {
            name.to_string()
        } else {
            format!("{name}[{}]", scopes.join(","))
        }
    })
}

/// The requirements as credentials (`apiKey in header project_id`, sorted scopes in brackets,
/// parts sorted): a scheme renamed with the same credential gives the same key. A scheme the
/// document does not define keeps its name.
fn security_keys(
    reqs: &[SecurityRequirement],
    credentials: &std::collections::HashMap<String, String>,
) -> Vec<String> {
    requirement_lines(reqs, true, |name, scopes| {
        let what = credentials.get(name).map_or(name, String::as_str);
        if scopes.is_empty() {
            what.to_string()
        } else {
            let mut scopes = scopes.to_vec();
            scopes.sort();
            format!("{what} [{}]", scopes.join(","))
        }
    })
}

fn param_kind(p: &Parameter) -> ParamKind {
    match p {
        Parameter::Query { .. } => ParamKind::Query,
        Parameter::Header { .. } => ParamKind::Header,
        Parameter::Path { .. } => ParamKind::Path,
        Parameter::Cookie { .. } => ParamKind::Cookie,
    }
}

fn style_text(p: &Parameter) -> Option<String> {
    let v = match p {
        Parameter::Query { style, .. } => serde_json::to_value(style),
        Parameter::Header { style, .. } => serde_json::to_value(style),
        Parameter::Path { style, .. } => serde_json::to_value(style),
        Parameter::Cookie { style, .. } => serde_json::to_value(style),
    };
    v.ok().and_then(|v| v.as_str().map(str::to_string))
}

/// `GET /pets/{petId}(petId: path string, limit?: query integer, body: body Pet)`.
fn render(method: &str, path: &str, params: &[Param]) -> String {
    let parts: Vec<String> = params
        .iter()
        .map(|p| {
            let opt = if p.required() { "" } else { "?" };
            let ty = p
                .annotation
                .as_ref()
                .map(|t| format!(" {t}"))
                .unwrap_or_default();
            format!("{}{opt}: {}{ty}", p.name, p.kind.as_str())
        })
        .collect();
    format!(
        "{} {path}({})",
        method.to_ascii_uppercase(),
        parts.join(", ")
    )
}

impl Extractor<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn operation(
        &mut self,
        file: &str,
        path: &str,
        method: &str,
        item: &PathItem,
        op: &Operation,
        pointer: &str,
        global_security: &[SecurityRequirement],
    ) -> (Symbol, HttpOperation) {
        let endpoint = format!("{} {path}", method.to_ascii_uppercase());
        // Path-level parameters first; an operation-level one with the same (name, in) wins.
        let mut merged: Vec<(Parameter, String)> = Vec::new();
        let sources = [
            (&item.parameters, format!("#/paths/{}", escape_token(path))),
            (&op.parameters, pointer.to_string()),
        ];
        for (list, at) in sources {
            for (i, p) in list.iter().enumerate() {
                match self.docs.resolve(file, p) {
                    Ok((p, _)) => {
                        let key = (p.parameter_data_ref().name.clone(), param_kind(&p));
                        merged.retain(|(q, _)| {
                            (q.parameter_data_ref().name.clone(), param_kind(q)) != key
                        });
                        merged.push((p, format!("{at}/parameters/{i}")));
                    }
                    Err(e) => self.warn(&format!("{at}/parameters/{i}"), e),
                }
            }
        }
        let mut params = Vec::new();
        let mut details = Vec::new();
        for (p, _) in &merged {
            let kind = param_kind(p);
            let data = p.parameter_data_ref();
            let annotation = match &data.format {
                ParameterSchemaOrContent::Schema(s) => type_text(s),
                ParameterSchemaOrContent::Content(c) => c
                    .values()
                    .next()
                    .and_then(|m| m.schema.as_ref())
                    .and_then(type_text),
            };
            params.push(Param {
                name: data.name.clone(),
                kind,
                annotation,
                default: None,
                optional: !(data.required || kind == ParamKind::Path),
                description: data.description.clone(),
            });
            details.push(HttpParamDetail {
                name: data.name.clone(),
                kind,
                style: style_text(p),
                explode: data.explode,
                deprecated: data.deprecated.unwrap_or(false),
            });
        }
        let request_body =
            op.request_body
                .as_ref()
                .and_then(|rb| match self.docs.resolve(file, rb) {
                    Ok((rb, loc)) => {
                        let file = loc.as_ref().map_or(file, |l| l.file.as_str());
                        let mut media_types: Vec<String> = rb.content.keys().cloned().collect();
                        media_types.sort();
                        let media = body_media(&rb.content);
                        let schema_ref = media.and_then(|m| m.schema.as_ref());
                        let properties = schema_ref.and_then(|s| {
                            schema::object_properties(self.docs, file, s, &mut Vec::new())
                        });
                        params.push(Param {
                            name: "body".into(),
                            kind: ParamKind::Body,
                            annotation: schema_ref.and_then(type_text),
                            default: None,
                            optional: !rb.required,
                            description: rb.description.clone(),
                        });
                        Some(RequestBody {
                            required: rb.required,
                            media_types,
                            schema: schema_ref.and_then(type_text),
                            properties,
                        })
                    }
                    Err(e) => {
                        self.warn(&format!("{pointer}/requestBody"), e);
                        None
                    }
                });
        let mut responses = Vec::new();
        let all = op
            .responses
            .default
            .iter()
            .map(|r| ("default".to_string(), r))
            .chain(
                op.responses
                    .responses
                    .iter()
                    .map(|(s, r)| (s.to_string(), r)),
            );
        for (status, r) in all {
            match self.docs.resolve::<Response>(file, r) {
                Ok((r, _)) => {
                    let mut media_types: Vec<String> = r.content.keys().cloned().collect();
                    media_types.sort();
                    responses.push(HttpResponse {
                        status,
                        description: Some(r.description.clone()).filter(|d| !d.is_empty()),
                        media_types,
                        schema: body_media(&r.content)
                            .and_then(|m| m.schema.as_ref())
                            .and_then(type_text),
                        headers: r.headers.keys().cloned().collect(),
                    });
                }
                Err(e) => self.warn(&format!("{pointer}/responses/{status}"), e),
            }
        }
        let requirements = op.security.as_deref().unwrap_or(global_security);
        let security = security_text(requirements);
        let security_keys = security_keys(requirements, &self.credentials);
        let name = op.operation_id.clone().unwrap_or_else(|| endpoint.clone());
        let signature = render(method, path, &params);
        let http = HttpOperation {
            method: method.to_ascii_uppercase(),
            path: path.to_string(),
            operation_id: op.operation_id.clone(),
            summary: op.summary.clone(),
            tags: op.tags.clone(),
            security,
            security_keys,
            servers: op.servers.iter().map(|s| s.url.clone()).collect(),
            param_details: details,
            request_body,
            responses,
            sunset: op.extensions.get("x-sunset").map(|v| match v {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            }),
        };
        let sym = Symbol {
            aliases: if name == endpoint {
                vec![]
            } else {
                vec![endpoint]
            },
            qualified_name: name,
            defined_in: pointer.to_string(),
            kind: SymbolKind::Operation,
            params,
            has_signature: true,
            // The summary is the operation's title; it leads, as a docstring's first line does.
            doc: match (&op.summary, &op.description) {
                (Some(s), Some(d)) if !d.starts_with(s.as_str()) => Some(format!("{s}\n\n{d}")),
                (s, d) => d.clone().or_else(|| s.clone()),
            },
            deprecation: deprecation(op.deprecated, &op.extensions),
            file: file.to_string(),
            line: 0,
            signature_text: Some(signature),
            ..Default::default()
        };
        (sym, http)
    }

    /// Every component schema as a `schema` symbol, its properties as `Schema.property`.
    pub(super) fn schemas(&mut self, taken: &std::collections::BTreeSet<String>) {
        let docs = self.docs;
        let Some(schemas) = docs.files[self.root]
            .pointer("/components/schemas")
            .and_then(Value::as_object)
        else {
            return;
        };
        let recursive = super::refs::recursive_schemas(docs, self.root);
        for (name, value) in schemas {
            let pointer = format!("#/components/schemas/{}", escape_token(name));
            let (loc, value) = match docs.follow(self.root, value) {
                Ok(found) => found,
                Err(e) => {
                    self.warn(&pointer, e);
                    continue;
                }
            };
            let file = if loc.file.is_empty() || loc.pointer.is_empty() {
                self.root.to_string()
            } else {
                loc.file
            };
            let Some(s): Option<Schema> = self.typed(value, &pointer) else {
                continue;
            };
            let mut qname = name.clone();
            if taken.contains(&qname) {
                qname = format!("schemas.{name}");
                self.warn(
                    &pointer,
                    format!("schema '{name}' has an operation's name; it is named '{qname}'"),
                );
            }
            let mut props = Vec::new();
            schema::component_properties(docs, &file, &s, &mut vec![pointer.clone()], &mut props);
            let listed: Vec<String> = props
                .iter()
                .map(|(n, r, _)| if *r { n.clone() } else { format!("{n}?") })
                .collect();
            let facts = schema::facts_of(&s, false, recursive.contains(name));
            let head = facts.type_.clone().unwrap_or_else(|| "any".into());
            let signature = if props.is_empty() {
                head
            } else {
                format!("{head} {{{}}}", listed.join(", "))
            };
            self.facts.schemas.insert(qname.clone(), facts);
            self.facts.symbols.push(Symbol {
                qualified_name: qname.clone(),
                defined_in: pointer.clone(),
                kind: SymbolKind::Schema,
                has_signature: true,
                doc: s
                    .schema_data
                    .description
                    .clone()
                    .or_else(|| s.schema_data.title.clone()),
                deprecation: deprecation(s.schema_data.deprecated, &s.schema_data.extensions),
                file: file.clone(),
                signature_text: Some(signature),
                ..Default::default()
            });
            for (prop, required, ps) in props {
                let (facts, data) = match &ps {
                    ReferenceOr::Reference { reference } => (
                        crate::model::SchemaFacts {
                            type_: Some(ref_name(reference)),
                            required,
                            ..Default::default()
                        },
                        None,
                    ),
                    ReferenceOr::Item(p) => (schema::facts_of(p, required, false), Some(p)),
                };
                let opt = if required { "" } else { "?" };
                let null = if facts.nullable { " | null" } else { "" };
                let ty = facts.type_.clone().unwrap_or_else(|| "any".into());
                let qualified = format!("{qname}.{prop}");
                self.facts.schemas.insert(qualified.clone(), facts);
                self.facts.symbols.push(Symbol {
                    qualified_name: qualified,
                    defined_in: format!("{pointer}/properties/{}", escape_token(&prop)),
                    kind: SymbolKind::Attribute,
                    has_signature: true,
                    parent: Some(qname.clone()),
                    doc: data.and_then(|d| d.schema_data.description.clone()),
                    deprecation: data.and_then(|d| {
                        deprecation(d.schema_data.deprecated, &d.schema_data.extensions)
                    }),
                    file: file.clone(),
                    signature_text: Some(format!("{prop}{opt}: {ty}{null}")),
                    ..Default::default()
                });
            }
        }
    }
}
