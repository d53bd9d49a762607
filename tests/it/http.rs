//! `refgraph serve --http`, tested from outside as its users reach it: a real SPARQL client
//! (SPARQLWrapper), the official MCP Python SDK over streamable HTTP, headless Chromium on the
//! console, and plain HTTP for negotiation, security and limits.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use oxigraph::io::{RdfFormat, RdfParser};
use serde_json::Value;

use crate::support::{cache_dir, repo};

/// A running `refgraph serve --http` on a free loopback port, over a fresh on-disk store with
/// acme-storage 1.0.0 and 2.0.0 (Python samples) and petstore 1.0.0 (OpenAPI); killed on drop.
struct Server {
    child: Child,
    base: String,
    _data: tempfile::TempDir,
}

fn refgraph(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_refgraph"));
    c.arg("--data-dir").arg(data);
    c
}

/// The releases most tests serve: (sample path, package, version); `RELEASES` lists them.
const SERVED: &[(&str, &str, &str)] = &[
    (
        "samples/python/acme-storage-1.0.0",
        "pkg:pypi/acme-storage",
        "1.0.0",
    ),
    (
        "samples/python/acme-storage-2.0.0",
        "pkg:pypi/acme-storage",
        "2.0.0",
    ),
    (
        "samples/openapi/petstore-1.0.0.yaml",
        "pkg:generic/petstore",
        "1.0.0",
    ),
];

impl Server {
    fn start(extra: &[&str]) -> Server {
        Server::serving(SERVED, extra)
    }

