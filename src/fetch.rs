//! Registry fetch: a release's archive, located through the registry's JSON API (PyPI, npm),
//! verified by the registry's digest (sha256; npm's sha512 `integrity`) and cached under the
//! data directory.

use std::io::Read;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use sha2::{Digest as _, Sha256, Sha512};

use crate::model::{Ecosystem, PackageId};

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(
        "only PyPI and npm packages can be fetched (got {0}); ingest other sources, such as OpenAPI specs, with `refgraph ingest`"
    )]
    UnsupportedEcosystem(String),
    #[error("{registry} has no package named '{name}'")]
    UnknownPackage {
        registry: &'static str,
        name: String,
    },
    #[error("{registry} has no release {version} of {name}; recent releases: {}", .recent.join(", "))]
    UnknownVersion {
        registry: &'static str,
        name: String,
        version: String,
        recent: Vec<String>,
    },
    #[error("{name} {version} has no wheel or sdist on PyPI")]
    NoArchive { name: String, version: String },
    #[error("cannot reach the registry for {url}: {reason}")]
    Http { url: String, reason: String },
    #[error(
        "{name} {version}: the registry gives no usable digest ({what}); refusing an unverified download"
    )]
    NoDigest {
        name: String,
        version: String,
        what: String,
    },
    #[error("download of {file} is corrupt: digest {got}, the registry says {want}")]
    Checksum {
        file: String,
        got: String,
        want: String,
    },
    #[error("{file} is larger than the {limit} byte download limit")]
    TooLarge { file: String, limit: u64 },
    #[error("cache error at {path}: {source}")]
    Cache {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A downloaded, verified archive.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub path: PathBuf,
    pub url: String,
    pub sha256: String,
    pub from_cache: bool,
    /// For a PyPI release, its sdist as the same file list gave it: what reading the sdist
    /// too (its guides, its Cython sources) fetches without asking for the list again.
    pub sdist: Sdist,
    /// For a PyPI release, the day its first file was uploaded (`2024-05-03`): run-time
    /// inspection installs the dependencies of that era.
    pub uploaded: Option<String>,
}

/// What a release's file list said of its sdist.
#[derive(Debug, Clone, Default)]
pub enum Sdist {
    /// Not asked (an npm release, a file read from elsewhere).
    #[default]
    Unknown,
    /// The release has none.
    Absent,
    File(FileJson),
}

/// One file of a release's file list on PyPI: enough to download and verify it.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct FileJson {
    filename: String,
    url: String,
    packagetype: String,
    digests: Digests,
    #[serde(default)]
    size: u64,
    #[serde(default)]
    yanked: bool,
    /// `2024-05-03T12:34:56.789Z`.
    #[serde(default)]
    upload_time_iso_8601: Option<String>,
}

#[derive(Debug, Clone, serde::Deserialize)]
struct Digests {
    sha256: String,
}

#[derive(serde::Deserialize)]
struct ProjectJson {
    releases: std::collections::BTreeMap<String, Vec<FileJson>>,
}

/// Largest archive downloaded.
pub const MAX_DOWNLOAD: u64 = 256 << 20;

fn index_url() -> String {
    std::env::var("REFGRAPH_PYPI_URL").unwrap_or_else(|_| "https://pypi.org/pypi".into())
}

fn agent() -> ureq::Agent {
    agent_within(std::time::Duration::from_secs(300))
}

fn agent_within(timeout: std::time::Duration) -> ureq::Agent {
    // The platform's trust store (and SSL_CERT_FILE), so corporate proxies with their own CA work.
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::PlatformVerifier)
        .build();
    ureq::Agent::config_builder()
        .tls_config(tls)
        .timeout_global(Some(timeout))
        .user_agent(concat!("refgraph/", env!("CARGO_PKG_VERSION")))
        .http_status_as_error(false)
        .build()
        .into()
}

/// Requests sent to a registry by this process (metadata and downloads; cache hits excluded):
/// how `refgraph sync` shows that a second run did no network work.
static REQUESTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The number of registry requests this process has sent.
pub fn requests_sent() -> u64 {
    REQUESTS.load(std::sync::atomic::Ordering::Relaxed)
}

