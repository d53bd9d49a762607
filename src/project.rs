//! Project context: which release of each dependency a project uses, read from its own
//! manifests and lockfiles, so answers follow the project's pins instead of "newest".
//!
//! [`Project::load`] reads every known file at the top of a project folder (Python:
//! `uv.lock`, `poetry.lock`, `Pipfile.lock`, `pyproject.toml` (PEP 621, PEP 735 groups and
//! Poetry), `Pipfile`, `requirements*.txt`; npm: `package-lock.json`, `npm-shrinkwrap.json`,
//! `pnpm-lock.yaml`, `yarn.lock` v1 and berry, `package.json`). [`Project::resolve`] then answers
//! "which version of P": a lockfile's entry first, else an exact pin in a manifest, else the
//! newest release a manifest's range admits among the versions the caller supplies (the
//! registry's list, or the indexed releases). Every answer says which file (and line) it rests on.

mod npm;
mod python;

pub mod sync;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::model::{Ecosystem, PackageId};
use crate::version::ranges;

/// Where a requirement or a pin was read: a file relative to the project root, and a line
/// when the format makes it cheap to know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Origin {
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}", self.file),
            None => f.write_str(&self.file),
        }
    }
}

/// A manifest's version requirement, normalised per ecosystem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// One version (`==1.10.13`, npm `4.17.21`).
    Exact(String),
    /// A union of ranges in the ecosystem's syntax (PEP 440 specifier sets; npm ranges).
    Range(Vec<String>),
    /// No constraint (`pydantic`, `*`).
    Any,
    /// An npm dist-tag (`latest`, `next`): which release it names changes over time, so it is
    /// not resolved.
    Tag(String),
    /// Not from the registry (git, path, URL, workspace, dist-tag): never resolved.
    Unsupported(String),
}

/// A dependency a manifest declares.
#[derive(Debug, Clone)]
pub struct Requirement {
    pub package: PackageId,
    /// The manifest's key for it (`my-ms` for `"my-ms": "npm:ms@^2.1.0"`; the name as written).
    pub key: String,
    /// The requirement as written (`>=1.10,<2`, `^12.0.0`).
    pub written: String,
    pub spec: Spec,
    pub origin: Origin,
}

/// A version a lockfile records.
#[derive(Debug, Clone)]
pub struct Locked {
    pub package: PackageId,
    pub version: String,
    pub origin: Origin,
    /// The ranges this entry satisfies, when the lockfile says (yarn's `name@^1.2` keys); lets
    /// a direct requirement find its own entry among several of one package.
    pub descriptors: Vec<String>,
}

/// Everything read from one project folder.
#[derive(Debug, Clone, Default)]
pub struct Project {
    pub dir: PathBuf,
    /// The files read, in the order they take precedence.
    pub files: Vec<String>,
    /// Declared dependencies, manifests in precedence order.
    pub direct: Vec<Requirement>,
    /// Lockfile entries, lockfiles in precedence order.
    pub locked: Vec<Locked>,
    /// Files that could not be read, with the reason (the rest of the project still counts).
    pub problems: Vec<String>,
}

/// How a version was chosen for a project.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Resolution {
    /// Package URL (`pkg:pypi/pydantic`).
    pub package: String,
    /// The manifest's requirement as written, when the project declares the package.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested: Option<String>,
    /// Where the requirement is declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_in: Option<Origin>,
    /// The version the project uses; absent when it cannot be determined (see `problem`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `pinned by poetry.lock:41`, `newest of PyPI releases matching >=1.10,<2 (requirements.txt:3)`.
    pub how: String,
    /// True for a dependency a manifest declares, false for one only a lockfile lists.
    pub direct: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// True for a git, path, URL or workspace dependency: no registry release to use.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_from_registry: bool,
}

/// A resolution and whether its release is indexed: what `refgraph project` and the
/// `resolve_versions` tool show.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Dependency {
    #[serde(flatten)]
    pub resolution: Resolution,
    /// Whether that release is indexed here.
    pub indexed: bool,
    /// The package's indexed releases.
    pub indexed_versions: Vec<String>,
}

impl Dependency {
    pub fn new(resolution: Resolution, indexed_versions: Vec<String>) -> Self {
        Dependency {
            indexed: resolution
                .version
                .as_ref()
                .is_some_and(|v| indexed_versions.contains(v)),
            indexed_versions,
            resolution,
        }
    }

    /// `indexed`, `not indexed (indexed: 1.0, 2.0)`, `unresolved: why`, `skipped: why`.
    pub fn state(&self) -> String {
        let r = &self.resolution;
        match &r.problem {
            Some(p) if r.not_from_registry => format!("skipped: {p}"),
            Some(p) => format!("unresolved: {p}"),
            None if self.indexed => "indexed".into(),
            None if self.indexed_versions.is_empty() => "not indexed".into(),
            None => format!(
                "not indexed (indexed: {})",
                self.indexed_versions.join(", ")
            ),
        }
    }
}

/// The versions a range is resolved against, and what they are (`PyPI releases`, `indexed
/// releases`), or why they are unavailable.
pub type Available<'a> = dyn FnMut(&PackageId) -> Result<(Vec<String>, String), String> + 'a;

