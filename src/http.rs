//! `refgraph serve --http`: one process serving the MCP tools over streamable HTTP (`/mcp`),
//! the SPARQL 1.1 Protocol (`/sparql`), the SPARQL console for documentation maintainers (`/`)
//! and an HTML/RDF page per symbol (`/entity?iri=...`).
//!
//! Read-only unless a token is configured: then SPARQL Update and ingest over HTTP
//! (`POST /api/releases`) require it as a bearer token. CORS is off unless origins are given.
//! Every query is cut at the timeout and at the row limit; request bodies are capped.

mod console;
mod entity;
mod sparql;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::answer::Engine;
use crate::mcp::{QueryLog, RefgraphServer};

/// What `serve --http` was asked for.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Bearer token that unlocks writes; `None`: the server is read-only.
    pub token: Option<String>,
    /// Origins allowed to call from a browser (`*` for any); empty: CORS off.
    pub cors_origins: Vec<String>,
    /// Extra `Host` names the MCP endpoint accepts (it accepts loopback names and the bound
    /// address; anything else is refused against DNS rebinding).
    pub allowed_hosts: Vec<String>,
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// How `POST /api/releases` fetches and stores a release: the cache and limits of
    /// `refgraph add` with the same options.
    pub ingester: crate::ingest::Ingester,
}

#[derive(Clone)]
struct AppState {
    engine: Arc<Engine>,
    opts: Arc<HttpOptions>,
    /// User SPARQL queries and updates running at once (see `sparql::query_slot`).
    queries: Arc<tokio::sync::Semaphore>,
}

/// User queries allowed to run at once: enough to keep the cores busy, few enough that
/// runaway queries cannot take every blocking thread.
fn query_slots() -> usize {
    2 * std::thread::available_parallelism().map_or(2, |n| n.get()) + 2
}

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("cannot listen on {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
    #[error("the HTTP server stopped: {0}")]
    Serve(std::io::Error),
}

/// Serves until Ctrl-C (or SIGTERM). `ready` is told the bound address (port 0 picks one).
pub async fn serve(
    engine: Arc<Engine>,
    opts: HttpOptions,
    log: Option<Arc<QueryLog>>,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), HttpError> {
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|e| HttpError::Bind(opts.addr, e))?;
    let bound = listener.local_addr().map_err(HttpError::Serve)?;
    engine.warm_in_background();
    // Open MCP event streams only end when rmcp's token is cancelled: shutting down cancels it,
    // or the graceful shutdown would wait for them forever.
    let sessions = tokio_util::sync::CancellationToken::new();
    let app = router(engine, opts, log, bound, sessions.clone());
    ready(bound);
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown().await;
            sessions.cancel();
        })
        .await
        .map_err(HttpError::Serve)
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
}

fn router(
    engine: Arc<Engine>,
    opts: HttpOptions,
    log: Option<Arc<QueryLog>>,
    bound: SocketAddr,
    sessions: tokio_util::sync::CancellationToken,
) -> Router {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.push(bound.ip().to_string());
    hosts.extend(opts.allowed_hosts.iter().cloned());
    let mut mcp_config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts.clone())
        .with_max_request_body_bytes(opts.max_body_bytes)
        .with_cancellation_token(sessions);
    // Browsers send Origin: only the origins allowed by --cors-origin may call /mcp from a
    // page (the MCP spec's defence against DNS rebinding); clients without Origin pass.
    if !opts.cors_origins.iter().any(|o| o == "*") {
        mcp_config = mcp_config
            .with_allowed_origins(opts.cors_origins.clone())
            .enforce_origin_validation();
    }
    let mcp_engine = engine.clone();
    let mcp = StreamableHttpService::new(
        move || {
            // Roots and `root`/`path` name folders on the client's machine, not this one's.
            let server = RefgraphServer::new(mcp_engine.clone()).with_projects(
                crate::mcp::roots::ProjectOptions {
                    read_projects: false,
                    ..Default::default()
                },
            );
            Ok(match &log {
                Some(l) => server.with_log(l.clone()),
                None => server,
            })
        },
        Arc::new(LocalSessionManager::default()),
        mcp_config,
    );
    let cors = cors_layer(&opts.cors_origins);
    let max_body = opts.max_body_bytes;
    let state = AppState {
        engine,
        opts: Arc::new(opts),
        queries: Arc::new(tokio::sync::Semaphore::new(query_slots())),
    };
    let app = Router::new()
        .route("/", get(console::page))
        .route("/assets/{file}", get(console::asset))
        .route("/api/examples", get(console::examples))
        .route("/api/complete", get(console::complete))
        .route("/api/releases", get(releases).post(add_release))
        .route("/sparql", get(sparql::get).post(sparql::post))
        .route("/entity", get(entity::page))
        .route("/health", get(|| async { "ok\n" }))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .with_state(state)
        .nest_service("/mcp", mcp)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn(move |req, next| {
            check_host(hosts.clone(), bound.port(), req, next)
        }));
    match cors {
        Some(c) => app.layer(c),
        None => app,
    }
}

