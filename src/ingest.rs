//! Ingestion: a source tree or archive of one release -> facts -> its named graph, atomically.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use oxigraph::model::NamedNode;

use crate::extract::{ExtractLimits, Language, SourceFile};
use crate::lower::{Provenance, release_quads};
use crate::model::{Diagnostic, Ecosystem, PackageId, PackageRef, ReleaseFacts};
use crate::store::{Store, StoreError};

mod docs;
pub use docs::{DocsReport, add_docs};

/// Limits that keep a hostile archive or tree from exhausting memory or time.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest single source file read, in bytes.
    pub max_file_bytes: u64,
    /// Total bytes of source files read from one release.
    pub max_total_bytes: u64,
    /// Number of entries looked at in one archive or tree.
    pub max_entries: usize,
    /// How far the extractors follow `$ref`s and re-exports.
    pub extract: ExtractLimits,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 16 << 20,
            max_total_bytes: 1 << 30,
            max_entries: 200_000,
            extract: ExtractLimits::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a readable archive: {reason}")]
    BadArchive { path: PathBuf, reason: String },
    #[error(
        "{0} exceeds a safety limit: {1} (if the release is genuine, raise it: --max-file-bytes, \
         --max-total-bytes, --max-entries)"
    )]
    Limit(PathBuf, String),
    #[error("no {1:?} API found in {0}: {2}{hint}", hint = .1.layout_hint())]
    NoSymbols(PathBuf, Language, String),
    #[error("{0}")]
    Unsupported(String),
    #[error("{0} cannot be read: {1}")]
    Invalid(PathBuf, String),
    #[error("'{0}' is not a valid version")]
    BadVersion(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What an ingest did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IngestReport {
    pub release: String,
    pub files: usize,
    pub symbols: usize,
    pub quads: usize,
    pub seconds: f64,
    pub diagnostics: Vec<Diagnostic>,
    /// Python modules whose names the static reading could not all tell: what `--inspect`
    /// would import.
    pub unknown_modules: Vec<String>,
    /// What run-time inspection found, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inspection: Option<crate::inspect::MergeSummary>,
    /// When the release was asked by a label (`click@8.1`): what was asked and which
    /// release it chose (`asked 8.1 -> 8.1.8: the newest PyPI 8.1.*`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen_by: Option<String>,
}

/// Files of a release, as read from disk or an archive, with their relative paths.
pub fn read_release(
    path: &Path,
    language: Language,
    limits: &Limits,
) -> Result<(Vec<SourceFile>, Vec<Diagnostic>), IngestError> {
    let meta = std::fs::metadata(path).map_err(|source| IngestError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let (files, diags) = if meta.is_dir() {
        read_tree(path, language, limits)?
    } else {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // A single file (an archive or a spec) is read whole: bounded before reading.
        if meta.len() > limits.max_total_bytes {
            return Err(IngestError::Limit(
                path.to_path_buf(),
                format!("larger than {} bytes", limits.max_total_bytes),
            ));
        }
        let bytes = std::fs::read(path).map_err(|source| IngestError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if archive_kind(name).is_some() {
            read_archive_bytes(path, &bytes, language, limits)?
        } else if language.reads(name) {
            (
                vec![SourceFile {
                    path: name.to_string(),
                    text: bytes,
                }],
                vec![],
            )
        } else {
            return Err(IngestError::BadArchive {
                path: path.to_path_buf(),
                reason: "expected a folder, a .whl/.zip, a .tar.gz or a single source file".into(),
            });
        }
    };
    // Documentation pages are set aside before the language picks its source files; a
    // wheel's METADATA holds its README.
    let (pages, files): (Vec<SourceFile>, Vec<SourceFile>) = files.into_iter().partition(|f| {
        language != Language::OpenApi
            && (crate::extract::docs::is_page(&f.path) || f.path.ends_with("METADATA"))
    });
    let pages: Vec<SourceFile> = pages
        .into_iter()
        .filter_map(|p| {
            if p.path.ends_with("METADATA") {
                let is_wheel = p.path.ends_with(".dist-info/METADATA");
                let (text, markup) = crate::extract::docs::readme_from_metadata(&p.text)?;
                is_wheel.then(|| SourceFile {
                    path: format!("README.{markup}"),
                    text,
                })
            } else {
                Some(p)
            }
        })
        .collect();
    let mut files = match language {
        Language::Python => select_package_files(files),
        Language::JavaScript => crate::extract::javascript::select_files(files),
        Language::OpenApi => files,
    };
    files.extend(
        pages
            .into_iter()
            .filter(|p| crate::extract::docs::is_release_page(&p.path)),
    );
    Ok((files, diags))
}

#[derive(Clone, Copy)]
enum ArchiveKind {
    Zip,
    TarGz,
}

/// Which archive format a file name says it is, if any.
fn archive_kind(name: &str) -> Option<ArchiveKind> {
    if name.ends_with(".whl") || name.ends_with(".zip") {
        Some(ArchiveKind::Zip)
    } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Some(ArchiveKind::TarGz)
    } else {
        None
    }
}

/// The files of an archive held in memory (a wheel or zip, or a .tar.gz, by `path`'s name),
/// within `limits`; nothing is written anywhere.
pub fn read_archive_bytes(
    path: &Path,
    bytes: &[u8],
    language: Language,
    limits: &Limits,
) -> Result<(Vec<SourceFile>, Vec<Diagnostic>), IngestError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match archive_kind(name) {
        Some(ArchiveKind::Zip) => read_zip(path, bytes, language, limits),
        Some(ArchiveKind::TarGz) => read_tar_gz(path, bytes, language, limits),
        None => Err(IngestError::BadArchive {
            path: path.to_path_buf(),
            reason: "expected a .whl/.zip or a .tar.gz".into(),
        }),
    }
}

/// A relative archive path made safe: `/`-separated, no absolute, `..`, or empty components.
fn safe_relative(path: &str) -> Option<String> {
    let path = path.replace('\\', "/");
    if path.starts_with('/') {
        return None;
    }
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.is_empty() || parts.iter().any(|p| *p == ".." || p.contains(':')) {
        return None;
    }
    Some(parts.join("/"))
}

fn read_tree(
    root: &Path,
    language: Language,
    limits: &Limits,
) -> Result<(Vec<SourceFile>, Vec<Diagnostic>), IngestError> {
    let mut files = Vec::new();
    let mut diags = Vec::new();
    let mut total = 0u64;
    let mut seen = 0usize;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| IngestError::Read {
            path: dir.clone(),
            source,
        })?;
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            seen += 1;
            if seen > limits.max_entries {
                return Err(IngestError::Limit(
                    root.to_path_buf(),
                    format!("more than {} entries", limits.max_entries),
                ));
            }
            let path = entry.path();
            // Symlinks are never followed: they could point outside the release.
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let name = entry.file_name().to_string_lossy().to_string();
            if meta.is_dir() {
                if !matches!(name.as_str(), "__pycache__" | ".git" | "node_modules") {
                    stack.push(path);
                }
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or(name);
            if !meta.is_file() || !language.reads(&rel) {
                continue;
            }
            if crate::extract::kept_by_name(&rel) {
                files.push(SourceFile {
                    path: rel,
                    text: Vec::new(),
                });
                continue;
            }
            if meta.len() > limits.max_file_bytes {
                diags.push(Diagnostic {
                    file: rel,
                    line: 1,
                    message: format!("file larger than {} bytes; skipped", limits.max_file_bytes),
                });
                continue;
            }
            total += meta.len();
            if total > limits.max_total_bytes {
                return Err(IngestError::Limit(
                    root.to_path_buf(),
                    format!("more than {} bytes of sources", limits.max_total_bytes),
                ));
            }
            let text = std::fs::read(&path).map_err(|source| IngestError::Read {
                path: path.clone(),
                source,
            })?;
            files.push(SourceFile { path: rel, text });
        }
    }
    Ok((files, diags))
}

