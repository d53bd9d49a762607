//! Entity pages: `GET /entity?iri=pkg:pypi/click%23click.echo[&version=8.1.7]`. Symbol IRIs are
//! Package URLs (not web addresses), so this route is where they resolve: an HTML page by
//! default (signature, parameters, the releases that have it, deprecation, the doc sections
//! that mention it), Turtle, N-Triples or JSON-LD by Accept header or `format=`.

use std::fmt::Write as _;

use crate::store::{get_str, iri as iri_term};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::model::NamedNode;
use serde::Deserialize;

use super::sparql::negotiate;
use super::{AppState, blocking, problem};
use crate::answer::{AnswerError, ApiDetail, Engine, ErrorKind, Failure, VersionCheck};
use crate::html::esc;

#[derive(Deserialize)]
pub struct EntityArgs {
    iri: String,
    version: Option<String>,
    format: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Form {
    Html,
    Rdf(&'static str),
}

const OFFERS: &[(&str, Form)] = &[
    ("text/html", Form::Html),
    ("text/turtle", Form::Rdf("text/turtle")),
    ("application/ld+json", Form::Rdf("application/ld+json")),
    ("application/n-triples", Form::Rdf("application/n-triples")),
];

/// `%XX` escapes decoded (the fragment of a symbol IRI escapes spaces, quotes and `%`).
pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(b) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What one page shows.
struct Entity {
    iri: String,
    detail: ApiDetail,
    versions: VersionCheck,
    /// The release graph the facts come from.
    release: String,
    /// (section IRI, title, section path) of doc sections that mention the symbol.
    mentions: Vec<(String, String, String)>,
}

/// `GET /entity`
pub async fn page(
    State(state): State<AppState>,
    Query(a): Query<EntityArgs>,
    headers: HeaderMap,
) -> Response {
    let accept = match a.format.as_deref() {
        Some("ttl" | "turtle") => Some("text/turtle"),
        Some("jsonld" | "json-ld") => Some("application/ld+json"),
        Some("nt" | "ntriples") => Some("application/n-triples"),
        Some("html") => Some("text/html"),
        Some(other) => {
            return problem(
                StatusCode::BAD_REQUEST,
                format!("unknown format '{other}': html, ttl, jsonld or nt"),
            );
        }
        None => headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()),
    };
    let Some((_, form)) = negotiate(accept, OFFERS) else {
        return problem(
            StatusCode::NOT_ACCEPTABLE,
            "entity pages are text/html, text/turtle, application/ld+json or application/n-triples",
        );
    };
    let Some((purl, fragment)) = a.iri.split_once('#') else {
        return problem(
            StatusCode::BAD_REQUEST,
            format!(
                "'{}' is not a symbol IRI: symbols are named <PACKAGE-URL#NAME>, e.g. \
                 pkg:pypi/click#click.echo",
                a.iri
            ),
        );
    };
    let (purl, name) = (purl.to_string(), percent_decode(fragment));
    let iri = a.iri.clone();
    let version = a.version.clone();
    let found = blocking(&state, move |e| {
        load(e, &iri, &purl, &name, version.as_deref())
    })
    .await;
    let entity = match found {
        Ok(Ok(entity)) => entity,
        Ok(Err(e)) => {
            let status = match e.kind() {
                ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
                ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
                ErrorKind::BadInput | ErrorKind::QueryRefused => StatusCode::BAD_REQUEST,
                ErrorKind::NotFound => StatusCode::NOT_FOUND,
            };
            return match form {
                Form::Html => {
                    (status, Html(not_found_page(&a.iri, &e.to_string()))).into_response()
                }
                Form::Rdf(_) => problem(status, e.to_string()),
            };
        }
        Err(r) => return r,
    };
    match form {
        Form::Html => Html(render(&entity)).into_response(),
        Form::Rdf(media) => {
            let release = entity.release.clone();
            let iri = entity.iri.clone();
            match blocking(&state, move |e| rdf(e, &iri, &release, media)).await {
                Ok(Ok(bytes)) => {
                    let mut r = ([(header::CONTENT_TYPE, media)], bytes).into_response();
                    if let Ok(v) = HeaderValue::from_str(&entity.release) {
                        // Which release graph these triples are from (Turtle has no graphs).
                        r.headers_mut().insert("x-refgraph-release", v);
                    }
                    r
                }
                Ok(Err(m)) => problem(StatusCode::INTERNAL_SERVER_ERROR, m),
                Err(r) => r,
            }
        }
    }
}

fn load(
    engine: &Engine,
    iri: &str,
    purl: &str,
    name: &str,
    version: Option<&str>,
) -> Result<Entity, AnswerError> {
    let versions = engine.lookup().check_version(Some(purl), name, version)?;
    // The release asked for, else the newest one that has the symbol, else the newest (whose
    // answer is "not found" with candidates).
    let version = version.map(str::to_string).or_else(|| {
        versions
            .versions
            .iter()
            .rev()
            .find(|v| v.available == Some(true))
            .map(|v| v.version.clone())
    });
    let chosen = engine.choose(Some(purl), version.as_deref(), Some(name))?;
    let detail = engine.lookup().api_detail(&chosen, name)?;
    let release = chosen.release.release.clone();
    // The canonical IRI of what was found (the one asked may be a bare package name, an alias
    // or another spelling of the package): the RDF forms and mentions are read under it.
    let iri = match crate::model::PackageId::parse(&detail.package) {
        Ok((package, _)) => crate::lower::symbol_iri(&package, &detail.qualified_name),
        Err(_) => iri.to_string(),
    };
    Ok(Entity {
        mentions: mentions(engine, &iri, &release).unwrap_or_default(),
        iri,
        detail,
        versions,
        release,
    })
}

/// Doc sections of the release (and its added docs graph) that mention the symbol.
fn mentions(
    engine: &Engine,
    iri: &str,
    release: &str,
) -> Result<Vec<(String, String, String)>, AnswerError> {
    let (Ok(_), Ok(_)) = (NamedNode::new(iri), NamedNode::new(release)) else {
        return Ok(Vec::new());
    };
    let rows = engine.store().select_within(
        &crate::queries::symbol_mentions,
        &[
            ("symbol", iri_term(iri)),
            ("release", iri_term(release)),
            ("docs", iri_term(&crate::lower::docs_graph(release))),
        ],
        engine.limits.timeout,
    )?;
    Ok(rows
        .iter()
        .filter_map(|row| {
            let section = match row.get("section") {
                Some(oxigraph::model::Term::NamedNode(n)) => n.as_str().to_string(),
                _ => return None,
            };
            let text = |v: &str| get_str(row, v).unwrap_or_default();
            Some((section, text("title"), text("path")))
        })
        .collect())
}

/// The symbol's triples in `release`, with the nodes that hang off it there (parameters,
/// overloads, deprecation, request body, responses).
fn rdf(engine: &Engine, iri: &str, release: &str, media: &str) -> Result<Vec<u8>, String> {
    NamedNode::new(iri).map_err(|e| e.to_string())?;
    NamedNode::new(release).map_err(|e| e.to_string())?;
    let triples = engine
        .store()
        .construct_within(
            &crate::queries::symbol_triples,
            &[
                ("symbol", iri_term(iri)),
                ("release", iri_term(release)),
                (
                    "local",
                    oxigraph::model::Literal::new_simple_literal(format!("{release}#")).into(),
                ),
            ],
            engine.limits.timeout,
        )
        .map_err(|e| e.to_string())?;
    let format = match media {
        "application/ld+json" => RdfFormat::JsonLd {
            profile: Default::default(),
        },
        "application/n-triples" => RdfFormat::NTriples,
        _ => RdfFormat::Turtle,
    };
    let mut writer = RdfSerializer::from_format(format)
        .with_prefix("rg", crate::vocab::rg::NS)
        .map_err(|e| e.to_string())?
        .for_writer(Vec::new());
    for t in &triples {
        writer.serialize_triple(t).map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())
}

/// Percent-encodes a query parameter value.
/// A release's answer to "does it have it": yes, no, or unknown (cannot be told statically).
fn availability(available: Option<bool>) -> &'static str {
    match available {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

fn q(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#1d1d1f}\
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f4f5f7;padding:.8em;overflow:auto;border-radius:4px}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}\
th{background:#f4f5f7}.version{color:#555}.deprecated{background:#fff4e5;border-left:4px solid #f0a020;padding:.5em 1em}\
.no{color:#999}.yes{color:#0a7d28;font-weight:600}nav a{margin-right:1em}";

fn head(title: &str) -> String {
    format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>{}</title>\
         <meta name=viewport content='width=device-width,initial-scale=1'><style>{STYLE}</style></head><body>\
         <nav><a href='/'>SPARQL console</a><a href='/api/releases'>releases</a></nav>",
        esc(title)
    )
}

fn render(e: &Entity) -> String {
    let d = &e.detail;
    let mut h = head(&format!(
        "{} — {} {}",
        d.qualified_name, d.package, d.version
    ));
    let _ = write!(
        h,
        "<h1><code>{}</code> <small>{}</small></h1><p class=version>[Version: {}] {} \
         <code>{}</code></p>",
        esc(&d.qualified_name),
        esc(&d.kind),
        esc(&d.version),
        esc(&d.package),
        esc(&e.release),
    );
    if let Some(sig) = d.display_signature() {
        let _ = write!(h, "<pre id=signature>{}</pre>", esc(&sig));
    }
    if let Some(dep) = &d.deprecation {
        let _ = write!(
            h,
            "<div class=deprecated><b>Deprecated</b>{}{}{} <small>({})</small></div>",
            dep.since
                .as_ref()
                .map(|s| format!(" since {}", esc(s)))
                .unwrap_or_default(),
            dep.message
                .as_ref()
                .map(|m| format!(": {}", esc(m)))
                .unwrap_or_default(),
            dep.replacement
                .as_ref()
                .map(|r| format!(" Use <code>{}</code>.", esc(r)))
                .unwrap_or_default(),
            esc(&dep.signal)
        );
    }
    if !d.params.is_empty() {
        h.push_str(
            "<h2>Parameters</h2><table id=parameters><tr><th>name</th><th>kind</th>\
             <th>required</th><th>type</th><th>default</th></tr>",
        );
        for p in &d.params {
            let _ = write!(
                h,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td><code>{}</code></td>\
                 <td><code>{}</code></td></tr>",
                esc(&p.name),
                esc(&p.kind),
                if p.required { "yes" } else { "no" },
                esc(p.type_.as_deref().unwrap_or("")),
                esc(p.default.as_deref().unwrap_or("")),
            );
        }
        h.push_str("</table>");
    }
    if let Some(r) = &d.returns {
        let _ = write!(h, "<p>Returns <code>{}</code></p>", esc(r));
    }
    if let Some(text) = &d.description {
        let _ = write!(h, "<h2>Description</h2><pre>{}</pre>", esc(text));
    }
    h.push_str("<h2>Facts</h2><table>");
    let mut fact = |k: &str, v: String| {
        if !v.is_empty() {
            let _ = write!(h, "<tr><th>{k}</th><td>{v}</td></tr>");
        }
    };
    fact(
        "source",
        match (&d.source.file, d.source.line) {
            (Some(f), Some(l)) => format!("<code>{}:{l}</code>", esc(f)),
            (Some(f), None) => format!("<code>{}</code>", esc(f)),
            _ => String::new(),
        },
    );
    fact(
        "defined in",
        d.defined_in.as_deref().map(esc).unwrap_or_default(),
    );
    fact(
        "inherited from",
        d.inherited_from.as_deref().map(esc).unwrap_or_default(),
    );
    fact("aliases", code_list(&d.aliases));
    fact("bases", code_list(&d.bases));
    fact("decorators", code_list(&d.decorators));
    fact("overloads", code_list(&d.overloads));
    if let Some(http) = &d.http {
        fact(
            "HTTP",
            format!("<code>{} {}</code>", esc(&http.method), esc(&http.path)),
        );
    }
    h.push_str("</table>");

    let v = &e.versions;
    h.push_str(
        "<h2>Releases</h2><table id=versions><tr><th>version</th><th>has it</th>\
         <th>deprecated</th><th>signature</th></tr>",
    );
    for entry in &v.versions {
        let link = format!("/entity?iri={}&version={}", q(&e.iri), q(&entry.version));
        let _ = write!(
            h,
            "<tr><td><a href='{}'>{}</a></td><td class={}>{}</td><td>{}</td><td><code>{}</code>{}</td></tr>",
            esc(&link),
            esc(&entry.version),
            availability(entry.available),
            availability(entry.available),
            if entry.deprecated { "yes" } else { "" },
            esc(entry.signature.as_deref().unwrap_or("")),
            if entry.signature_changed {
                " <small>(changed)</small>"
            } else {
                ""
            },
        );
    }
    h.push_str("</table>");
    let mut since = Vec::new();
    if let Some(i) = &v.introduced_in {
        since.push(format!("first indexed release with it: {}", esc(i)));
    }
    if let Some(r) = &v.removed_in {
        since.push(format!("removed in {}", esc(r)));
    }
    if let Some(r) = &v.replacement {
        since.push(format!("replacement: <code>{}</code>", esc(r)));
    }
    if !since.is_empty() {
        let _ = write!(h, "<p>{}</p>", since.join("; "));
    }
    if !e.mentions.is_empty() {
        h.push_str("<h2>Documentation that mentions it</h2><ul id=mentions>");
        for (section, title, path) in &e.mentions {
            let _ = write!(
                h,
                "<li>{} <small><code>{}</code></small></li>",
                esc(if path.is_empty() { title } else { path }),
                esc(section)
            );
        }
        h.push_str("</ul>");
    }
    let describe = format!(
        "PREFIX rg: <{}>\nSELECT ?p ?o WHERE {{\n  GRAPH <{}> {{ <{}> ?p ?o }}\n}}",
        crate::vocab::rg::NS,
        e.release,
        e.iri
    );
    let base = format!("/entity?iri={}&version={}", q(&e.iri), q(&e.detail.version));
    let _ = write!(
        h,
        "<p><a href='{}&format=ttl'>Turtle</a> · <a href='{}&format=jsonld'>JSON-LD</a> · \
         <a href='{}&format=nt'>N-Triples</a> · <a href='/?query={}'>query it in the console</a></p>\
         </body></html>",
        esc(&base),
        esc(&base),
        esc(&base),
        esc(&q(&describe))
    );
    h
}

fn code_list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| format!("<code>{}</code>", esc(i)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn not_found_page(iri: &str, why: &str) -> String {
    let mut h = head(iri);
    let _ = write!(
        h,
        "<h1>Not found</h1><p><code>{}</code></p><p>{}</p></body></html>",
        esc(iri),
        esc(why)
    );
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_decode_and_html_escapes() {
        assert_eq!(percent_decode("a%20b%25c"), "a b%c");
        assert_eq!(percent_decode("bad%zzend%"), "bad%zzend%");
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
