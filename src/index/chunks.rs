//! Chunks: the units the text index ranks, each read from the store and linked to entities.
//!
//! Two sources: every public symbol of a release (its docstring, signature and name, linked to
//! the symbol itself and to the symbols its docstring names), and the sections of doc pages
//! stored with the release (linked to the symbols they mention). Both are read back from the release graph, so the index can always
//! be rebuilt from the store alone.

use std::collections::HashMap;

use oxigraph::model::NamedNode;
use serde::{Deserialize, Serialize};

use crate::lower::{kind_name, name_rows};
use crate::model::{Ecosystem, owner_of};
use crate::queries;
use crate::store::{ReleaseInfo, get_str};
use crate::store::{Store, StoreError};

/// An entity a chunk is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EntityRef {
    /// The symbol's IRI.
    pub id: String,
    pub qualified_name: String,
    pub kind: String,
}

/// What a chunk is: reference text about one API, prose explaining ideas, an example, a
/// step-by-step guide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContentType {
    Concept,
    ApiReference,
    CodeExample,
    Tutorial,
}

impl ContentType {
    pub const ALL: [ContentType; 4] = [
        ContentType::Concept,
        ContentType::ApiReference,
        ContentType::CodeExample,
        ContentType::Tutorial,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ContentType::Concept => "concept",
            ContentType::ApiReference => "api_reference",
            ContentType::CodeExample => "code_example",
            ContentType::Tutorial => "tutorial",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// One indexed unit of text.
#[derive(Debug, Clone, Serialize)]
pub struct Chunk {
    /// Stable id: the release-local IRI of the symbol or doc section.
    pub id: String,
    /// The release IRI (`pkg:pypi/click@8.1.7`).
    pub release: String,
    pub package: String,
    pub version: String,
    /// python, javascript or openapi.
    pub language: String,
    pub content_type: ContentType,
    pub title: String,
    /// Headings (or module and class) leading to this chunk, joined by ` > `.
    pub section_path: String,
    /// The text, as Markdown.
    pub text: String,
    /// Where it comes from: a page URL, or `file:line` in the release.
    pub source_url: String,
    /// The id `get_page` takes for the whole page this chunk belongs to.
    pub page: String,
    pub page_title: String,
    /// Position within the page.
    pub order: usize,
    pub entities: Vec<EntityRef>,
    /// When the source was last changed or ingested (RFC 3339).
    pub last_updated: String,
    /// What the sentence vector is computed from: the title in words, then the text. Empty
    /// for a symbol without documentation: a bare name gives a sentence model nothing to
    /// compare a question with (its cosine to a long question is noise, and in a package of
    /// undocumented members such as mobx's collections it crowded documented chunks out of
    /// the vector ranking); BM25 and the name ranking still find it.
    pub embed_text: String,
    /// Ids of the chunks of the callables that take what this chunk is about (a class or
    /// interface, or for a property or attribute its class: parameters annotated with it; an
    /// OpenAPI schema: the operations whose request body it is): a relevant hit on this
    /// chunk lifts them
    /// ([`crate::index::fusion::FusionConfig::lift`]). Empty when more than [`MAX_TAKERS`]
    /// take it: a type everything takes says nothing about any one of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lifts: Vec<String>,
}

/// How many callables (with chunks) may take a type before a hit on it lifts none of them.
pub(crate) const MAX_TAKERS: usize = 20;

/// Kinds whose symbols get a chunk even without a docstring: the things people call.
const CALLABLE_KINDS: &[&str] = &[
    "module",
    "class",
    "function",
    "method",
    "classmethod",
    "staticmethod",
    "interface",
    "operation",
];

/// `get_app_dir` → `get app dir`, `getAppDir` → `get App Dir`: what a sentence model reads well.
pub(crate) fn words_of_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if c == '_' || c == '-' {
            out.push(' ');
        } else {
            if c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase()) {
                out.push(' ');
            }
            out.push(c);
        }
        prev = Some(c);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The last segment of a qualified name (`click.Context.invoke` → `invoke`,
/// `commander:Command.option` → `option`).
pub(crate) fn short_name(qname: &str) -> &str {
    qname.rsplit(['.', ':', '/']).next().unwrap_or(qname)
}

/// The name a synchronous and an asynchronous twin share: `httpx.AsyncClient.get` and
/// `httpx.Client.get`, `tenacity.asyncio.AsyncRetrying` and `tenacity.Retrying`,
/// `fs:readFileSync` and `fs:readFile`, `azure.storage.blob.aio.BlobClient` and
/// `azure.storage.blob.BlobClient` all give the second. Segments are stripped of an `Async` or
/// `async_` prefix and an `Async`, `Sync`, `_async` or `_sync` suffix; `aio`, `asyncio` and
/// `_async` segments are dropped.
pub(crate) fn twin_key(qname: &str) -> String {
    let mut out = String::with_capacity(qname.len());
    let mut segment = String::new();
    let flush = |segment: &mut String, out: &mut String| {
        let s = segment.as_str();
        let upper_after = |rest: &str| rest.chars().next().is_some_and(char::is_uppercase);
        let s = match s.strip_prefix("Async") {
            Some(rest) if upper_after(rest) => rest,
            _ => s
                .strip_prefix("async_")
                .filter(|r| !r.is_empty())
                .unwrap_or(s),
        };
        let s = ["Async", "Sync", "_async", "_sync"]
            .iter()
            .find_map(|suffix| {
                s.strip_suffix(suffix)
                    .filter(|r| r.chars().last().is_some_and(char::is_alphanumeric))
            })
            .unwrap_or(s);
        if !matches!(s, "aio" | "asyncio" | "_async" | "_asyncio") {
            out.push_str(s);
            out.push('\u{0}');
        }
        segment.clear();
    };
    for c in qname.chars() {
        if matches!(c, '.' | ':' | '/') {
            flush(&mut segment, &mut out);
        } else {
            segment.push(c);
        }
    }
    flush(&mut segment, &mut out);
    out
}

/// Module, class and name as a path: `click > Context > invoke`, `commander > Command > option`.
fn symbol_section_path(qname: &str, tags: &str, language: &str) -> String {
    if language == "openapi" {
        let mut parts: Vec<&str> = tags.split(' ').filter(|t| !t.is_empty()).take(1).collect();
        parts.push(qname);
        return parts.join(" > ");
    }
    qname
        .split([':', '.'])
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" > ")
}

/// Every chunk of a release: its symbols' and its doc pages'.
pub fn release_chunks(store: &Store, rel: &ReleaseInfo) -> Result<Vec<Chunk>, StoreError> {
    let mut symbols: HashMap<String, EntityRef> = HashMap::new();
    let mut chunks = entity_chunks(store, rel, &mut symbols)?;
    chunks.extend(section_chunks(store, rel, &symbols)?);
    Ok(chunks)
}

/// One chunk per doc section, linked to the symbols it mentions.
fn section_chunks(
    store: &Store,
    rel: &ReleaseInfo,
    symbols: &HashMap<String, EntityRef>,
) -> Result<Vec<Chunk>, StoreError> {
    let release = NamedNode::new_unchecked(rel.release.clone());
    let rows = store.select(&queries::doc_sections, &[("release", release.into())])?;
    let language = rel.ecosystem.language();
    let mut out = Vec::new();
    for row in rows {
        let (Some(section), Some(page), Some(text)) = (
            get_str(&row, "section"),
            get_str(&row, "page"),
            get_str(&row, "text"),
        ) else {
            continue;
        };
        let page_title = get_str(&row, "page_title").unwrap_or_default();
        let title = get_str(&row, "title").unwrap_or_default();
        let path = get_str(&row, "path").unwrap_or_default();
        let entities: Vec<EntityRef> = get_str(&row, "mentions")
            .unwrap_or_default()
            .split(' ')
            .filter_map(|iri| symbols.get(iri).cloned())
            .collect();
        let section_path = if path.is_empty() {
            page_title.clone()
        } else {
            path.clone()
        };
        let embed_text = format!("{section_path}\n{text}");
        out.push(Chunk {
            id: section,
            release: rel.release.clone(),
            package: rel.package.clone(),
            version: rel.version.clone(),
            language: language.to_string(),
            content_type: get_str(&row, "content_type")
                .and_then(|c| ContentType::parse(&c))
                .unwrap_or(ContentType::Concept),
            title: if title.is_empty() {
                page_title.clone()
            } else {
                title
            },
            page_title,
            order: get_str(&row, "order")
                .and_then(|o| o.parse().ok())
                .unwrap_or(0),
            section_path,
            text,
            source_url: get_str(&row, "source_url").unwrap_or_default(),
            page,
            entities,
            last_updated: get_str(&row, "last_updated").unwrap_or_else(|| rel.ingested_at.clone()),
            embed_text,
            lifts: Vec::new(),
        });
    }
    Ok(out)
}

/// One chunk per documented symbol of `rel` (and per undocumented callable), from the store.
/// Every symbol seen is recorded in `symbols` (IRI → reference), for linking doc sections.
pub fn entity_chunks(
    store: &Store,
    rel: &ReleaseInfo,
    symbols: &mut HashMap<String, EntityRef>,
) -> Result<Vec<Chunk>, StoreError> {
    let release = NamedNode::new_unchecked(rel.release.clone());
    let rows = store.select(&queries::doc_chunks, &[("release", release.clone().into())])?;
    let openapi = rel.ecosystem == Ecosystem::Generic;
    let language = rel.ecosystem.language();
    // An OpenAPI schema's chunk lists its properties, which get no chunks of their own.
    let mut properties: HashMap<String, Vec<String>> = HashMap::new();
    if openapi {
        for row in &rows {
            if let (Some(parent), Some(qname)) = (get_str(row, "parent"), get_str(row, "qname")) {
                properties
                    .entry(parent)
                    .or_default()
                    .push(short_name(&qname).to_string());
            }
        }
    }
    let params = symbol_params(store, &release)?;
    // What the spec says of each tag: words an operation's own summary may lack ("bug
    // reports" for the `issues` tag).
    let tag_text = if openapi {
        tag_descriptions(store, &release)?
    } else {
        HashMap::new()
    };
    let mentions = DocstringMentions::new(store, rel, &rows)?;
    let mut out = Vec::new();
    // Each chunk's own class, for a property or attribute: a hit on it lifts what takes that.
    let mut owner: Vec<Option<String>> = Vec::new();
    for row in rows {
        let (Some(symbol), Some(qname), Some(ty)) = (
            get_str(&row, "symbol"),
            get_str(&row, "qname"),
            get_str(&row, "type"),
        ) else {
            continue;
        };
        let kind = kind_name(&ty);
        if symbols.contains_key(&symbol) {
            continue;
        }
        symbols.insert(
            symbol.clone(),
            EntityRef {
                id: symbol.clone(),
                qualified_name: qname.clone(),
                kind: kind.clone(),
            },
        );
        let doc = get_str(&row, "doc").unwrap_or_default();
        // HTML docstrings read as Markdown: tags and attributes are noise to BM25 and vectors.
        // A JSDoc docstring's tags (`@example` with a fenced block, as the AWS SDK writes) follow
        // its description after a blank line: the description is converted on its own.
        let html = crate::extract::docs::html_docstring_to_markdown;
        let doc = match doc.split_once("\n\n@") {
            Some((description, tags)) => match html(description) {
                Some(md) => format!("{md}\n\n@{tags}"),
                None => doc,
            },
            None => html(&doc).unwrap_or(doc),
        };
        if doc.trim().is_empty() && !CALLABLE_KINDS.contains(&kind.as_str()) {
            continue;
        }
        // Underscore names are internal by convention (`_allowStateChanges`, `__enter__`), and
        // the properties of an OpenAPI schema are answers to no question on their own: their
        // schema's chunk names them.
        if short_name(&qname).starts_with('_')
            || (openapi && !matches!(kind.as_str(), "operation" | "schema"))
        {
            continue;
        }
        let signature = get_str(&row, "signature");
        let tags = get_str(&row, "tags").unwrap_or_default();
        let file = get_str(&row, "file").unwrap_or_default();
        let line = get_str(&row, "line").unwrap_or_default();
        let mut text = String::new();
        if let Some(sig) = &signature {
            let fence = if openapi { "http" } else { language };
            text.push_str(&format!("```{fence}\n{sig}\n```\n\n"));
        }
        text.push_str(doc.trim());
        if kind == "schema"
            && let Some(props) = properties.get(&qname)
        {
            text.push_str(&format!("\n\nProperties: {}", props.join(", ")));
        }
        let own_params = params.get(&symbol).filter(|p| !p.is_empty());
        if let Some(ps) = own_params {
            text.push_str("\n\nParameters:");
            for p in ps {
                text.push_str(&format!("\n- {p}"));
            }
        }
        if kind == "operation" {
            text.push_str(&described_tags(&tags, &tag_text));
        }
        let short = short_name(&qname);
        let embed_text = if doc.trim().is_empty() && !properties.contains_key(&qname) {
            String::new()
        } else {
            let mut e = words_of_name(short);
            if let Some(parent) = get_str(&row, "parent") {
                e.push_str(&format!(" ({})", words_of_name(short_name(&parent))));
            }
            if !tags.is_empty() {
                e.push_str(&format!(" [{tags}]"));
            }
            if !doc.trim().is_empty() {
                e.push_str(": ");
                e.push_str(doc.trim());
            }
            if let Some(props) = properties.get(&qname) {
                e.push_str(&format!(" (fields: {})", props.join(", ")));
            }
            e
        };
        let id = chunk_id(&rel.release, &symbol);
        owner.push(
            matches!(kind.as_str(), "property" | "attribute")
                .then(|| get_str(&row, "parent"))
                .flatten(),
        );
        out.push(Chunk {
            page: id.clone(),
            page_title: qname.clone(),
            order: 0,
            id,
            release: rel.release.clone(),
            package: rel.package.clone(),
            version: rel.version.clone(),
            language: language.to_string(),
            content_type: ContentType::ApiReference,
            section_path: symbol_section_path(&qname, &tags, language),
            title: qname.clone(),
            text,
            source_url: match (file.as_str(), line.as_str()) {
                ("", _) => String::new(),
                (f, "" | "0") => f.to_string(),
                (f, l) => format!("{f}:{l}"),
            },
            // An OpenAPI description's words are no code: its ``id`` would name every
            // schema's `id` property.
            entities: mentions.linked(
                EntityRef {
                    id: symbol,
                    qualified_name: qname,
                    kind,
                },
                if openapi { "" } else { &doc },
            ),
            last_updated: rel.ingested_at.clone(),
            embed_text,
            lifts: Vec::new(),
        });
    }
    let takers = takers(store, &release, rel)?;
    let have: std::collections::HashSet<String> = out.iter().map(|c| c.id.clone()).collect();
    for (chunk, owner) in out.iter_mut().zip(owner) {
        let kind = chunk.entities.first().map_or("", |e| e.kind.as_str());
        // A type is taken under its own name; a schema renamed beside an operation of the
        // same name (`schemas.Pet`) is named bare in request bodies.
        let taken = match kind {
            "class" | "interface" => takers.get(&chunk.title),
            "schema" => takers.get(chunk.title.strip_prefix("schemas.").unwrap_or(&chunk.title)),
            _ => owner.and_then(|o| takers.get(&o)),
        };
        let Some(taken) = taken else {
            continue;
        };
        let lifts: Vec<String> = taken
            .iter()
            .filter(|id| **id != chunk.id && have.contains(*id))
            .cloned()
            .collect();
        if lifts.len() <= MAX_TAKERS {
            chunk.lifts = lifts;
        }
    }
    Ok(out)
}

/// A symbol's chunk id: the release, then the symbol IRI's fragment.
fn chunk_id(release: &str, symbol: &str) -> String {
    format!("{release}#{}", symbol.rsplit_once('#').map_or("", |x| x.1))
}

/// The chunk ids of the callables that take each class or schema of the release (by its
/// qualified name): `takers.rq`, with `array<Pet>` read as `Pet`.
fn takers(
    store: &Store,
    release: &NamedNode,
    rel: &ReleaseInfo,
) -> Result<HashMap<String, Vec<String>>, StoreError> {
    let rows = store.select(&queries::takers, &[("release", release.clone().into())])?;
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for row in rows {
        let (Some(taker), Some(taken)) = (get_str(&row, "taker"), get_str(&row, "taken")) else {
            continue;
        };
        let taken = taken
            .strip_prefix("array<")
            .and_then(|t| t.strip_suffix('>'))
            .unwrap_or(&taken)
            .to_string();
        let id = chunk_id(&rel.release, &taker);
        let list = out.entry(taken).or_default();
        if !list.contains(&id) {
            list.push(id);
        }
    }
    Ok(out)
}

/// What the OpenAPI document of `release` says of each tag: tag name -> description.
fn tag_descriptions(
    store: &Store,
    release: &NamedNode,
) -> Result<HashMap<String, String>, StoreError> {
    let rows = store.select(
        &queries::tag_descriptions,
        &[("release", release.clone().into())],
    )?;
    Ok(rows
        .iter()
        .filter_map(|row| {
            let value = get_str(row, "value")?;
            let (tag, description) = value.split_once('\t')?;
            (!description.trim().is_empty())
                .then(|| (tag.to_string(), description.trim().to_string()))
        })
        .collect())
}

/// `\n\ntag: description` for each described tag of `tags` (space-separated, and a tag's
/// name may hold spaces), in name order.
fn described_tags(tags: &str, described: &HashMap<String, String>) -> String {
    if tags.is_empty() {
        return String::new();
    }
    let filed = format!(" {tags} ");
    let mut found: Vec<(&String, &String)> = described
        .iter()
        .filter(|(t, _)| filed.contains(&format!(" {t} ")))
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|(tag, d)| format!("\n\n{tag}: {d}"))
        .collect()
}