fn read_zip(
    path: &Path,
    bytes: &[u8],
    language: Language,
    limits: &Limits,
) -> Result<(Vec<SourceFile>, Vec<Diagnostic>), IngestError> {
    let bad = |reason: String| IngestError::BadArchive {
        path: path.to_path_buf(),
        reason,
    };
    let mut zip =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| bad(e.to_string()))?;
    if zip.len() > limits.max_entries {
        return Err(IngestError::Limit(
            path.to_path_buf(),
            format!("{} entries (limit {})", zip.len(), limits.max_entries),
        ));
    }
    let mut out = ArchiveFiles::new(path, limits);
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| bad(e.to_string()))?;
        let name = entry.name().map(|n| n.to_string()).unwrap_or_default();
        if entry.is_file() && language.reads(&name) {
            out.add(&name, None, &mut entry)?;
        }
    }
    Ok((out.files, out.diags))
}

/// The source files read from one archive so far, with the limits that apply to all of them.
struct ArchiveFiles<'a> {
    path: &'a Path,
    limits: &'a Limits,
    files: Vec<SourceFile>,
    diags: Vec<Diagnostic>,
    total: u64,
}

impl<'a> ArchiveFiles<'a> {
    fn new(path: &'a Path, limits: &'a Limits) -> Self {
        ArchiveFiles {
            path,
            limits,
            files: Vec::new(),
            diags: Vec::new(),
            total: 0,
        }
    }

    /// Reads the entry `name` (a source file): unsafe paths and oversized files become
    /// diagnostics; `rename` maps the safe relative path (an sdist drops its first folder).
    fn add(
        &mut self,
        name: &str,
        rename: Option<fn(String) -> String>,
        entry: &mut impl Read,
    ) -> Result<(), IngestError> {
        let Some(rel) = safe_relative(name) else {
            self.diags.push(Diagnostic {
                file: name.to_string(),
                line: 1,
                message: "unsafe path in archive; skipped".into(),
            });
            return Ok(());
        };
        let rel = rename.map_or(rel.clone(), |f| f(rel));
        if crate::extract::kept_by_name(&rel) {
            // Its name is the fact (a module without source, a folder a build writes into);
            // its bytes are never read.
            self.files.push(SourceFile {
                path: rel,
                text: Vec::new(),
            });
            return Ok(());
        }
        let text = read_limited(entry, self.limits.max_file_bytes).map_err(|e| {
            IngestError::BadArchive {
                path: self.path.to_path_buf(),
                reason: format!("{rel}: {e}"),
            }
        })?;
        let Some(text) = text else {
            self.diags.push(Diagnostic {
                file: rel,
                line: 1,
                message: format!(
                    "file larger than {} bytes; skipped",
                    self.limits.max_file_bytes
                ),
            });
            return Ok(());
        };
        self.total += text.len() as u64;
        if self.total > self.limits.max_total_bytes {
            return Err(IngestError::Limit(
                self.path.to_path_buf(),
                format!(
                    "more than {} bytes uncompressed",
                    self.limits.max_total_bytes
                ),
            ));
        }
        self.files.push(SourceFile { path: rel, text });
        Ok(())
    }
}

/// Reads at most `max` bytes; `None` when the entry is larger (a zip bomb never inflates fully).
fn read_limited(r: &mut impl Read, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    r.take(max + 1).read_to_end(&mut buf)?;
    Ok((buf.len() as u64 <= max).then_some(buf))
}

fn read_tar_gz(
    path: &Path,
    bytes: &[u8],
    language: Language,
    limits: &Limits,
) -> Result<(Vec<SourceFile>, Vec<Diagnostic>), IngestError> {
    let bad = |reason: String| IngestError::BadArchive {
        path: path.to_path_buf(),
        reason,
    };
    let gz = flate2::read::GzDecoder::new(bytes);
    let mut archive = tar::Archive::new(gz);
    let mut out = ArchiveFiles::new(path, limits);
    let entries = archive.entries().map_err(|e| bad(e.to_string()))?;
    for (count, entry) in entries.enumerate() {
        if count >= limits.max_entries {
            return Err(IngestError::Limit(
                path.to_path_buf(),
                format!("more than {} entries", limits.max_entries),
            ));
        }
        let mut entry = entry.map_err(|e| bad(e.to_string()))?;
        // Only regular files: links and devices are skipped, never followed or created.
        if entry.header().entry_type() != tar::EntryType::Regular {
            continue;
        }
        let name = entry
            .path()
            .map(|p| p.to_string_lossy().to_string())
            .map_err(|e| bad(e.to_string()))?;
        if language.reads(&name) {
            // An sdist wraps everything in NAME-VERSION/; drop that first component.
            let strip = |rel: String| {
                rel.split_once('/')
                    .map_or(rel.clone(), |(_, r)| r.to_string())
            };
            out.add(&name, Some(strip), &mut entry)?;
        }
    }
    Ok((out.files, out.diags))
}

