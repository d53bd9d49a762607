//! `refgraph doctor`: is this machine ready to answer? Each check says what it found and, for a
//! problem, the command that fixes it. Nothing is created or changed, except a probe file the
//! data directory check writes and removes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::config::{Config, ConfigError};
use crate::model::Ecosystem;
use crate::store::Store;

/// Free space below this on the data directory's disk is a problem: one large release with
/// its text index takes hundreds of megabytes.
pub const MIN_FREE_BYTES: u64 = 2 << 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Worth knowing; nothing is wrong.
    Note,
    Problem,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub status: Status,
    pub detail: String,
    /// For a problem: the command (or step) that fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    fn ok(name: &'static str, detail: impl Into<String>) -> Check {
        Check {
            name,
            status: Status::Ok,
            detail: detail.into(),
            fix: None,
        }
    }

    fn note(name: &'static str, detail: impl Into<String>, fix: Option<String>) -> Check {
        Check {
            name,
            status: Status::Note,
            detail: detail.into(),
            fix,
        }
    }

    fn problem(name: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name,
            status: Status::Problem,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

/// Where things are, as the command line chose them.
pub struct Setup<'a> {
    pub data: &'a Path,
    pub store: PathBuf,
    /// The model directory (`--model-dir`, `REFGRAPH_MODEL_DIR`, else the default).
    pub model_dir: Option<PathBuf>,
    pub config: &'a Result<Config, ConfigError>,
    /// How long a registry may take to answer.
    pub registry_timeout: Duration,
}

/// Every check, in the order a newcomer meets them.
pub fn run(setup: &Setup<'_>) -> Vec<Check> {
    let mut checks = vec![data_dir(setup.data), config(setup.config)];
    checks.extend(store(&setup.store));
    checks.extend(model(setup.model_dir.as_deref()));
    checks.extend(registries(setup.registry_timeout));
    checks.push(disk(setup.data));
    checks.push(inspection(setup.config.as_ref().ok()));
    checks
}

fn data_dir(data: &Path) -> Check {
    const NAME: &str = "data directory";
    let fix = format!(
        "make {} writable, or choose another with --data-dir DIR (or REFGRAPH_DATA)",
        data.display()
    );
    if let Err(e) = std::fs::create_dir_all(data) {
        return Check::problem(NAME, format!("{} cannot be made: {e}", data.display()), fix);
    }
    let probe = data.join(format!(".doctor-{}", std::process::id()));
    match std::fs::write(&probe, b"probe") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            Check::ok(NAME, format!("{} (writable)", data.display()))
        }
        Err(e) => Check::problem(
            NAME,
            format!("{} is not writable: {e}", data.display()),
            fix,
        ),
    }
}

fn config(config: &Result<Config, ConfigError>) -> Check {
    const NAME: &str = "config";
    match config {
        Ok(c) if c.path.exists() => Check::ok(
            NAME,
            format!(
                "{}: {} package(s) inspected without --inspect",
                c.path.display(),
                c.inspect_packages.len()
            ),
        ),
        Ok(c) => Check::ok(NAME, format!("no {} (no settings)", c.path.display())),
        Err(e) => Check::problem(
            NAME,
            e.message.clone(),
            format!(
                "fix or remove {} (its form: `refgraph --help`, under Files)",
                e.path.display()
            ),
        ),
    }
}

