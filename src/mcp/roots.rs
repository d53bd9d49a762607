//! The client's projects: when a tool call omits `version`, the release the project pins.
//!
//! The server asks the client for its roots (the MCP roots capability) once, and again after
//! `notifications/roots/list_changed`; each `file://` root is read as a [`Project`] (cached
//! until a file at its top changes). A pinned release that is not indexed is fetched from its
//! registry and ingested when the server may fetch; otherwise, or when that fails, the answer
//! says which version was pinned and which are indexed, and answers from none of them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use rmcp::RoleServer;
use rmcp::service::Peer;

use super::on_worker;
use crate::answer::{AnswerError, Chosen, Engine, ReleaseError};
use crate::model::{Ecosystem, PackageId, PackageRef};
use crate::project::{Project, Resolution};

/// What the server may do for project pins.
#[derive(Debug, Clone)]
pub struct ProjectOptions {
    /// How pinned releases that are not indexed are fetched and stored (registry release
    /// lists are cached in its cache too); `None`: never fetch (they are reported, and ranges
    /// resolve against indexed releases).
    pub fetch: Option<crate::ingest::Ingester>,
    /// How long a registry's release list is reused.
    pub versions_max_age: Duration,
    /// Read projects at all: off for HTTP sessions, whose client's paths are not this
    /// machine's (and whose callers should not read its folders).
    pub read_projects: bool,
}

impl Default for ProjectOptions {
    fn default() -> Self {
        ProjectOptions {
            fetch: None,
            versions_max_age: Duration::from_secs(24 * 3600),
            read_projects: true,
        }
    }
}

/// The version a project pins for one package, and where that comes from.
#[derive(Debug, Clone)]
pub struct Pin {
    pub package: String,
    pub version: String,
    /// `pinned by poetry.lock:41`, with the root when the client has several.
    pub how: String,
}

type Stamp = Vec<(String, Option<SystemTime>)>;

/// One session's view of the client's roots.
pub struct Roots {
    opts: ProjectOptions,
    listed: tokio::sync::Mutex<Option<Vec<PathBuf>>>,
    projects: Mutex<HashMap<PathBuf, (Stamp, Arc<Project>)>>,
    fetching: tokio::sync::Mutex<()>,
}

