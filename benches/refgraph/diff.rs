//! `cargo bench --bench refgraph -- diff`: migration reports of real release pairs, side by
//! side with `griffe check` (Python) and `openapi-diff` (OpenAPI, npm) on the same pairs.
//!
//! refgraph is timed two ways: `refgraph diff` on two releases already in the store (what a
//! user or CI job runs, since releases are ingested once), and end to end: both ingests into
//! a fresh store plus the diff, the same work as the peers, which read both releases from
//! files every time. A peer that fails on a pair is run once and its error is shown.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::openapi::{Measured, measure};
use super::{cache, median, run, venv};

const RUNS: usize = 5;
const OPENAPI_DIFF: &str = "openapi-diff@0.24.1";

/// (PyPI package, old, new): the issue's own example, and the largest pair at hand.
const PYPI_PAIRS: &[(&str, &str, &str)] = &[
    ("pydantic", "1.10.13", "2.5.3"),
    ("django", "4.2.17", "5.1.4"),
];

/// (npm package, old, new, spec in the tarball, label).
const SPEC_PAIRS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "@blockfrost/openapi",
        "0.1.54",
        "0.1.93",
        "package/openapi.yaml",
        "Blockfrost",
    ),
    (
        "@directus/specs",
        "9.22.4",
        "15.2.0",
        "package/dist/openapi.json",
        "Directus",
    ),
    (
        "@octokit/openapi",
        "20.0.0",
        "23.0.2",
        "package/generated/api.github.com.json",
        "GitHub REST",
    ),
];

/// `pip install --target` of a release, once.
pub fn pypi_site(package: &str, version: &str) -> PathBuf {
    let dir = cache()
        .join("bench-site")
        .join(format!("{package}-{version}"));
    if !dir.join(".complete").exists() {
        let _ = std::fs::remove_dir_all(&dir);
        run(Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "--no-deps"])
            .args(["--disable-pip-version-check", "--target"])
            .arg(&dir)
            .arg(format!("{package}=={version}")));
        std::fs::write(dir.join(".complete"), "").unwrap();
    }
    dir
}

/// `npm install openapi-diff` once.
fn openapi_diff() -> PathBuf {
    super::npm_tools(
        "bench-openapi-diff",
        OPENAPI_DIFF,
        "node_modules/.bin/openapi-diff",
    )
    .join("node_modules/.bin/openapi-diff")
}

/// openapi-diff reads JSON only: a YAML spec is converted once, outside the timing.
fn as_json(spec: &Path) -> PathBuf {
    if spec.extension().is_some_and(|e| e == "json") {
        return spec.to_path_buf();
    }
    let out = spec.with_extension("json");
    if !out.exists() {
        let python = super::openapi::python();
        run(Command::new(python)
            .args([
                "-c",
                "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], 'w'))",
            ])
            .arg(spec)
            .arg(&out));
    }
    out
}

/// Why a peer's run failed, in one line: Node's fatal error, else the exception a Python
/// traceback ends with, else the first line naming an error; cache paths cut to file names.
fn failure(m: &Measured) -> String {
    let lines: Vec<&str> = m
        .stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let python_exception = |l: &&&str| {
        l.split_once(": ")
            .is_some_and(|(head, _)| head.ends_with("Error") && !head.contains(' '))
    };
    let line = lines
        .iter()
        .find(|l| l.contains("FATAL ERROR"))
        .or_else(|| lines.iter().rfind(python_exception))
        .or_else(|| {
            lines
                .iter()
                .find(|l| l.contains("Error") || l.contains("error"))
        })
        .or(lines.last())
        .copied()
        .unwrap_or("no message");
    let cache = cache().display().to_string();
    let line = line.replace(&cache, "$REFGRAPH_TEST_CACHE");
    let line: String = line.chars().take(220).collect();
    format!(
        "exit {} after {:.0} s: {line}",
        m.code.map_or("by signal".to_string(), |c| c.to_string()),
        m.secs
    )
}

struct Ours {
    stored: f64,
    end_to_end: f64,
    changes: usize,
    breaking: usize,
}

