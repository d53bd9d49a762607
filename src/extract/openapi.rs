//! OpenAPI 3.0 and 3.1 documents (JSON or YAML): operations and component schemas as facts.

use std::collections::{BTreeSet, HashMap};

use openapiv3::{Info, Operation, PathItem, SecurityRequirement, SecurityScheme, Server};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::extract::SourceFile;
use crate::model::{Diagnostic, ReleaseFacts, Service};

mod normalize;
mod operation;
pub mod refs;
mod schema;

use refs::{Docs, escape_token};

fn diag(file: &str, pointer: &str, message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic {
        file: format!("{file}{pointer}"),
        line: 0,
        message: message.to_string(),
    }
}

/// Parses JSON or YAML into a JSON value; the error names the line.
fn load(file: &SourceFile) -> Result<Value, Diagnostic> {
    let first = file.text.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let is_json = file.path.ends_with(".json") || matches!(first, Some(b'{' | b'['));
    if is_json {
        serde_json::from_slice(&file.text).map_err(|e| Diagnostic {
            file: file.path.clone(),
            line: e.line(),
            message: format!("invalid JSON: {e}"),
        })
    } else {
        serde_yaml_ng::from_slice(&file.text).map_err(|e| Diagnostic {
            file: file.path.clone(),
            line: e.location().map_or(0, |l| l.line()),
            message: format!("invalid YAML: {e}"),
        })
    }
}

/// Reads the OpenAPI document of a release (and the files its `$ref`s point into).
pub fn extract(files: &[SourceFile]) -> ReleaseFacts {
    extract_with(files, &Default::default())
}

/// [`extract`] with the given `$ref` limits.
pub fn extract_with(files: &[SourceFile], limits: &crate::extract::ExtractLimits) -> ReleaseFacts {
    let mut facts = ReleaseFacts {
        files: files.len(),
        ..Default::default()
    };
    let mut docs = Docs::new(*limits);
    let mut roots = Vec::new();
    for f in files {
        match load(f) {
            Ok(v) => {
                if v.get("openapi").is_some() || v.get("swagger").is_some() {
                    roots.push(f.path.clone());
                }
                docs.files.insert(f.path.clone(), v);
            }
            Err(d) => facts.diagnostics.push(d),
        }
    }
    roots.sort();
    let Some(root) = roots.first().cloned() else {
        if facts.diagnostics.is_empty() {
            facts.diagnostics.push(diag(
                "",
                "",
                "no OpenAPI document: no file has a top-level 'openapi' field",
            ));
        }
        return facts;
    };
    for other in &roots[1..] {
        facts.diagnostics.push(diag(
            other,
            "",
            format!("a second OpenAPI document; only {root} is read"),
        ));
    }
    let doc = docs.files.get_mut(&root).expect("root was loaded");
    let version = doc
        .get("openapi")
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
    let Some(version) = version else {
        facts.diagnostics.push(diag(
            &root,
            "#/swagger",
            "this is a Swagger 2.0 document; refgraph reads OpenAPI 3.0 and 3.1 \
             (convert it first, e.g. with swagger2openapi)",
        ));
        return facts;
    };
    if version.starts_with("3.1") {
        for (pointer, message) in normalize::normalize_31(doc).messages() {
            facts.diagnostics.push(diag(&root, &pointer, message));
        }
    } else if !version.starts_with("3.0") {
        facts.diagnostics.push(diag(
            &root,
            "#/openapi",
            format!("OpenAPI {version} is not supported; refgraph reads 3.0 and 3.1"),
        ));
        return facts;
    }
    Extractor {
        docs: &docs,
        root: &root,
        facts: &mut facts,
        credentials: HashMap::new(),
    }
    .run(&version);
    if let Some(at) = docs.nesting_cut.borrow().as_ref() {
        facts.diagnostics.push(diag(
            &root,
            "",
            format!(
                "schemas nest more than {} $refs deep (at {at}); bodies and properties that \
                 deep are not flattened; if the document is genuine, raise --max-schema-nesting",
                limits.max_schema_nesting
            ),
        ));
    }
    for (pointer, reason) in refs::broken_refs(&docs, &root) {
        facts.diagnostics.push(diag(&root, &pointer, reason));
    }
    // A broken $ref is found both where an operation uses it and by the walk over every $ref.
    let mut seen = BTreeSet::new();
    facts
        .diagnostics
        .retain(|d| seen.insert((d.file.clone(), d.message.clone())));
    facts
}

/// What a client must send for a security scheme, independent of the scheme's name:
/// `apiKey in header X-Api-Key`, `http bearer`, `oauth2 clientCredentials <token URL>`,
/// `openIdConnect <URL>`.
fn credential(scheme: &SecurityScheme) -> String {
    match scheme {
        SecurityScheme::APIKey { location, name, .. } => {
            let at = match location {
                openapiv3::APIKeyLocation::Query => "query",
                openapiv3::APIKeyLocation::Header => "header",
                openapiv3::APIKeyLocation::Cookie => "cookie",
            };
            format!("apiKey in {at} {name}")
        }
        SecurityScheme::HTTP { scheme, .. } => format!("http {}", scheme.to_ascii_lowercase()),
        SecurityScheme::OAuth2 { flows, .. } => {
            let mut parts = vec!["oauth2".to_string()];
            if let Some(f) = &flows.implicit {
                parts.push(format!("implicit {}", f.authorization_url));
            }
            if let Some(f) = &flows.password {
                parts.push(format!("password {}", f.token_url));
            }
            if let Some(f) = &flows.client_credentials {
                parts.push(format!("clientCredentials {}", f.token_url));
            }
            if let Some(f) = &flows.authorization_code {
                parts.push(format!(
                    "authorizationCode {} {}",
                    f.authorization_url, f.token_url
                ));
            }
            parts.join(" ")
        }
        SecurityScheme::OpenIDConnect {
            open_id_connect_url,
            ..
        } => format!("openIdConnect {open_id_connect_url}"),
    }
}