impl Project {
    /// Reads the manifests and lockfiles at the top of `dir`. Unreadable files are listed in
    /// `problems`; only a folder with none of the known files is an error.
    pub fn load(dir: &Path) -> Result<Project, String> {
        if !dir.is_dir() {
            return Err(format!("{} is not a folder", dir.display()));
        }
        let mut p = Project {
            dir: dir.to_path_buf(),
            ..Project::default()
        };
        python::read(&mut p);
        npm::read(&mut p);
        if p.files.is_empty() && p.problems.is_empty() {
            return Err(format!(
                "{} has none of the manifests or lockfiles refgraph reads (pyproject.toml, \
                 requirements*.txt, Pipfile(.lock), poetry.lock, uv.lock, package.json, \
                 package-lock.json, yarn.lock, pnpm-lock.yaml)",
                dir.display()
            ));
        }
        Ok(p)
    }

    /// Reads `name` in the project folder, recording it as read (or its error as a problem).
    fn text(&mut self, name: &str) -> Option<String> {
        let path = self.dir.join(name);
        if !path.is_file() {
            return None;
        }
        match std::fs::read_to_string(&path) {
            Ok(t) => {
                self.files.push(name.to_string());
                Some(t)
            }
            Err(e) => {
                self.problems.push(format!("{name}: {e}"));
                None
            }
        }
    }

    fn problem(&mut self, file: &str, why: impl std::fmt::Display) {
        self.files.retain(|f| f != file);
        self.problems.push(format!("{file}: {why}"));
    }