/// refgraph on a pair, RUNS times: ingest both into a fresh store, then diff.
fn ours(bin: &Path, purl: &str, old: (&str, &Path), new: (&str, &Path)) -> Ours {
    let (mut stored, mut end_to_end) = (Vec::new(), Vec::new());
    let mut report = Value::Null;
    for _ in 0..RUNS {
        let data = tempfile::tempdir().unwrap();
        let mut ingest = 0.0;
        for (version, path) in [old, new] {
            let m = measure(
                Command::new(bin)
                    .arg("--data-dir")
                    .arg(data.path())
                    .args(["ingest", "--no-index"])
                    .arg(path)
                    .args(["--package", purl, "--version", version]),
            );
            assert_eq!(m.code, Some(0), "ingest failed: {}", m.stderr);
            ingest += m.secs;
        }
        let m = measure(
            Command::new(bin)
                .arg("--data-dir")
                .arg(data.path())
                .args(["diff", purl, old.0, new.0, "--format", "json"]),
        );
        assert_eq!(m.code, Some(0), "diff failed: {}", m.stderr);
        stored.push(m.secs);
        end_to_end.push(ingest + m.secs);
        report = serde_json::from_str(&m.stdout).unwrap();
    }
    Ours {
        stored: median(stored),
        end_to_end: median(end_to_end),
        changes: report["changes"].as_array().map_or(0, Vec::len),
        breaking: report["summary"]["breaking"].as_u64().unwrap_or(0) as usize,
    }
}

/// A peer run RUNS times (once if it fails): median seconds and peak MB, and its count.
fn peer(
    mut cmd: impl FnMut() -> Command,
    count: impl Fn(&Measured) -> Option<usize>,
) -> Result<(f64, f64, usize), String> {
    let (mut times, mut peaks, mut n) = (Vec::new(), Vec::new(), 0);
    for _ in 0..RUNS {
        let m = measure(&mut cmd());
        match count(&m) {
            Some(c) => n = c,
            None => return Err(failure(&m)),
        }
        times.push(m.secs);
        peaks.push(m.peak_kb as f64 / 1024.0);
    }
    Ok((median(times), median(peaks), n))
}

fn rows(
    label: &str,
    ours: &Ours,
    peer_name: &str,
    theirs: Result<(f64, f64, usize), String>,
    unit: &str,
) {
    println!(
        "| {label} | refgraph diff, both releases stored | {:.2} | {} changes, {} breaking | 1.00 |",
        ours.stored, ours.changes, ours.breaking
    );
    println!(
        "| {label} | refgraph ingest both + diff | {:.2} | | {:.2} |",
        ours.end_to_end,
        ours.end_to_end / ours.stored
    );
    match theirs {
        Ok((t, mb, n)) => println!(
            "| {label} | {peer_name} | {t:.2} ({mb:.0} MB peak) | {n} {unit} | {:.1}x slower than diff, {:.1}x than end to end |",
            t / ours.stored,
            t / ours.end_to_end
        ),
        Err(why) => println!("| {label} | {peer_name} | fails: {why} | | |"),
    }
}

pub fn diff_vs_peers(bin: &Path) {
    println!("Migration reports against griffe check and {OPENAPI_DIFF} on the same pairs,");
    println!("{RUNS} runs each, medians (a peer that fails runs once)\n");
    println!("| pair | tool | seconds | found | ratio |");
    println!("|---|---|---|---|---|");
    let python = venv("bench-venv", ".complete-griffe", &[super::GRIFFE]).join("bin/python");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/refgraph/griffe_check.py");
    for (package, old, new) in PYPI_PAIRS {
        let (a, b) = (pypi_site(package, old), pypi_site(package, new));
        let us = ours(bin, &format!("pkg:pypi/{package}"), (old, &a), (new, &b));
        let theirs = peer(
            || {
                let mut c = Command::new(&python);
                c.arg(&script).arg(package).arg(&a).arg(&b);
                c
            },
            |m| {
                let v: Value = serde_json::from_str(m.stdout.trim()).ok()?;
                v["breakages"].as_u64().map(|n| n as usize)
            },
        );
        rows(
            &format!("{package} {old} → {new}"),
            &us,
            &format!("griffe check ({})", super::GRIFFE),
            theirs,
            "breakages",
        );
    }
    let tool = openapi_diff();
    for (npm, old, new, file, label) in SPEC_PAIRS {
        let a = crate::npm_spec::npm_spec(&cache(), npm, old, file);
        let b = crate::npm_spec::npm_spec(&cache(), npm, new, file);
        let us = ours(bin, "pkg:generic/bench-spec", (old, &a), (new, &b));
        let (ja, jb) = (as_json(&a), as_json(&b));
        // openapi-diff exits 1 when it finds breaking differences; its report is JSON on stdout.
        let theirs = peer(
            || {
                let mut c = Command::new(&tool);
                c.arg(&ja).arg(&jb);
                c
            },
            |m| {
                let v: Value = serde_json::from_str(m.stdout.trim()).ok()?;
                Some(
                    [
                        "breakingDifferences",
                        "nonBreakingDifferences",
                        "unclassifiedDifferences",
                    ]
                    .iter()
                    .map(|k| v[k].as_array().map_or(0, Vec::len))
                    .sum(),
                )
            },
        );
        rows(
            &format!("{label} {old} → {new}"),
            &us,
            OPENAPI_DIFF,
            theirs,
            "differences",
        );
    }
    println!();
}
