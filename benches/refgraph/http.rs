//! `-- http`: load on `refgraph serve --http`. 64 concurrent clients for 30 s on loopback
//! (`REFGRAPH_BENCH_HTTP_SECONDS` shortens it), each with its own keep-alive connection:
//!
//! 1. MCP over streamable HTTP: each client opens its own MCP session (initialize, initialized)
//!    and calls `get_api_detail` on names of Django 5.1.4, one after another;
//! 2. the same store's `/sparql` answering the symbol lookup as one SPARQL query;
//! 3. Oxigraph's own server (`oxigraph serve-read-only` 0.5.13 from PyPI, the same Oxigraph
//!    version refgraph embeds) on the very same store directory, answering the same query.
//!
//! Requests per second, p50/p99 latency, errors (transport or protocol failures, non-2xx).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const CLIENTS: usize = 64;
const OXIGRAPH: &str = "oxigraph==0.5.13";

fn seconds() -> u64 {
    std::env::var("REFGRAPH_BENCH_HTTP_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// What one load run saw.
struct Load {
    requests: usize,
    errors: usize,
    /// Tool answers that were errors (a name not found): counted apart from failures.
    not_found: usize,
    sorted_ms: Vec<f64>,
    secs: f64,
    first_error: Option<String>,
}

enum Outcome {
    Ok,
    NotFound,
    Failed(String),
}

/// Runs `CLIENTS` threads for the bench duration; `client(i)` builds thread i's state (a
/// session), `call(state, n)` makes its n-th request.
fn load<S>(
    client: impl Fn(usize) -> Result<S, String> + Send + Sync + 'static,
    call: impl Fn(&mut S, usize) -> Outcome + Send + Sync + 'static,
) -> Load {
    let client = Arc::new(client);
    let call = Arc::new(call);
    let barrier = Arc::new(Barrier::new(CLIENTS + 1));
    let duration = Duration::from_secs(seconds());
    let threads: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let (client, call, barrier) = (client.clone(), call.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut state = client(i);
                barrier.wait();
                let start = Instant::now();
                let (mut ms, mut errors, mut not_found, mut first_error) = (Vec::new(), 0, 0, None);
                let Ok(state) = state.as_mut() else {
                    return (ms, 1, 0, state.err());
                };
                let mut n = i * 7919;
                while start.elapsed() < duration {
                    let t = Instant::now();
                    let outcome = call(state, n);
                    ms.push(t.elapsed().as_secs_f64() * 1000.0);
                    match outcome {
                        Outcome::Ok => {}
                        Outcome::NotFound => not_found += 1,
                        Outcome::Failed(e) => {
                            errors += 1;
                            first_error.get_or_insert(e);
                        }
                    }
                    n += 1;
                }
                (ms, errors, not_found, first_error)
            })
        })
        .collect();
    barrier.wait();
    let start = Instant::now();
    let mut out = Load {
        requests: 0,
        errors: 0,
        not_found: 0,
        sorted_ms: Vec::new(),
        secs: 0.0,
        first_error: None,
    };
    for t in threads {
        let (ms, errors, not_found, first_error) = t.join().unwrap();
        out.requests += ms.len();
        out.errors += errors;
        out.not_found += not_found;
        out.sorted_ms.extend(ms);
        if out.first_error.is_none() {
            out.first_error = first_error;
        }
    }
    out.secs = start.elapsed().as_secs_f64();
    out.sorted_ms.sort_by(f64::total_cmp);
    out
}

/// One MCP session over streamable HTTP, as a client library would hold it.
struct McpSession {
    agent: ureq::Agent,
    url: String,
    session: String,
}

/// The JSON-RPC message of a response body: plain JSON or the `data:` lines of an SSE stream.
fn rpc_message(body: &str, id: u64) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        return Some(v);
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v["id"] == id)
}

impl McpSession {
    fn open(url: &str) -> Result<McpSession, String> {
        let agent = agent();
        let mut r = agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .send_json(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "refgraph-bench", "version": "1"}}}),
            )
            .map_err(|e| e.to_string())?;
        let session = r
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .ok_or("no mcp-session-id")?
            .to_string();
        let body = r.body_mut().read_to_string().map_err(|e| e.to_string())?;
        rpc_message(&body, 0).ok_or(format!("no initialize result: {body}"))?;
        let s = McpSession {
            agent,
            url: url.to_string(),
            session,
        };
        s.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(s)
    }

    fn post(&self, msg: &Value) -> Result<String, String> {
        let mut r = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Mcp-Session-Id", &self.session)
            .header("Mcp-Protocol-Version", "2025-06-18")
            .send_json(msg)
            .map_err(|e| e.to_string())?;
        let status = r.status().as_u16();
        let body = r.body_mut().read_to_string().map_err(|e| e.to_string())?;
        if !(200..300).contains(&status) {
            return Err(format!("HTTP {status}: {body}"));
        }
        Ok(body)
    }

    fn call(&self, id: u64, tool: &str, arguments: Value) -> Outcome {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        match self.post(&msg) {
            Err(e) => Outcome::Failed(e),
            Ok(body) => match rpc_message(&body, id) {
                None => Outcome::Failed(format!("no response message: {body}")),
                Some(m) if m["result"]["isError"] == false => Outcome::Ok,
                Some(m) if m["result"]["isError"] == true => Outcome::NotFound,
                Some(m) => Outcome::Failed(m.to_string()),
            },
        }
    }
}

