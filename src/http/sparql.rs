//! The SPARQL 1.1 Protocol at `/sparql`: queries by GET or POST (form or
//! `application/sparql-query`), updates by POST (form or `application/sparql-update`, token
//! required). Results are negotiated from the Accept header, or from a `format`/`output`
//! parameter for clients that cannot set headers (a download link).

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::model::{GraphName, NamedNode, NamedOrBlankNode};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use oxigraph::sparql::{CancellationToken, QueryEvaluationError, QueryResults, SparqlEvaluator};

use super::{AppState, Reject, authorize_write, blocking, problem};
use crate::store::StoreError;

/// Media types offered for SELECT and ASK results, the first being the default.
const SOLUTION_TYPES: &[(&str, QueryResultsFormat)] = &[
    ("application/sparql-results+json", QueryResultsFormat::Json),
    ("application/json", QueryResultsFormat::Json),
    ("application/sparql-results+xml", QueryResultsFormat::Xml),
    ("application/xml", QueryResultsFormat::Xml),
    ("text/xml", QueryResultsFormat::Xml),
    ("text/csv", QueryResultsFormat::Csv),
    ("text/tab-separated-values", QueryResultsFormat::Tsv),
];

/// Media types offered for CONSTRUCT and DESCRIBE results.
fn graph_types() -> [(&'static str, RdfFormat); 5] {
    [
        ("text/turtle", RdfFormat::Turtle),
        ("application/n-triples", RdfFormat::NTriples),
        (
            "application/ld+json",
            RdfFormat::JsonLd {
                profile: Default::default(),
            },
        ),
        ("application/rdf+xml", RdfFormat::RdfXml),
        ("text/plain", RdfFormat::NTriples),
    ]
}

/// The media type a `format=`/`output=` value names for this kind of result (`graph`:
/// CONSTRUCT/DESCRIBE), if any. SPARQLWrapper sends `xml` and `json` for both kinds.
fn format_param(value: &str, graph: bool) -> Option<&'static str> {
    Some(match (value.to_ascii_lowercase().as_str(), graph) {
        ("json" | "srj", false) => "application/sparql-results+json",
        ("xml" | "srx", false) => "application/sparql-results+xml",
        ("csv", false) => "text/csv",
        ("tsv", false) => "text/tab-separated-values",
        ("ttl" | "turtle", true) => "text/turtle",
        ("nt" | "ntriples" | "n-triples", true) => "application/n-triples",
        ("json" | "jsonld" | "json-ld", true) => "application/ld+json",
        ("xml" | "rdf" | "rdfxml", true) => "application/rdf+xml",
        _ => return None,
    })
}

