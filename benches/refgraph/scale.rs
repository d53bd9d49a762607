//! `cargo bench --bench refgraph -- scale`: how the cost of answering grows with the graph.
//!
//! One store is filled with real Django releases from PyPI, the first 100 stable releases from
//! 3.2 on that have a wheel (about 800,000 public symbols in all). At 1, 10 and 100 releases
//! stored, a fresh `refgraph serve` over stdio answers `get_api_detail`, `check_version` and
//! `search_docs` calls from the bench's own JSON-RPC client, and the bench reads the server's
//! resident memory, the store's size on disk and how long the last ingest took.
//!
//! Wheels are downloaded once (sha256 checked, by refgraph's own registry client) into
//! `$REFGRAPH_TEST_CACHE/pypi`. The text index is built without the embedding model (BM25 and
//! names), so `search_docs` figures here are the index's own cost at scale; the `-- search`
//! part measures the full hybrid pipeline on 20,000 chunks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Mcp, cache, names_of, percentile, run, symbol_count};

const RELEASES: usize = 100;
const CHECKPOINTS: [usize; 3] = [1, 10, 100];
const DETAIL_CALLS: usize = 2000;
const CHECK_CALLS: usize = 500;
const SEARCH_CALLS: usize = 200;
const QUERIES: &[&str] = &[
    "how do I paginate a queryset",
    "send an email to the site admins",
    "validate an email address field",
    "cache a view for some minutes",
    "sign a value with a timestamp",
    "translate a string lazily",
    "reverse a URL by name",
    "atomic transaction decorator",
    "upload a file to a model field",
    "escape HTML in a template",
];

/// The releases, oldest first: stable versions from 3.2 on with a wheel, as PyPI lists them.
fn django_versions() -> Vec<String> {
    let id = refgraph::model::PackageId::new(refgraph::model::Ecosystem::Pypi, "django");
    let listed =
        refgraph::fetch::registry_versions(&id, &cache(), Duration::from_secs(30 * 24 * 3600))
            .expect("PyPI lists Django's releases");
    let parse = |v: &str| -> Option<Vec<u64>> {
        v.split('.')
            .map(|p| p.parse().ok())
            .collect::<Option<Vec<u64>>>()
    };
    let mut versions: Vec<(Vec<u64>, String)> = listed
        .versions
        .iter()
        .filter_map(|v| Some((parse(v)?, v.clone())))
        .filter(|(k, _)| k.as_slice() >= [3, 2].as_slice())
        .collect();
    versions.sort();
    versions
        .into_iter()
        .map(|(_, v)| v)
        .take(RELEASES)
        .collect()
}

fn wheel(version: &str) -> PathBuf {
    refgraph::fetch::fetch_pypi_wheel(
        "django",
        version,
        &cache().join("pypi"),
        &|_, _| {},
        &|f: &str| f.ends_with("-py3-none-any.whl"),
    )
    .unwrap_or_else(|e| panic!("Django {version}: {e}"))
    .path
}

fn du(path: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![path.to_path_buf()];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).into_iter().flatten().flatten() {
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                total += m.len();
            }
        }
    }
    total
}

/// `VmRSS` and `VmHWM` of a process, in MB.
fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (field("VmRSS:"), field("VmHWM:"))
}

struct Calls {
    label: &'static str,
    ms: Vec<f64>,
    errors: usize,
}

impl Calls {
    fn p(&self, q: f64) -> f64 {
        percentile(&self.ms, q)
    }
}

fn timed_calls(
    mcp: &mut Mcp,
    label: &'static str,
    n: usize,
    args: impl Fn(usize) -> Value,
    tool: &str,
) -> Calls {
    let mut ms = Vec::with_capacity(n);
    let mut errors = 0;
    for i in 0..n {
        let t = Instant::now();
        let r = mcp.request("tools/call", json!({"name": tool, "arguments": args(i)}));
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(r.get("result").is_some(), "{tool}: {r}");
        if r["result"]["isError"] == true {
            errors += 1;
        }
    }
    ms.sort_by(f64::total_cmp);
    Calls { label, ms, errors }
}

struct Checkpoint {
    releases: usize,
    symbols: usize,
    disk_mb: f64,
    last_ingest_s: f64,
    rss_mb: f64,
    hwm_mb: f64,
    calls: Vec<Calls>,
}