/// The store opens for writing (no other process holds its lock), and no release in it was
/// stored by another version of refgraph.
fn store(path: &Path) -> Vec<Check> {
    const NAME: &str = "store";
    if !path.join("CURRENT").exists() {
        return vec![Check::note(
            NAME,
            format!("no store at {} yet", path.display()),
            Some("refgraph add pkg:pypi/NAME@VERSION creates it".to_string()),
        )];
    }
    let store = match Store::open(path) {
        Ok(s) => s,
        Err(e) => {
            let why = match &e {
                crate::store::StoreError::Open { message, .. } => message.clone(),
                other => other.to_string(),
            };
            return vec![Check::problem(
                NAME,
                format!("{} does not open for writing: {why}", path.display()),
                "another refgraph process holds the store's lock (a `refgraph serve`, an \
                 `add` or a `sync` still running): let it finish or stop it; reading commands \
                 (api, versions, search, releases) still answer meanwhile",
            )];
        }
    };
    let engine = crate::answer::Engine::new(store);
    let releases = match engine.releases() {
        Ok(r) => r,
        Err(e) => {
            return vec![Check::problem(
                NAME,
                format!("{} cannot be read: {e}", path.display()),
                "move the store aside and add the releases again (refgraph add ...)",
            )];
        }
    };
    let mut checks = vec![Check::ok(
        NAME,
        format!(
            "{}: {} release(s), the lock is free",
            path.display(),
            releases.len()
        ),
    )];
    let stale: Vec<_> = releases.iter().filter(|r| r.stale).collect();
    if !stale.is_empty() {
        let fixes: Vec<String> = stale
            .iter()
            .map(|r| {
                let fetched = r.source.starts_with("https://") || r.source.starts_with("http://");
                match r.ecosystem {
                    Ecosystem::Pypi | Ecosystem::Npm if fetched => {
                        format!("refgraph add {}", r.release)
                    }
                    _ => format!(
                        "refgraph ingest {} --package {} --version {}",
                        r.source, r.package, r.version
                    ),
                }
            })
            .collect();
        checks.push(Check::problem(
            "stale releases",
            format!(
                "{} release(s) stored by another version of refgraph, whose facts this one \
                 reads differently: {}",
                stale.len(),
                stale
                    .iter()
                    .map(|r| r.release.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            fixes.join("; "),
        ));
    }
    checks
}

/// The sentence model and ONNX Runtime load, and the Chinese glossary is there.
fn model(dir: Option<&Path>) -> Vec<Check> {
    const FIX: &str = "refgraph model install";
    let Some(dir) = crate::index::embed::model_dir(dir) else {
        return vec![Check::problem(
            "model",
            "no home directory to look for the model in",
            "pass --model-dir DIR (or set REFGRAPH_MODEL_DIR), then refgraph model install",
        )];
    };
    let model = match crate::index::Embedder::load(&dir) {
        Ok(_) => Check::ok(
            "model",
            format!("{}: all-MiniLM-L6-v2 and ONNX Runtime load", dir.display()),
        ),
        Err(e) => Check::problem(
            "model",
            format!("{}: {e}; concept search runs on BM25 alone", dir.display()),
            format!("{FIX} (or --model-dir DIR where it is installed)"),
        ),
    };
    let glossary = crate::index::glossary::Glossary::load(Some(&dir));
    let glossary = if glossary.is_empty() {
        Check::problem(
            "glossary",
            "no Chinese-English glossary: Chinese queries find nothing",
            FIX,
        )
    } else {
        Check::ok("glossary", format!("{} words", glossary.len()))
    };
    vec![model, glossary]
}

fn registries(timeout: Duration) -> Vec<Check> {
    crate::fetch::registries_reachable(timeout)
        .into_iter()
        .map(|(check, url, answer)| match answer {
            Ok(status) if status < 500 => {
                Check::ok(check, format!("{url} answers (HTTP {status})"))
            }
            Ok(status) => Check::problem(
                check,
                format!("{url} answers HTTP {status}"),
                "try again later; indexed releases still answer (refgraph serve --offline)",
            ),
            Err(e) => Check::problem(
                check,
                format!("{url} does not answer: {e}"),
                "check the network, or HTTPS_PROXY and SSL_CERT_FILE behind a proxy; \
                     indexed releases still answer (refgraph serve --offline)",
            ),
        })
        .collect()
}

/// Free space on the data directory's disk, from `df` (POSIX output, 1024-byte blocks).
fn disk(data: &Path) -> Check {
    const NAME: &str = "disk space";
    let out = std::process::Command::new("df")
        .arg("-Pk")
        .arg(data)
        .output();
    let free = out
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).to_string();
            let line = text.lines().nth(1)?.to_string();
            line.split_whitespace().nth(3)?.parse::<u64>().ok()
        })
        .map(|kib| kib * 1024);
    match free {
        None => Check::note(
            NAME,
            format!("`df -Pk {}` gave no answer", data.display()),
            None,
        ),
        Some(b) if b < MIN_FREE_BYTES => Check::problem(
            NAME,
            format!(
                "{:.1} GiB free under {}: a large release with its index takes hundreds of MB",
                b as f64 / (1u64 << 30) as f64,
                data.display()
            ),
            "free some space, or use --data-dir on another disk",
        ),
        Some(b) => Check::ok(
            NAME,
            format!("{:.1} GiB free", b as f64 / (1u64 << 30) as f64),
        ),
    }
}

/// Run-time inspection: a problem only when config.toml asks for it and it cannot run.
fn inspection(config: Option<&Config>) -> Check {
    const NAME: &str = "inspection";
    let wanted = config.is_some_and(|c| !c.inspect_packages.is_empty());
    match crate::inspect::available(&crate::inspect::InspectOptions::default()) {
        Ok(()) => Check::ok(
            NAME,
            "bubblewrap and a Python interpreter are there (--inspect)",
        ),
        Err(e) if wanted => Check::problem(
            NAME,
            format!("config.toml lists packages to inspect, and inspection cannot run: {e}"),
            "apt-get install bubblewrap (and python3), or empty [inspect] packages",
        ),
        Err(e) => Check::note(
            NAME,
            format!("--inspect cannot run here: {e}"),
            Some("apt-get install bubblewrap, if you want --inspect".to_string()),
        ),
    }
}

/// Whether every check passed (notes included).
pub fn all_well(checks: &[Check]) -> bool {
    checks.iter().all(|c| c.status != Status::Problem)
}