/// Keeps the files of importable packages: the folder an sdist's build configuration declares
/// its packages in (SQLAlchemy's `lib/`, orjson's `pysrc/`), else the `src/` layout, is
/// unwrapped; top-level helper scripts of an sdist (setup.py, noxfile.py, docs/) are dropped.
fn select_package_files(files: Vec<SourceFile>) -> Vec<SourceFile> {
    let (configs, files): (Vec<SourceFile>, Vec<SourceFile>) = files
        .into_iter()
        .partition(|f| crate::extract::is_build_config(&f.path));
    let setup_py = files.iter().find(|f| f.path == "setup.py");
    // An unbuilt release (an sdist, a source tree) has its build configuration at the root;
    // a wheel has none, and the C sources or `.pxd` files it ships build nothing.
    let unbuilt = setup_py.is_some() || configs.iter().any(|f| !f.path.contains('/'));
    // maturin builds a Rust module into the package (polars.polars): the configuration is
    // kept as the fact that says so.
    let maturin = configs
        .iter()
        .find(|f| f.path == "pyproject.toml")
        .filter(|f| crate::extract::is_maturin_project(&f.text))
        .cloned();
    let root = configs
        .iter()
        .chain(setup_py)
        .filter(|f| !f.path.contains('/'))
        .find_map(|f| declared_package_root(&f.path, &String::from_utf8_lossy(&f.text)))
        .or_else(|| {
            files
                .iter()
                .any(|f| f.path.starts_with("src/") && f.path.ends_with("__init__.py"))
                .then(|| "src".to_string())
        });
    // A built release keeps a `.pxd` only beside its `.pyx` (it declares that module's
    // classes); in an unbuilt one every build file tells where compiled modules appear.
    let pyx: std::collections::HashSet<String> = files
        .iter()
        .filter_map(|f| f.path.strip_suffix(".pyx").map(str::to_string))
        .collect();
    let files: Vec<SourceFile> = files
        .into_iter()
        .filter(|f| {
            unbuilt
                || !crate::extract::builds_in_folder(&f.path)
                || f.path.strip_suffix(".pxd").is_some_and(|s| pyx.contains(s))
        })
        .collect();
    let files: Vec<SourceFile> = match root {
        Some(root) => {
            let prefix = format!("{root}/");
            files
                .into_iter()
                .filter_map(|f| {
                    f.path.strip_prefix(&prefix).map(|p| SourceFile {
                        path: p.to_string(),
                        text: f.text,
                    })
                })
                .collect()
        }
        None => files,
    };
    // Top-level folders that are packages, or namespace folders holding packages.
    let packages: std::collections::BTreeSet<String> = files
        .iter()
        .filter(|f| f.path.ends_with("/__init__.py") || f.path.ends_with("/__init__.pyi"))
        .filter_map(|f| f.path.split('/').next().map(str::to_string))
        .collect();
    const SCRIPTS: &[&str] = &[
        "setup.py",
        "conftest.py",
        "noxfile.py",
        "fabfile.py",
        "tasks.py",
        "manage.py",
        "docs",
        "doc",
        "examples",
        "example",
        "benchmarks",
        "scripts",
        "tests",
        "test",
    ];
    files
        .into_iter()
        .filter(|f| match f.path.split_once('/') {
            Some((top, _)) => packages.contains(top) && !SCRIPTS.contains(&top),
            None => !SCRIPTS.contains(&f.path.as_str()),
        })
        .chain(maturin)
        .collect()
}

/// The folder (relative to the sdist's root) a build configuration declares the import
/// packages in, when it is not the root: setuptools' `package_dir = {"": "lib"}` or
/// `packages.find` `where` (setup.cfg, pyproject.toml or a literal in setup.py), maturin's
/// `python-source`. `None` when the file declares none (or the root itself).
fn declared_package_root(path: &str, text: &str) -> Option<String> {
    let clean = |dir: &str| {
        let dir = dir
            .trim()
            .trim_matches(|c| c == '"' || c == '\'')
            .trim_end_matches('/');
        let dir = dir.trim_start_matches("./");
        (!dir.is_empty() && dir != "." && !dir.contains("..")).then(|| dir.to_string())
    };
    match path {
        "pyproject.toml" => {
            let doc: toml::Table = toml::from_str(text).ok()?;
            let tool = doc.get("tool")?.as_table()?;
            let maturin = tool
                .get("maturin")
                .and_then(|m| m.get("python-source"))
                .and_then(|v| v.as_str());
            let setuptools = tool.get("setuptools");
            let package_dir = setuptools
                .and_then(|s| s.get("package-dir"))
                .and_then(|d| d.get(""))
                .and_then(|v| v.as_str());
            let find_where = setuptools
                .and_then(|s| s.get("packages"))
                .and_then(|p| p.get("find"))
                .and_then(|f| f.get("where"))
                .and_then(|w| w.as_array())
                .and_then(|w| w.first())
                .and_then(|v| v.as_str());
            maturin.or(package_dir).or(find_where).and_then(clean)
        }
        "setup.cfg" => {
            // INI: `package_dir =` with `=lib` on its line or the next, in `[options]`;
            // `where = lib` in `[options.packages.find]`.
            let mut section = "";
            let mut lines = text.lines().peekable();
            while let Some(line) = lines.next() {
                let t = line.trim();
                if let Some(name) = t.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
                    section = name.trim();
                    continue;
                }
                let Some((key, value)) = t.split_once('=') else {
                    continue;
                };
                match (section, key.trim()) {
                    ("options", "package_dir") => {
                        let mut values = vec![value.to_string()];
                        while let Some(next) = lines.next_if(|l| l.starts_with([' ', '\t'])) {
                            values.push(next.to_string());
                        }
                        // `=lib`: the empty package name maps to `lib`.
                        if let Some(dir) = values
                            .iter()
                            .find_map(|v| v.trim().strip_prefix('=').and_then(clean))
                        {
                            return Some(dir);
                        }
                    }
                    ("options.packages.find", "where") => return clean(value),
                    _ => {}
                }
            }
            None
        }
        "setup.py" => {
            // `package_dir={"": "lib"}` written as a literal.
            let at = text.find("package_dir")?;
            let rest = text[at..].split_once('{')?.1.split_once('}')?.0;
            let (key, dir) = rest.split_once(':')?;
            matches!(key.trim(), "\"\"" | "''")
                .then(|| clean(dir))
                .flatten()
        }
        _ => None,
    }
}

