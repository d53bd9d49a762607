//! The SPARQL console: `@zazuko/yasgui` (vendored into the binary by `build.rs`) with its
//! outside calls replaced by this server's own completions, a gallery of example queries
//! (`src/http/examples/*.rq`), and links from result IRIs to entity pages.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::Term;
use serde::{Deserialize, Serialize};

use super::{AppState, blocking, problem};

const YASGUI_JS: &[u8] = include_bytes!(concat!(env!("REFGRAPH_YASGUI_DIR"), "/yasgui.min.js"));
const YASGUI_CSS: &[u8] = include_bytes!(concat!(env!("REFGRAPH_YASGUI_DIR"), "/yasgui.min.css"));
const CONSOLE_HTML: &str = include_str!("assets/console.html");
const CONSOLE_JS: &str = include_str!("assets/console.js");
const CONSOLE_CSS: &str = include_str!("assets/console.css");
const ONTOLOGY: &str = include_str!("../../ontology/refgraph.ttl");

/// The gallery: (file name, text), in file-name order.
const EXAMPLES: &[(&str, &str)] = &[
    ("01_releases.rq", include_str!("examples/01_releases.rq")),
    (
        "02_deprecated_without_replacement.rq",
        include_str!("examples/02_deprecated_without_replacement.rq"),
    ),
    (
        "03_functions_without_docstring.rq",
        include_str!("examples/03_functions_without_docstring.rq"),
    ),
    (
        "04_responses_without_schema.rq",
        include_str!("examples/04_responses_without_schema.rq"),
    ),
    (
        "05_symbols_per_kind.rq",
        include_str!("examples/05_symbols_per_kind.rq"),
    ),
    (
        "06_signature_history.rq",
        include_str!("examples/06_signature_history.rq"),
    ),
    (
        "07_required_keyword_only.rq",
        include_str!("examples/07_required_keyword_only.rq"),
    ),
    (
        "08_docs_mentions.rq",
        include_str!("examples/08_docs_mentions.rq"),
    ),
    (
        "09_ingest_diagnostics.rq",
        include_str!("examples/09_ingest_diagnostics.rq"),
    ),
    (
        "10_attribute_types.rq",
        include_str!("examples/10_attribute_types.rq"),
    ),
    (
        "11_related_types.rq",
        include_str!("examples/11_related_types.rq"),
    ),
    (
        "12_wrapped_operations.rq",
        include_str!("examples/12_wrapped_operations.rq"),
    ),
];

/// `GET /`: the console page.
pub async fn page() -> Response {
    let html = CONSOLE_HTML.replace("{{YASGUI_VERSION}}", env!("REFGRAPH_YASGUI_VERSION"));
    ([(header::CACHE_CONTROL, "no-cache")], Html(html)).into_response()
}

