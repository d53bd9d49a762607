//! `cargo bench --bench refgraph`: ingest throughput against griffe on the same release, and
//! `get_api_detail` latency over MCP stdio with more than 50,000 symbols stored.
//!
//! Both tools run as subprocesses on the same unpacked release, several times; the table gives
//! medians. Downloads (PyPI wheels, a griffe virtualenv) are cached in $REFGRAPH_TEST_CACHE.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The large package: Django, one release to compare, more to fill the store.
const PACKAGE: &str = "django";
const IMPORT: &str = "django";
const VERSION: &str = "5.1.4";
const FILL: &[&str] = &["4.2.17", "5.0.10", "4.1.13"];
const GRIFFE: &str = "griffe==2.4.1";
const RUNS: usize = 5;
const CALLS: usize = 2000;

fn cache() -> PathBuf {
    let dir = std::env::var_os("REFGRAPH_TEST_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("refgraph-test-cache"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn binary() -> PathBuf {
    // The bench is built by the same `cargo bench` as the binary, in the same profile folder.
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let bin = dir.join("refgraph");
    if !bin.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "--bin", "refgraph"])
            .status()
            .unwrap();
        assert!(status.success());
    }
    bin
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn site(version: &str) -> PathBuf {
    let dir = cache()
        .join("bench-site")
        .join(format!("{PACKAGE}-{version}"));
    if !dir.join(".complete").exists() {
        let _ = std::fs::remove_dir_all(&dir);
        run(Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--disable-pip-version-check",
                "--target",
            ])
            .arg(&dir)
            .arg(format!("{PACKAGE}=={version}")));
        std::fs::write(dir.join(".complete"), "").unwrap();
    }
    dir
}

fn griffe() -> PathBuf {
    let venv = cache().join("bench-venv");
    let bin = venv.join("bin/griffe");
    if !bin.exists() {
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
        run(Command::new(venv.join("bin/pip")).args(["install", "--quiet", GRIFFE]));
    }
    bin
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn timed(cmd: &mut Command) -> f64 {
    let t = Instant::now();
    run(cmd);
    t.elapsed().as_secs_f64()
}

fn ingest(bin: &Path, data: &Path, version: &str) -> f64 {
    timed(
        Command::new(bin)
            .arg("--data-dir")
            .arg(data)
            .arg("ingest")
            .arg(site(version))
            .args([
                "--package",
                &format!("pkg:pypi/{PACKAGE}"),
                "--version",
                version,
            ]),
    )
}

fn symbol_count(bin: &Path, data: &Path, release: Option<&str>) -> (usize, Vec<String>) {
    let q = match release {
        Some(v) => format!(
            "SELECT ?q WHERE {{ GRAPH <pkg:pypi/{PACKAGE}@{v}> {{ ?s <https://refgraph.dev/ontology#qualifiedName> ?q }} }}"
        ),
        None => {
            "SELECT ?q WHERE { GRAPH ?g { ?s <https://refgraph.dev/ontology#qualifiedName> ?q } }"
                .into()
        }
    };
    let out = Command::new(bin)
        .arg("--data-dir")
        .arg(data)
        .args(["--json", "sparql", &q])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["results"]["bindings"].as_array().unwrap();
    let names = rows
        .iter()
        .map(|r| r["q"]["value"].as_str().unwrap().to_string())
        .collect();
    (rows.len(), names)
}

struct Mcp {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
    id: u64,
}

impl Mcp {
    fn start(bin: &Path, data: &Path) -> Mcp {
        let mut child = Command::new(bin)
            .arg("--data-dir")
            .arg(data)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut m = Mcp { child, out, id: 0 };
        m.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}));
        m.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        m
    }
    fn send(&mut self, v: Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.out.read_line(&mut line).unwrap() > 0,
                "server closed stdout"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }
}

fn main() {
    // `cargo bench` passes --bench; any other argument is ignored.
    let bin = binary();
    println!("refgraph benchmark: {PACKAGE} {VERSION}, {RUNS} runs each, medians\n");
    let src = site(VERSION);
    let griffe = griffe();

    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..RUNS {
        let data = tempfile::tempdir().unwrap();
        ours.push(ingest(&bin, data.path(), VERSION));
        let out = tempfile::NamedTempFile::new().unwrap();
        theirs.push(timed(
            Command::new(&griffe)
                .args(["dump", IMPORT, "--search"])
                .arg(&src)
                .arg("--output")
                .arg(out.path()),
        ));
    }
    let data = tempfile::tempdir().unwrap();
    ingest(&bin, data.path(), VERSION);
    let (symbols, _) = symbol_count(&bin, data.path(), Some(VERSION));
    let (o, t) = (median(ours), median(theirs));
    println!("| ingest of {PACKAGE} {VERSION} | seconds (median) | symbols/s | ratio |");
    println!("|---|---|---|---|");
    println!(
        "| refgraph ingest (on-disk store) | {o:.2} | {:.0} | 1.00 |",
        symbols as f64 / o
    );
    println!(
        "| griffe dump ({GRIFFE}) | {t:.2} | {:.0} | {:.2}x slower |",
        symbols as f64 / t,
        t / o
    );
    println!("({symbols} public symbols in the release)\n");

    for v in FILL {
        ingest(&bin, data.path(), v);
    }
    let (stored, names) = symbol_count(&bin, data.path(), None);
    let mut mcp = Mcp::start(&bin, data.path());
    let mut lat = Vec::with_capacity(CALLS);
    let step = (names.len() / CALLS).max(1);
    let versions: Vec<&str> = std::iter::once(VERSION)
        .chain(FILL.iter().copied())
        .collect();
    let mut errors = 0;
    for i in 0..CALLS {
        let name = &names[(i * step) % names.len()];
        let version = versions[i % versions.len()];
        let t = Instant::now();
        let r = mcp.request(
            "tools/call",
            json!({"name": "get_api_detail", "arguments": {"name": name, "package": format!("pkg:pypi/{PACKAGE}"), "version": version}}),
        );
        lat.push(t.elapsed().as_secs_f64() * 1000.0);
        if r["result"]["isError"] != false {
            errors += 1;
        }
    }
    let _ = mcp.child.kill();
    lat.sort_by(f64::total_cmp);
    println!("| get_api_detail over MCP stdio | p50 ms | p99 ms | calls | symbols stored |");
    println!("|---|---|---|---|---|");
    println!(
        "| {} releases | {:.2} | {:.2} | {CALLS} ({errors} answered not-found: name absent in that version) | {stored} |",
        versions.len(),
        percentile(&lat, 0.5),
        percentile(&lat, 0.99)
    );
    std::thread::sleep(Duration::from_millis(10));
}