fn count_request() {
    REQUESTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

fn get_json<T: serde::de::DeserializeOwned>(url: &str) -> Result<Option<T>, FetchError> {
    count_request();
    let http = |reason: String| FetchError::Http {
        url: url.to_string(),
        reason,
    };
    let mut resp = agent()
        .get(url)
        // npm's abbreviated documents are a fraction of the full ones; PyPI ignores this.
        .header(
            "Accept",
            "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8",
        )
        .call()
        .map_err(|e| http(e.to_string()))?;
    match resp.status().as_u16() {
        200 => {}
        404 => return Ok(None),
        s => return Err(http(format!("HTTP {s}"))),
    }
    let body = resp
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .map_err(|e| http(e.to_string()))?;
    serde_json::from_str(&body)
        .map(Some)
        .map_err(|e| http(format!("unexpected JSON: {e}")))
}

/// Picks the archive to read: a pure-Python wheel, else any wheel (the Python sources are the
/// same in each), else the sdist.
fn pick(files: &[FileJson]) -> Option<&FileJson> {
    let live = live_or_yanked(files);
    live.iter()
        .find(|f| f.packagetype == "bdist_wheel" && f.filename.ends_with("-none-any.whl"))
        .or_else(|| live.iter().find(|f| f.packagetype == "bdist_wheel"))
        .copied()
        .or_else(|| sdist(&live))
}

/// The files not yanked; if a release was yanked whole (transformers 4.46.0), all of them: the
/// release was asked for by its version, and its files are still what it shipped.
fn live_or_yanked(files: &[FileJson]) -> Vec<&FileJson> {
    let live: Vec<&FileJson> = files.iter().filter(|f| !f.yanked).collect();
    if live.is_empty() {
        files.iter().collect()
    } else {
        live
    }
}

/// The source distribution among `files`: `.tar.gz` preferred, else `.zip`.
fn sdist<'a>(files: &[&'a FileJson]) -> Option<&'a FileJson> {
    let of = |ext: &str| {
        files
            .iter()
            .find(|f| f.packagetype == "sdist" && f.filename.ends_with(ext))
            .copied()
    };
    of(".tar.gz").or_else(|| of(".zip"))
}