/// `GET /assets/FILE`: the editor and the console's own script and style.
pub async fn asset(Path(file): Path<String>) -> Response {
    let (body, media): (&'static [u8], &str) = match file.as_str() {
        "yasgui.min.js" => (YASGUI_JS, "text/javascript; charset=utf-8"),
        "yasgui.min.css" => (YASGUI_CSS, "text/css; charset=utf-8"),
        "console.js" => (CONSOLE_JS.as_bytes(), "text/javascript; charset=utf-8"),
        "console.css" => (CONSOLE_CSS.as_bytes(), "text/css; charset=utf-8"),
        _ => return problem(StatusCode::NOT_FOUND, format!("no asset '{file}'")),
    };
    (
        [
            (header::CONTENT_TYPE, media),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        body,
    )
        .into_response()
}

/// One gallery entry.
#[derive(Debug, Serialize)]
pub struct Example {
    pub id: String,
    pub title: String,
    pub description: String,
    pub query: String,
}

/// The gallery, titles and descriptions read from each file's leading comments
/// (`# title: ...`, then `# text`).
pub fn gallery() -> Vec<Example> {
    EXAMPLES
        .iter()
        .map(|(file, text)| {
            let mut title = None;
            let mut description = Vec::new();
            for line in text.lines() {
                let Some(comment) = line.strip_prefix('#') else {
                    break;
                };
                let comment = comment.trim();
                match comment.strip_prefix("title:") {
                    Some(t) => title = Some(t.trim().to_string()),
                    None => description.push(comment.to_string()),
                }
            }
            let id = file.trim_end_matches(".rq").to_string();
            Example {
                title: title.unwrap_or_else(|| id.clone()),
                id,
                description: description.join(" "),
                query: text
                    .lines()
                    .skip_while(|l| l.starts_with('#'))
                    .collect::<Vec<_>>()
                    .join("\n"),
            }
        })
        .collect()
}

/// `GET /api/examples`
pub async fn examples() -> Response {
    axum::Json(gallery()).into_response()
}

/// Prefixes offered by the prefix completion, as Yasqe expects them (`p: <iri>`).
const PREFIXES: &[(&str, &str)] = &[
    ("rg", "https://refgraph.dev/ontology#"),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
    ("owl", "http://www.w3.org/2002/07/owl#"),
];

/// The ontology's classes and properties (this server's vocabulary, parsed once).
static VOCABULARY: LazyLock<(Vec<String>, Vec<String>)> = LazyLock::new(|| {
    let owl = "http://www.w3.org/2002/07/owl#";
    let (mut classes, mut properties) = (BTreeSet::new(), BTreeSet::new());
    for quad in RdfParser::from_format(RdfFormat::Turtle).for_slice(ONTOLOGY.as_bytes()) {
        let Ok(quad) = quad else { continue };
        if quad.predicate.as_ref() != oxigraph::model::vocab::rdf::TYPE {
            continue;
        }
        let (Term::NamedNode(kind), oxigraph::model::NamedOrBlankNode::NamedNode(subject)) =
            (&quad.object, &quad.subject)
        else {
            continue;
        };
        match kind.as_str().strip_prefix(owl) {
            Some("Class") => {
                classes.insert(subject.as_str().to_string());
            }
            Some("DatatypeProperty" | "ObjectProperty") => {
                properties.insert(subject.as_str().to_string());
            }
            _ => {}
        }
    }
    properties.insert(oxigraph::model::vocab::rdf::TYPE.as_str().to_string());
    (
        classes.into_iter().collect(),
        properties.into_iter().collect(),
    )
});

#[derive(Deserialize)]
pub struct CompleteArgs {
    /// prefix | class | property | entity
    kind: String,
    /// What is typed so far (a full IRI prefix; prefixed names are expanded by the editor).
    #[serde(default)]
    q: String,
}

const MAX_COMPLETIONS: usize = 50;

/// `GET /api/complete?kind=...&q=...`: completions from this server only.
pub async fn complete(State(state): State<AppState>, Query(a): Query<CompleteArgs>) -> Response {
    let q = a.q.trim().trim_start_matches('<').to_string();
    let pick = |list: &[String]| -> Vec<String> {
        let lower = q.to_lowercase();
        // A bare word also finds terms by their local name (`qualif` -> rg:qualifiedName).
        let by_local = |i: &&String| {
            !q.contains(':')
                && i.rsplit(['#', '/'])
                    .next()
                    .is_some_and(|l| l.to_lowercase().starts_with(&lower))
        };
        let hits: BTreeSet<&String> = list
            .iter()
            .filter(|i| i.starts_with(&q) || by_local(i))
            .collect();
        hits.into_iter().take(MAX_COMPLETIONS).cloned().collect()
    };
    let list = match a.kind.as_str() {
        "prefix" => PREFIXES
            .iter()
            .map(|(p, iri)| format!("{p}: <{iri}>"))
            .collect(),
        "class" => pick(&VOCABULARY.0),
        "property" => pick(&VOCABULARY.1),
        "entity" => match blocking(&state, move |e| entity_completions(e, &q)).await {
            Ok(v) => v,
            Err(r) => return r,
        },
        other => {
            return problem(
                StatusCode::BAD_REQUEST,
                format!("unknown completion kind '{other}': prefix, class, property or entity"),
            );
        }
    };
    axum::Json(list).into_response()
}

/// Release and symbol IRIs starting with `q`: package URLs first, then, once a package is
/// typed (`pkg:pypi/click#cli`), the symbols of its newest indexed release by name.
fn entity_completions(engine: &crate::answer::Engine, q: &str) -> Vec<String> {
    let Ok(releases) = engine.releases() else {
        return Vec::new();
    };
    let Some((purl, name)) = q.split_once('#') else {
        let mut out: BTreeSet<String> = BTreeSet::new();
        for r in releases.iter() {
            for iri in [format!("{}#", r.package), r.release.clone()] {
                if iri.starts_with(q) {
                    out.insert(iri);
                }
            }
        }
        return out.into_iter().take(MAX_COMPLETIONS).collect();
    };
    let Ok(chosen) = engine.choose(Some(purl), None, None) else {
        return Vec::new();
    };
    let name = super::entity::percent_decode(name);
    engine
        .lookup()
        .list(&chosen, None, Some(&name), MAX_COMPLETIONS, None)
        .map(|l| l.items.into_iter().map(|i| i.id).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gallery_has_titles_descriptions_and_queries_that_parse() {
        let g = gallery();
        assert_eq!(g.len(), EXAMPLES.len());
        for e in &g {
            assert!(
                !e.title.is_empty() && e.title != e.id,
                "{} has a title",
                e.id
            );
            assert!(!e.description.is_empty(), "{} has a description", e.id);
            let parsed = oxigraph::sparql::SparqlEvaluator::new().parse_query(&e.query);
            assert!(parsed.is_ok(), "{} parses: {:?}", e.id, parsed.err());
        }
    }

    #[test]
    fn the_vocabulary_comes_from_the_ontology() {
        let (classes, properties) = &*VOCABULARY;
        assert!(classes.contains(&"https://refgraph.dev/ontology#Function".to_string()));
        assert!(properties.contains(&"https://refgraph.dev/ontology#qualifiedName".to_string()));
        assert!(!classes.iter().any(|c| c.ends_with("#qualifiedName")));
    }
}