/// The format parameter's offer when it names one for this kind of result, else the Accept
/// header's choice.
fn choose<F: Copy>(
    format: Option<&str>,
    graph: bool,
    accept: Option<&str>,
    offered: &[(&'static str, F)],
) -> Option<(&'static str, F)> {
    format
        .and_then(|f| format_param(f, graph))
        .and_then(|m| offered.iter().find(|(o, _)| *o == m).copied())
        .or_else(|| negotiate(accept, offered))
}

/// The offer the client prefers: highest `q`, then the server's order. No Accept header (or
/// `*/*`) gets the first offer; `None` when nothing offered is acceptable.
pub(crate) fn negotiate<F: Copy>(
    accept: Option<&str>,
    offered: &[(&'static str, F)],
) -> Option<(&'static str, F)> {
    let accept = match accept.map(str::trim) {
        None | Some("") => return offered.first().copied(),
        Some(a) => a,
    };
    let mut best: Option<(f32, usize)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .find_map(|p| p.trim().strip_prefix("q="))
            .and_then(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if q <= 0.0 || media.is_empty() {
            continue;
        }
        for (i, (m, _)) in offered.iter().enumerate() {
            let matches = media == "*/*"
                || media == *m
                || media
                    .strip_suffix("/*")
                    .is_some_and(|t| m.split('/').next() == Some(t));
            if matches && best.is_none_or(|(bq, bi)| q > bq || (q == bq && i < bi)) {
                best = Some((q, i));
            }
        }
    }
    best.map(|(_, i)| offered[i])
}

/// A protocol request, whatever way it came.
#[derive(Debug, Default)]
struct Request {
    query: Option<String>,
    update: Option<String>,
    default_graphs: Vec<String>,
    named_graphs: Vec<String>,
    /// `format` / `output` parameter, when it names a result format.
    format: Option<String>,
}

impl Request {
    fn add_pairs(&mut self, raw: &[u8]) -> Result<(), Reject> {
        for (k, v) in form_urlencoded::parse(raw) {
            let v = v.into_owned();
            match k.as_ref() {
                "query" => set_once(&mut self.query, v, "query")?,
                "update" => set_once(&mut self.update, v, "update")?,
                "default-graph-uri" => self.default_graphs.push(v),
                "named-graph-uri" => self.named_graphs.push(v),
                "using-graph-uri" | "using-named-graph-uri" => {
                    return Err(Reject::new(
                        StatusCode::BAD_REQUEST,
                        format!("{k} is not supported: name the graphs in the update with USING"),
                    ));
                }
                "format" | "output"
                    if format_param(&v, false).or(format_param(&v, true)).is_some() =>
                {
                    self.format = Some(v);
                }
                _ => {}
            }
        }
        Ok(())
    }
}

fn set_once(slot: &mut Option<String>, value: String, name: &str) -> Result<(), Reject> {
    if slot.is_some() {
        return Err(Reject::new(
            StatusCode::BAD_REQUEST,
            format!("more than one `{name}` parameter"),
        ));
    }
    *slot = Some(value);
    Ok(())
}

/// `GET /sparql?query=...`
pub async fn get(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let mut req = Request::default();
    if let Err(r) = req.add_pairs(raw.unwrap_or_default().as_bytes()) {
        return r.into_response();
    }
    if req.update.is_some() {
        return problem(
            StatusCode::BAD_REQUEST,
            "SPARQL Update must be POSTed (form field `update`, or a body of type \
             application/sparql-update)",
        );
    }
    if req.query.is_none() {
        let wants_html = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/html"));
        if wants_html {
            return Redirect::to("/").into_response();
        }
        return problem(
            StatusCode::BAD_REQUEST,
            "no query: GET /sparql?query=SELECT... (URL-encoded), or POST it; the console is at /",
        );
    }
    answer(state, req, &headers).await
}

/// `POST /sparql` with a form, a query or an update.
pub async fn post(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut req = Request::default();
    if let Err(r) = req.add_pairs(raw.unwrap_or_default().as_bytes()) {
        return r.into_response();
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    let text = || {
        String::from_utf8(body.to_vec())
            .map_err(|_| Reject::new(StatusCode::BAD_REQUEST, "the body is not UTF-8"))
    };
    let filled = match content_type.as_str() {
        "application/x-www-form-urlencoded" => req.add_pairs(&body),
        "application/sparql-query" => text().and_then(|t| set_once(&mut req.query, t, "query")),
        "application/sparql-update" => text().and_then(|t| set_once(&mut req.update, t, "update")),
        other => Err(Reject::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "cannot read a body of type '{other}': send application/sparql-query, \
                 application/sparql-update or application/x-www-form-urlencoded"
            ),
        )),
    };
    if let Err(r) = filled {
        return r.into_response();
    }
    match (&req.query, &req.update) {
        (Some(_), Some(_)) => problem(
            StatusCode::BAD_REQUEST,
            "a request carries a query or an update, not both",
        ),
        (None, None) => problem(StatusCode::BAD_REQUEST, "no query and no update"),
        (None, Some(_)) => update(state, req, &headers).await,
        (Some(_), None) => answer(state, req, &headers).await,
    }
}

/// Why a query produced no document.
enum Failure {
    Timeout(Duration),
    Bad(String),
    Internal(String),
}

impl Failure {
    fn into_response(self) -> Response {
        match self {
            Failure::Timeout(t) => problem(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the query was cut at the {:.1} s time limit (serve --query-timeout); \
                     narrow it with LIMIT, a GRAPH or more specific patterns",
                    t.as_secs_f64()
                ),
            ),
            Failure::Bad(m) => problem(StatusCode::BAD_REQUEST, m),
            Failure::Internal(m) => problem(StatusCode::INTERNAL_SERVER_ERROR, m),
        }
    }
}

fn evaluation_failure(e: QueryEvaluationError, timeout: Duration) -> Failure {
    match e {
        QueryEvaluationError::Cancelled => Failure::Timeout(timeout),
        QueryEvaluationError::Dataset(e) => Failure::Internal(format!("storage error: {e}")),
        e => Failure::Bad(format!("the query failed: {e}")),
    }
}

/// A place among the user queries allowed to run at once, waited for up to the query
/// timeout: runaway queries hold at most these blocking threads, and the tools and pages the
/// server answers meanwhile keep the rest.
async fn query_slot(state: &AppState) -> Result<tokio::sync::OwnedSemaphorePermit, Reject> {
    let wait = state.engine.limits.timeout;
    match tokio::time::timeout(wait, state.queries.clone().acquire_owned()).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(Reject::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "every query slot stayed busy for {:.1} s (long queries are running); retry later",
                wait.as_secs_f64()
            ),
        )),
    }
}

