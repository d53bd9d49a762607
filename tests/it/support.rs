//! Shared helpers: sample paths, an in-memory engine with releases ingested.

use std::path::PathBuf;

use refgraph::answer::Engine;
use refgraph::extract::Language;
use refgraph::ingest::{IngestError, IngestReport, Limits, ingest_files, read_release};
use refgraph::model::PackageId;
use refgraph::store::Store;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn sample(dir: &str) -> PathBuf {
    repo().join("samples/python").join(dir)
}

/// Ingests the release at `path` as `version` of `package`, read by the extractor its
/// ecosystem names (pypi: Python, npm: JavaScript, generic: OpenAPI).
pub fn try_ingest(
    store: &Store,
    path: &std::path::Path,
    package: &PackageId,
    version: &str,
) -> Result<IngestReport, IngestError> {
    let language = Language::for_package(package);
    let (files, diags) = read_release(path, language, &Limits::default())?;
    ingest_files(
        store,
        package,
        version,
        &files,
        diags,
        &path.display().to_string(),
        None,
    )
}

/// A Python sample release, which must ingest.
pub fn ingest(store: &Store, path: &std::path::Path, package: &str, version: &str) -> IngestReport {
    try_ingest(
        store,
        path,
        &PackageId::new(refgraph::model::Ecosystem::Pypi, package),
        version,
    )
    .expect("ingest")
}

/// An in-memory store with acme-storage 1.0.0 and 2.0.0 ingested.
pub fn acme() -> Engine {
    let store = Store::in_memory();
    ingest(
        &store,
        &sample("acme-storage-1.0.0"),
        "acme-storage",
        "1.0.0",
    );
    ingest(
        &store,
        &sample("acme-storage-2.0.0"),
        "acme-storage",
        "2.0.0",
    );
    Engine::new(store)
}

/// A folder the tests own for downloads, kept between runs.
pub fn cache_dir() -> PathBuf {
    let dir = std::env::var_os("REFGRAPH_TEST_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("refgraph-test-cache"));
    std::fs::create_dir_all(&dir).expect("cache dir");
    dir
}

/// What a client sees of one release: one symbol's detail and the whole listing, as JSON, to
/// compare before and after bad input.
pub fn snapshot(e: &Engine, package: &str, version: &str, name: &str) -> String {
    let release = e.choose(Some(package), Some(version), None).unwrap();
    let d = e.lookup().api_detail(&release, name).unwrap();
    let l = e.lookup().list(&release, None, None, 1000, None).unwrap();
    format!(
        "{}\n{}",
        serde_json::to_string(&d).unwrap(),
        serde_json::to_string(&l).unwrap()
    )
}

/// Holds the cache folder `path` for one test thread at a time. The tests of one run share
/// the cache and fill it on first use: without this, two of them install into the same folder
/// at once and one reads what the other has half written (seen on a fresh machine: the
/// requests oracle read a half-installed openai and found 42 calls instead of over 50).
pub fn cache_lock(path: &std::path::Path) -> std::sync::Arc<std::sync::Mutex<()>> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = OnceLock::new();
    LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(path.to_path_buf())
        .or_default()
        .clone()
}

/// `npm install SPEC` into `cache/dir` once (`name` is the package whose `package.json` says
/// it is there): the node oracles' tools.
pub fn npm_install(cache: &std::path::Path, dir: &str, name: &str, spec: &str) -> PathBuf {
    let tools = cache.join(dir);
    let lock = cache_lock(&tools);
    let _held = lock.lock().unwrap_or_else(|p| p.into_inner());
    // Written once npm has finished: a `package.json` alone may be an interrupted install.
    let done = tools.join(format!(".complete-{}", spec.replace('/', "_")));
    if done.exists() {
        return tools;
    }
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(tools.join("package.json"), "{\"private\": true}\n").unwrap();
    let status = std::process::Command::new("npm")
        .current_dir(&tools)
        .args(["install", "--silent", "--no-audit", "--no-fund", spec])
        .status()
        .expect("npm is needed for the node oracles (see scripts/setup)");
    assert!(status.success(), "npm install {spec} failed");
    assert!(
        tools
            .join("node_modules")
            .join(name)
            .join("package.json")
            .exists(),
        "npm install {spec} left no {name}/package.json"
    );
    std::fs::write(&done, "").unwrap();
    tools
}

/// Runs a Python script of the repository in the test venv and reads the one JSON object it
/// prints (the real-client tests: SPARQLWrapper, the MCP Python SDK).
pub fn run_python(
    script: &str,
    args: &[&std::ffi::OsStr],
    envs: &[(&str, &std::path::Path)],
) -> serde_json::Value {
    let mut cmd = std::process::Command::new(crate::openapi::oracle::python());
    cmd.arg(repo().join(script)).args(args);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .expect("python runs (scripts/setup installs the test clients into the venv)");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Marks `release` as stored by a refgraph older than the facts version: the triple removed,
/// as on releases written before it existed.
pub fn make_stale(store: &Store, release: &str) {
    let update = oxigraph::sparql::SparqlEvaluator::new()
        .parse_update(&format!(
            "DELETE WHERE {{ GRAPH <{release}> {{ <{release}> <{}> ?v }} }}",
            refgraph::vocab::rg::FACTS_VERSION.as_str()
        ))
        .unwrap();
    store
        .update(
            update,
            oxigraph::sparql::CancellationToken::new(),
            std::time::Duration::from_secs(10),
        )
        .unwrap();
}

/// Copies the folder `from` into `to`, recursively.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Rows of a SPARQL SELECT's answer as strings, in the order of `vars` (unbound: empty).
pub fn sparql_rows(engine: &Engine, query: &str, vars: &[&str]) -> Vec<Vec<String>> {
    let answer = engine.sparql(query).unwrap();
    answer["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            vars.iter()
                .map(|v| b[*v]["value"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .collect()
}