    /// The packages the project declares (or, with `transitive`, also those only its lockfiles
    /// list), each resolved.
    pub fn resolve_all(&self, transitive: bool, available: &mut Available) -> Vec<Resolution> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        let mut packages: Vec<&PackageId> = self.direct.iter().map(|r| &r.package).collect();
        if transitive || self.direct.is_empty() {
            packages.extend(self.locked.iter().map(|l| &l.package));
        }
        for p in packages {
            if seen.insert(p.purl())
                && let Some(r) = self.resolve(p, available)
            {
                out.push(r);
            }
        }
        out
    }

    /// The version of `package` this project uses, or `None` when neither its manifests nor
    /// its lockfiles mention the package.
    pub fn resolve(&self, package: &PackageId, available: &mut Available) -> Option<Resolution> {
        let reqs: Vec<&Requirement> = self
            .direct
            .iter()
            .filter(|r| r.package == *package)
            .collect();
        let locks: Vec<&Locked> = self
            .locked
            .iter()
            .filter(|l| l.package == *package)
            .collect();
        if reqs.is_empty() && locks.is_empty() {
            return None;
        }
        let first = reqs.first();
        let mut res = Resolution {
            package: package.purl(),
            requested: first.map(|r| r.written.clone()),
            declared_in: first.map(|r| r.origin.clone()),
            version: None,
            how: String::new(),
            direct: !reqs.is_empty(),
            problem: None,
            not_from_registry: false,
        };
        // A lockfile entry wins. Among several entries of one package (yarn keeps one per
        // range, npm one per install folder, alias included), the one recorded for the
        // declared key or range; else the ones the declared range admits, if they agree.
        let serves = |l: &Locked, r: &Requirement| {
            l.descriptors.iter().any(|d| {
                *d == npm::key_descriptor(&r.key)
                    || *d == r.written
                    || d.strip_prefix("npm:") == Some(&r.written)
            })
        };
        let mut chosen: Vec<&Locked> = locks
            .iter()
            .copied()
            .filter(|l| reqs.iter().any(|r| serves(l, r)))
            .collect();
        if chosen.is_empty() {
            chosen = locks.clone();
            if chosen.len() > 1
                && let Some(r) = first
                && let Spec::Range(alts) = &r.spec
            {
                chosen.retain(|l| {
                    ranges::newest_matching(
                        package.ecosystem,
                        alts,
                        std::slice::from_ref(&l.version),
                    )
                    .is_ok_and(|m| m.is_some())
                });
            }
        }
        let mut versions: Vec<&str> = chosen.iter().map(|l| l.version.as_str()).collect();
        versions.dedup();
        match (chosen.first(), versions.len()) {
            (Some(lock), 1) => {
                res.version = Some(lock.version.clone());
                res.how = format!("pinned by {}", lock.origin);
                return Some(res);
            }
            (Some(_), _) => {
                res.how = format!("locked several times in {}", chosen[0].origin.file);
                res.problem = Some(format!(
                    "the lockfile has {} for it and nothing says which the project uses",
                    chosen
                        .iter()
                        .map(|l| format!("{} ({})", l.version, l.origin))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                return Some(res);
            }
            (None, _) if !locks.is_empty() => {
                res.how = format!("locked in {}", locks[0].origin.file);
                res.problem = Some(format!(
                    "no entry of {} matches the declared {}",
                    locks[0].origin.file,
                    first.map(|r| r.written.as_str()).unwrap_or("range")
                ));
                return Some(res);
            }
            (None, _) => {}
        }
        if let Some((r, v)) = reqs.iter().find_map(|r| match &r.spec {
            Spec::Exact(v) => Some((r, v)),
            _ => None,
        }) {
            res.requested = Some(r.written.clone());
            res.declared_in = Some(r.origin.clone());
            res.version = Some(v.clone());
            res.how = format!("pinned by {}", r.origin);
            return Some(res);
        }
        let r = first.expect("a requirement when no lock entry");
        let alternatives = match &r.spec {
            Spec::Range(a) => a.clone(),
            Spec::Any => vec![
                if package.ecosystem == Ecosystem::Npm {
                    "*"
                } else {
                    ""
                }
                .to_string(),
            ],
            Spec::Tag(tag) => {
                res.how = format!("declared in {}", r.origin);
                res.problem = Some(format!(
                    "'{tag}' is a dist-tag: the release it names changes over time; pin a version \
                     or a range"
                ));
                return Some(res);
            }
            Spec::Unsupported(why) => {
                res.how = format!("declared in {}", r.origin);
                res.not_from_registry = true;
                let what = if r.written.is_empty() {
                    "it".to_string()
                } else {
                    format!("'{}'", r.written)
                };
                res.problem = Some(format!(
                    "{what} is {why}, not a registry release; refgraph cannot pick a version for it"
                ));
                return Some(res);
            }
            Spec::Exact(_) => unreachable!("handled above"),
        };
        let shown = if r.written.is_empty() {
            "any version".to_string()
        } else {
            r.written.clone()
        };
        match available(package) {
            Err(e) => {
                res.how = format!("range {shown} in {}", r.origin);
                res.problem = Some(format!("cannot list the releases to match: {e}"));
            }
            Ok((versions, what)) => {
                match ranges::newest_matching(package.ecosystem, &alternatives, &versions) {
                    Ok(Some(v)) => {
                        res.version = Some(v);
                        res.how = format!("newest of {what} matching {shown} ({})", r.origin);
                    }
                    Ok(None) => {
                        res.how = format!("range {shown} in {}", r.origin);
                        res.problem = Some(format!(
                            "none of the {} {what} matches {shown}",
                            versions.len()
                        ));
                    }
                    Err(e) => {
                        res.how = format!("range {shown} in {}", r.origin);
                        res.problem = Some(e);
                    }
                }
            }
        }
        Some(res)
    }

    /// The project's packages whose name is `name`, in either ecosystem (PyPI names compared
    /// normalised); for a symbol's import root (`pydantic`, `yaml`) or npm specifier.
    pub fn packages_named(&self, name: &str) -> Vec<PackageId> {
        let py = crate::model::normalize_pypi_name(name);
        let mut out: Vec<PackageId> = Vec::new();
        let all = self
            .direct
            .iter()
            .map(|r| &r.package)
            .chain(self.locked.iter().map(|l| &l.package));
        for p in all {
            let hit = match p.ecosystem {
                Ecosystem::Pypi => p.name == py,
                Ecosystem::Npm | Ecosystem::Generic => p.display_name() == name,
            };
            if hit && !out.contains(p) {
                out.push(p.clone());
            }
        }
        out
    }
}

/// The 1-based line of the first line of `text` that starts with `needle` (after indentation
/// and a quote), else of the first that contains it.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            l.starts_with(needle) || l.trim_start_matches('"').starts_with(needle)
        })
        .or_else(|| text.lines().position(|l| l.contains(needle)))
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_registry(_: &PackageId) -> Result<(Vec<String>, String), String> {
        Err("offline".into())
    }

    #[test]
    fn a_folder_without_project_files_is_an_error_that_names_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let e = Project::load(dir.path()).unwrap_err();
        assert!(
            e.contains("poetry.lock") && e.contains("package.json"),
            "{e}"
        );
    }

    #[test]
    fn lock_beats_manifest_range_and_exact_pin_beats_range() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("requirements.txt"),
            "# app\nclick>=8,<9\nidna==3.7 --hash=sha256:abc\n",
        )
        .unwrap();
        let p = Project::load(dir.path()).unwrap();
        let click = PackageId::new(Ecosystem::Pypi, "click");
        let mut avail =
            |_: &PackageId| Ok((vec!["7.1.2".into(), "8.1.7".into()], "test releases".into()));
        let r = p.resolve(&click, &mut avail).unwrap();
        assert_eq!(r.version.as_deref(), Some("8.1.7"));
        assert_eq!(
            r.how,
            "newest of test releases matching >=8, <9 (requirements.txt:2)"
        );
        let r = p
            .resolve(&PackageId::new(Ecosystem::Pypi, "IDNA"), &mut no_registry)
            .unwrap();
        assert_eq!(r.version.as_deref(), Some("3.7"));
        assert_eq!(r.how, "pinned by requirements.txt:3");
        let r = p.resolve(&click, &mut no_registry).unwrap();
        assert_eq!(r.version, None);
        assert!(r.problem.unwrap().contains("offline"));
        assert!(
            p.resolve(&PackageId::new(Ecosystem::Pypi, "six"), &mut no_registry)
                .is_none()
        );
    }
}