fn io_failure(e: std::io::Error) -> Failure {
    Failure::Internal(format!("could not write the results: {e}"))
}

fn parse_graphs<T>(
    iris: &[String],
    wrap: impl Fn(NamedNode) -> T,
    what: &str,
) -> Result<Vec<T>, Reject> {
    iris.iter()
        .map(|i| {
            NamedNode::new(i.as_str()).map(&wrap).map_err(|e| {
                Reject::new(
                    StatusCode::BAD_REQUEST,
                    format!("{what} '{i}' is not an IRI: {e}"),
                )
            })
        })
        .collect()
}

/// A serialized result: the bytes, their media type, and whether rows were cut at the limit.
struct Document {
    bytes: Vec<u8>,
    media: &'static str,
    truncated: bool,
}

async fn answer(state: AppState, req: Request, headers: &HeaderMap) -> Response {
    let text = req.query.unwrap_or_default();
    let token = CancellationToken::new();
    let mut prepared = match SparqlEvaluator::new()
        .with_cancellation_token(token.clone())
        .parse_query(&text)
    {
        Ok(p) => p,
        Err(e) => {
            let hint = if SparqlEvaluator::new().parse_update(&text).is_ok() {
                " (this is an update: POST it as `update`)"
            } else {
                ""
            };
            return problem(
                StatusCode::BAD_REQUEST,
                format!("the query does not parse: {e}{hint}"),
            );
        }
    };
    if !req.default_graphs.is_empty() || !req.named_graphs.is_empty() {
        let defaults = match parse_graphs(&req.default_graphs, GraphName::from, "default-graph-uri")
        {
            Ok(g) => g,
            Err(r) => return r.into_response(),
        };
        let named = match parse_graphs(&req.named_graphs, NamedOrBlankNode::from, "named-graph-uri")
        {
            Ok(g) => g,
            Err(r) => return r.into_response(),
        };
        // A dataset given by the protocol is the whole dataset (SPARQL 1.1 Protocol 2.1.4):
        // its named graphs are exactly the named-graph-uri ones, none when there are none.
        let dataset = prepared.dataset_mut();
        dataset.set_default_graph(defaults);
        dataset.set_available_named_graphs(named);
    }
    let accept_header: Option<String> = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let format = req.format.clone();
    let slot = match query_slot(&state).await {
        Ok(s) => s,
        Err(r) => return r.into_response(),
    };
    let timeout = state.engine.limits.timeout;
    let cut = token.clone();
    let work = blocking(&state, move |engine| {
        // The slot is held until the evaluation has really stopped, which can be after the
        // client was answered (below).
        let _slot = slot;
        let limits = engine.limits;
        let results = engine
            .store()
            .evaluate_user_query(prepared, token, limits.timeout)
            .map_err(|e| match e {
                StoreError::Query(q) => evaluation_failure(q, limits.timeout),
                e => Failure::Internal(e.to_string()),
            })?;
        serialize(results, format.as_deref(), accept_header.as_deref(), limits)
    });
    // The time limit is kept here, not left to the evaluator (see `QueryLimits::answer_by`).
    let out = match tokio::time::timeout(state.engine.limits.answer_by(), work).await {
        Ok(out) => out,
        Err(_) => {
            cut.cancel();
            return Failure::Timeout(timeout).into_response();
        }
    };
    match out {
        Ok(Ok(Some(doc))) => {
            let mut r =
                ([(header::CONTENT_TYPE, content_type(doc.media))], doc.bytes).into_response();
            if doc.truncated {
                r.headers_mut().insert(
                    "x-refgraph-truncated",
                    HeaderValue::from_static("row limit reached (serve --max-rows)"),
                );
            }
            r
        }
        Ok(Ok(None)) => problem(
            StatusCode::NOT_ACCEPTABLE,
            "none of the Accept header's types can carry this result: SELECT/ASK give \
             application/sparql-results+json, application/sparql-results+xml, text/csv, \
             text/tab-separated-values; CONSTRUCT/DESCRIBE give text/turtle, \
             application/n-triples, application/ld+json, application/rdf+xml",
        ),
        Ok(Err(f)) => f.into_response(),
        Err(r) => r,
    }
}