struct Extractor<'a> {
    docs: &'a Docs,
    root: &'a str,
    facts: &'a mut ReleaseFacts,
    /// Security scheme name -> what a client sends (`apiKey in header project_id`): a scheme
    /// renamed with the same credential is the same requirement.
    credentials: HashMap<String, String>,
}

impl Extractor<'_> {
    fn warn(&mut self, pointer: &str, message: impl std::fmt::Display) {
        self.facts
            .diagnostics
            .push(diag(self.root, pointer, message));
    }

    /// A typed part of the document; a part that does not parse is a diagnostic.
    fn typed<T: DeserializeOwned>(&mut self, value: &Value, pointer: &str) -> Option<T> {
        match T::deserialize(value) {
            Ok(t) => Some(t),
            Err(e) => {
                self.warn(pointer, format!("skipped: {e}"));
                None
            }
        }
    }

    fn run(&mut self, version: &str) {
        let docs = self.docs;
        let doc = &docs.files[self.root];
        let info: Info = doc
            .get("info")
            .and_then(|i| self.typed(i, "#/info"))
            .unwrap_or_default();
        let servers: Vec<Server> = doc
            .get("servers")
            .and_then(|s| self.typed(s, "#/servers"))
            .unwrap_or_default();
        let global_security: Vec<SecurityRequirement> = doc
            .get("security")
            .and_then(|s| self.typed(s, "#/security"))
            .unwrap_or_default();
        if let Some(schemes) = doc
            .pointer("/components/securitySchemes")
            .and_then(Value::as_object)
        {
            for (name, value) in schemes {
                let pointer = format!("#/components/securitySchemes/{}", escape_token(name));
                let value = match docs.follow(self.root, value) {
                    Ok((_, v)) => v,
                    Err(e) => {
                        self.warn(&pointer, e);
                        continue;
                    }
                };
                if let Some(scheme) = self.typed::<SecurityScheme>(value, &pointer) {
                    self.credentials.insert(name.clone(), credential(&scheme));
                }
            }
        }
        // `tags: [{name, description}]`, as a reader of the document sees each group.
        let tags: Vec<(String, String)> = doc
            .get("tags")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| {
                let name = t.get("name")?.as_str()?.trim();
                let description = t.get("description")?.as_str()?.trim();
                (!name.is_empty() && !description.is_empty())
                    .then(|| (name.to_string(), description.to_string()))
            })
            .collect();
        self.facts.service = Some(Service {
            title: info.title.clone(),
            api_version: info.version.clone(),
            openapi: version.to_string(),
            servers: servers.iter().map(|s| s.url.clone()).collect(),
            tags,
        });
        let taken = self.operations(doc, &global_security);
        self.schemas(&taken);
    }

    /// Every operation; returns the names taken.
    fn operations(
        &mut self,
        doc: &Value,
        global_security: &[SecurityRequirement],
    ) -> BTreeSet<String> {
        let mut taken: BTreeSet<String> = BTreeSet::new();
        let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
            self.warn("#/paths", "no 'paths' object");
            return taken;
        };
        for (path, item_value) in paths {
            if path.starts_with("x-") {
                continue;
            }
            let pointer = format!("#/paths/{}", escape_token(path));
            let (file, item_value) = match self.docs.follow(self.root, item_value) {
                Ok((loc, v)) if loc.pointer.is_empty() => (self.root.to_string(), v),
                Ok((loc, v)) => (loc.file, v),
                Err(e) => {
                    self.warn(&pointer, e);
                    continue;
                }
            };
            // A path item that does not parse as a whole is read operation by operation, so
            // one bad operation costs only itself.
            let item: PathItem = match PathItem::deserialize(item_value) {
                Ok(i) => i,
                Err(_) => {
                    let mut item = PathItem::default();
                    if let Some(ps) = item_value.get("parameters") {
                        item.parameters = self
                            .typed(ps, &format!("{pointer}/parameters"))
                            .unwrap_or_default();
                    }
                    for m in crate::model::HTTP_METHODS {
                        let Some(op_value) = item_value.get(m) else {
                            continue;
                        };
                        let op: Option<Operation> = self.typed(op_value, &format!("{pointer}/{m}"));
                        let slot = match m {
                            "get" => &mut item.get,
                            "put" => &mut item.put,
                            "post" => &mut item.post,
                            "delete" => &mut item.delete,
                            "options" => &mut item.options,
                            "head" => &mut item.head,
                            "patch" => &mut item.patch,
                            _ => &mut item.trace,
                        };
                        *slot = op;
                    }
                    item
                }
            };
            for (method, op) in item.iter() {
                let op_pointer = format!("{pointer}/{method}");
                let endpoint = format!("{} {path}", method.to_ascii_uppercase());
                let (mut sym, mut http) =
                    self.operation(&file, path, method, &item, op, &op_pointer, global_security);
                if !taken.insert(sym.qualified_name.clone()) {
                    self.warn(
                        &op_pointer,
                        format!(
                            "operationId '{}' is used twice; this operation is named '{endpoint}'",
                            sym.qualified_name
                        ),
                    );
                    sym.aliases.retain(|a| *a != endpoint);
                    sym.qualified_name = endpoint.clone();
                    http.operation_id = None;
                    taken.insert(endpoint);
                }
                self.facts
                    .operations
                    .insert(sym.qualified_name.clone(), http);
                self.facts.symbols.push(sym);
            }
        }
        taken
    }
}