/// Each symbol's parameters worth a reader's words, in order: `name: description` for an
/// OpenAPI operation, `name (annotation): description` for a callable or a class (its
/// constructor's). An operation's parameters that many operations share with the same
/// description (GitHub's `owner`, `repo`, `per_page`) say nothing about it and would only
/// lengthen every chunk: one is kept when at most [`SHARED_PARAM`] operations of the release
/// have it alike. A callable's receiver and catch-alls (`self`, `*args`) are left out.
fn symbol_params(
    store: &Store,
    release: &NamedNode,
) -> Result<HashMap<String, Vec<String>>, StoreError> {
    let rows = store.select(
        &queries::symbol_params,
        &[("release", release.clone().into())],
    )?;
    let mut alike: HashMap<(String, String), usize> = HashMap::new();
    // (symbol, (name, description), annotation, an operation's)
    let mut listed: Vec<(String, (String, String), String, bool)> = Vec::new();
    for row in &rows {
        let (Some(symbol), Some(name)) = (get_str(row, "symbol"), get_str(row, "name")) else {
            continue;
        };
        let operation = get_str(row, "operation").as_deref() == Some("true");
        let key = (name, get_str(row, "description").unwrap_or_default());
        if operation {
            *alike.entry(key.clone()).or_default() += 1;
        }
        let annotation = get_str(row, "annotation").unwrap_or_default();
        listed.push((symbol, key, annotation, operation));
    }
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for (symbol, key, annotation, operation) in listed {
        if operation && alike[&key] > SHARED_PARAM {
            continue;
        }
        let (name, description) = key;
        if !operation
            && (matches!(name.as_str(), "self" | "cls" | "this")
                || name.starts_with('*')
                || name.starts_with("..."))
        {
            continue;
        }
        let description =
            crate::extract::docs::html_docstring_to_markdown(&description).unwrap_or(description);
        let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut line = name;
        if !operation && !annotation.is_empty() {
            line.push_str(&format!(
                " ({})",
                annotation.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
        if !description.is_empty() {
            line.push_str(&format!(": {description}"));
        }
        out.entry(symbol).or_default().push(line);
    }
    Ok(out)
}

/// How many operations may share a parameter (same name, same description) before their
/// chunks leave it out.
const SHARED_PARAM: usize = 3;

/// The symbols a docstring names in code spans and examples (`post_load
/// <marshmallow.decorators.post_load>`, ``` `autorun` ```), resolved as doc pages' mentions are:
/// a module's docstring that shows how its decorators are used leads to them.
struct DocstringMentions {
    table: crate::lower::MentionTable,
    by_name: HashMap<String, EntityRef>,
}

impl DocstringMentions {
    fn new(
        store: &Store,
        rel: &ReleaseInfo,
        rows: &[oxigraph::sparql::QuerySolution],
    ) -> Result<Self, StoreError> {
        let mut by_name: HashMap<String, EntityRef> = HashMap::new();
        for row in rows {
            if let (Some(symbol), Some(qname), Some(ty)) = (
                get_str(row, "symbol"),
                get_str(row, "qname"),
                get_str(row, "type"),
            ) {
                by_name.entry(qname.clone()).or_insert(EntityRef {
                    id: symbol,
                    qualified_name: qname,
                    kind: kind_name(&ty),
                });
            }
        }
        // Aliases (`marshmallow.decorators.post_load` of `marshmallow.post_load`) from the
        // release's name table.
        let names = store
            .text_of(
                &rel.release,
                &rel.release,
                crate::vocab::rg::NAME_TABLE.as_str(),
            )?
            .unwrap_or_default();
        let mut aliases: HashMap<String, Vec<String>> = HashMap::new();
        for (name, canonical, _) in name_rows(&names) {
            if name != canonical {
                aliases
                    .entry(canonical.to_string())
                    .or_default()
                    .push(name.to_string());
            }
        }
        Ok(Self::of(by_name, aliases))
    }

    /// `by_name`: every symbol by qualified name; `aliases`: other names by qualified name.
    fn of(by_name: HashMap<String, EntityRef>, mut aliases: HashMap<String, Vec<String>>) -> Self {
        let mut kinds: Vec<(String, Vec<String>, Option<crate::model::SymbolKind>)> = by_name
            .values()
            .map(|e| {
                (
                    e.qualified_name.clone(),
                    aliases.remove(&e.qualified_name).unwrap_or_default(),
                    crate::model::SymbolKind::parse(&e.kind),
                )
            })
            .collect();
        // In name order, not the map's: a mention that names several symbols links them in the
        // same order in every process, so a reindex (or an imported bundle) gives the same
        // chunks.
        kinds.sort_by(|a, b| a.0.cmp(&b.0));
        let table = crate::lower::MentionTable::new(
            kinds.iter().map(|(q, a, k)| (q.as_str(), a.as_slice(), *k)),
        );
        DocstringMentions { table, by_name }
    }

    /// `own` first, then the public symbols `doc` names, each once; Sphinx roles are read as
    /// on pages (``:meth:`iter_buckets` `` names it, ``:ref:`guide <types>` `` nothing). A
    /// docstring names members of classes sparingly: a bare word (``open``, ``name``) is most
    /// often a parameter, so it names a member only of the class `own` is (or belongs to), and
    /// `x.member` a member of a class called `x` or of that same class (`ctx.find_object` in
    /// `Context`'s docstring), never the namesake of another (`Command.name` is not
    /// `Tuple.name`).
    fn linked(&self, own: EntityRef, doc: &str) -> Vec<EntityRef> {
        let own_class = if self.table.is_member(&own.qualified_name) {
            owner_of(&own.qualified_name).to_string()
        } else {
            own.qualified_name.clone()
        };
        let mut out = vec![own];
        let doc: Vec<String> = doc.lines().map(crate::extract::docs::plain_roles).collect();
        for m in crate::extract::docs::mentions_in(&doc.join("\n")) {
            let qualifier = m.name.rsplit_once('.').map(|(q, _)| short_name(q));
            for q in self.table.resolve(&m) {
                if short_name(q).starts_with('_') || out.iter().any(|e| e.qualified_name == *q) {
                    continue;
                }
                if self.table.is_member(q) {
                    let owner = owner_of(q);
                    let named = owner == own_class || qualifier == Some(short_name(owner));
                    if !named {
                        continue;
                    }
                }
                if let Some(e) = self.by_name.get(q) {
                    out.push(e.clone());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sync_and_async_twins_share_a_key() {
        use super::twin_key;
        for (a, b) in [
            ("httpx.AsyncClient.get", "httpx.Client.get"),
            ("tenacity.asyncio.AsyncRetrying", "tenacity.Retrying"),
            ("fs:readFileSync", "fs:readFile"),
            (
                "azure.storage.blob.aio.BlobClient",
                "azure.storage.blob.BlobClient",
            ),
            ("pkg.async_retry", "pkg.retry"),
            (
                "openai.resources.AsyncCompletions.create",
                "openai.resources.Completions.create",
            ),
        ] {
            assert_eq!(twin_key(a), twin_key(b), "{a} / {b}");
        }
        for (a, b) in [
            ("pkg.Asynchronous", "pkg.chronous"),
            ("pkg.Async", "pkg.Sync"),
            ("pkg.a.b", "pkg.ab"),
            ("httpx.Client.get", "httpx.Client.put"),
        ] {
            assert_ne!(twin_key(a), twin_key(b), "{a} / {b}");
        }
    }

    use super::*;

    fn mentions() -> DocstringMentions {
        let symbols = [
            ("pkg.Group", "class"),
            ("pkg.Command", "class"),
            ("pkg.Tuple", "class"),
            ("pkg.Tuple.name", "attribute"),
            ("pkg.Context", "class"),
            ("pkg.Context.find_object", "method"),
            ("pkg.Context.ensure_object", "method"),
            ("pkg.post_load", "function"),
            ("pkg.decorators", "module"),
            ("pkg.FloatRange", "class"),
            ("pkg.LazyFile", "class"),
            ("pkg.LazyFile.open", "method"),
            ("pkg._internal", "function"),
            ("pkg.types", "module"),
        ];
        let by_name = symbols
            .iter()
            .map(|(q, k)| (q.to_string(), entity(q, k)))
            .collect();
        // Imported under another name: only the alias says which symbol it is.
        let aliases = HashMap::from([(
            "pkg.post_load".to_string(),
            vec!["pkg.decorators.after_load".to_string()],
        )]);
        DocstringMentions::of(by_name, aliases)
    }

    fn entity(q: &str, kind: &str) -> EntityRef {
        EntityRef {
            id: format!("pkg:pypi/pkg#{q}"),
            qualified_name: q.to_string(),
            kind: kind.to_string(),
        }
    }

    fn linked(m: &DocstringMentions, own: &str, kind: &str, doc: &str) -> Vec<String> {
        m.linked(entity(own, kind), doc)
            .into_iter()
            .map(|e| e.qualified_name)
            .collect()
    }

    #[test]
    fn docstrings_link_the_symbols_they_name_and_not_namesakes() {
        let m = mentions();
        // Roles and `title <target>` references, through aliases; the own entity first.
        assert_eq!(
            linked(
                &m,
                "pkg.decorators",
                "module",
                "Use :func:`after_load <pkg.decorators.after_load>` to build objects; see :ref:`the guide <types>`."
            ),
            ["pkg.decorators", "pkg.post_load"]
        );
        // `Command.name` (inherited, so not a symbol of its own) is not the namesake member of
        // another class.
        assert_eq!(
            linked(
                &m,
                "pkg.Group",
                "class",
                ":param name: uses :attr:`Command.name`; see :class:`Command`."
            ),
            ["pkg.Group", "pkg.Command"]
        );
        // A bare word names a member of the docstring's own class only: ``open`` here is a
        // parameter, not `LazyFile.open`; a sibling method is linked.
        assert_eq!(
            linked(
                &m,
                "pkg.FloatRange",
                "class",
                "If ``clamp`` is set the boundary may not be ``open``."
            ),
            ["pkg.FloatRange"]
        );
        assert_eq!(
            linked(
                &m,
                "pkg.Context.ensure_object",
                "method",
                "Like :meth:`find_object` but creates it; ``_internal`` is never linked."
            ),
            ["pkg.Context.ensure_object", "pkg.Context.find_object"]
        );
        // A member reached through an instance, in its own class's docstring.
        assert_eq!(
            linked(
                &m,
                "pkg.Context",
                "class",
                "Call ``ctx.find_object(Repo)``; ``lazy.open()`` is another class's."
            ),
            ["pkg.Context", "pkg.Context.find_object"]
        );
    }

    #[test]
    fn names_read_as_words() {
        assert_eq!(words_of_name("get_app_dir"), "get app dir");
        assert_eq!(words_of_name("getAppDir"), "get App Dir");
        assert_eq!(words_of_name("HTTPServer"), "HTTPServer");
        assert_eq!(short_name("click.Context.invoke"), "invoke");
        assert_eq!(short_name("commander:Command.option"), "option");
        assert_eq!(short_name("commander:default"), "default");
    }

    #[test]
    fn section_paths_follow_the_name() {
        assert_eq!(
            symbol_section_path("click.Context.invoke", "", "python"),
            "click > Context > invoke"
        );
        assert_eq!(
            symbol_section_path("commander:Command.option", "", "javascript"),
            "commander > Command > option"
        );
        assert_eq!(
            symbol_section_path("listPets", "pets store", "openapi"),
            "pets > listPets"
        );
    }
}
