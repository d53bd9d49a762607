//! `cargo bench --bench refgraph -- openapi`: ingest seconds and peak memory for the largest
//! real OpenAPI spec at hand (GitHub's REST API, shipped in the npm package @octokit/openapi),
//! side by side with a Python reference (openapi-spec-validator loading and validating the
//! same file) in the same run.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::{cache, median};

/// (npm package, version, file in the tarball, label).
const SPECS: &[(&str, &str, &str, &str)] = &[
    (
        "@directus/specs",
        "15.2.0",
        "package/dist/openapi.json",
        "Directus 15.2.0",
    ),
    (
        "@octokit/openapi",
        "23.0.2",
        "package/generated/api.github.com.json",
        "GitHub REST (api.github.com)",
    ),
];
const VALIDATOR: &str = "openapi-spec-validator==0.7.2";
const RUNS: usize = 3;

/// The venv scripts/setup makes; made here when it is missing.
pub fn python() -> PathBuf {
    super::venv("venv", ".complete-openapi", &["PyYAML==6.0.3", VALIDATOR]).join("bin/python")
}

/// A child's run: wall seconds, peak resident memory (kB, VmHWM sampled every 5 ms), whether
/// it exited 0 (`code`), its stdout (through a file: outputs of many MB do not block) and
/// stderr.
pub struct Measured {
    pub secs: f64,
    pub peak_kb: u64,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

pub fn measure(cmd: &mut Command) -> Measured {
    let out = tempfile::NamedTempFile::new().unwrap();
    let err = tempfile::NamedTempFile::new().unwrap();
    let t = Instant::now();
    let mut child = cmd
        .stdout(out.reopen().unwrap())
        .stderr(err.reopen().unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kb);
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let secs = t.elapsed().as_secs_f64();
    let read = |f: &tempfile::NamedTempFile| {
        let mut text = String::new();
        let _ = f.reopen().unwrap().read_to_string(&mut text);
        text
    };
    Measured {
        secs,
        peak_kb: peak,
        code: status.code(),
        stdout: read(&out),
        stderr: read(&err),
    }
}

/// Wall seconds and peak resident memory (kB) of a child that must succeed.
fn measured(cmd: &mut Command) -> (f64, u64) {
    let m = measure(cmd);
    if m.code != Some(0) {
        panic!("{cmd:?} failed:\n{}", m.stderr);
    }
    (m.secs, m.peak_kb)
}

pub fn ingest_vs_validator(bin: &Path) {
    let python = python();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/refgraph/osv_load.py");
    println!("OpenAPI ingest against {VALIDATOR} on the same file, {RUNS} runs each, medians\n");
    println!("| spec | size | tool | seconds (median) | peak RSS (MB, median) | ratio |");
    println!("|---|---|---|---|---|---|");
    for (npm, version, file, label) in SPECS {
        let spec = crate::npm_spec::npm_spec(&cache(), npm, version, file);
        let size = std::fs::metadata(&spec).unwrap().len() as f64 / 1e6;
        let (mut ours, mut ours_mem, mut theirs, mut theirs_mem) = (vec![], vec![], vec![], vec![]);
        for _ in 0..RUNS {
            let data = tempfile::tempdir().unwrap();
            let (t, m) = measured(
                Command::new(bin)
                    .arg("--data-dir")
                    .arg(data.path())
                    .args(["ingest", "--no-index"])
                    .arg(&spec)
                    .args(["--package", "pkg:generic/bench-spec", "--version", version]),
            );
            ours.push(t);
            ours_mem.push(m as f64 / 1024.0);
            let (t, m) = measured(Command::new(&python).arg(&script).arg(&spec));
            theirs.push(t);
            theirs_mem.push(m as f64 / 1024.0);
        }
        let (o, t) = (median(ours), median(theirs));
        let (om, tm) = (median(ours_mem), median(theirs_mem));
        println!(
            "| {label} | {size:.1} MB | refgraph ingest (on-disk store) | {o:.2} | {om:.0} | 1.00 |"
        );
        println!(
            "| {label} | {size:.1} MB | openapi-spec-validator (load + validate) | {t:.2} | {tm:.0} | {:.1}x slower |",
            t / o
        );
    }
    println!();
}
