//! Crash safety (issue 9): `refgraph ingest` killed with SIGKILL at random points, 100 times.
//! After every kill the on-disk store must open, every release that was complete before must
//! answer exactly as before, and the release being written must be either absent or whole
//! (never a part of it), both for a new release (the bulk loader) and for one being replaced
//! (a transaction).
//!
//! `REFGRAPH_KILL_TRIALS` changes the number of trials, `REFGRAPH_KILL_SEED` replays a run.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use refgraph::answer::Engine;
use refgraph::store::Store;

use crate::support::sample;

/// A generated Python package big enough that its ingest takes most of a second: `modules`
/// modules of functions and classes with parameters, defaults and docstrings. Written by the
/// test, so it is nobody's code.
fn generate(dir: &Path, modules: usize, extra: usize) {
    let pkg = dir.join("bigpkg");
    std::fs::create_dir_all(&pkg).unwrap();
    let mut init = String::from("\"\"\"A generated package for the kill test.\"\"\"\n");
    for m in 0..modules {
        let mut src = format!("\"\"\"Module {m}.\"\"\"\n\n");
        for f in 0..12 + extra {
            src.push_str(&format!(
                "def op_{m}_{f}(bucket: str, key: str, *, retries: int = {f}, **extra) -> dict:\n    \"\"\"Operation {f} of module {m}: moves `key` in `bucket`.\"\"\"\n    return {{}}\n\n"
            ));
        }
        for c in 0..3 {
            src.push_str(&format!(
                "class Client{m}_{c}:\n    \"\"\"Client {c}.\"\"\"\n\n    def __init__(self, endpoint: str, timeout: float = 3.0):\n        self.endpoint = endpoint\n\n"
            ));
            for k in 0..4 {
                src.push_str(&format!(
                    "    def call_{k}(self, name, /, value=None, *args, flag: bool = False):\n        \"\"\"Call {k}.\"\"\"\n        return name\n\n"
                ));
            }
        }
        std::fs::write(pkg.join(format!("mod_{m}.py")), src).unwrap();
        init.push_str(&format!("from .mod_{m} import *\n"));
    }
    std::fs::write(pkg.join("__init__.py"), init).unwrap();
}

fn refgraph(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_refgraph"));
    c.arg("--data-dir").arg(data);
    c
}