fn measure(bin: &Path, data: &Path, stored: &[String], last_ingest_s: f64) -> Checkpoint {
    let symbols = symbol_count(bin, data, None);
    let disk_mb = du(&data.join("store")) as f64 / 1e6;
    let newest = stored.last().unwrap();
    let names = names_of(bin, data, newest);
    assert!(names.len() > 1000, "{} names in {newest}", names.len());
    let step = (names.len() / DETAIL_CALLS).max(1);
    let mut mcp = Mcp::start_with(bin, data, &["--model-dir", "/nonexistent"]);
    // A long-running server has its name tables loaded; give it the time to load them.
    std::thread::sleep(Duration::from_secs(3));
    let version = |i: usize| stored[(i * 7) % stored.len()].clone();
    let detail = timed_calls(
        &mut mcp,
        "get_api_detail",
        DETAIL_CALLS,
        |i| json!({"name": names[(i * step) % names.len()], "package": "pkg:pypi/django", "version": version(i)}),
        "get_api_detail",
    );
    let check = timed_calls(
        &mut mcp,
        "check_version",
        CHECK_CALLS,
        |i| json!({"name": names[(i * 13 * step) % names.len()], "package": "pkg:pypi/django", "version": version(i)}),
        "check_version",
    );
    let search = timed_calls(
        &mut mcp,
        "search_docs",
        SEARCH_CALLS,
        |i| json!({"query": QUERIES[i % QUERIES.len()], "package": "pkg:pypi/django", "version": version(i)}),
        "search_docs",
    );
    let (rss_mb, hwm_mb) = memory(mcp.child.id());
    Checkpoint {
        releases: stored.len(),
        symbols,
        disk_mb,
        last_ingest_s,
        rss_mb,
        hwm_mb,
        calls: vec![detail, check, search],
    }
}

pub fn latency_at_scale(bin: &Path) {
    let versions = django_versions();
    assert_eq!(versions.len(), RELEASES, "PyPI lists fewer Django releases");
    println!(
        "## Scale: 1, 10 and 100 Django releases ({} to {}) in one store\n",
        versions[0],
        versions[RELEASES - 1]
    );
    let wheels: Vec<PathBuf> = versions.iter().map(|v| wheel(v)).collect();
    let data = tempfile::tempdir_in(cache()).unwrap();
    let refgraph = || {
        let mut c = Command::new(bin);
        c.arg("--data-dir")
            .arg(data.path())
            .args(["--model-dir", "/nonexistent"]);
        c
    };
    let mut checkpoints = Vec::new();
    let mut ingest_s = Vec::new();
    for (i, (version, wheel)) in versions.iter().zip(&wheels).enumerate() {
        let t = Instant::now();
        run(refgraph().args(["ingest", "--no-index"]).arg(wheel).args([
            "--package",
            "pkg:pypi/django",
            "--version",
            version,
        ]));
        ingest_s.push(t.elapsed().as_secs_f64());
        let stored = i + 1;
        if CHECKPOINTS.contains(&stored) {
            // The text index of the stored releases (BM25 and names; no model here).
            run(refgraph().arg("reindex"));
            checkpoints.push(measure(
                bin,
                data.path(),
                &versions[..stored],
                *ingest_s.last().unwrap(),
            ));
        }
    }
    println!(
        "| releases | symbols | store on disk MB | MB per 100k symbols | ingest of the last release s | server RSS MB (peak) |"
    );
    println!("|---|---|---|---|---|---|");
    for c in &checkpoints {
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.2} | {:.0} ({:.0}) |",
            c.releases,
            c.symbols,
            c.disk_mb,
            c.disk_mb / (c.symbols as f64 / 100_000.0),
            c.last_ingest_s,
            c.rss_mb,
            c.hwm_mb
        );
    }
    println!("\n| releases | tool | calls | p50 ms | p99 ms | answered as errors |");
    println!("|---|---|---|---|---|---|");
    for c in &checkpoints {
        for calls in &c.calls {
            println!(
                "| {} | {} | {} | {:.2} | {:.2} | {} |",
                c.releases,
                calls.label,
                calls.ms.len(),
                calls.p(0.5),
                calls.p(0.99),
                calls.errors
            );
        }
    }
    let mut sorted = ingest_s.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "\ningest, {RELEASES} releases: median {:.2} s, first {:.2} s, last {:.2} s, all {:.0} s",
        percentile(&sorted, 0.5),
        ingest_s[0],
        ingest_s[RELEASES - 1],
        ingest_s.iter().sum::<f64>()
    );
    if let Some(c) = checkpoints.last() {
        let detail = &c.calls[0];
        println!(
            "target (issue 9): get_api_detail p99 < 10 ms and RSS < 500 MB with {} releases, {} symbols: p99 {:.2} ms, RSS {:.0} MB: {}",
            c.releases,
            c.symbols,
            detail.p(0.99),
            c.rss_mb,
            if detail.p(0.99) < 10.0 && c.rss_mb < 500.0 && c.symbols >= 500_000 {
                "met"
            } else {
                "NOT met"
            }
        );
    }
}