    fn serving(releases: &[(&str, &str, &str)], extra: &[&str]) -> Server {
        let data = tempfile::tempdir().unwrap();
        for &(path, package, version) in releases {
            let out = refgraph(data.path())
                .args(["ingest", "--no-index"])
                .arg(repo().join(path))
                .args(["--package", package, "--version", version])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let mut child = refgraph(data.path())
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let base = loop {
            let line = lines
                .next()
                .expect("the server says where it listens")
                .unwrap();
            if let Some(rest) = line.split("listening on ").nth(1) {
                break rest.split('/').take(3).collect::<Vec<_>>().join("/");
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Server {
            child,
            base,
            _data: data,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// (status, content type, body) of a GET.
fn get(url: &str, accept: Option<&str>) -> (u16, String, String) {
    let mut req = agent().get(url);
    if let Some(a) = accept {
        req = req.header("Accept", a);
    }
    let mut r = req.call().unwrap();
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    (
        r.status().as_u16(),
        ct,
        r.body_mut().read_to_string().unwrap(),
    )
}

fn sparql_get(server: &Server, query: &str, accept: Option<&str>) -> (u16, String, String) {
    let q: String = form_urlencoded::byte_serialize(query.as_bytes()).collect();
    get(&server.url(&format!("/sparql?query={q}")), accept)
}

fn post_update(server: &Server, update: &str, token: Option<&str>) -> u16 {
    let mut req = agent().post(server.url("/sparql"));
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    req.send_form([("update", update)])
        .unwrap()
        .status()
        .as_u16()
}

fn run_python(script: &str, args: &[&str]) -> Value {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    crate::support::run_python(script, &args, &[])
}

const RELEASES: [[&str; 2]; 3] = [
    ["pkg:generic/petstore@1.0.0", "1.0.0"],
    ["pkg:pypi/acme-storage@1.0.0", "1.0.0"],
    ["pkg:pypi/acme-storage@2.0.0", "2.0.0"],
];

#[test]
fn sparqlwrapper_queries_the_endpoint_in_json_xml_and_csv() {
    let server = Server::start(&[]);
    let seen = run_python("tests/http/clients.py", &["sparql", &server.url("/sparql")]);
    let want = serde_json::json!(RELEASES);
    assert_eq!(seen["json"], want, "{seen}");
    assert_eq!(seen["xml"], want, "{seen}");
    assert_eq!(seen["csv"], want, "{seen}");
    assert_eq!(
        seen["csv_header"],
        serde_json::json!(["release", "version"])
    );
    assert_eq!(seen["ask_post"], true);
    // The same classes and triples as a direct count over the protocol.
    assert!(seen["construct_triples"].as_u64().unwrap() > 10, "{seen}");
    let subjects = seen["construct_subjects"].as_array().unwrap();
    assert!(
        subjects
            .iter()
            .any(|s| s == "pkg:pypi/acme-storage#acme_storage.StorageClient"),
        "{seen}"
    );
    let classes = "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { GRAPH <pkg:pypi/acme-storage@1.0.0> { ?s a <https://refgraph.dev/ontology#Class> } }";
    let (_, _, n) = sparql_get(&server, classes, Some("text/csv"));
    assert_eq!(
        n.lines().nth(1).unwrap().trim(),
        subjects.len().to_string(),
        "{seen}"
    );
}

#[test]
fn the_mcp_python_sdk_lists_and_calls_tools_over_streamable_http() {
    let server = Server::start(&[]);
    let seen = run_python(
        "tests/http/clients.py",
        &[
            "mcp",
            &server.url("/mcp"),
            "acme_storage.StorageClient.delete_object",
            "acme-storage",
            "1.0.0",
        ],
    );
    assert_eq!(seen["server"], "refgraph");
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for t in [
        "get_api_detail",
        "check_version",
        "list_apis",
        "search_docs",
        "get_page",
        "diff_versions",
        "sparql_query",
        "resolve_versions",
    ] {
        assert!(tools.contains(&t), "{t} is listed: {tools:?}");
    }
    assert_eq!(seen["is_error"], false, "{seen}");
    let text = seen["text"].as_str().unwrap();
    assert!(text.starts_with("[Version: 1.0.0]"), "{text}");
    assert!(text.contains("acme_storage/_client.py:"), "{text}");
    assert_eq!(
        seen["structured"]["signature"],
        "(bucket: str, key: str) -> None"
    );
    assert_eq!(seen["structured"]["version"], "1.0.0");
    // A version that is not indexed is said so, with the indexed ones; nothing substituted.
    assert_eq!(seen["missing_is_error"], true, "{seen}");
    let missing = seen["missing_text"].as_str().unwrap();
    assert!(
        missing.contains("0.0.0-not-indexed")
            && missing.contains("1.0.0")
            && missing.contains("2.0.0"),
        "{missing}"
    );
}

/// The console's first screen, before anything is typed: the header names packages as people
/// write them (`@acme/storage`, not `%40acme/storage`), and the editor opens on a refgraph
/// query over the named graph of the release indexed last, which one click answers.
#[test]
fn the_consoles_first_screen_answers_on_the_first_click() {
    let server = Server::serving(
        &[
            SERVED[0],
            (
                "samples/npm/acme-storage-1.0.0",
                "pkg:npm/@acme/storage",
                "1.0.0",
            ),
        ],
        &[],
    );
    let dir = cache_dir().join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("console-first-screen.png");
    let downloads = tempfile::tempdir().unwrap();
    let seen = run_python(
        "tests/browser/console.py",
        &[
            &server.url("/"),
            shot.to_str().unwrap(),
            downloads.path().to_str().unwrap(),
            "first-screen",
        ],
    );
    let header = seen["header"].as_str().unwrap();
    assert!(header.contains("@acme/storage 1.0.0"), "{header}");
    assert!(!header.contains("%40"), "{header}");
    let editor = seen["first_editor"].as_str().unwrap();
    assert!(
        editor.contains("PREFIX rg: <https://refgraph.dev/ontology#>"),
        "{editor}"
    );
    assert!(
        editor.contains("GRAPH <pkg:npm/%40acme/storage@1.0.0>"),
        "the release indexed last, by its graph name: {editor}"
    );
    assert!(!editor.contains("?sub ?pred ?obj"), "{editor}");
    assert_eq!(
        seen["first_headers"],
        serde_json::json!(["", "name", "kind", "signature", "symbol"]),
        "{seen}"
    );
    assert!(seen["first_rows"].as_u64().unwrap() >= 5, "{seen}");
}

/// Load the console, pick an example query, run it, see rows, sort a column, download CSV,
/// get a completion; follow a symbol link; open a shared link. The screenshot is kept in the
/// test cache (browser/console.png) as the run's artifact.
#[test]
fn the_console_works_in_headless_chromium() {
    let server = Server::start(&[]);
    let dir = cache_dir().join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("console.png");
    let _ = std::fs::remove_file(&shot);
    let downloads = tempfile::tempdir().unwrap();
    let seen = run_python(
        "tests/browser/console.py",
        &[
            &server.url("/"),
            shot.to_str().unwrap(),
            downloads.path().to_str().unwrap(),
        ],
    );
    assert_eq!(seen["title"], "refgraph SPARQL console");
    assert_eq!(seen["examples"].as_array().unwrap().len(), 12, "{seen}");
    assert!(
        seen["editor"]
            .as_str()
            .unwrap()
            .contains("rg:ingestedAt ?ingested"),
        "the example is in the editor: {seen}"
    );
    assert_eq!(seen["rows"], 3, "{seen}");
    assert_eq!(
        seen["headers"],
        serde_json::json!(["", "release", "package", "version", "symbols", "ingested"])
    );
    assert_eq!(
        seen["versions_sorted_once"],
        serde_json::json!(["1.0.0", "1.0.0", "2.0.0"])
    );
    assert_eq!(
        seen["versions_sorted_twice"],
        serde_json::json!(["2.0.0", "1.0.0", "1.0.0"])
    );
    let csv = seen["csv"].as_str().expect("a CSV was downloaded");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("\"release\",\"package\",\"version\",\"symbols\",\"ingested\"")
    );
    assert_eq!(lines.count(), 3, "{csv}");
    assert!(csv.contains("\"pkg:pypi/acme-storage@2.0.0\""), "{csv}");
    assert!(
        seen["hints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h == "rg:qualifiedName"),
        "completion from the ontology: {seen}"
    );
    let origin = seen["origin"].as_str().unwrap();
    let resources = seen["resources"].as_array().unwrap();
    assert!(
        resources
            .iter()
            .any(|r| r.as_str().unwrap().ends_with("/assets/yasgui.min.js")),
        "{seen}"
    );
    for r in resources {
        assert!(
            r.as_str().unwrap().starts_with(origin),
            "the console called another server: {r}"
        );
    }
    assert!(
        seen["entity_links"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l.as_str().unwrap().contains("/entity?iri=pkg%3A")),
        "{seen}"
    );
    assert_eq!(seen["entity_title"], "acme_storage.Bucket");
    assert!(
        seen["entity_version_line"]
            .as_str()
            .unwrap()
            .starts_with("[Version: 2.0.0]")
    );
    assert_eq!(seen["shared_editor"], "ASK { ?s ?p ?o }");
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
}

fn triples(body: &str, format: RdfFormat) -> usize {
    RdfParser::from_format(format)
        .for_slice(body.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .expect("the server's RDF parses")
        .len()
}

#[test]
fn results_are_negotiated_and_graphs_parse_back() {
    let server = Server::start(&["--max-rows", "5"]);
    let select = "PREFIX rg: <https://refgraph.dev/ontology#> SELECT ?v WHERE { GRAPH ?g { ?r a rg:Release ; rg:version ?v } } ORDER BY ?v";
    let (s, ct, body) = sparql_get(&server, select, None);
    assert_eq!(
        (s, ct.as_str()),
        (200, "application/sparql-results+json; charset=utf-8")
    );
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["results"]["bindings"][2]["v"]["value"],
        "2.0.0"
    );
    let (_, ct, body) = sparql_get(&server, select, Some("text/csv"));
    assert!(ct.starts_with("text/csv"));
    assert_eq!(body.replace("\r\n", "\n"), "v\n1.0.0\n1.0.0\n2.0.0\n");
    let (_, ct, body) = sparql_get(&server, select, Some("text/tab-separated-values"));
    assert!(ct.starts_with("text/tab-separated-values"));
    assert_eq!(body.lines().next(), Some("?v"));
    let (_, ct, body) = sparql_get(
        &server,
        select,
        Some("application/sparql-results+xml;q=0.9, text/csv;q=0.1"),
    );
    assert!(ct.starts_with("application/sparql-results+xml"), "{ct}");
    assert!(body.contains("<literal>2.0.0</literal>"));
    // A client that cannot set headers names the format.
    let q: String = form_urlencoded::byte_serialize(select.as_bytes()).collect();
    let (_, ct, _) = get(&server.url(&format!("/sparql?query={q}&format=csv")), None);
    assert!(ct.starts_with("text/csv"));
    let (s, _, body) = sparql_get(&server, select, Some("image/png"));
    assert_eq!(s, 406, "{body}");

    // CONSTRUCT in every graph syntax, each parsing back to the same triples (5: the row limit).
    let construct =
        "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <pkg:pypi/acme-storage@1.0.0> { ?s ?p ?o } }";
    for (accept, format) in [
        ("text/turtle", RdfFormat::Turtle),
        ("application/n-triples", RdfFormat::NTriples),
        (
            "application/ld+json",
            RdfFormat::JsonLd {
                profile: Default::default(),
            },
        ),
    ] {
        let mut r = agent()
            .get(server.url(&format!(
                "/sparql?query={}",
                form_urlencoded::byte_serialize(construct.as_bytes()).collect::<String>()
            )))
            .header("Accept", accept)
            .call()
            .unwrap();
        assert!(
            r.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with(accept)
        );
        assert!(r.headers().contains_key("x-refgraph-truncated"));
        assert_eq!(triples(&r.body_mut().read_to_string().unwrap(), format), 5);
    }

    // default-graph-uri narrows the default graph to one release.
    let count = "SELECT (COUNT(*) AS ?n) WHERE { ?r a <https://refgraph.dev/ontology#Release> }";
    let q: String = form_urlencoded::byte_serialize(count.as_bytes()).collect();
    let (_, _, body) = get(
        &server.url(&format!(
            "/sparql?query={q}&default-graph-uri=pkg%3Apypi%2Facme-storage%401.0.0"
        )),
        Some("text/csv"),
    );
    assert_eq!(body.replace("\r\n", "\n"), "n\n1\n");
    let (_, _, body) = sparql_get(&server, count, Some("text/csv"));
    assert_eq!(
        body.replace("\r\n", "\n"),
        "n\n3\n",
        "union of all releases"
    );

    // POST with a query body, and errors that say what to do.
    let mut r = agent()
        .post(server.url("/sparql"))
        .header("Content-Type", "application/sparql-query")
        .header("Accept", "text/csv")
        .send(count)
        .unwrap();
    assert_eq!(
        r.body_mut().read_to_string().unwrap().replace("\r\n", "\n"),
        "n\n3\n"
    );
    let (s, _, body) = sparql_get(&server, "SELEC ?x", None);
    assert_eq!(s, 400);
    assert!(body.contains("does not parse"), "{body}");
    let (s, _, body) = get(&server.url("/sparql"), Some("application/json"));
    assert_eq!(s, 400);
    assert!(body.contains("no query"), "{body}");
}

#[test]
fn writes_need_the_token() {
    let token_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(token_file.path(), "s3cret-token\n").unwrap();
    let server = Server::start(&["--token-file", token_file.path().to_str().unwrap()]);
    let insert = "INSERT DATA { GRAPH <urn:notes> { <urn:a> <urn:b> \"c\" } }";
    assert_eq!(post_update(&server, insert, None), 401);
    assert_eq!(post_update(&server, insert, Some("s3cret")), 401);
    let ask = "ASK { GRAPH <urn:notes> { <urn:a> <urn:b> \"c\" } }";
    assert_eq!(sparql_get(&server, ask, Some("text/csv")).2.trim(), "false");
    assert_eq!(post_update(&server, insert, Some("s3cret-token")), 204);
    assert_eq!(sparql_get(&server, ask, Some("text/csv")).2.trim(), "true");
    // The same as an application/sparql-update body.
    let r = agent()
        .post(server.url("/sparql"))
        .header("Content-Type", "application/sparql-update")
        .header("Authorization", "bearer s3cret-token")
        .send("CLEAR GRAPH <urn:notes>")
        .unwrap();
    assert_eq!(r.status().as_u16(), 204);
    assert_eq!(sparql_get(&server, ask, Some("text/csv")).2.trim(), "false");
    // An update is never taken from a GET, token or not.
    let q: String = form_urlencoded::byte_serialize(insert.as_bytes()).collect();
    assert_eq!(
        get(&server.url(&format!("/sparql?update={q}")), None).0,
        400
    );
    // Ingest over HTTP needs the token too.
    let r = agent()
        .post(server.url("/api/releases"))
        .send_json(serde_json::json!({"release": "pkg:pypi/six@1.16.0"}))
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = agent()
        .post(server.url("/api/releases"))
        .header("Authorization", "Bearer wrong")
        .send("not even JSON")
        .unwrap();
    assert_eq!(
        r.status().as_u16(),
        401,
        "the token is checked before the body is read"
    );

    // Without a configured token, the server is read-only whatever the request carries.
    let read_only = Server::start(&[]);
    assert_eq!(post_update(&read_only, insert, Some("s3cret-token")), 403);
}

/// Ingest over HTTP: a real release from PyPI, then queryable.
#[test]
fn a_release_is_ingested_over_http_with_the_token() {
    let token_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(token_file.path(), "t0ken").unwrap();
    let server = Server::start(&["--token-file", token_file.path().to_str().unwrap()]);
    let mut r = agent()
        .post(server.url("/api/releases"))
        .header("Authorization", "Bearer t0ken")
        .send_json(serde_json::json!({"release": "pkg:pypi/six@1.16.0"}))
        .unwrap();
    let body = r.body_mut().read_to_string().unwrap();
    assert_eq!(r.status().as_u16(), 201, "{body}");
    let report: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(report["release"], "pkg:pypi/six@1.16.0");
    assert!(report["symbols"].as_u64().unwrap() > 20, "{report}");
    let (_, _, detail) = get(
        &server.url("/entity?iri=pkg%3Apypi%2Fsix%23six.add_metaclass&format=ttl"),
        None,
    );
    assert!(
        detail.contains("rg:qualifiedName \"six.add_metaclass\""),
        "{detail}"
    );
    let mut bad = agent()
        .post(server.url("/api/releases"))
        .header("Authorization", "Bearer t0ken")
        .send_json(serde_json::json!({"release": "pkg:pypi/six"}))
        .unwrap();
    assert_eq!(bad.status().as_u16(), 400);
    assert!(
        bad.body_mut()
            .read_to_string()
            .unwrap()
            .contains("has no version")
    );
}

/// `POST /api/releases` reads a release within the limits `serve` was given, as `refgraph
/// add` does (it once used the defaults whatever the command line said).
#[test]
fn a_release_posted_over_http_is_held_to_the_serve_limits() {
    let token_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(token_file.path(), "t0ken").unwrap();
    let token = token_file.path().to_str().unwrap();
    let post = |server: &Server| {
        let mut r = agent()
            .post(server.url("/api/releases"))
            .header("Authorization", "Bearer t0ken")
            .send_json(serde_json::json!({"release": "pkg:pypi/six@1.16.0"}))
            .unwrap();
        (r.status().as_u16(), r.body_mut().read_to_string().unwrap())
    };
    // six 1.16.0's wheel holds 6 entries.
    let strict = Server::start(&["--token-file", token, "--max-entries", "3"]);
    let (status, body) = post(&strict);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("6 entries (limit 3)"), "{body}");
    let (_, _, releases) = get(&strict.url("/api/releases"), None);
    assert!(!releases.contains("six"), "nothing stored: {releases}");
    // A file over --max-file-bytes is skipped: six has one module, so nothing is left.
    let small_files = Server::start(&["--token-file", token, "--max-file-bytes", "300"]);
    let (status, body) = post(&small_files);
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("six.py:1: file larger than 300 bytes; skipped"),
        "{body}"
    );
    // With the default limits the release is stored.
    let (status, body) = post(&Server::start(&["--token-file", token]));
    assert_eq!(status, 201, "{body}");
}

/// A cartesian product is cut at the timeout while another client's queries keep answering
/// within 100 ms each.
#[test]
fn a_runaway_query_is_cut_while_others_keep_answering() {
    let server = Server::start(&["--query-timeout", "3"]);
    let runaway = server.url(&format!(
        "/sparql?query={}",
        form_urlencoded::byte_serialize(
            b"SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
        )
        .collect::<String>()
    ));
    let started = Instant::now();
    let slow = std::thread::spawn(move || {
        let (status, _, body) = get(&runaway, None);
        (status, body, started.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    let lookup = "PREFIX rg: <https://refgraph.dev/ontology#> SELECT ?sig WHERE { GRAPH <pkg:pypi/acme-storage@2.0.0> { <pkg:pypi/acme-storage#acme_storage.StorageClient.delete_object> rg:signature ?sig } }";
    let mut times = Vec::new();
    while started.elapsed() < Duration::from_millis(2500) {
        let t = Instant::now();
        let (status, _, body) = sparql_get(&server, lookup, Some("text/csv"));
        times.push(t.elapsed());
        assert_eq!(status, 200);
        assert!(body.contains("(bucket: str, key: str) -> None"), "{body}");
    }
    let (status, body, took) = slow.join().unwrap();
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("time limit"), "{body}");
    // Uncut, the product runs for minutes. The server answers at the limit (plus 0.2 s for
    // the query to report its own cut) whether or not the evaluation has stopped yet: before
    // it did, 5.6 s was seen on a loaded fresh machine.
    assert!(
        took < Duration::from_millis(3600),
        "cut at the 3 s timeout, took {took:?}"
    );
    // Every answer within 100 ms; the test suite runs other tests on the same two cores
    // meanwhile, so one scheduling hiccup is allowed up to 250 ms.
    times.sort();
    assert!(times.len() >= 10, "{} answers", times.len());
    let p95 = times[times.len() * 95 / 100];
    let worst = *times.last().unwrap();
    assert!(
        p95 < Duration::from_millis(100) && worst < Duration::from_millis(250),
        "answers meanwhile: p95 {p95:?}, slowest {worst:?} ({} answers)",
        times.len()
    );
}

#[test]
fn entity_pages_resolve_symbol_iris() {
    let server = Server::start(&[]);
    let iri = "pkg%3Apypi%2Facme-storage%23acme_storage.StorageClient.delete_object";
    let (s, ct, html) = get(
        &server.url(&format!("/entity?iri={iri}")),
        Some("text/html"),
    );
    assert_eq!(s, 200);
    assert!(ct.starts_with("text/html"));
    assert!(
        html.contains("[Version: 2.0.0]"),
        "newest release by default"
    );
    assert!(
        html.contains("delete_object(bucket: str, key: str) -&gt; None"),
        "{html}"
    );
    assert!(html.contains("acme_storage/_client.py:"), "{html}");
    assert!(html.contains("version=1.0.0") && html.contains("version=2.0.0"));
    let (s, _, old) = get(
        &server.url(&format!("/entity?iri={iri}&version=1.0.0")),
        None,
    );
    assert_eq!(s, 200);
    assert!(old.contains("[Version: 1.0.0]"));
    // A bare package name resolves too; the triples come under the canonical IRI.
    let (s, _, ttl) = get(
        &server
            .url("/entity?iri=acme-storage%23acme_storage.StorageClient.delete_object&format=ttl"),
        None,
    );
    assert_eq!(s, 200, "{ttl}");
    assert!(ttl.contains("<pkg:pypi/acme-storage#acme_storage.StorageClient.delete_object>"));
    let (s, ct, ttl) = get(
        &server.url(&format!("/entity?iri={iri}")),
        Some("text/turtle"),
    );
    assert_eq!(s, 200);
    assert!(ct.starts_with("text/turtle"));
    assert!(triples(&ttl, RdfFormat::Turtle) > 5);
    assert!(ttl.contains("rg:qualifiedName \"acme_storage.StorageClient.delete_object\""));
    assert!(
        ttl.contains("/param/bucket>"),
        "parameters come along: {ttl}"
    );
    let (_, ct, jsonld) = get(
        &server.url(&format!("/entity?iri={iri}")),
        Some("application/ld+json"),
    );
    assert!(ct.starts_with("application/ld+json"));
    serde_json::from_str::<Value>(&jsonld).unwrap();
    // Unknown names: 404 with close candidates, marked as such; versions not indexed: listed.
    let (s, _, html) = get(
        &server.url("/entity?iri=pkg%3Apypi%2Facme-storage%23acme_storage.StorageClent"),
        None,
    );
    assert_eq!(s, 404);
    assert!(
        html.contains("candidates, not answers") && html.contains("StorageClient"),
        "{html}"
    );
    let (s, _, text) = get(
        &server.url(&format!("/entity?iri={iri}&version=9.9.9&format=ttl")),
        None,
    );
    assert_eq!(s, 404);
    assert!(
        text.contains("9.9.9") && text.contains("1.0.0, 2.0.0"),
        "{text}"
    );
}

#[test]
fn cors_is_off_by_default_and_bodies_are_capped() {
    let closed = Server::start(&["--max-body", "2000"]);
    let r = agent()
        .get(closed.url("/sparql?query=ASK%7B%7D"))
        .header("Origin", "https://docs.example.com")
        .call()
        .unwrap();
    assert!(!r.headers().contains_key("access-control-allow-origin"));
    let big = format!("ASK {{ }} #{}", "x".repeat(5000));
    let r = agent()
        .post(closed.url("/sparql"))
        .header("Content-Type", "application/sparql-query")
        .send(&big)
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);

    // A name rebound to 127.0.0.1 by another site is refused, on every route.
    for path in ["/sparql?query=ASK%7B%7D", "/", "/mcp"] {
        let r = agent()
            .get(closed.url(path))
            .header("Host", "rebound.example.net")
            .call()
            .unwrap();
        assert_eq!(r.status().as_u16(), 403, "{path}");
    }
    // A page on another site cannot call /mcp either (Origin checked).
    let r = agent()
        .post(closed.url("/mcp"))
        .header("Origin", "https://elsewhere.example.org")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);

    let open = Server::start(&["--cors-origin", "https://docs.example.com"]);
    let r = agent()
        .get(open.url("/sparql?query=ASK%7B%7D"))
        .header("Origin", "https://docs.example.com")
        .call()
        .unwrap();
    assert_eq!(
        r.headers()["access-control-allow-origin"],
        "https://docs.example.com"
    );
    let r = agent()
        .get(open.url("/sparql?query=ASK%7B%7D"))
        .header("Origin", "https://elsewhere.example.org")
        .call()
        .unwrap();
    assert!(!r.headers().contains_key("access-control-allow-origin"));
}