/// Refuses requests whose `Host` is not a name this server answers to (loopback, the bound
/// address, `--allow-host`): a page on another site whose name was rebound to 127.0.0.1
/// cannot read the store through `/sparql` or the pages. `/mcp` checks the same in rmcp.
async fn check_host(
    hosts: Vec<String>,
    port: u16,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if host_allowed(&hosts, port, host) {
        next.run(req).await
    } else {
        problem(
            StatusCode::FORBIDDEN,
            format!(
                "Host '{host}' is not one this server answers to; start it with --allow-host \
                 NAME to accept it"
            ),
        )
    }
}

fn host_allowed(hosts: &[String], port: u16, host: &str) -> bool {
    let (name, host_port) = match host.rsplit_once(':') {
        // `[::1]:8080`, `name:8080`; a bare IPv6 address has more colons and no brackets.
        Some((n, p)) if !n.contains(':') || n.ends_with(']') => (n, p.parse::<u16>().ok()),
        _ => (host, None),
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    hosts.iter().any(|h| {
        match h.rsplit_once(':').filter(|(n, _)| !n.contains(':')) {
            // An entry with a port matches that port only.
            Some((n, p)) => n.eq_ignore_ascii_case(name) && p.parse::<u16>().ok() == host_port,
            None => h.eq_ignore_ascii_case(name) && host_port.is_none_or(|p| p == port),
        }
    })
}

fn cors_layer(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(
            origins
                .iter()
                .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok()),
        )
    };
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            .allow_headers([
                header::CONTENT_TYPE,
                header::ACCEPT,
                header::AUTHORIZATION,
                header::HeaderName::from_static("mcp-session-id"),
                header::HeaderName::from_static("mcp-protocol-version"),
                header::HeaderName::from_static("last-event-id"),
            ])
            .expose_headers([header::HeaderName::from_static("mcp-session-id")])
            .max_age(Duration::from_secs(600)),
    )
}

/// A plain-text error with a status: what went wrong and what to do.
pub(crate) fn problem(status: StatusCode, message: impl Into<String>) -> Response {
    let mut text = message.into();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

/// A refusal: a status and a plain-text reason (small, so `Result`s stay cheap).
#[derive(Debug)]
pub(crate) struct Reject {
    pub status: StatusCode,
    message: String,
    /// Ask for a bearer token (401).
    bearer: bool,
}

impl Reject {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> Reject {
        Reject {
            status,
            message: message.into(),
            bearer: false,
        }
    }
}

impl IntoResponse for Reject {
    fn into_response(self) -> Response {
        let mut r = problem(self.status, self.message);
        if self.bearer {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"refgraph\""),
            );
        }
        r
    }
}

/// `Ok` when the request may write: a token is configured and the request carries it.
fn authorize_write(opts: &HttpOptions, headers: &HeaderMap) -> Result<(), Reject> {
    let Some(token) = &opts.token else {
        return Err(Reject::new(
            StatusCode::FORBIDDEN,
            "this server is read-only: start it with --token-file FILE (or REFGRAPH_TOKEN) to \
             allow SPARQL Update and ingest over HTTP",
        ));
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim());
    match given {
        Some(g) if constant_time_eq(g.as_bytes(), token.as_bytes()) => Ok(()),
        _ => Err(Reject {
            bearer: true,
            ..Reject::new(
                StatusCode::UNAUTHORIZED,
                "writing needs the server's token: send `Authorization: Bearer TOKEN`",
            )
        }),
    }
}

/// Compares without stopping at the first difference, so timing does not leak the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Runs `f` on the blocking pool (store reads and writes block).
async fn blocking<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce(&Engine) -> T + Send + 'static,
) -> Result<T, Response> {
    let engine = state.engine.clone();
    tokio::task::spawn_blocking(move || f(&engine))
        .await
        .map_err(|e| {
            problem(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("worker failed: {e}"),
            )
        })
}