/// The symbol lookup as one SPARQL query: the symbol's facts and its parameters' in one release.
fn lookup_query(release: &str, package: &str, name: &str) -> String {
    format!(
        "SELECT ?p ?o WHERE {{ GRAPH <{release}> {{ \
           {{ <{package}#{name}> ?p ?o }} UNION \
           {{ <{package}#{name}> <https://refgraph.dev/ontology#parameter> ?x . ?x ?p ?o }} }} }}"
    )
}

fn sparql_load(
    endpoint: String,
    release: String,
    package: String,
    names: Arc<Vec<String>>,
) -> Load {
    load(
        |_| Ok(agent()),
        move |agent, n| {
            let q = lookup_query(&release, &package, &names[n % names.len()]);
            let url = format!(
                "{endpoint}?query={}",
                form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()
            );
            match agent
                .get(&url)
                .header("Accept", "application/sparql-results+json")
                .call()
            {
                Err(e) => Outcome::Failed(e.to_string()),
                Ok(mut r) => {
                    let status = r.status().as_u16();
                    let body = r.body_mut().read_to_string().unwrap_or_default();
                    if status != 200 {
                        return Outcome::Failed(format!("HTTP {status}: {body}"));
                    }
                    match serde_json::from_str::<Value>(&body) {
                        Ok(v)
                            if v["results"]["bindings"]
                                .as_array()
                                .is_some_and(|b| !b.is_empty()) =>
                        {
                            Outcome::Ok
                        }
                        Ok(_) => Outcome::NotFound,
                        Err(e) => Outcome::Failed(format!("not JSON: {e}")),
                    }
                }
            }
        },
    )
}

/// A free loopback port (bound and released: good enough for a benchmark).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_until_up(url: &str, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if agent().get(url).call().is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{url}: the server exited ({status})");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{url} did not come up");
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn row(label: &str, l: &Load) {
    println!(
        "| {label} | {:.0} | {:.2} | {:.2} | {} | {} |",
        l.requests as f64 / l.secs,
        super::percentile(&l.sorted_ms, 0.5),
        super::percentile(&l.sorted_ms, 0.99),
        l.errors,
        l.not_found,
    );
    if let Some(e) = &l.first_error {
        println!("  first error: {e}");
    }
}

pub fn load_vs_oxigraph(bin: &Path) {
    let data = tempfile::tempdir().unwrap();
    super::ingest(bin, data.path(), super::VERSION);
    let names = Arc::new(super::names_of(bin, data.path(), super::VERSION));
    let release = format!("pkg:pypi/{}@{}", super::PACKAGE, super::VERSION);
    let package = format!("pkg:pypi/{}", super::PACKAGE);
    let stored = super::symbol_count(bin, data.path(), Some(&release));

    let port = free_port();
    let mut ours = Command::new(bin)
        .arg("--data-dir")
        .arg(data.path())
        .args(["serve", "--http", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    wait_until_up(&format!("{base}/health"), &mut ours);
    // Let the server preload its name tables, as a long-running one has.
    std::thread::sleep(Duration::from_secs(2));
    let mcp_url = format!("{base}/mcp");
    let (tool_names, tool_package) = (names.clone(), package.clone());
    let mcp = load(
        move |_| McpSession::open(&mcp_url),
        move |s, n| {
            s.call(
                n as u64 + 1,
                "get_api_detail",
                json!({"name": tool_names[n % tool_names.len()], "package": tool_package,
                       "version": super::VERSION}),
            )
        },
    );
    let our_sparql = sparql_load(
        format!("{base}/sparql"),
        release.clone(),
        package.clone(),
        names.clone(),
    );
    stop(ours);

    let oxigraph = super::venv(
        "venv",
        ".complete-http",
        &["SPARQLWrapper==2.0.0", "mcp==2.3.0", OXIGRAPH],
    )
    .join("bin/oxigraph");
    let port = free_port();
    let mut theirs = Command::new(&oxigraph)
        .arg("serve-read-only")
        .arg("--location")
        .arg(data.path().join("store"))
        .args(["--bind", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    wait_until_up(&format!("{base}/"), &mut theirs);
    let their_sparql = sparql_load(format!("{base}/query"), release, package, names.clone());
    stop(theirs);

    println!(
        "| {CLIENTS} clients × {} s on loopback, Django {} ({stored} symbols) | requests/s | p50 ms | p99 ms | errors | not found |",
        seconds(),
        super::VERSION
    );
    println!("|---|---|---|---|---|---|");
    row("refgraph MCP streamable HTTP, get_api_detail", &mcp);
    row("refgraph /sparql, symbol lookup query", &our_sparql);
    row(
        "oxigraph serve-read-only 0.5.13 /query, same query, same store",
        &their_sparql,
    );
    println!(
        "(MCP {:.2}x and /sparql {:.2}x oxigraph's requests/s)\n",
        mcp.requests as f64 / mcp.secs / (their_sparql.requests as f64 / their_sparql.secs),
        our_sparql.requests as f64
            / our_sparql.secs
            / (their_sparql.requests as f64 / their_sparql.secs),
    );
}
