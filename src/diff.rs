//! What changed between two indexed releases of one package: symbols removed, added,
//! deprecated, and signatures changed. A first step towards issue 6's migration reports: the
//! change kinds are the coarse ones of the eval contract; rules as data, renames and
//! parameter-level classification are not built yet.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::answer::{AnswerError, Engine, get_bool, get_str, iri, kind_name};
use crate::queries;

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiffSummary {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub deprecated: usize,
    pub renamed: usize,
    pub breaking: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Change {
    /// added | removed | changed | deprecated | renamed
    pub kind: String,
    pub qualified_name: String,
    /// The symbol's kind (function, class, method, operation...).
    pub symbol_kind: String,
    /// Whether code written against `from` can break on `to`: removals, and signature changes
    /// until parameter-level rules say otherwise.
    pub breaking: bool,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_signature: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_signature: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiffReport {
    pub package: String,
    pub from: String,
    pub to: String,
    /// Counts over every change, whatever page this is.
    pub summary: DiffSummary,
    pub changes: Vec<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

impl DiffReport {
    /// The report as text: a summary line, then one line per change with old and new
    /// signatures beneath it. The CLI prints it; MCP sends it beside the structured content.
    pub fn to_text(&self) -> String {
        let s = &self.summary;
        let mut out = format!(
            "{} {} -> {}: {} removed, {} added, {} changed, {} deprecated ({} breaking)",
            self.package,
            self.from,
            self.to,
            s.removed,
            s.added,
            s.changed,
            s.deprecated,
            s.breaking
        );
        for c in &self.changes {
            let breaking = if c.breaking { "  [breaking]" } else { "" };
            out.push_str(&format!(
                "\n  {:<10} {}{breaking}",
                c.kind, c.qualified_name
            ));
            if let (Some(o), Some(n)) = (&c.old_signature, &c.new_signature) {
                out.push_str(&format!("\n             - {o}\n             + {n}"));
            }
        }
        if let Some(c) = &self.next_cursor {
            out.push_str(&format!("\n(more: cursor {c})"));
        }
        out
    }
}

struct Fact {
    /// The name reported (the canonical name; an operation's operationId).
    name: String,
    kind: String,
    signature: Option<String>,
    deprecated: bool,
}

impl Engine {
    /// A release's symbols by identity: the canonical name, or for an OpenAPI spec the
    /// operation's endpoint key (method and path, path-parameter names ignored), so an
    /// operationId reused on another path is a removal plus an addition. Component schemas are
    /// left out of OpenAPI diffs for now.
    fn release_facts(
        &self,
        release: &str,
        openapi: bool,
    ) -> Result<BTreeMap<String, Fact>, AnswerError> {
        let rows = self
            .store()
            .select(&queries::release_signatures, &[("release", iri(release))])?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let name = get_str(r, "qname")?;
                let key = match (openapi, get_str(r, "endpoint")) {
                    (true, Some(endpoint)) => endpoint,
                    (true, None) => return None,
                    (false, _) => name.clone(),
                };
                Some((
                    key,
                    Fact {
                        name,
                        kind: kind_name(&get_str(r, "type")?),
                        signature: get_str(r, "signature"),
                        deprecated: get_bool(r, "deprecated"),
                    },
                ))
            })
            .collect())
    }

    /// The changes from release `from` to release `to` of `package`, sorted by name, paged.
    /// Both versions must be indexed (the error lists the indexed ones). A name that is gone
    /// from one side but still resolves there (an alias, a member now inherited) is not a
    /// change.
    pub fn diff_versions(
        &self,
        package: &str,
        from: &str,
        to: &str,
        breaking_only: bool,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<DiffReport, AnswerError> {
        let old = self.choose(Some(package), Some(from), None)?;
        let new = self.choose(Some(package), Some(to), None)?;
        let (a, b) = (&old.release.release, &new.release.release);
        let openapi = old.release.ecosystem == "generic";
        let before = self.release_facts(a, openapi)?;
        let after = self.release_facts(b, openapi)?;
        let mut changes = Vec::new();
        for (key, f) in &before {
            let name = &f.name;
            match after.get(key) {
                None => {
                    if !openapi && !self.lookup(b, name)?.is_empty() {
                        continue;
                    }
                    changes.push(Change {
                        kind: "removed".into(),
                        qualified_name: name.clone(),
                        symbol_kind: f.kind.clone(),
                        breaking: true,
                        detail: format!("{} {name} is not in {}", f.kind, new.release.version),
                        old_signature: f.signature.clone(),
                        new_signature: None,
                        replacement: None,
                    });
                }
                Some(g) => {
                    if f.signature != g.signature && f.signature.is_some() && g.signature.is_some()
                    {
                        changes.push(Change {
                            kind: "changed".into(),
                            qualified_name: name.clone(),
                            symbol_kind: g.kind.clone(),
                            breaking: true,
                            detail: "signature changed".into(),
                            old_signature: f.signature.clone(),
                            new_signature: g.signature.clone(),
                            replacement: None,
                        });
                    }
                    if g.deprecated && !f.deprecated {
                        changes.push(Change {
                            kind: "deprecated".into(),
                            qualified_name: name.clone(),
                            symbol_kind: g.kind.clone(),
                            breaking: false,
                            detail: format!("deprecated in {}", new.release.version),
                            old_signature: None,
                            new_signature: None,
                            replacement: None,
                        });
                    }
                }
            }
        }
        for (key, g) in &after {
            let name = &g.name;
            if before.contains_key(key) || (!openapi && !self.lookup(a, name)?.is_empty()) {
                continue;
            }
            changes.push(Change {
                kind: "added".into(),
                qualified_name: name.clone(),
                symbol_kind: g.kind.clone(),
                breaking: false,
                detail: format!("{} {name} is new in {}", g.kind, new.release.version),
                old_signature: None,
                new_signature: g.signature.clone(),
                replacement: None,
            });
        }
        changes.sort_by(|x, y| (&x.qualified_name, &x.kind).cmp(&(&y.qualified_name, &y.kind)));
        let count = |k: &str| changes.iter().filter(|c| c.kind == k).count();
        let summary = DiffSummary {
            added: count("added"),
            removed: count("removed"),
            changed: count("changed"),
            deprecated: count("deprecated"),
            renamed: 0,
            breaking: changes.iter().filter(|c| c.breaking).count(),
        };
        if breaking_only {
            changes.retain(|c| c.breaking);
        }
        let start: usize = match cursor {
            Some(c) => c.parse().map_err(|_| {
                AnswerError::BadArgument(format!("cursor '{c}' is not one this tool gave"))
            })?,
            None => 0,
        };
        let limit = limit.clamp(1, 5000);
        let end = (start + limit).min(changes.len());
        let next_cursor = (end < changes.len()).then(|| end.to_string());
        let page = changes
            .get(start..end)
            .map(<[Change]>::to_vec)
            .unwrap_or_default();
        Ok(DiffReport {
            package: old.release.package.clone(),
            from: old.release.version.clone(),
            to: new.release.version.clone(),
            summary,
            changes: page,
            next_cursor,
        })
    }
}