impl Roots {
    pub fn new(opts: ProjectOptions) -> Self {
        Roots {
            opts,
            listed: tokio::sync::Mutex::new(None),
            projects: Mutex::new(HashMap::new()),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// Forgets the listed roots (the client said they changed).
    pub async fn invalidate(&self) {
        *self.listed.lock().await = None;
    }

    /// The client's `file://` roots as folders, asked once per change; none when the client
    /// does not offer roots.
    #[allow(deprecated)] // roots are deprecated by SEP-2577 but are what clients send today
    pub async fn folders(&self, peer: &Peer<RoleServer>) -> Vec<PathBuf> {
        let offers = self.opts.read_projects
            && peer
                .peer_info()
                .is_some_and(|i| i.capabilities.roots.is_some());
        if !offers {
            return Vec::new();
        }
        let mut listed = self.listed.lock().await;
        if let Some(l) = listed.as_ref() {
            return l.clone();
        }
        let asked = tokio::time::timeout(Duration::from_secs(10), peer.list_roots()).await;
        let roots = match asked {
            Ok(Ok(r)) => r.roots,
            // Not asked again until the client says its roots changed: a client that does not
            // answer must not cost every call 10 s.
            Ok(Err(e)) => {
                tracing::warn!("the client did not list its roots: {e}");
                *listed = Some(Vec::new());
                return Vec::new();
            }
            Err(_) => {
                tracing::warn!("the client did not list its roots within 10 s");
                *listed = Some(Vec::new());
                return Vec::new();
            }
        };
        let dirs: Vec<PathBuf> = roots
            .iter()
            .filter_map(|r| {
                let path = url::Url::parse(&r.uri).ok()?.to_file_path().ok();
                if path.is_none() {
                    tracing::info!("root {} is not a local folder; ignored", r.uri);
                }
                path
            })
            .collect();
        *listed = Some(dirs.clone());
        dirs
    }

    /// A project folder a call names (`root`, `path`): a path or `file://` URI. Refused when
    /// this server does not read projects.
    pub fn explicit_root(&self, root: &str) -> Result<PathBuf, AnswerError> {
        if !self.opts.read_projects {
            return Err(AnswerError::BadArgument(
                "this server does not read project folders (HTTP sessions never do); pass \
                 `version`"
                    .into(),
            ));
        }
        Ok(url::Url::parse(root)
            .ok()
            .and_then(|u| u.to_file_path().ok())
            .unwrap_or_else(|| PathBuf::from(root)))
    }

    /// The project in `dir`, re-read when a file at its top changed.
    pub fn project(&self, dir: &Path) -> Result<Arc<Project>, String> {
        let stamp = stamp(dir);
        if let Some((s, p)) = self.projects.lock().expect("lock").get(dir)
            && *s == stamp
        {
            return Ok(p.clone());
        }
        let p = Arc::new(Project::load(dir)?);
        self.projects
            .lock()
            .expect("lock")
            .insert(dir.to_path_buf(), (stamp, p.clone()));
        Ok(p)
    }

    /// The versions a range is matched against: the registry's (cached) when fetching is
    /// allowed, else the indexed releases.
    pub fn available(
        &self,
        engine: &Engine,
        package: &PackageId,
    ) -> Result<(Vec<String>, String), String> {
        match &self.opts.fetch {
            Some(ingester) => crate::fetch::registry_versions(
                package,
                &ingester.cache,
                self.opts.versions_max_age,
            )
            .map(|v| {
                let what = crate::project::sync::registry_name(package);
                (v.versions, what.to_string())
            })
            .map_err(|e| e.to_string()),
            None => engine
                .indexed_versions(&package.purl())
                .map(|v| (v, "indexed releases".into()))
                .map_err(|e| e.to_string()),
        }
    }

    /// The pin for the package a call is about (`package`, or the one `name` belongs to) in
    /// `dirs`: `None` when no project mentions it. Projects that disagree are an error; with
    /// `strict` (a folder the call named), so is a folder that is not a project.
    pub fn pin(
        &self,
        engine: &Engine,
        dirs: &[PathBuf],
        package: Option<&str>,
        name: Option<&str>,
        strict: bool,
    ) -> Result<Option<Pin>, AnswerError> {
        // The indexed package the engine infers from the name, asked once for all roots.
        let inferred = match (package, name) {
            (None, Some(n)) => engine
                .choose(None, None, Some(n))
                .ok()
                .and_then(|c| PackageId::parse(&c.release.package).ok())
                .map(|(id, _)| id),
            _ => None,
        };
        let mut found: Vec<(&PathBuf, Resolution)> = Vec::new();
        for dir in dirs {
            let project = match self.project(dir) {
                Ok(p) => p,
                Err(e) if strict => return Err(AnswerError::BadArgument(e)),
                Err(e) => {
                    tracing::info!("root {}: {e}", dir.display());
                    continue;
                }
            };
            for id in candidates(&project, package, name, inferred.as_ref()) {
                if let Some(mut r) = project.resolve(&id, &mut |p| self.available(engine, p)) {
                    // A lockfile that could not be read may be why a manifest answered.
                    if !project.problems.is_empty() {
                        r.how = format!("{}; unread: {}", r.how, project.problems.join("; "));
                    }
                    found.push((dir, r));
                    break;
                }
            }
        }
        let several = dirs.len() > 1;
        let how = |dir: &Path, r: &Resolution| {
            if several {
                format!("{} in {}", r.how, dir.display())
            } else {
                r.how.clone()
            }
        };
        let Some((dir, first)) = found.first() else {
            return Ok(None);
        };
        if let Some(problem) = &first.problem {
            return Err(AnswerError::PinUnresolved {
                package: first.package.clone(),
                how: how(dir, first),
                problem: problem.clone(),
            });
        }
        if found
            .iter()
            .any(|(_, r)| r.package != first.package || r.version != first.version)
        {
            return Err(AnswerError::PinConflict {
                package: first.package.clone(),
                pins: found
                    .iter()
                    .map(|(d, r)| {
                        format!(
                            "{} {} ({})",
                            r.package,
                            r.version.as_deref().unwrap_or("unresolved"),
                            how(d, r)
                        )
                    })
                    .collect(),
            });
        }
        Ok(Some(Pin {
            package: first.package.clone(),
            version: first.version.clone().expect("resolved without a problem"),
            how: how(dir, first),
        }))
    }

    /// The release `pin` names, fetched and ingested first when it is not indexed and the
    /// server may fetch. Never another release.
    pub async fn choose_pinned(
        &self,
        engine: &Arc<Engine>,
        pin: &Pin,
    ) -> Result<Chosen, AnswerError> {
        let choose = || {
            let pin = pin.clone();
            move |e: &Engine| -> Result<Chosen, ReleaseError> {
                let mut c = e.choose_exact(&pin.package, &pin.version)?;
                c.how = Some(pin.how);
                Ok(c)
            }
        };
        let missing = |indexed: Vec<String>, fetch_error: Option<String>| {
            AnswerError::PinnedNotIndexed(Box::new(crate::answer::PinnedMissing {
                package: pin.package.clone(),
                version: pin.version.clone(),
                how: pin.how.clone(),
                indexed,
                fetch_error,
            }))
        };
        let indexed = match on_worker(engine, choose()).await? {
            Err(ReleaseError::VersionNotIndexed { indexed, .. }) => indexed,
            Err(ReleaseError::UnknownPackage { .. } | ReleaseError::NothingIndexed) => Vec::new(),
            other => return other.map_err(AnswerError::from),
        };
        let Some(ingester) = self.opts.fetch.clone() else {
            return Err(missing(indexed, None));
        };
        // One fetch at a time: two calls about one missing release fetch it once.
        let _one = self.fetching.lock().await;
        if let Ok(c) = on_worker(engine, choose()).await? {
            return Ok(c);
        }
        let release = format!("{}@{}", pin.package, pin.version);
        tracing::info!("fetching {release} ({})", pin.how);
        let (id, version) = (
            crate::model::PackageId::parse(&pin.package)
                .map(|p| p.0)
                .map_err(|e| missing(indexed.clone(), Some(e)))?,
            pin.version.clone(),
        );
        // A pin is a version, not a label: fetched exactly as written.
        let fetched = on_worker(engine, move |e| {
            ingester.add_version(e.store(), &id, &version, &|_, _| {})
        })
        .await?;
        match fetched {
            Ok(report) => {
                tracing::info!("ingested {} for a project pin", report.release);
                engine.index_in_background(report.release);
                on_worker(engine, choose())
                    .await?
                    .map_err(AnswerError::from)
            }
            Err(e) => Err(missing(indexed, Some(e.to_string()))),
        }
    }
}

/// The packages a call may be about, most likely first: the one named, else the project's
/// packages named like the name's first component (a Python import root, an npm specifier),
/// then the indexed package the engine infers from the name.
fn candidates(
    project: &Project,
    package: Option<&str>,
    name: Option<&str>,
    inferred: Option<&PackageId>,
) -> Vec<PackageId> {
    let mut out = Vec::new();
    if let Some(p) = package.filter(|p| !p.trim().is_empty()) {
        match PackageRef::parse(p.trim()) {
            Ok(r) if r.ecosystem.is_some() => out.push(r.or_pypi().0),
            Ok(r) => out.extend(project.packages_named(&r.name)),
            Err(_) => {}
        }
        return out;
    }
    let Some(name) = name else { return out };
    // The name's syntax says the ecosystem: `spec:Export` is npm, `a.b.c` is Python.
    let (ecosystem, root) = match name.split_once(':') {
        // `@scope/pkg/sub:Export` and `pkg/sub:Export` belong to `@scope/pkg` and `pkg`.
        Some((spec, _)) => {
            let keep = if spec.starts_with('@') { 2 } else { 1 };
            (
                Ecosystem::Npm,
                spec.split('/').take(keep).collect::<Vec<_>>().join("/"),
            )
        }
        None => (
            Ecosystem::Pypi,
            name.split('.').next().unwrap_or(name).to_string(),
        ),
    };
    out.extend(
        project
            .packages_named(&root)
            .into_iter()
            .filter(|p| p.ecosystem == ecosystem),
    );
    // An import name that differs from the distribution's (`yaml` of PyYAML): the indexed
    // package the engine infers.
    out.extend(inferred.cloned());
    out
}

/// The modification times of the files at the top of `dir`: a project is re-read when one
/// of them changes (or one appears or goes).
fn stamp(dir: &Path) -> Stamp {
    let mut s: Stamp = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| {
            (
                e.file_name().to_string_lossy().to_string(),
                e.metadata().and_then(|m| m.modified()).ok(),
            )
        })
        .collect();
    s.sort();
    s
}