fn content_type(media: &'static str) -> HeaderValue {
    if media.starts_with("text/") || media.ends_with("json") || media.ends_with("xml") {
        HeaderValue::from_str(&format!("{media}; charset=utf-8"))
            .unwrap_or(HeaderValue::from_static(media))
    } else {
        HeaderValue::from_static(media)
    }
}

/// Writes `results` in the negotiated format, at most `limits.max_rows` rows; `Ok(None)` when
/// the client accepts no format that can carry them.
fn serialize(
    results: QueryResults<'_>,
    format: Option<&str>,
    accept: Option<&str>,
    limits: crate::answer::QueryLimits,
) -> Result<Option<Document>, Failure> {
    match results {
        QueryResults::Boolean(b) => {
            let Some((media, format)) = choose(format, false, accept, SOLUTION_TYPES) else {
                return Ok(None);
            };
            let bytes = QueryResultsSerializer::from_format(format)
                .serialize_boolean_to_writer(Vec::new(), b)
                .map_err(io_failure)?;
            Ok(Some(Document {
                bytes,
                media,
                truncated: false,
            }))
        }
        QueryResults::Solutions(solutions) => {
            let Some((media, format)) = choose(format, false, accept, SOLUTION_TYPES) else {
                return Ok(None);
            };
            let mut writer = QueryResultsSerializer::from_format(format)
                .serialize_solutions_to_writer(Vec::new(), solutions.variables().to_vec())
                .map_err(io_failure)?;
            let truncated = write_rows(solutions, limits, |s| writer.serialize(&s))?;
            Ok(Some(Document {
                bytes: writer.finish().map_err(io_failure)?,
                media,
                truncated,
            }))
        }
        QueryResults::Graph(triples) => {
            let offered = graph_types();
            let Some((media, format)) = choose(format, true, accept, &offered) else {
                return Ok(None);
            };
            let mut writer = RdfSerializer::from_format(format)
                .with_prefix("rg", crate::vocab::rg::NS)
                .map_err(|e| Failure::Internal(e.to_string()))?
                .for_writer(Vec::new());
            let truncated = write_rows(triples, limits, |t| writer.serialize_triple(&t))?;
            Ok(Some(Document {
                bytes: writer.finish().map_err(io_failure)?,
                media,
                truncated,
            }))
        }
    }
}

/// Writes up to `limits.max_rows` items of a result stream with `write`; true when more were
/// cut. A cancelled evaluation (the timeout fired) is reported as such.
fn write_rows<T>(
    items: impl Iterator<Item = Result<T, QueryEvaluationError>>,
    limits: crate::answer::QueryLimits,
    mut write: impl FnMut(T) -> std::io::Result<()>,
) -> Result<bool, Failure> {
    for (rows, item) in items.enumerate() {
        let item = item.map_err(|e| evaluation_failure(e, limits.timeout))?;
        if rows == limits.max_rows {
            return Ok(true);
        }
        write(item).map_err(io_failure)?;
    }
    Ok(false)
}