/// `GET /api/releases`: the indexed releases as JSON.
async fn releases(axum::extract::State(state): axum::extract::State<AppState>) -> Response {
    match blocking(&state, |e| e.releases()).await {
        Ok(Ok(r)) => axum::Json(r).into_response(),
        Ok(Err(e)) => problem(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        Err(r) => r,
    }
}

#[derive(serde::Deserialize)]
struct AddRelease {
    /// `pkg:pypi/NAME@VERSION` or `pkg:npm/NAME@VERSION`.
    release: String,
}

/// `POST /api/releases {"release": "pkg:pypi/click@8.1.7"}` (token required): fetches the
/// release from its registry (digest verified, cached) and ingests it, as `refgraph add` does.
async fn add_release(
    axum::extract::State(state): axum::extract::State<AppState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if let Err(r) = authorize_write(&state.opts, &headers) {
        return r.into_response();
    }
    let body: AddRelease = match serde_json::from_slice(&body) {
        Ok(b) => b,
        Err(e) => {
            return problem(
                StatusCode::BAD_REQUEST,
                format!("expected {{\"release\": \"pkg:pypi/NAME@VERSION\"}}: {e}"),
            );
        }
    };
    let ingester = state.opts.ingester.clone();
    let out = blocking(&state, move |e| {
        ingester.add(e.store(), &body.release, &|_, _| {})
    })
    .await;
    match out {
        Ok(Ok(report)) => {
            state.engine.index_in_background(report.release.clone());
            (StatusCode::CREATED, axum::Json(report)).into_response()
        }
        Ok(Err(e)) => {
            use crate::ingest::{AddError, IngestError};
            let status = match &e {
                AddError::Fetch(crate::fetch::FetchError::Http { .. }) => StatusCode::BAD_GATEWAY,
                AddError::Fetch(crate::fetch::FetchError::Cache { .. })
                | AddError::Ingest(IngestError::Store(_)) => StatusCode::INTERNAL_SERVER_ERROR,
                _ => StatusCode::BAD_REQUEST,
            };
            problem(status, format!("{e:#}"))
        }
        Err(r) => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(token: Option<&str>) -> HttpOptions {
        HttpOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            token: token.map(str::to_string),
            cors_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body_bytes: 1 << 20,
            ingester: crate::ingest::Ingester {
                cache: std::path::PathBuf::from("/nonexistent"),
                limits: crate::ingest::Limits::default(),
                inspect: None,
            },
        }
    }

    fn bearer(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        h
    }

    #[test]
    fn writes_need_a_configured_token_and_the_right_one() {
        let read_only = authorize_write(&opts(None), &bearer("Bearer x")).unwrap_err();
        assert_eq!(read_only.status, StatusCode::FORBIDDEN);
        let guarded = opts(Some("s3cret"));
        assert_eq!(
            authorize_write(&guarded, &HeaderMap::new())
                .unwrap_err()
                .status,
            StatusCode::UNAUTHORIZED
        );
        for wrong in [
            "Bearer s3cre",
            "Bearer s3cret2",
            "Basic s3cret",
            "s3cret",
            "Bearer",
        ] {
            let r = authorize_write(&guarded, &bearer(wrong))
                .unwrap_err()
                .into_response();
            assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{wrong}");
            assert!(r.headers().contains_key(header::WWW_AUTHENTICATE));
        }
        assert!(authorize_write(&guarded, &bearer("Bearer s3cret")).is_ok());
        assert!(authorize_write(&guarded, &bearer("bearer s3cret")).is_ok());
    }

    #[test]
    fn hosts_are_matched_by_name_and_port() {
        let hosts: Vec<String> = ["localhost", "127.0.0.1", "::1", "docs.example.com:443"]
            .map(String::from)
            .to_vec();
        for ok in [
            "localhost:7878",
            "127.0.0.1:7878",
            "[::1]:7878",
            "localhost",
            "LOCALHOST:7878",
        ] {
            assert!(host_allowed(&hosts, 7878, ok), "{ok}");
        }
        assert!(host_allowed(&hosts, 7878, "docs.example.com:443"));
        for no in [
            "evil.example:7878",
            "",
            "localhost:9999",
            "docs.example.com",
            "127.0.0.2:7878",
        ] {
            assert!(!host_allowed(&hosts, 7878, no), "{no}");
        }
    }

    #[test]
    fn cors_is_off_unless_origins_are_given() {
        assert!(cors_layer(&[]).is_none());
        assert!(cors_layer(&["https://docs.example.com".into()]).is_some());
    }
}