/// A registry release named on a command line or in a request: `pkg:pypi/NAME@VERSION`,
/// `pkg:npm/NAME@VERSION`, or a bare `NAME@VERSION` or `NAME==VERSION` (PyPI, as pip
/// writes it).
pub fn registry_release(text: &str) -> Result<(PackageId, String), String> {
    let asked = PackageRef::parse(text)?;
    // A pip pin stays exact: `click==8.1` is release 8.1, read as the label `==8.1`.
    let label = asked.version_label();
    let (id, _) = asked.or_pypi();
    let Some(version) = label else {
        return Err(format!(
            "'{text}' has no version: write pkg:pypi/NAME@VERSION or pkg:npm/NAME@VERSION"
        ));
    };
    Ok((id, version))
}

/// A version the registry can be asked for directly: npm's strict semver (`12.1.0`); for
/// PyPI a PEP 440 version with three or more release numbers or a pre-, post- or dev-release
/// part (`8.1.7`, `2.0rc1`). `8.1` may be a release or a prefix: the registry's list tells.
fn is_full_version(ecosystem: Ecosystem, v: &str) -> bool {
    use std::str::FromStr;
    match ecosystem {
        // The version whole (nodejs_semver reads `1.2.3 - 2.0.0` as 1.2.3 and stops).
        Ecosystem::Npm => crate::version::ranges::exact_npm(v).is_some_and(|e| e == v),
        _ => pep440_rs::Version::from_str(v).is_ok_and(|p| {
            !v.starts_with(['v', 'V', '='])
                && (p.release().len() >= 3 || p.any_prerelease() || p.is_post() || p.is_local())
        }),
    }
}