async fn update(state: AppState, req: Request, headers: &HeaderMap) -> Response {
    if let Err(r) = authorize_write(&state.opts, headers) {
        return r.into_response();
    }
    let text = req.update.unwrap_or_default();
    let token = CancellationToken::new();
    let prepared = match SparqlEvaluator::new()
        .with_cancellation_token(token.clone())
        .parse_update(&text)
    {
        Ok(p) => p,
        Err(e) => {
            return problem(
                StatusCode::BAD_REQUEST,
                format!("the update does not parse: {e}"),
            );
        }
    };
    let _slot = match query_slot(&state).await {
        Ok(s) => s,
        Err(r) => return r.into_response(),
    };
    let cut = token.clone();
    let out = blocking(&state, move |engine| {
        let timeout = engine.limits.timeout;
        (engine.store().update(prepared, token, timeout), timeout)
    })
    .await;
    match out {
        Ok((Ok(()), _)) => StatusCode::NO_CONTENT.into_response(),
        Ok((Err(_), timeout)) if cut.is_cancelled() => Failure::Timeout(timeout).into_response(),
        Ok((Err(e @ StoreError::Update(_)), _)) => problem(StatusCode::BAD_REQUEST, e.to_string()),
        Ok((Err(e), _)) => problem(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        Err(r) => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFFERS: &[(&str, u8)] = &[
        ("application/sparql-results+json", 0),
        ("application/json", 0),
        ("application/sparql-results+xml", 1),
        ("text/csv", 2),
    ];

    fn pick(accept: Option<&str>) -> Option<&'static str> {
        negotiate(accept, OFFERS).map(|(m, _)| m)
    }

    #[test]
    fn negotiation_follows_q_values_then_the_servers_order() {
        assert_eq!(pick(None), Some("application/sparql-results+json"));
        assert_eq!(pick(Some("*/*")), Some("application/sparql-results+json"));
        assert_eq!(pick(Some("text/csv")), Some("text/csv"));
        assert_eq!(
            pick(Some("application/sparql-results+xml, application/xml")),
            Some("application/sparql-results+xml")
        );
        assert_eq!(
            pick(Some("text/csv;q=0.5, application/sparql-results+xml;q=0.9")),
            Some("application/sparql-results+xml")
        );
        assert_eq!(pick(Some("text/*")), Some("text/csv"));
        assert_eq!(
            pick(Some("text/html,application/xhtml+xml,*/*;q=0.8")),
            Some("application/sparql-results+json")
        );
        assert_eq!(pick(Some("image/png")), None);
        assert_eq!(pick(Some("text/csv;q=0")), None);
    }

    #[test]
    fn a_format_parameter_means_what_fits_the_result() {
        const GRAPHS: &[(&str, u8)] = &[
            ("text/turtle", 0),
            ("application/ld+json", 1),
            ("application/rdf+xml", 2),
        ];
        let m = |f, graph, accept, offered| choose(f, graph, accept, offered).map(|(m, _)| m);
        assert_eq!(
            m(Some("xml"), true, None, GRAPHS),
            Some("application/rdf+xml")
        );
        assert_eq!(
            m(Some("json"), true, None, GRAPHS),
            Some("application/ld+json")
        );
        assert_eq!(
            m(Some("xml"), false, None, OFFERS),
            Some("application/sparql-results+xml")
        );
        // A format this result cannot take leaves the choice to Accept.
        assert_eq!(
            m(Some("csv"), true, Some("text/turtle"), GRAPHS),
            Some("text/turtle")
        );
    }

    #[test]
    fn form_pairs_fill_the_request_and_repeat_only_graphs() {
        let mut r = Request::default();
        r.add_pairs(b"query=ASK%7B%7D&default-graph-uri=a:b&default-graph-uri=c:d&format=csv")
            .unwrap();
        assert_eq!(r.query.as_deref(), Some("ASK{}"));
        assert_eq!(r.default_graphs, ["a:b", "c:d"]);
        assert_eq!(r.format.as_deref(), Some("csv"));
        let mut twice = Request::default();
        let err = twice.add_pairs(b"query=a&query=b").unwrap_err();
        assert_eq!(err.status, StatusCode::BAD_REQUEST);
    }
}
