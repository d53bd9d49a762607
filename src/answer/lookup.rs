//! Answers about named symbols of a chosen release: exact signatures and facts, availability
//! across releases (since, until, replaced by), listings and a release's diagnostics.

use std::collections::{BTreeMap, HashMap};

use oxigraph::model::NamedNodeRef;

use super::{
    ApiDetail, ApiList, BodyPropertyOut, Candidate, Chosen, DeprecationOut, Engine, ErrorKind,
    Failure, HttpOut, HttpParts, ListItem, ParamOut, ReleaseError, RequestBodyOut, Requirement,
    ResponseOut, SchemaOut, SourceOut, VersionCheck, VersionEntry, candidates_text, get_bool,
    get_int, is_python_class, lit, path_prefix_matches,
};
use crate::lower::{kind_name, kind_of_class, symbol_iri};
use crate::model::{Ecosystem, PackageId};
use crate::queries;
use crate::store::{ReleaseInfo, StoreError, get_str, iri, term_value};

/// Why a symbol's answer could not be given.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error(transparent)]
    Release(#[from] ReleaseError),
    #[error("not found: '{name}' in {release}{}", candidates_text(.candidates))]
    NotFound {
        name: String,
        release: String,
        candidates: Vec<Candidate>,
    },
    #[error("invalid argument: {0}")]
    BadArgument(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Failure for LookupError {
    fn kind(&self) -> ErrorKind {
        match self {
            LookupError::Release(e) => e.kind(),
            LookupError::NotFound { .. } => ErrorKind::NotFound,
            LookupError::BadArgument(_) => ErrorKind::BadInput,
            LookupError::Store(_) => ErrorKind::Internal,
        }
    }
    fn wraps(&self) -> Option<&dyn Failure> {
        match self {
            LookupError::Release(e) => Some(e),
            _ => None,
        }
    }
    fn candidates(&self) -> &[Candidate] {
        match self {
            LookupError::NotFound { candidates, .. } => candidates,
            _ => &[],
        }
    }
}

/// Answers about named symbols: [`Engine::lookup`].
pub struct LookupService<'e> {
    pub(super) e: &'e Engine,
}

impl LookupService<'_> {
    /// The endpoint keys (`GET /pets/{}`) of whatever `name` is in each release, oldest
    /// first: where the name is absent, the same operation may be there under another
    /// operationId (an operation is the same when method and path match, path-parameter
    /// names aside).
    fn endpoint_keys(&self, name: &str, rels: &[ReleaseInfo]) -> Result<Vec<String>, LookupError> {
        let mut keys = Vec::new();
        for r in rels {
            for (symbol, _, _) in self.e.resolve_name(&r.release, name)? {
                let facts = self.e.facts_of(&r.release, &symbol)?;
                for key in facts
                    .get(crate::vocab::rg::ENDPOINT_KEY.as_str())
                    .into_iter()
                    .flatten()
                {
                    if !keys.contains(key) {
                        keys.push(key.clone());
                    }
                }
            }
        }
        Ok(keys)
    }

    /// Request body, responses, HTTP and schema facts of a symbol, when it has them.
    fn http_parts(
        &self,
        release: &str,
        facts: &BTreeMap<String, Vec<String>>,
    ) -> Result<HttpParts, LookupError> {
        use crate::vocab::rg;
        // RDF keeps no order among the values of one property: sorted, so answers are stable.
        let all = |f: &BTreeMap<String, Vec<String>>, p: NamedNodeRef<'_>| {
            let mut v = f.get(p.as_str()).cloned().unwrap_or_default();
            v.sort();
            v
        };
        let one = |f: &BTreeMap<String, Vec<String>>, p: NamedNodeRef<'_>| {
            f.get(p.as_str()).and_then(|v| v.first().cloned())
        };
        let flag = |f: &BTreeMap<String, Vec<String>>, p: NamedNodeRef<'_>| {
            one(f, p).as_deref() == Some("true")
        };
        let mut parts = HttpParts::default();
        if let Some(method) = one(facts, rg::HTTP_METHOD) {
            parts.http = Some(HttpOut {
                method,
                path: one(facts, rg::HTTP_PATH).unwrap_or_default(),
                endpoint_key: one(facts, rg::ENDPOINT_KEY),
                operation_id: one(facts, rg::OPERATION_ID),
                tags: all(facts, rg::TAG),
                security: all(facts, rg::SECURITY),
                servers: all(facts, rg::SERVER),
                sunset: one(facts, rg::SUNSET),
            });
            let mut responses = Vec::new();
            for node in all(facts, rg::RESPONSE_PROP) {
                let f = self.e.facts_of(release, &node)?;
                responses.push(ResponseOut {
                    status: one(&f, rg::STATUS_CODE).unwrap_or_default(),
                    description: one(&f, rg::DESCRIPTION),
                    media_types: all(&f, rg::MEDIA_TYPE),
                    schema: one(&f, rg::SCHEMA_TYPE),
                    headers: all(&f, rg::HEADER),
                });
            }
            responses.sort_by(|a, b| a.status.cmp(&b.status));
            let success: Vec<ResponseOut> = responses
                .iter()
                .filter(|r| r.status.starts_with('2'))
                .cloned()
                .collect();
            parts.responses = Some(if success.is_empty() {
                responses
                    .into_iter()
                    .filter(|r| r.status == "default")
                    .collect()
            } else {
                success
            });
        }
        if let Some(node) = one(facts, rg::REQUEST_BODY_PROP) {
            let f = self.e.facts_of(release, &node)?;
            let mut props = Vec::new();
            for p in all(&f, rg::BODY_PROPERTY_PROP) {
                let pf = self.e.facts_of(release, &p)?;
                let pos: i64 = one(&pf, rg::POSITION)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                props.push((
                    pos,
                    BodyPropertyOut {
                        name: one(&pf, rg::NAME).unwrap_or_default(),
                        required: flag(&pf, rg::REQUIRED),
                        type_: one(&pf, rg::ANNOTATION),
                    },
                ));
            }
            props.sort_by_key(|(p, _)| *p);
            parts.request_body = Some(RequestBodyOut {
                required: flag(&f, rg::REQUIRED),
                media_types: all(&f, rg::MEDIA_TYPE),
                schema: one(&f, rg::SCHEMA_TYPE),
                properties: (!props.is_empty())
                    .then(|| props.into_iter().map(|(_, p)| p).collect()),
            });
        }
        if facts.contains_key(rg::PROPERTY_REQUIRED.as_str()) {
            parts.schema = Some(SchemaOut {
                type_: one(facts, rg::SCHEMA_TYPE),
                format: one(facts, rg::FORMAT),
                required: flag(facts, rg::PROPERTY_REQUIRED),
                nullable: flag(facts, rg::NULLABLE),
                read_only: flag(facts, rg::READ_ONLY),
                write_only: flag(facts, rg::WRITE_ONLY),
                enum_values: all(facts, rg::ENUM_VALUE),
                constraints: all(facts, rg::CONSTRAINT),
                recursive: flag(facts, rg::RECURSIVE),
            });
        }
        Ok(parts)
    }

    /// The exact signature and facts of `name` in the chosen release.
    pub fn api_detail(&self, chosen: &Chosen, name: &str) -> Result<ApiDetail, LookupError> {
        let rel = &chosen.release;
        let name = name.trim();
        let hits = self.e.resolve_name(&rel.release, name)?;
        let Some((symbol, _qname, via)) = hits.first().cloned() else {
            return Err(LookupError::NotFound {
                name: name.to_string(),
                release: rel.release.clone(),
                candidates: self.e.candidates(&rel.release, name)?,
            });
        };
        let mut detail = self.detail_of(rel, &symbol)?;
        // Reached through a subclass (`pkg.Sub.method` names the base's own member): say so.
        if via == "alias"
            && detail.inherited_from.is_none()
            && matches!(
                detail.kind.as_str(),
                "method" | "classmethod" | "staticmethod" | "property"
            )
            && let (Some((asked_parent, _)), Some((own_parent, _))) = (
                name.rsplit_once('.'),
                detail.qualified_name.rsplit_once('.'),
            )
            && asked_parent != own_parent
        {
            let own_names = match self.e.resolve_name(&rel.release, own_parent)?.first() {
                Some((parent_iri, _, _)) => self.detail_of(rel, parent_iri)?.aliases,
                None => vec![],
            };
            if !own_names.iter().any(|a| a == asked_parent) {
                detail.inherited_from = Some(own_parent.to_string());
            }
        }
        if rel.ecosystem == Ecosystem::Pypi {
            detail.views_differ =
                self.type_checker_view(&rel.release, name, Some(&detail.qualified_name))?;
        }
        Ok(detail)
    }

    pub(crate) fn detail_of(
        &self,
        rel: &ReleaseInfo,
        symbol: &str,
    ) -> Result<ApiDetail, LookupError> {
        use crate::vocab::{rdf, rg};
        let facts = self.e.facts_of(&rel.release, symbol)?;
        let one = |p: oxigraph::model::NamedNodeRef<'_>| {
            facts.get(p.as_str()).and_then(|v| v.first().cloned())
        };
        let all = |p: oxigraph::model::NamedNodeRef<'_>| {
            facts.get(p.as_str()).cloned().unwrap_or_default()
        };
        let Some(qname) = one(rg::QUALIFIED_NAME) else {
            return Err(LookupError::NotFound {
                name: symbol.to_string(),
                release: rel.release.clone(),
                candidates: vec![],
            });
        };
        let kind = all(rdf::TYPE)
            .iter()
            .find_map(|t| kind_of_class(t))
            .map(|k| k.as_str().to_string())
            .unwrap_or_else(|| "symbol".into());
        let mut aliases = all(rg::ALIAS);
        // Members are also reachable through every alias of their class.
        if matches!(
            kind.as_str(),
            "method" | "classmethod" | "staticmethod" | "property" | "attribute"
        ) && let (Some(parent), Some((_, last))) = (one(rg::PARENT), qname.rsplit_once('.'))
        {
            let parent_facts = self.e.facts_of(&rel.release, &parent)?;
            for a in parent_facts.get(rg::ALIAS.as_str()).into_iter().flatten() {
                aliases.push(format!("{a}.{last}"));
            }
            aliases.sort();
            aliases.dedup();
        }
        // Parameters, deprecation and overloads: node -> property -> value.
        let mut nodes: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
        for link in [rg::PARAMETER_PROP, rg::DEPRECATION_PROP, rg::OVERLOAD_PROP] {
            for node in facts.get(link.as_str()).into_iter().flatten() {
                let props = nodes
                    .entry((link.as_str().to_string(), node.clone()))
                    .or_default();
                for (p, o) in self.e.store.describe(&rel.release, node)? {
                    props.insert(p, term_value(&o));
                }
            }
        }
        let of_link = |link: NamedNodeRef<'static>| {
            nodes
                .iter()
                .filter(move |((l, _), _)| l == link.as_str())
                .map(|(_, props)| props)
        };
        let get =
            |props: &BTreeMap<String, String>, p: NamedNodeRef<'_>| props.get(p.as_str()).cloned();
        let position = |props: &BTreeMap<String, String>| {
            get(props, rg::POSITION)
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0)
        };
        let mut params: Vec<(i64, ParamOut)> = of_link(rg::PARAMETER_PROP)
            .filter_map(|props| {
                Some((
                    position(props),
                    ParamOut {
                        name: get(props, rg::NAME)?,
                        kind: get(props, rg::PARAMETER_KIND)?,
                        required: get(props, rg::REQUIRED).as_deref() == Some("true"),
                        type_: get(props, rg::ANNOTATION),
                        default: get(props, rg::DEFAULT),
                        description: get(props, rg::DESCRIPTION),
                    },
                ))
            })
            .collect();
        params.sort_by_key(|(p, _)| *p);
        let mut overloads: Vec<(i64, String)> = of_link(rg::OVERLOAD_PROP)
            .filter_map(|props| Some((position(props), get(props, rg::SIGNATURE)?)))
            .collect();
        overloads.sort();
        let http = self.http_parts(&rel.release, &facts)?;
        let deprecation = of_link(rg::DEPRECATION_PROP)
            .next()
            .map(|props| DeprecationOut {
                signal: get(props, rg::SIGNAL).unwrap_or_default(),
                since: get(props, rg::SINCE),
                message: get(props, rg::MESSAGE),
                replacement: get(props, rg::REPLACEMENT),
            });
        Ok(ApiDetail {
            package: rel.package.clone(),
            version: rel.version.clone(),
            qualified_name: qname,
            kind,
            signature: one(rg::SIGNATURE),
            params: params.into_iter().map(|(_, p)| p).collect(),
            returns: one(rg::RETURNS),
            description: one(rg::DOCSTRING),
            deprecated: deprecation.is_some(),
            deprecation,
            aliases,
            defined_in: one(rg::DEFINED_IN),
            inherited_from: one(rg::INHERITED_FROM),
            provenance: one(rg::PROVENANCE),
            views_differ: None,
            is_async: one(rg::IS_ASYNC).as_deref() == Some("true"),
            decorators: all(rg::DECORATOR),
            bases: all(rg::BASE),
            overloads: overloads.into_iter().map(|(_, s)| s).collect(),
            source: SourceOut {
                file: one(rg::SOURCE_FILE),
                line: one(rg::LINE).and_then(|l| l.parse().ok()),
            },
            http: http.http,
            request_body: http.request_body,
            responses: http.responses,
            schema: http.schema,
        })
    }

    /// In which indexed releases of a package `name` exists, and since/until when.
    pub fn check_version(
        &self,
        package: Option<&str>,
        name: &str,
        version: Option<&str>,
    ) -> Result<VersionCheck, LookupError> {
        let package = match package {
            Some(p) if !p.trim().is_empty() => p.to_string(),
            _ => self.e.infer_package(Some(name))?,
        };
        let (purl, rels, purl_version) = self.e.package_releases(&package)?;
        let chosen = version
            .filter(|v| !v.trim().is_empty())
            .map(|v| v.trim().to_string())
            .or(purl_version)
            .map(|v| crate::answer::release_for(&purl, &rels, &v))
            .transpose()?;
        let chosen_by = chosen
            .as_ref()
            .filter(|c| c.asked.is_some())
            .map(|c| c.version_line());
        let requested = chosen.map(|c| c.release.version);
        let name = name.trim();
        let mut versions = Vec::new();
        let mut qualified = None;
        let mut replacement = None;
        let mut last_sig: Option<Option<String>> = None;
        // OpenAPI only: the endpoint keys the name has in any release, read on the first miss.
        let mut endpoint_keys: Option<Vec<String>> = None;
        let mut unknown_reason = None;
        let mut requires = None;
        let mut raises_on_use = None;
        let mut provenance = None;
        let mut views_differ = None;
        // The release notes are said of: the requested one, else the newest.
        let answered = requested.as_ref().or(rels.last().map(|r| &r.version));
        for r in &rels {
            if requested.as_ref() == Some(&r.version) {
                requires = self.guard_of(&r.release, name)?;
            }
            let mut hit = self.e.resolve_name(&r.release, name)?;
            if answered == Some(&r.version) {
                let canonical = hit.first().map(|(_, q, _)| q.as_str());
                views_differ = self.type_checker_view(&r.release, name, canonical)?;
            }
            if hit.is_empty() && r.ecosystem == Ecosystem::Generic {
                if endpoint_keys.is_none() {
                    endpoint_keys = Some(self.endpoint_keys(name, &rels)?);
                }
                for key in endpoint_keys.iter().flatten() {
                    hit = self.e.lookup_endpoint(&r.release, key)?;
                    if !hit.is_empty() {
                        break;
                    }
                }
            }
            // A stub of a removed API: bound (a module variable, or nothing of its own when a
            // name under it is asked), but every use raises.
            let stub = match hit.first() {
                None => self.raises_on_use(&r.release, name)?,
                Some((symbol, qname, _)) if self.is_variable(&r.release, symbol)? => {
                    self.raises_on_use(&r.release, qname)?
                }
                Some(_) => None,
            };
            // Said of the requested release, or of the newest when none is asked.
            if requested.as_ref().is_none_or(|v| v == &r.version) {
                raises_on_use = stub.clone();
            }
            let entry = match hit.first() {
                _ if stub.is_some() => VersionEntry::without_symbol(&r.version, Some(false)),
                Some((symbol, qname, _)) => {
                    let d = self.detail_of(r, symbol)?;
                    if requested.as_ref().is_none_or(|v| v == &r.version) {
                        provenance = match &d.provenance {
                            Some(p) => Some(p.clone()),
                            None => self.runtime_bound(&r.release, name)?,
                        };
                    }
                    let sig = d.signature.clone();
                    let changed = matches!(&last_sig, Some(prev) if *prev != sig);
                    last_sig = Some(sig.clone());
                    qualified = Some(qname.clone());
                    if let Some(dep) = &d.deprecation {
                        replacement = dep.replacement.clone().or(replacement);
                    }
                    VersionEntry {
                        version: r.version.clone(),
                        available: Some(true),
                        deprecated: d.deprecated,
                        signature_changed: changed,
                        signature: sig,
                    }
                }
                // Bound in its module's namespace (an import of a private helper): it exists
                // when the module runs, though it is no API symbol of its own.
                None if self.module_binds(&r.release, name)? => {
                    VersionEntry::without_symbol(&r.version, Some(true))
                }
                None => {
                    let unknown = self.unknown_members_under(&r.release, name)?;
                    let available = if unknown.is_some() { None } else { Some(false) };
                    if requested.as_ref() == Some(&r.version) {
                        unknown_reason = unknown;
                    }
                    VersionEntry::without_symbol(&r.version, available)
                }
            };
            versions.push(entry);
        }
        let first = versions.iter().position(|v| v.available == Some(true));
        let last = versions.iter().rposition(|v| v.available == Some(true));
        let removed_in = last
            .and_then(|l| versions.get(l + 1))
            .map(|v| v.version.clone());
        Ok(VersionCheck {
            qualified_name: qualified.unwrap_or_else(|| name.to_string()),
            package: purl,
            available_in_requested: requested.as_ref().and_then(|v| {
                versions
                    .iter()
                    .find(|e| &e.version == v)
                    .and_then(|e| e.available)
            }),
            unknown_reason,
            requires,
            raises_on_use,
            provenance,
            views_differ,
            requested_version: requested,
            chosen_by,
            introduced_in: first.map(|i| versions[i].version.clone()),
            removed_in,
            deprecated_in: versions
                .iter()
                .find(|v| v.deprecated)
                .map(|v| v.version.clone()),
            replacement,
            versions,
        })
    }

    /// Whether the module that `name` is in binds its last component when it runs.
    fn module_binds(&self, release: &str, name: &str) -> Result<bool, LookupError> {
        let Some((parent, last)) = name.rsplit_once('.') else {
            return Ok(false);
        };
        let needle = format!("\n{last}\n");
        for (symbol, _, _) in self.e.resolve_name(release, parent)? {
            let facts = self.e.facts_of(release, &symbol)?;
            if facts
                .get(crate::vocab::rg::BOUND_NAMES.as_str())
                .is_some_and(|tables| tables.iter().any(|t| t.contains(&needle)))
            {
                return Ok(true);
            }
            // `type` gives every class `mro()`.
            if last == "mro" && is_python_class(&symbol, &facts) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The provenance of `name` when its module binds it only at run time, to a symbol the
    /// source shows elsewhere (`rg:runtimeBound`).
    fn runtime_bound(&self, release: &str, name: &str) -> Result<Option<String>, LookupError> {
        let Some((parent, last)) = name.rsplit_once('.') else {
            return Ok(None);
        };
        let needle = format!("\n{last}\n");
        for (symbol, _, _) in self.e.resolve_name(release, parent)? {
            let facts = self.e.facts_of(release, &symbol)?;
            let tables = facts.get(crate::vocab::rg::RUNTIME_BOUND.as_str());
            if let Some(t) = tables.into_iter().flatten().find(|t| t.contains(&needle)) {
                return Ok(t.lines().next().map(str::to_string));
            }
        }
        Ok(None)
    }

    /// Whether `symbol` is a variable (an `attribute` symbol: a module's `X = ...`).
    fn is_variable(&self, release: &str, symbol: &str) -> Result<bool, LookupError> {
        let facts = self.e.facts_of(release, symbol)?;
        Ok(facts
            .get(oxigraph::model::vocab::rdf::TYPE.as_str())
            .and_then(|t| t.first())
            .is_some_and(|t| kind_name(t) == "attribute"))
    }

    /// What using `name` does in `release` when it, or a name it is under, is bound to a stub
    /// of a removed API (`rg:raisesOnUse`): `openai.Completion.create` raises as
    /// `openai.Completion` does.
    fn raises_on_use(&self, release: &str, name: &str) -> Result<Option<String>, LookupError> {
        let mut path = name;
        loop {
            if let Some((why, _)) =
                self.parent_entry(release, path, crate::vocab::rg::RAISES_ON_USE)?
            {
                return Ok(Some(why));
            }
            match path.rsplit_once('.') {
                Some((parent, _)) if parent.contains('.') => path = parent,
                _ => return Ok(None),
            }
        }
    }

    /// What type checkers and the run time each say of `name` when they disagree
    /// (`rg:typeCheckerView` of its module), read under the name asked and under the
    /// `canonical` name the caller resolved it to.
    fn type_checker_view(
        &self,
        release: &str,
        name: &str,
        canonical: Option<&str>,
    ) -> Result<Option<String>, LookupError> {
        let property = crate::vocab::rg::TYPE_CHECKER_VIEW;
        if !self.e.store.graph_uses(release, property.as_str())? {
            return Ok(None);
        }
        for n in std::iter::once(name).chain(canonical.filter(|c| *c != name)) {
            if let Some((view, _)) = self.parent_entry(release, n, property)? {
                return Ok(Some(view));
            }
        }
        Ok(None)
    }

    /// The optional-dependency test under which `name`'s module binds it in `release`.
    fn guard_of(&self, release: &str, name: &str) -> Result<Option<Requirement>, LookupError> {
        Ok(self
            .parent_entry(release, name, crate::vocab::rg::GUARDED_BY)?
            .map(|(test, module)| Requirement { test, module }))
    }

    /// What the table `property` of `name`'s parent (entries `name<TAB>value`) says of the
    /// name, with the parent's qualified name.
    fn parent_entry(
        &self,
        release: &str,
        name: &str,
        property: oxigraph::model::NamedNodeRef<'static>,
    ) -> Result<Option<(String, String)>, LookupError> {
        let Some((parent, last)) = name.rsplit_once('.') else {
            return Ok(None);
        };
        let prefix = format!("{last}\t");
        for (symbol, qname, _) in self.e.resolve_name(release, parent)? {
            let facts = self.e.facts_of(release, &symbol)?;
            if let Some(value) = facts
                .get(property.as_str())
                .into_iter()
                .flatten()
                .find_map(|v| v.strip_prefix(&prefix))
            {
                return Ok(Some((value.to_string(), qname)));
            }
        }
        Ok(None)
    }

    /// Why `release` cannot tell whether `name` exists, when it cannot: the nearest container
    /// of the name that the release has (a module, a class, a variable) has members that are
    /// unknown statically. `None` means the absence is proven.
    fn unknown_members_under(
        &self,
        release: &str,
        name: &str,
    ) -> Result<Option<String>, LookupError> {
        // A name its module holds only once some code runs (`global` in a function).
        if let Some((reason, _)) =
            self.parent_entry(release, name, crate::vocab::rg::MAYBE_BOUND)?
        {
            return Ok(Some(reason));
        }
        let mut container = name;
        while let Some((parent, _)) = container.rsplit_once('.') {
            container = parent;
            let hits = self.e.resolve_name(release, container)?;
            let Some((symbol, qname, _)) = hits.first() else {
                // Bound in its module all the same (`mod.os` where mod does `import os`):
                // what it holds is known at run time only.
                if self.module_binds(release, container)? {
                    return Ok(Some(format!(
                        "{container} is bound when its module runs, and its attributes are \
                         known only at run time"
                    )));
                }
                continue;
            };
            let facts = self.e.facts_of(release, symbol)?;
            let fact = |p: oxigraph::model::NamedNodeRef<'static>| {
                facts.get(p.as_str()).and_then(|v| v.first().cloned())
            };
            if let Some(reason) = fact(crate::vocab::rg::UNKNOWN_MEMBERS) {
                return Ok(Some(reason));
            }
            let kind = fact(oxigraph::model::vocab::rdf::TYPE).map(|t| kind_name(&t));
            let last = &name[container.len() + 1..];
            if is_python_class(symbol, &facts) && last.starts_with("__") && last.ends_with("__") {
                return Ok(Some(format!(
                    "{qname} is a class: its dunder names come from object, type and the \
                     protocols it implements, which are not listed"
                )));
            }
            if kind.as_deref() == Some("attribute") {
                return Ok(Some(format!(
                    "{qname} is a value whose attributes are known only at run time"
                )));
            }
            return Ok(None);
        }
        Ok(None)
    }

    /// The symbols of a release, filtered and paged.
    pub fn list(
        &self,
        chosen: &Chosen,
        kind: Option<&str>,
        prefix: Option<&str>,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<ApiList, LookupError> {
        self.list_filtered(chosen, kind, prefix, None, limit, cursor)
    }

    /// The symbols of a release, filtered and paged; `tag` keeps the OpenAPI operations with
    /// that tag, and a `prefix` starting with `/` matches operation paths.
    pub fn list_filtered(
        &self,
        chosen: &Chosen,
        kind: Option<&str>,
        prefix: Option<&str>,
        tag: Option<&str>,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<ApiList, LookupError> {
        let rel = &chosen.release;
        if let Some(k) = kind
            && crate::model::SymbolKind::parse(k).is_none()
        {
            return Err(LookupError::BadArgument(format!(
                "unknown kind '{k}'; use one of module, class, function, method, classmethod, staticmethod, property, attribute, interface, operation, schema"
            )));
        }
        let offset: usize = match cursor {
            Some(c) if !c.is_empty() => c.parse().map_err(|_| {
                LookupError::BadArgument(format!("cursor '{c}' is not one this server gave"))
            })?,
            _ => 0,
        };
        let names = self.e.names_of(&rel.release)?;
        let mut aliases: HashMap<&str, Vec<String>> = HashMap::new();
        for e in names
            .entries
            .iter()
            .filter(|e| names.str(e.name) != names.str(e.qname))
        {
            aliases
                .entry(names.str(e.qname))
                .or_default()
                .push(names.str(e.name).to_string());
        }
        let rows = self
            .e
            .store
            .select(&queries::list_symbols, &[("release", iri(&rel.release))])?;
        let package = PackageId::parse(&rel.package).map(|p| p.0).ok();
        let tagged: Option<std::collections::HashSet<String>> = match tag {
            Some(t) => Some(
                self.e
                    .store
                    .select(
                        &queries::operations_by_tag,
                        &[("release", iri(&rel.release)), ("tag", lit(t))],
                    )?
                    .iter()
                    .filter_map(|r| get_str(r, "qname"))
                    .collect(),
            ),
            None => None,
        };
        let items: Vec<ListItem> = rows
            .iter()
            .filter_map(|r| {
                let qname = get_str(r, "qname")?;
                let k = kind_name(&get_str(r, "type")?);
                if kind.is_some_and(|want| want != k) {
                    return None;
                }
                if let Some(p) = prefix {
                    let http_prefix = p.starts_with('/') || p.contains(" /");
                    let names = std::iter::once(&qname)
                        .chain(aliases.get(qname.as_str()).into_iter().flatten());
                    if !(qname.starts_with(p) || http_prefix && path_prefix_matches(p, names)) {
                        return None;
                    }
                }
                if tagged.as_ref().is_some_and(|t| !t.contains(&qname)) {
                    return None;
                }
                Some(ListItem {
                    id: package
                        .as_ref()
                        .map(|p| symbol_iri(p, &qname))
                        .unwrap_or_else(|| get_str(r, "symbol").unwrap_or_default()),
                    aliases: aliases.get(qname.as_str()).cloned().unwrap_or_default(),
                    qualified_name: qname,
                    kind: k,
                    summary: get_str(r, "summary"),
                    deprecated: get_bool(r, "deprecated"),
                })
            })
            .collect();
        let total = items.len();
        let limit = limit.clamp(1, 1000);
        let page: Vec<ListItem> = items.into_iter().skip(offset).take(limit).collect();
        Ok(ApiList {
            package: rel.package.clone(),
            version: rel.version.clone(),
            total,
            next_cursor: (offset + limit < total).then(|| (offset + limit).to_string()),
            items: page,
        })
    }

    /// Problems recorded while ingesting a release.
    pub fn diagnostics(&self, release: &str) -> Result<Vec<(String, i64, String)>, LookupError> {
        let rows = self
            .e
            .store
            .select(&queries::diagnostics, &[("release", iri(release))])?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                Some((
                    get_str(r, "file")?,
                    get_int(r, "line")?,
                    get_str(r, "message")?,
                ))
            })
            .collect())
    }
}