/// Why a registry release could not be added.
#[derive(Debug, thiserror::Error)]
pub enum AddError {
    #[error("{0}")]
    BadRelease(String),
    #[error(transparent)]
    Fetch(#[from] crate::fetch::FetchError),
    #[error(transparent)]
    Ingest(#[from] IngestError),
}

/// How registry releases are fetched and stored, built once from the command line and used
/// by every path that adds one: `refgraph add` and `sync`, a release a project pins that the
/// MCP server fetches, `POST /api/releases`. One value, so that no path falls back to default
/// limits or another cache.
#[derive(Debug, Clone)]
pub struct Ingester {
    /// Registry downloads and release lists (`DATA/cache`, one folder per ecosystem).
    pub cache: PathBuf,
    /// What one release may hold before it is refused.
    pub limits: Limits,
    /// Run-time inspection of the modules whose names the static reading left unknown
    /// (`--inspect`, `serve --allow-inspect`); `None` runs no package code.
    pub inspect: Option<crate::inspect::InspectOptions>,
}

impl Ingester {
    /// Fetches `release` (see [`registry_release`]) from PyPI or npm into the cache (digests
    /// verified) and ingests it into `store`.
    /// The version may be a label (`click@8.1`, `commander@latest`, `@next`, `>=2,<3`),
    /// read against the registry's list as [`Ingester::registry_version`] does; the report
    /// then says which release it chose.
    pub fn add(
        &self,
        store: &Store,
        release: &str,
        progress: &dyn Fn(u64, u64),
    ) -> Result<IngestReport, AddError> {
        let (id, label) = registry_release(release).map_err(AddError::BadRelease)?;
        let chosen = self.registry_version(&id, &label)?;
        let fetched = self.fetch(&id, &chosen.version, progress)?;
        let mut report = self.store(store, &id, &chosen.version, &fetched)?;
        report.chosen_by = chosen
            .rule
            .map(|r| format!("asked {label} -> {}: {r}", chosen.version));
        Ok(report)
    }

    /// Fetches and stores release `version` of `id` exactly, with no label reading: what a
    /// project's pin names.
    pub fn add_version(
        &self,
        store: &Store,
        id: &PackageId,
        version: &str,
        progress: &dyn Fn(u64, u64),
    ) -> Result<IngestReport, AddError> {
        let fetched = self.fetch(id, version, progress)?;
        self.store(store, id, version, &fetched)
    }

    /// The registry release `label` names (see [`crate::version::label`]): a full version
    /// (`8.1.7`, `12.1.0`) as it is, without asking the registry; a label (`8.1`, `latest`,
    /// an npm dist-tag, a range) against the registry's list of releases (PyPI: not yanked;
    /// npm: with its dist-tags), asked again when a cached list knows no match.
    pub fn registry_version(
        &self,
        id: &PackageId,
        label: &str,
    ) -> Result<crate::version::label::Resolved, AddError> {
        use crate::version::label::{LabelError, Resolved, resolve};
        let label = label.trim();
        if is_full_version(id.ecosystem, label) {
            return Ok(Resolved {
                version: label.to_string(),
                rule: None,
            });
        }
        let registry = match id.ecosystem {
            Ecosystem::Npm => "npm",
            _ => "PyPI",
        };
        let mut max_age = std::time::Duration::from_secs(600);
        loop {
            let listed = crate::fetch::registry_versions(id, &self.cache, max_age)?;
            match resolve(
                id.ecosystem,
                label,
                &listed.versions,
                &listed.tags,
                registry,
            ) {
                Ok(r) => return Ok(r),
                Err(LabelError::NoMatch(_) | LabelError::NotListed(..)) if listed.from_cache => {
                    max_age = std::time::Duration::ZERO;
                }
                Err(e) => {
                    let mut newest = listed.versions.clone();
                    newest.sort_by_key(|v| crate::version::version_key(id.ecosystem, v));
                    let newest: Vec<String> = newest.into_iter().rev().take(8).collect();
                    return Err(AddError::BadRelease(format!(
                        "{}@{label}: {e}; newest on {registry}: {}",
                        id.purl(),
                        newest.join(", ")
                    )));
                }
            }
        }
    }

    /// Downloads (or finds in the cache) one release's archive; see [`fetch_release`].
    pub fn fetch(
        &self,
        id: &PackageId,
        version: &str,
        progress: &dyn Fn(u64, u64),
    ) -> Result<crate::fetch::Fetched, AddError> {
        fetch_release(id, version, &self.cache, progress)
    }

    /// Reads a fetched archive within the limits and stores it; see [`ingest_fetched`].
    pub fn store(
        &self,
        store: &Store,
        id: &PackageId,
        version: &str,
        fetched: &crate::fetch::Fetched,
    ) -> Result<IngestReport, AddError> {
        ingest_fetched(
            store,
            id,
            version,
            fetched,
            &self.limits,
            self.inspect.as_ref(),
        )
    }
}

/// Downloads (or finds in `cache`) the archive of one PyPI or npm release, digest verified.
/// Needs no store: `refgraph sync` fetches several at once and ingests them one by one.
fn fetch_release(
    id: &PackageId,
    version: &str,
    cache: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<crate::fetch::Fetched, AddError> {
    let cache = cache.join(id.ecosystem.as_str());
    Ok(match Language::for_package(id) {
        Language::JavaScript => crate::fetch::fetch_npm(id, version, &cache, progress)?,
        Language::Python => crate::fetch::fetch_pypi(id, version, &cache, progress)?,
        Language::OpenApi => {
            return Err(AddError::BadRelease(format!(
                "{}: pkg:generic packages have no registry to fetch from; ingest the spec \
                 file: refgraph ingest SPEC --package {} --version {version}",
                id.release_purl(version),
                id.purl()
            )));
        }
    })
}

/// Reads a fetched archive and stores it as release `version` of `id`.
fn ingest_fetched(
    store: &Store,
    id: &PackageId,
    version: &str,
    fetched: &crate::fetch::Fetched,
    limits: &Limits,
    inspect: Option<&crate::inspect::InspectOptions>,
) -> Result<IngestReport, AddError> {
    let (files, diags) = read_fetched(id, version, fetched, limits)?;
    // pip picks the release's wheel for this interpreter: the one fetched may be another
    // platform's. npm releases are not inspected (issue 49, item 5), nor packages a
    // config's list leaves out.
    let subject = crate::inspect::Subject::Registry(&id.name, version, fetched.uploaded.as_deref());
    let inspect = inspect.filter(|o| o.covers(id)).map(|o| (subject, o));
    Ok(ingest_files_inspecting(
        store,
        id,
        version,
        &files,
        diags,
        &fetched.url,
        Some(fetched.sha256.clone()),
        &limits.extract,
        inspect,
    )?)
}

/// The files of a fetched release, as [`read_release`] reads them, and for a wheel whose
/// compiled modules ship with neither source nor stub, the Cython sources (`.pyx`, and the
/// `.pxi` files they include) of those modules from the release's sdist: the source the
/// wheel was built from, fetched into the same cache. Their names and signatures are then
/// known rather than unknown. An sdist that cannot be fetched or read leaves the wheel as it
/// is, with a diagnostic that says why.
pub fn read_fetched(
    id: &PackageId,
    version: &str,
    fetched: &crate::fetch::Fetched,
    limits: &Limits,
) -> Result<(Vec<SourceFile>, Vec<Diagnostic>), IngestError> {
    let (mut files, mut diags) = read_release(&fetched.path, Language::for_package(id), limits)?;
    let wanted = wheel_sourceless_modules(id, &fetched.path, &files);
    let want_docs =
        is_python_wheel(id, &fetched.path) && !files.iter().any(|f| is_docs_folder_page(&f.path));
    if wanted.is_empty() && !want_docs {
        return Ok((files, diags));
    }
    // Fetched (from the cache when it is there) and read once, for both.
    let sdist = read_sdist(id, version, fetched, limits);
    if !wanted.is_empty() {
        let (mut more, diag) = cython_from_sdist(&sdist, &wanted);
        files.append(&mut more);
        diags.extend(diag);
    }
    if want_docs {
        let (mut pages, diag) = docs_from_sdist(&sdist);
        files.append(&mut pages);
        diags.extend(diag);
    }
    Ok((files, diags))
}

/// A wheel's sdist, as far as it could be had: its files, or why not.
enum SdistFiles {
    Read { url: String, files: Vec<SourceFile> },
    NotFetched(crate::fetch::FetchError),
    NotRead { url: String, error: IngestError },
}

/// Fetches the sdist of the release `fetched` is a wheel of (into the same cache) and reads it.
fn read_sdist(
    id: &PackageId,
    version: &str,
    fetched: &crate::fetch::Fetched,
    limits: &Limits,
) -> SdistFiles {
    let cache = fetched.path.parent().unwrap_or(Path::new("."));
    match crate::fetch::fetch_sdist_of(fetched, &id.name, version, cache, &|_, _| {}) {
        Err(e) => SdistFiles::NotFetched(e),
        Ok(sdist) => match read_release(&sdist.path, Language::Python, limits) {
            Ok((files, _)) => SdistFiles::Read {
                url: sdist.url,
                files,
            },
            Err(error) => SdistFiles::NotRead {
                url: sdist.url,
                error,
            },
        },
    }
}

fn is_python_wheel(id: &PackageId, path: &Path) -> bool {
    Language::for_package(id) == Language::Python && path.extension().is_some_and(|e| e == "whl")
}

/// A page of a `docs/` or `doc/` folder, as a release's pages are named.
fn is_docs_folder_page(path: &str) -> bool {
    crate::extract::docs::is_release_page(path) && path.contains('/')
}

/// The pages of the `docs/` (or `doc/`) folder of the wheel's sdist: a wheel ships the README
/// alone, while the guides that show how its API is used (httpx's "Timeouts", tenacity's
/// "Waiting before retrying") are in the sdist it was built from. None, with a diagnostic
/// that says why, when the sdist cannot be fetched or read; none and no diagnostic when it
/// has no docs folder (most do not).
fn docs_from_sdist(sdist: &SdistFiles) -> (Vec<SourceFile>, Option<Diagnostic>) {
    let note = |message: String| Diagnostic {
        file: "docs/".into(),
        line: 0,
        message,
    };
    match sdist {
        SdistFiles::Read { url, files } => {
            let pages: Vec<SourceFile> = files
                .iter()
                .filter(|f| is_docs_folder_page(&f.path))
                .cloned()
                .collect();
            let message = format!(
                "{} doc pages read from the docs folder of the sdist {url}",
                pages.len()
            );
            let said = (!pages.is_empty()).then(|| note(message));
            (pages, said)
        }
        // A release without an sdist is common, and a package PyPI does not have (a wheel
        // built here) has none: nothing to say.
        SdistFiles::NotFetched(
            crate::fetch::FetchError::NoArchive { .. }
            | crate::fetch::FetchError::UnknownPackage { .. }
            | crate::fetch::FetchError::UnknownVersion { .. },
        ) => (vec![], None),
        SdistFiles::NotFetched(e) => (
            vec![],
            Some(note(format!(
                "the guides in the sdist's docs folder are not read: it could not be fetched: {e}"
            ))),
        ),
        SdistFiles::NotRead { url, error } => (
            vec![],
            Some(note(format!(
                "the guides in the sdist's docs folder are not read: the sdist {url} could not \
                 be read: {error}"
            ))),
        ),
    }
}

/// When `path` is a Python wheel, its compiled modules that ship with neither source nor stub
/// (path stem, compiled file); none otherwise.
fn wheel_sourceless_modules(
    id: &PackageId,
    path: &Path,
    files: &[SourceFile],
) -> Vec<(String, String)> {
    if !is_python_wheel(id, path) {
        return Vec::new();
    }
    crate::extract::python::sourceless_compiled_modules(files)
}

/// Compiled modules (path stem, compiled file) as a diagnostic names them: the first three
/// stems, and how many more.
fn listed(compiled: &[(String, String)]) -> String {
    let stems: Vec<&str> = compiled.iter().map(|(stem, _)| stem.as_str()).collect();
    if stems.len() > 3 {
        format!("{} and {} more", stems[..3].join(", "), stems.len() - 3)
    } else {
        stems.join(", ")
    }
}

/// For a wheel read from a local file (`refgraph ingest`, which never goes to the network),
/// a diagnostic on its compiled modules that ship with neither source nor stub: their names
/// are unknown, and `refgraph add` would read them from the release's sdist.
pub fn local_wheel_note(
    id: &PackageId,
    version: &str,
    path: &Path,
    files: &[SourceFile],
) -> Option<Diagnostic> {
    let compiled = wheel_sourceless_modules(id, path, files);
    let (_, file) = compiled.first()?;
    Some(Diagnostic {
        file: file.clone(),
        line: 0,
        message: format!(
            "compiled modules {} ship with neither source nor stub, so their names are unknown; \
             `refgraph add {}` also reads their Cython sources from the release's sdist, when it \
             has them",
            listed(&compiled),
            id.release_purl(version)
        ),
    })
}

/// The `.pyx` of each of `compiled` (path stem, compiled file) in the release's sdist, and
/// the sdist's `.pxi` files in the same top-level packages; a diagnostic on the first compiled
/// file that says what was read, or why nothing was.
fn cython_from_sdist(
    sdist: &SdistFiles,
    compiled: &[(String, String)],
) -> (Vec<SourceFile>, Option<Diagnostic>) {
    let note = |message: String| Diagnostic {
        file: compiled[0].1.clone(),
        line: 0,
        message,
    };
    let wanted: Vec<&str> = compiled.iter().map(|(stem, _)| stem.as_str()).collect();
    let modules = listed(compiled);
    let (url, files) = match sdist {
        SdistFiles::Read { url, files } => (url, files),
        SdistFiles::NotFetched(e) => {
            return (
                vec![],
                Some(note(format!(
                    "compiled modules {modules} ship with neither source nor stub, and the sdist \
                     could not be fetched to read their Cython sources: {e}"
                ))),
            );
        }
        SdistFiles::NotRead { url, error } => {
            return (
                vec![],
                Some(note(format!(
                    "compiled modules {modules} ship with neither source nor stub, and the sdist \
                     {url} could not be read: {error}"
                ))),
            );
        }
    };
    let pyx: std::collections::HashSet<String> =
        wanted.iter().map(|stem| format!("{stem}.pyx")).collect();
    let tops: std::collections::HashSet<&str> = wanted
        .iter()
        .filter_map(|stem| stem.split('/').next())
        .collect();
    let taken: Vec<SourceFile> = files
        .iter()
        .filter(|f| {
            pyx.contains(&f.path)
                || (f.path.ends_with(".pxi")
                    && f.path.split('/').next().is_some_and(|t| tops.contains(t)))
        })
        .cloned()
        .collect();
    let read = taken.iter().filter(|f| f.path.ends_with(".pyx")).count();
    let message = if read == 0 {
        format!(
            "compiled modules {modules} ship with neither source nor stub, and the sdist {url} \
             has no Cython source of them"
        )
    } else {
        format!(
            "{read} of {} compiled modules without source or stub ({modules}) are read from \
             the Cython sources of the sdist {url}",
            wanted.len()
        )
    };
    (taken, Some(note(message)))
}

/// Extracts, lowers and stores one release, replacing any earlier copy atomically, with the
/// default extractor limits.
pub fn ingest_files(
    store: &Store,
    package: &PackageId,
    version: &str,
    files: &[SourceFile],
    diagnostics: Vec<Diagnostic>,
    source: &str,
    sha256: Option<String>,
) -> Result<IngestReport, IngestError> {
    ingest_files_with(
        store,
        package,
        version,
        files,
        diagnostics,
        source,
        sha256,
        &ExtractLimits::default(),
    )
}

/// [`ingest_files`] with the extractors' recursion limits given.
#[allow(clippy::too_many_arguments)]
pub fn ingest_files_with(
    store: &Store,
    package: &PackageId,
    version: &str,
    files: &[SourceFile],
    diagnostics: Vec<Diagnostic>,
    source: &str,
    sha256: Option<String>,
    extract_limits: &ExtractLimits,
) -> Result<IngestReport, IngestError> {
    ingest_files_inspecting(
        store,
        package,
        version,
        files,
        diagnostics,
        source,
        sha256,
        extract_limits,
        None,
    )
}

/// A release's files and, for run-time inspection, where the release is imported from.
pub type InspectPlan<'a> = (
    crate::inspect::Subject<'a>,
    &'a crate::inspect::InspectOptions,
);

/// [`ingest_files_with`], and when `inspect` is given, the Python modules whose names the
/// static reading left unknown imported in the sandbox ([`crate::inspect`]); what they bind
/// is added with provenance `runtime`. An inspection that cannot run is a diagnostic: the
/// static facts are stored all the same.
#[allow(clippy::too_many_arguments)]
pub fn ingest_files_inspecting(
    store: &Store,
    package: &PackageId,
    version: &str,
    files: &[SourceFile],
    mut diagnostics: Vec<Diagnostic>,
    source: &str,
    sha256: Option<String>,
    extract_limits: &ExtractLimits,
    inspect: Option<InspectPlan<'_>>,
) -> Result<IngestReport, IngestError> {
    let start = Instant::now();
    validate_version(version)?;
    let language = Language::for_package(package);
    let is_page =
        |f: &SourceFile| language != Language::OpenApi && crate::extract::docs::is_page(&f.path);
    let mut facts: ReleaseFacts = if files.iter().any(is_page) {
        let code: Vec<SourceFile> = files.iter().filter(|f| !is_page(f)).cloned().collect();
        language.extract(&code, extract_limits)
    } else {
        language.extract(files, extract_limits)
    };
    let pages: Vec<&SourceFile> = files.iter().filter(|f| is_page(f)).collect();
    if pages.len() > crate::extract::docs::MAX_PAGES {
        diagnostics.push(Diagnostic {
            file: pages[crate::extract::docs::MAX_PAGES].path.clone(),
            line: 0,
            message: format!(
                "more than {} documentation pages; the rest are not read",
                crate::extract::docs::MAX_PAGES
            ),
        });
    }
    for page in pages.into_iter().take(crate::extract::docs::MAX_PAGES) {
        match crate::extract::docs::read_page(&page.path, &page.text, None, &Default::default()) {
            Ok(p) if !p.sections.is_empty() => facts.pages.push(p),
            Ok(_) => {}
            Err(d) => diagnostics.push(d),
        }
    }
    // The symbols each code example uses, through its imports, constructions and calls.
    let npm_name = (language == Language::JavaScript).then(|| package.display_name());
    crate::extract::examples::link_examples(
        &mut facts,
        package.ecosystem.language(),
        npm_name.as_deref(),
    );
    let extracted = start.elapsed();
    if facts.symbols.is_empty() {
        // A spec that says what is wrong with it (Swagger 2.0, invalid YAML) says so here.
        if language == Language::OpenApi && !facts.diagnostics.is_empty() {
            let reasons: Vec<String> = facts.diagnostics.iter().map(|d| d.to_string()).collect();
            return Err(IngestError::Invalid(
                PathBuf::from(source),
                reasons.join("; "),
            ));
        }
        // The first problem found is usually why (a package.json that is not JSON).
        let why = diagnostics
            .iter()
            .chain(&facts.diagnostics)
            .next()
            .map(|d| format!("{d}; "))
            .unwrap_or_default();
        return Err(IngestError::NoSymbols(PathBuf::from(source), language, why));
    }
    let unknown_modules = if language == Language::Python {
        crate::inspect::unknown_modules(&facts)
    } else {
        Vec::new()
    };
    let inspection = match inspect {
        Some((subject, options)) if !unknown_modules.is_empty() => {
            match crate::inspect::inspect(subject, &unknown_modules, options) {
                Ok(run) => Some(crate::inspect::merge(&mut facts, &run)),
                Err(e) => {
                    diagnostics.push(Diagnostic {
                        file: String::new(),
                        line: 0,
                        message: format!("run-time inspection did not run: {e}"),
                    });
                    None
                }
            }
        }
        _ => None,
    };
    diagnostics.append(&mut facts.diagnostics);
    facts.diagnostics = diagnostics;
    let provenance = Provenance {
        source: source.to_string(),
        sha256,
        ingested_at: now_rfc3339(),
    };
    let quads = release_quads(package, version, &facts, &provenance);
    let lowered = start.elapsed();
    let release = NamedNode::new(package.release_purl(version))
        .map_err(|_| IngestError::BadVersion(version.to_string()))?;
    let quad_count = quads.len();
    store.replace_graph(&release, quads)?;
    tracing::info!(
        release = %release,
        extract_s = extracted.as_secs_f64(),
        lower_s = (lowered - extracted).as_secs_f64(),
        store_s = (start.elapsed() - lowered).as_secs_f64(),
        "ingested"
    );
    Ok(IngestReport {
        release: release.into_string(),
        files: facts.files,
        symbols: facts.symbols.len(),
        quads: quad_count,
        seconds: start.elapsed().as_secs_f64(),
        diagnostics: facts.diagnostics,
        unknown_modules,
        inspection,
        chosen_by: None,
    })
}

fn validate_version(v: &str) -> Result<(), IngestError> {
    let ok = !v.is_empty()
        && v.len() <= 128
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-+!".contains(c));
    if ok {
        Ok(())
    } else {
        Err(IngestError::BadVersion(v.to_string()))
    }
}

/// The current UTC time as RFC 3339, without a date-time crate.
/// Now, to the microsecond: a release's stamp, which tells the text index that a release
/// re-ingested a moment later changed.
pub fn now_rfc3339() -> String {
    let now = std::time::SystemTime::now();
    let micros = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_micros())
        .unwrap_or(0);
    let secs = rfc3339(now);
    format!("{}.{micros:06}Z", secs.trim_end_matches('Z'))
}

/// A time as RFC 3339 UTC (`2026-11-30T17:40:00Z`).
pub fn rfc3339(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_is_named_as_pip_or_a_package_url_names_it() {
        for (text, label) in [
            ("h5py==3.11.0", "==3.11.0"),
            ("h5py@3.11.0", "3.11.0"),
            ("pkg:pypi/h5py@3.11.0", "3.11.0"),
        ] {
            let (id, version) = registry_release(text).unwrap();
            assert_eq!(
                (id.purl(), version.as_str()),
                ("pkg:pypi/h5py".into(), label)
            );
        }
        assert!(registry_release("h5py").unwrap_err().contains("no version"));
    }

    #[test]
    fn unsafe_archive_paths_are_refused() {
        assert_eq!(safe_relative("a/b.py").as_deref(), Some("a/b.py"));
        assert_eq!(safe_relative("./a//b.py").as_deref(), Some("a/b.py"));
        assert!(safe_relative("../evil.py").is_none());
        assert!(safe_relative("/etc/passwd.py").is_none());
        assert!(safe_relative("a/../../b.py").is_none());
        assert!(safe_relative("C:/x.py").is_none());
    }

    #[test]
    fn timestamps_are_rfc3339() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 27, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z') && t.as_bytes()[19] == b'.');
        assert_eq!(rfc3339(std::time::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn sdist_helpers_are_dropped() {
        let f = |p: &str| SourceFile {
            path: p.into(),
            text: vec![],
        };
        let kept = select_package_files(vec![
            f("setup.py"),
            f("src/pkg/__init__.py"),
            f("src/pkg/core.py"),
            f("docs/conf.py"),
        ]);
        let paths: Vec<_> = kept.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["pkg/__init__.py", "pkg/core.py"]);
    }

    #[test]
    fn build_sources_are_kept_only_where_a_build_will_run() {
        let f = |p: &str| SourceFile {
            path: p.into(),
            text: vec![],
        };
        let paths = |files: Vec<SourceFile>| {
            select_package_files(files)
                .into_iter()
                .map(|f| f.path)
                .collect::<Vec<_>>()
        };
        let package = || {
            vec![
                f("pkg/__init__.py"),
                f("pkg/_speed.pxd"),
                f("pkg/src/geos.c"),
                f("pkg/meson.build"),
            ]
        };
        // A wheel: built already; its C sources and `.pxd` files build nothing.
        assert_eq!(paths(package()), ["pkg/__init__.py"]);
        // An sdist: the build writes compiled modules beside them.
        let mut sdist = package();
        sdist.push(f("setup.py"));
        assert_eq!(
            paths(sdist),
            [
                "pkg/__init__.py",
                "pkg/_speed.pxd",
                "pkg/src/geos.c",
                "pkg/meson.build"
            ]
        );
        assert!(crate::extract::builds_in_folder("a/b/x.cpp"));
        assert!(!crate::extract::builds_in_folder("a/b/x.py"));
    }

    #[test]
    fn the_package_folder_an_sdist_declares_is_read() {
        let f = |p: &str, text: &str| SourceFile {
            path: p.into(),
            text: text.as_bytes().to_vec(),
        };
        let tree = |config: SourceFile| {
            select_package_files(vec![
                config,
                f("setup.py", ""),
                f("lib/pkg/__init__.py", ""),
                f("lib/pkg/core.py", ""),
                f("test/__init__.py", ""),
                f("examples/__init__.py", ""),
            ])
            .into_iter()
            .map(|f| f.path)
            .collect::<Vec<_>>()
        };
        let want = vec!["pkg/__init__.py", "pkg/core.py"];
        // As SQLAlchemy 2.0's setup.cfg writes it.
        let cfg = "[metadata]\nname = x\n\n[options]\npackages = find:\npackage_dir =\n\t=lib\ninstall_requires =\n\tgreenlet\n";
        assert_eq!(tree(f("setup.cfg", cfg)), want);
        let find = "[options.packages.find]\nwhere = lib\n";
        assert_eq!(tree(f("setup.cfg", find)), want);
        // maturin's configuration is kept: it says the build makes a Rust module.
        let maturin = "[tool.maturin]\npython-source = \"lib\"\n";
        assert_eq!(
            tree(f("pyproject.toml", maturin)),
            ["pkg/__init__.py", "pkg/core.py", "pyproject.toml"]
        );
        let setuptools = "[tool.setuptools.package-dir]\n\"\" = \"lib\"\n";
        assert_eq!(tree(f("pyproject.toml", setuptools)), want);
        let setup_py = "setup(name='x', package_dir={'': 'lib'}, packages=find_packages('lib'))";
        assert_eq!(
            select_package_files(vec![
                f("setup.py", setup_py),
                f("lib/pkg/__init__.py", ""),
                f("tests/t.py", "")
            ])
            .into_iter()
            .map(|f| f.path)
            .collect::<Vec<_>>(),
            vec!["pkg/__init__.py"]
        );
        // No declaration: the folders at the root holding packages, as before.
        let none = tree(f("pyproject.toml", "[project]\nname = \"x\"\n"));
        assert_eq!(none, ["lib/pkg/__init__.py", "lib/pkg/core.py"]);
        assert!(crate::extract::is_build_config(
            "SQLAlchemy-2.0.30/setup.cfg"
        ));
        assert!(!crate::extract::is_build_config("a/b/setup.cfg"));
    }
}
