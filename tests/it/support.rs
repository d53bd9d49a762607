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
    let language = Language::for_package(package).expect("a supported ecosystem");
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
    try_ingest(store, path, &PackageId::new("pypi", package), version).expect("ingest")
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
    let d = e.api_detail(&release, name).unwrap();
    let l = e.list(&release, None, None, 1000, None).unwrap();
    format!(
        "{}\n{}",
        serde_json::to_string(&d).unwrap(),
        serde_json::to_string(&l).unwrap()
    )
}
