//! `refgraph sync`: fetch and ingest the releases a project uses that are not indexed yet.
//! Downloads run on several threads; ingests run one at a time, as each download lands (the
//! store takes one bulk load at a time, and each one is atomic).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{Project, Resolution};
use crate::model::{Ecosystem, PackageId};
use crate::store::Store;

pub struct SyncOptions {
    /// Fetches each release (into `DATA/cache`, where release lists are cached too) and
    /// stores it within the command line's limits.
    pub ingester: crate::ingest::Ingester,
    /// Downloads at once.
    pub jobs: usize,
    /// Also the packages only a lockfile lists.
    pub transitive: bool,
    /// How long a cached release list is trusted.
    pub versions_max_age: Duration,
}

/// What happened to one dependency.
#[derive(Debug, Serialize)]
pub struct SyncItem {
    #[serde(flatten)]
    pub resolution: Resolution,
    /// `indexed` (already), `ingested`, `failed`, `unresolved`, or `skipped` (a git, path or
    /// URL dependency).
    pub outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SyncReport {
    pub project: String,
    pub items: Vec<SyncItem>,
    /// Release IRIs ingested by this run.
    pub ingested: Vec<String>,
    /// Requests sent to PyPI or npm (release lists and downloads; cache hits excluded).
    pub registry_requests: u64,
    pub seconds: f64,
}

impl SyncReport {
    pub fn count(&self, outcome: &str) -> usize {
        self.items.iter().filter(|i| i.outcome == outcome).count()
    }
}

/// Progress of a sync, for a progress bar.
pub enum Event<'a> {
    /// `n` releases are to be fetched and ingested.
    Planned(usize),
    Fetching(&'a str),
    Ingested(&'a str),
    Failed(&'a str, &'a str),
}

/// Resolves every dependency of `project` (ranges against the registries' release lists) and
/// fetches and ingests those not in `store`, or stored there by another version of refgraph (stale facts).
pub fn sync(
    store: &Store,
    project: &Project,
    opts: &SyncOptions,
    on: &(dyn Fn(Event<'_>) + Sync),
) -> Result<SyncReport, crate::answer::AnswerError> {
    let started = Instant::now();
    let requests = crate::fetch::requests_sent();
    let engine = crate::answer::Engine::new(store.clone());
    let stored = engine.releases()?;
    let find = |release: &str| stored.iter().find(|r| r.release == release);
    let resolved = project.resolve_all(opts.transitive, &mut |p| {
        crate::fetch::registry_versions(p, &opts.ingester.cache, opts.versions_max_age)
            .map(|v| (v.versions, registry_name(p).to_string()))
            .map_err(|e| e.to_string())
    });
    let mut items: Vec<SyncItem> = Vec::new();
    let mut todo: Vec<(usize, PackageId, String, Option<String>)> = Vec::new();
    for r in resolved {
        let (outcome, detail) = match (&r.version, &r.problem) {
            (_, Some(p)) if r.not_from_registry => ("skipped", Some(p.clone())),
            (_, Some(p)) => ("unresolved", Some(p.clone())),
            (None, None) => ("unresolved", None),
            (Some(v), None) => {
                let id = PackageId::parse(&r.package).map(|(id, _)| id);
                match id {
                    Ok(id) => match find(&id.release_purl(v)) {
                        Some(r) if !r.stale => ("indexed", None),
                        // Stored from local files (`refgraph ingest`, perhaps a patched copy):
                        // the registry's archive must not replace it; say it is stale.
                        Some(r) if !r.source.starts_with("https://") => ("indexed", r.stale_note()),
                        // Stored from the registry by another version of refgraph: fetched (from the
                        // cache when it holds it) and ingested again, so its facts match
                        // this build's.
                        stale => {
                            let why = stale.map(|r| {
                                format!(
                                    "stored by another version of refgraph (facts version {}), ingested again",
                                    r.facts_version
                                )
                            });
                            todo.push((items.len(), id, v.clone(), why));
                            ("failed", None) // until ingested
                        }
                    },
                    Err(e) => ("unresolved", Some(e)),
                }
            }
        };
        items.push(SyncItem {
            resolution: r,
            outcome,
            detail,
        });
    }
    on(Event::Planned(todo.len()));
    let queue = Mutex::new(todo.into_iter());
    let (tx, rx) = std::sync::mpsc::channel();
    let mut ingested = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1) {
            let tx = tx.clone();
            let queue = &queue;
            scope.spawn(move || {
                loop {
                    let next = queue.lock().expect("queue").next();
                    let Some((at, id, version, why)) = next else {
                        break;
                    };
                    let release = id.release_purl(&version);
                    on(Event::Fetching(&release));
                    let got = opts.ingester.fetch(&id, &version, &|_, _| {});
                    if tx.send((at, id, version, why, got)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (at, id, version, why, got) in rx {
            let release = id.release_purl(&version);
            let result = got.and_then(|f| opts.ingester.store(store, &id, &version, &f));
            match result {
                Ok(report) => {
                    on(Event::Ingested(&release));
                    items[at].outcome = "ingested";
                    items[at].detail = Some(match &why {
                        Some(why) => format!("{} symbols; {why}", report.symbols),
                        None => format!("{} symbols", report.symbols),
                    });
                    ingested.push(report.release);
                }
                // A stale release that cannot be fetched again stays as it is, still indexed.
                Err(e) if why.is_some() => {
                    let why = format!(
                        "stored by another version of refgraph and not ingested again ({e}); its facts stay those of that version"
                    );
                    on(Event::Failed(&release, &why));
                    items[at].outcome = "indexed";
                    items[at].detail = Some(why);
                }
                Err(e) => {
                    let why = e.to_string();
                    on(Event::Failed(&release, &why));
                    items[at].detail = Some(why);
                }
            }
        }
    });
    Ok(SyncReport {
        project: project.dir.display().to_string(),
        items,
        ingested,
        registry_requests: crate::fetch::requests_sent() - requests,
        seconds: started.elapsed().as_secs_f64(),
    })
}

pub fn registry_name(p: &PackageId) -> &'static str {
    match p.ecosystem {
        Ecosystem::Npm => "npm releases",
        Ecosystem::Pypi => "PyPI releases",
        Ecosystem::Generic => "releases",
    }
}