/// Downloads (or takes from the cache) the archive of `name==version`.
pub fn fetch_pypi(
    package: &PackageId,
    version: &str,
    cache_dir: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<Fetched, FetchError> {
    if package.ecosystem != Ecosystem::Pypi {
        return Err(FetchError::UnsupportedEcosystem(package.purl()));
    }
    fetch_pypi_file(&package.name, version, cache_dir, progress, &|files| {
        pick(files)
    })
}

/// Downloads the wheel of `name==version` whose file name satisfies `accept` (the first one in
/// the registry's order): how `refgraph model install` gets a platform's ONNX Runtime.
pub fn fetch_pypi_wheel(
    name: &str,
    version: &str,
    cache_dir: &Path,
    progress: &dyn Fn(u64, u64),
    accept: &dyn Fn(&str) -> bool,
) -> Result<Fetched, FetchError> {
    fetch_pypi_file(name, version, cache_dir, progress, &|files| {
        files
            .iter()
            .find(|f| !f.yanked && f.packagetype == "bdist_wheel" && accept(&f.filename))
    })
}

/// Downloads the source distribution of `name==version` (`.tar.gz` preferred, else `.zip`):
/// sdists carry what wheels leave out, such as built documentation.
pub fn fetch_pypi_sdist(
    name: &str,
    version: &str,
    cache_dir: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<Fetched, FetchError> {
    fetch_pypi_file(name, version, cache_dir, progress, &|files| {
        sdist(&live_or_yanked(files))
    })
}

/// The sdist of the release `fetched` is a file of: from the file list that gave `fetched`
/// when it said (no request but the download, and none when it is cached), else as
/// [`fetch_pypi_sdist`] finds it.
pub fn fetch_sdist_of(
    fetched: &Fetched,
    name: &str,
    version: &str,
    cache_dir: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<Fetched, FetchError> {
    match &fetched.sdist {
        Sdist::File(f) => download_file(f, cache_dir, progress),
        Sdist::Absent => Err(FetchError::NoArchive {
            name: name.to_string(),
            version: version.to_string(),
        }),
        Sdist::Unknown => fetch_pypi_sdist(name, version, cache_dir, progress),
    }
}

fn fetch_pypi_file(
    name: &str,
    version: &str,
    cache_dir: &Path,
    progress: &dyn Fn(u64, u64),
    choose: &dyn Fn(&[FileJson]) -> Option<&FileJson>,
) -> Result<Fetched, FetchError> {
    // The project document lists every release's files (the per-version document is not
    // served by every mirror).
    let project_url = format!("{}/{name}/json", index_url());
    let project: Option<ProjectJson> = get_json(&project_url)?;
    let Some(mut project) = project else {
        return Err(FetchError::UnknownPackage {
            registry: "PyPI",
            name: name.to_string(),
        });
    };
    let Some(files) = project.releases.remove(version) else {
        let recent = newest_first(Ecosystem::Pypi, project.releases.into_keys());
        return Err(FetchError::UnknownVersion {
            registry: "PyPI",
            name: name.to_string(),
            version: version.to_string(),
            recent,
        });
    };
    let files: Vec<FileJson> = files
        .into_iter()
        .map(|mut f| {
            f.url = join_url(&project_url, &f.url);
            f
        })
        .collect();
    let file = choose(&files).ok_or_else(|| FetchError::NoArchive {
        name: name.to_string(),
        version: version.to_string(),
    })?;
    let mut fetched = download_file(file, cache_dir, progress)?;
    fetched.uploaded = files
        .iter()
        .filter_map(|f| f.upload_time_iso_8601.as_deref())
        .filter_map(|t| t.get(..10))
        .min()
        .map(str::to_string);
    fetched.sdist = match sdist(&live_or_yanked(&files)) {
        Some(f) => Sdist::File(f.clone()),
        None => Sdist::Absent,
    };
    Ok(fetched)
}

/// Downloads a file of a PyPI release (or takes it from the cache), checked against its
/// sha256.
fn download_file(
    f: &FileJson,
    cache_dir: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<Fetched, FetchError> {
    download(
        &f.url,
        &f.filename,
        f.size,
        Expected::Sha256Hex(f.digests.sha256.to_lowercase()),
        cache_dir,
        progress,
    )
}

/// What a download must hash to.
enum Expected {
    Sha256Hex(String),
    /// Subresource integrity, `sha512-<base64>`, as npm's `dist.integrity`.
    Sha512Base64(String),
}

impl Expected {
    fn want(&self) -> &str {
        match self {
            Expected::Sha256Hex(w) | Expected::Sha512Base64(w) => w,
        }
    }

    fn of(&self, bytes: &[u8]) -> String {
        match self {
            Expected::Sha256Hex(_) => hex(&Sha256::digest(bytes)),
            Expected::Sha512Base64(_) => {
                base64::engine::general_purpose::STANDARD.encode(Sha512::digest(bytes))
            }
        }
    }
}

/// Downloads `url` into the cache (or takes the cached copy) and checks its digest: a file
/// that does not match is never kept.
fn download(
    url: &str,
    filename: &str,
    size: u64,
    digest: Expected,
    cache_dir: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<Fetched, FetchError> {
    if size > MAX_DOWNLOAD {
        return Err(FetchError::TooLarge {
            file: filename.to_string(),
            limit: MAX_DOWNLOAD,
        });
    }
    let cache_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FetchError::Cache { path, source }
    };
    std::fs::create_dir_all(cache_dir).map_err(cache_err(cache_dir))?;
    // The file name may come from the network: keep only its last component.
    let safe_name = Path::new(filename)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "download".into());
    let target = cache_dir.join(&safe_name);
    let want = digest.want().to_string();
    if let Ok(bytes) = std::fs::read(&target)
        && digest.of(&bytes) == want
    {
        return Ok(Fetched {
            uploaded: None,
            path: target,
            url: url.to_string(),
            sha256: hex(&Sha256::digest(&bytes)),
            from_cache: true,
            sdist: Sdist::Unknown,
        });
    }
    let http = |reason: String| FetchError::Http {
        url: url.to_string(),
        reason,
    };
    count_request();
    let mut resp = agent().get(url).call().map_err(|e| http(e.to_string()))?;
    if resp.status().as_u16() != 200 {
        return Err(http(format!("HTTP {}", resp.status())));
    }
    let mut reader = resp.body_mut().with_config().limit(MAX_DOWNLOAD).reader();
    let mut bytes = Vec::with_capacity(size as usize);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut buf).map_err(|e| http(e.to_string()))?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
        progress(bytes.len() as u64, size.max(bytes.len() as u64));
    }
    let got = digest.of(&bytes);
    if got != want {
        return Err(FetchError::Checksum {
            file: filename.to_string(),
            got,
            want,
        });
    }
    // Two fetches of one file at once (threads, or processes sharing the cache) each write a
    // temporary file of their own.
    crate::fsutil::write_atomic(&target, &bytes).map_err(cache_err(&target))?;
    Ok(Fetched {
        uploaded: None,
        path: target,
        url: url.to_string(),
        sha256: hex(&Sha256::digest(&bytes)),
        from_cache: false,
        sdist: Sdist::Unknown,
    })
}

/// A package's path on the npm registry: `@scope/name` is one segment (`@scope%2fname`).
fn npm_path(name: &str) -> String {
    name.replacen('/', "%2f", usize::from(name.starts_with('@')))
}

/// Whether each registry answers (`refgraph doctor`): the registry's name, the address asked,
/// and the HTTP status or why no answer came within `timeout`.
pub fn registries_reachable(
    timeout: std::time::Duration,
) -> Vec<(&'static str, String, Result<u16, String>)> {
    let agent = agent_within(timeout);
    // The index roots: no package is asked about.
    let pypi = format!(
        "{}/",
        index_url().trim_end_matches("/pypi").trim_end_matches('/')
    );
    [("PyPI", pypi), ("npm", format!("{}/", npm_registry()))]
        .into_iter()
        .map(|(name, url)| {
            let answer = agent
                .head(&url)
                .call()
                .map(|r| r.status().as_u16())
                .map_err(|e| e.to_string());
            (name, url, answer)
        })
        .collect()
}

fn npm_registry() -> String {
    std::env::var("REFGRAPH_NPM_URL")
        .unwrap_or_else(|_| "https://registry.npmjs.org".into())
        .trim_end_matches('/')
        .to_string()
}

#[derive(serde::Deserialize)]
struct NpmVersion {
    dist: NpmDist,
}

#[derive(serde::Deserialize)]
struct NpmDist {
    tarball: String,
    #[serde(default)]
    integrity: Option<String>,
    #[serde(rename = "unpackedSize", default)]
    _unpacked_size: Option<u64>,
}

#[derive(serde::Deserialize)]
struct NpmPackument {
    versions: std::collections::BTreeMap<String, NpmVersion>,
    #[serde(rename = "dist-tags", default)]
    dist_tags: std::collections::BTreeMap<String, String>,
}

/// Downloads (or takes from the cache) the tarball of an npm release, checked against the
/// registry's sha512 `integrity`.
pub fn fetch_npm(
    package: &PackageId,
    version: &str,
    cache_dir: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<Fetched, FetchError> {
    if package.ecosystem != Ecosystem::Npm {
        return Err(FetchError::UnsupportedEcosystem(package.purl()));
    }
    let name = package.display_name();
    let path = npm_path(&name);
    let base = npm_registry();
    // The per-version document is small, but some registries do not serve it for scoped
    // packages; the (abbreviated) packument always lists every version.
    let meta = match get_json::<NpmVersion>(&format!("{base}/{path}/{version}"))? {
        Some(v) => v,
        None => {
            let Some(mut doc) = get_json::<NpmPackument>(&format!("{base}/{path}"))? else {
                return Err(FetchError::UnknownPackage {
                    registry: "npm",
                    name,
                });
            };
            match doc.versions.remove(version) {
                Some(v) => v,
                None => {
                    return Err(FetchError::UnknownVersion {
                        registry: "npm",
                        name,
                        version: version.to_string(),
                        recent: newest_first(Ecosystem::Npm, doc.versions.into_keys()),
                    });
                }
            }
        }
    };
    let integrity = meta
        .dist
        .integrity
        .as_deref()
        .and_then(|i| i.split_whitespace().find_map(|h| h.strip_prefix("sha512-")))
        .ok_or_else(|| FetchError::NoDigest {
            name: name.clone(),
            version: version.to_string(),
            what: "no sha512 integrity".into(),
        })?;
    let filename = format!(
        "{}-{version}.tgz",
        name.trim_start_matches('@').replace('/', "-")
    );
    download(
        &meta.dist.tarball,
        &filename,
        0,
        Expected::Sha512Base64(integrity.to_string()),
        cache_dir,
        progress,
    )
}

/// A package's release versions on its registry.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RegistryVersions {
    pub versions: Vec<String>,
    /// npm's dist-tags (`latest`, `next`) and the versions they point to; none on PyPI.
    #[serde(default)]
    pub tags: Vec<(String, String)>,
    /// Seconds since the Unix epoch when the registry was asked.
    pub fetched: u64,
    #[serde(skip)]
    pub from_cache: bool,
}

/// The versions PyPI or npm lists for `package` (PyPI: releases with at least one file that
/// is not yanked), cached under `cache_dir/versions` and reused while younger than `max_age`.
pub fn registry_versions(
    package: &PackageId,
    cache_dir: &Path,
    max_age: std::time::Duration,
) -> Result<RegistryVersions, FetchError> {
    let dir = cache_dir.join("versions").join(package.ecosystem.as_str());
    let file = dir.join(format!("{}.json", package.name.replace(['/', '%'], "_")));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    if let Ok(text) = std::fs::read_to_string(&file)
        && let Ok(mut cached) = serde_json::from_str::<RegistryVersions>(&text)
        && now.saturating_sub(cached.fetched) < max_age.as_secs()
    {
        cached.from_cache = true;
        return Ok(cached);
    }
    let mut tags = Vec::new();
    let versions: Vec<String> = match package.ecosystem {
        Ecosystem::Pypi => {
            let url = format!("{}/{}/json", index_url(), package.name);
            let Some(project) = get_json::<ProjectJson>(&url)? else {
                return Err(FetchError::UnknownPackage {
                    registry: "PyPI",
                    name: package.name.clone(),
                });
            };
            project
                .releases
                .into_iter()
                .filter(|(_, files)| files.iter().any(|f| !f.yanked))
                .map(|(v, _)| v)
                .collect()
        }
        Ecosystem::Npm => {
            let name = package.display_name();
            let path = npm_path(&name);
            let Some(doc) = get_json::<NpmPackument>(&format!("{}/{path}", npm_registry()))? else {
                return Err(FetchError::UnknownPackage {
                    registry: "npm",
                    name,
                });
            };
            tags = doc.dist_tags.into_iter().collect();
            doc.versions.into_keys().collect()
        }
        Ecosystem::Generic => return Err(FetchError::UnsupportedEcosystem(package.purl())),
    };
    let out = RegistryVersions {
        versions,
        tags,
        fetched: now,
        from_cache: false,
    };
    // A cache that cannot be written only costs a later request.
    let _ = std::fs::create_dir_all(&dir).and_then(|_| {
        crate::fsutil::write_atomic(&file, &serde_json::to_vec(&out).unwrap_or_default())
    });
    Ok(out)
}

/// Resolves a possibly relative file URL (mirrors serve `../../packages/...`) against the
/// document it came from.
fn join_url(base: &str, url: &str) -> String {
    if url.contains("://") {
        return url.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("https", base));
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    if let Some(abs) = url.strip_prefix('/') {
        return format!("{scheme}://{host}/{abs}");
    }
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop(); // the document's own name
    for seg in url.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    format!("{scheme}://{host}/{}", parts.join("/"))
}

/// The eight newest of a registry's versions, for an error that lists what exists.
fn newest_first(ecosystem: Ecosystem, versions: impl Iterator<Item = String>) -> Vec<String> {
    let mut all: Vec<String> = versions.collect();
    all.sort_by_key(|v| crate::version::version_key(ecosystem, v));
    all.into_iter().rev().take(8).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, kind: &str) -> FileJson {
        FileJson {
            filename: name.into(),
            url: String::new(),
            packagetype: kind.into(),
            digests: Digests {
                sha256: String::new(),
            },
            size: 0,
            yanked: false,
            upload_time_iso_8601: None,
        }
    }

    #[test]
    fn relative_file_urls_resolve_against_the_index() {
        let base = "https://pypi.org/pypi/click/json";
        assert_eq!(
            join_url(base, "../../packages/d2/click.whl"),
            "https://pypi.org/packages/d2/click.whl"
        );
        assert_eq!(join_url(base, "/x/y.whl"), "https://pypi.org/x/y.whl");
        assert_eq!(
            join_url(base, "https://files.example/y.whl"),
            "https://files.example/y.whl"
        );
    }

    #[test]
    fn pure_wheels_are_preferred_then_any_wheel_then_sdist() {
        let files = vec![
            f("x-1.tar.gz", "sdist"),
            f("x-1-cp311-cp311-manylinux.whl", "bdist_wheel"),
            f("x-1-py3-none-any.whl", "bdist_wheel"),
        ];
        assert_eq!(pick(&files).unwrap().filename, "x-1-py3-none-any.whl");
        assert_eq!(
            pick(&files[..2]).unwrap().filename,
            "x-1-cp311-cp311-manylinux.whl"
        );
        assert_eq!(pick(&files[..1]).unwrap().filename, "x-1.tar.gz");
    }

    #[test]
    fn a_release_yanked_whole_is_still_read_a_live_file_is_preferred() {
        let yanked = |name, kind| FileJson {
            yanked: true,
            ..f(name, kind)
        };
        // transformers 4.46.0: wheel and sdist both yanked.
        let whole = vec![
            yanked("x-1-py3-none-any.whl", "bdist_wheel"),
            yanked("x-1.tar.gz", "sdist"),
        ];
        assert_eq!(pick(&whole).unwrap().filename, "x-1-py3-none-any.whl");
        assert_eq!(
            sdist(&live_or_yanked(&whole)).unwrap().filename,
            "x-1.tar.gz"
        );
        let some = vec![yanked("x-1.tar.gz", "sdist"), f("x-1.zip", "sdist")];
        assert_eq!(sdist(&live_or_yanked(&some)).unwrap().filename, "x-1.zip");
    }
}