fn ingest_args<'a>(
    c: &'a mut Command,
    path: &Path,
    package: &str,
    version: &str,
) -> &'a mut Command {
    c.arg("ingest")
        .arg(path)
        .args(["--package", package, "--version", version, "--no-index"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
}

/// Quads in the named graph `release` (0 when absent), read from the store itself.
fn graph_size(store: &Store, release: &str) -> u64 {
    let g = oxigraph::model::NamedNode::new(release).unwrap();
    store
        .oxigraph()
        .quads_for_pattern(None, None, None, Some(g.as_ref().into()))
        .count() as u64
}

/// Ingests `tree` as `version` of bigpkg into `data` and waits; how long it took.
fn ingest_whole(data: &Path, tree: &Path, version: &str) -> Duration {
    let started = Instant::now();
    let st = ingest_args(&mut refgraph(data), tree, "pkg:pypi/bigpkg", version)
        .status()
        .unwrap();
    assert!(st.success(), "ingest of {} failed", tree.display());
    started.elapsed()
}

/// Waits until `deadline` (measured from `started`) for `child` to exit, polling every
/// millisecond; how long it ran when it exited first, `None` when it is still running.
fn exited_before(
    child: &mut std::process::Child,
    started: Instant,
    deadline: Duration,
) -> Option<Duration> {
    loop {
        if child.try_wait().unwrap().is_some() {
            return Some(started.elapsed());
        }
        let spent = started.elapsed();
        if spent >= deadline {
            return None;
        }
        std::thread::sleep((deadline - spent).min(Duration::from_millis(1)));
    }
}

/// The median of the durations observed for one kind of ingest.
fn median(observed: &[Duration]) -> Duration {
    let mut d = observed.to_vec();
    d.sort();
    d[d.len() / 2]
}

/// What a client sees of the releases that were complete before the kills.
fn answers(store: &Store) -> String {
    let e = Engine::new(store.clone());
    let mut out =
        crate::support::snapshot(&e, "acme-storage", "1.0.0", "acme_storage.StorageClient");
    out.push_str(&crate::support::snapshot(
        &e,
        "acme-storage",
        "2.0.0",
        "acme_storage.StorageClient",
    ));
    out
}

/// A small deterministic generator (no dependency for one test): xorshift64*.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

#[test]
fn ingest_killed_at_random_points_never_leaves_a_partial_release() {
    let trials: usize = std::env::var("REFGRAPH_KILL_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let seed: u64 = std::env::var("REFGRAPH_KILL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("kill test: {trials} trials, REFGRAPH_KILL_SEED={seed}");
    let mut rng = Rng(seed);

    let work = tempfile::tempdir().unwrap();
    // New releases go through the bulk loader, replaced ones through a transaction (much
    // slower per quad): each kind gets a tree sized so a trial takes about a second.
    let (fresh, small, big) = (
        work.path().join("fresh"),
        work.path().join("v-small"),
        work.path().join("v-big"),
    );
    generate(&fresh, 60, 0);
    generate(&small, 8, 0);
    generate(&big, 8, 4);
    let data = work.path().join("data");
    let store_dir = data.join("store");

    // The releases that must survive.
    for v in ["1.0.0", "2.0.0"] {
        let st = ingest_args(
            &mut refgraph(&data),
            &sample(&format!("acme-storage-{v}")),
            "pkg:pypi/acme-storage",
            v,
        )
        .status()
        .unwrap();
        assert!(st.success());
    }
    let survivors = ["pkg:pypi/acme-storage@1.0.0", "pkg:pypi/acme-storage@2.0.0"];
    // The complete sizes of each shape, and how long each kind of ingest takes.
    let reference = work.path().join("reference");
    let t_new = ingest_whole(&reference, &fresh, "9.0.0");
    let t_replace = {
        ingest_whole(&reference, &small, "1.0.0");
        ingest_whole(&reference, &big, "1.0.0")
    };
    let (fresh_n, big_n) = {
        let store = Store::open(&reference.join("store")).unwrap();
        (
            graph_size(&store, "pkg:pypi/bigpkg@9.0.0"),
            graph_size(&store, "pkg:pypi/bigpkg@1.0.0"),
        )
    };
    let _ = std::fs::remove_dir_all(&reference);
    let small_n = {
        ingest_whole(&reference, &small, "1.0.0");
        let store = Store::open(&reference.join("store")).unwrap();
        graph_size(&store, "pkg:pypi/bigpkg@1.0.0")
    };
    assert!(
        fresh_n > 10_000 && small_n != big_n,
        "{fresh_n} {small_n} {big_n}"
    );
    eprintln!(
        "kill test: new release {fresh_n} quads in {t_new:?}; replacement {small_n} <-> {big_n} quads in {t_replace:?}"
    );
    // bigpkg 1.0.0 exists from the start: odd trials replace it. Timings are taken again on
    // this store (it grows), so that kill points cover the whole run and a bit after.
    ingest_whole(&data, &small, "1.0.0");
    // Kill points are drawn over 1.5 times the median duration of each kind, observed so far:
    // a single early timing (cold caches) made the window too long once, and more than half
    // the trials finished before their kill.
    let mut t_new = vec![t_new, ingest_whole(&data, &fresh, "9.9.9")];
    let mut t_replace = vec![t_replace, ingest_whole(&data, &big, "1.0.0")];
    let (before, base_sizes) = {
        let store = Store::open(&store_dir).unwrap();
        let sizes: Vec<u64> = survivors.iter().map(|r| graph_size(&store, r)).collect();
        (answers(&store), sizes)
    };
    assert!(base_sizes.iter().all(|n| *n > 0));

    let (mut killed, mut finished, mut absent, mut whole) = (0, 0, 0, 0);
    for trial in 0..trials {
        // Even trials: a release never stored before (bulk load). Odd: replace 1.0.0 with the
        // other shape (transaction).
        let replace = trial % 2 == 1;
        let (tree, version, full) = if replace {
            let store = Store::open(&store_dir).unwrap();
            let now = graph_size(&store, "pkg:pypi/bigpkg@1.0.0");
            (
                if now == small_n { &big } else { &small },
                "1.0.0".to_string(),
                median(&t_replace),
            )
        } else {
            (&fresh, format!("9.0.{trial}"), median(&t_new))
        };
        let release = format!("pkg:pypi/bigpkg@{version}");
        // Kill points spread over a whole ingest: start-up, parsing, lowering, the store write.
        let after = Duration::from_micros(rng.below(full.as_micros() as u64 * 3 / 2));
        let started = Instant::now();
        let mut child = ingest_args(&mut refgraph(&data), tree, "pkg:pypi/bigpkg", &version)
            .spawn()
            .unwrap();
        match exited_before(&mut child, started, after) {
            Some(took) => {
                finished += 1;
                let observed = if replace { &mut t_replace } else { &mut t_new };
                observed.push(took);
            }
            None => {
                child.kill().unwrap(); // SIGKILL
                killed += 1;
            }
        }
        child.wait().unwrap();

        let store = Store::open(&store_dir).unwrap_or_else(|e| {
            panic!("trial {trial} (seed {seed}): the store does not open: {e}")
        });
        let why = format!("trial {trial} (seed {seed}, kill after {after:?}, {release})");
        assert_eq!(answers(&store), before, "{why}: a complete release changed");
        let sizes: Vec<u64> = survivors.iter().map(|r| graph_size(&store, r)).collect();
        assert_eq!(sizes, base_sizes, "{why}: a complete release changed");
        let n = graph_size(&store, &release);
        let allowed: &[u64] = if replace {
            &[small_n, big_n]
        } else {
            &[0, fresh_n]
        };
        assert!(
            allowed.contains(&n),
            "{why}: the release has {n} quads, complete is one of {allowed:?}: a partial release is visible"
        );
        if n == 0 {
            absent += 1;
        } else {
            whole += 1;
        }
    }
    eprintln!(
        "kill test: {trials} trials, {killed} killed mid-ingest, {finished} finished first; \
         afterwards the release was absent {absent} times and whole {whole} times, never partial; \
         median ingest {:?} new, {:?} replacement",
        median(&t_new),
        median(&t_replace)
    );
    assert!(
        killed >= trials / 2,
        "too few kills landed mid-ingest: {killed}"
    );
}
