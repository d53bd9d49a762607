//! Shared helpers: sample paths, an in-memory engine with releases ingested.

use std::path::PathBuf;

use refgraph::answer::Engine;
use refgraph::extract::Language;
use refgraph::ingest::{IngestReport, Limits, ingest_files, read_release};
use refgraph::model::PackageId;
use refgraph::store::Store;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn sample(dir: &str) -> PathBuf {
    repo().join("samples/python").join(dir)
}

pub fn ingest(store: &Store, path: &std::path::Path, package: &str, version: &str) -> IngestReport {
    let (files, diags) =
        read_release(path, Language::Python, &Limits::default()).expect("readable sample");
    ingest_files(
        store,
        &PackageId::new("pypi", package),
        version,
        &files,
        diags,
        &path.display().to_string(),
        None,
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
