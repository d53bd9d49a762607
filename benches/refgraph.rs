//! `cargo bench --bench refgraph`: ingest throughput against griffe on the same release,
//! `get_api_detail` latency over MCP stdio with more than 50,000 symbols stored, (`npm`)
//! ingest of a large npm SDK against the TypeScript compiler's walk of the same declarations,
//! (`openapi`) OpenAPI ingest against openapi-spec-validator on the largest real spec at hand,
//! and (`http`) 64 concurrent clients on `serve --http` against Oxigraph's own server.
//!
//! Both tools run as subprocesses on the same unpacked release, several times; the table gives
//! medians. refgraph ingests with `--no-index`: the peers extract the API and nothing else, so
//! the text index for concept search (issue 5) is left out of these figures. Downloads (PyPI wheels, a griffe virtualenv) are cached in $REFGRAPH_TEST_CACHE.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "refgraph/diff.rs"]
mod diff;
#[path = "refgraph/http.rs"]
mod http;
#[path = "../tests/common/npm_spec.rs"]
mod npm_spec;
#[path = "refgraph/openapi.rs"]
mod openapi;
#[path = "refgraph/scale.rs"]
mod scale;
#[path = "refgraph/search.rs"]
mod search;
#[path = "refgraph/unseen.rs"]
mod unseen;
#[path = "refgraph/usage.rs"]
mod usage;

/// The large package: Django, one release to compare, more to fill the store.
const PACKAGE: &str = "django";
const IMPORT: &str = "django";
const VERSION: &str = "5.1.4";
const FILL: &[&str] = &["4.2.17", "5.0.10", "4.1.13", "4.0.10", "3.2.25", "3.1.14"];
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
    // A checkout sharing its build folder with another may pin the binary it measures.
    if let Some(bin) = std::env::var_os("REFGRAPH_BENCH_BIN") {
        return PathBuf::from(bin);
    }
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
    diff::pypi_site(PACKAGE, version)
}

/// The virtualenv `name` in the cache with `packages` installed (once: `marker` records it).
fn venv(name: &str, marker: &str, packages: &[&str]) -> PathBuf {
    let venv = cache().join(name);
    if !venv.join(marker).exists() {
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
        run(Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet"])
            .args(packages));
        std::fs::write(venv.join(marker), "").unwrap();
    }
    venv
}

fn griffe() -> PathBuf {
    venv("bench-venv", ".complete-griffe", &[GRIFFE]).join("bin/griffe")
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
            .args(["ingest", "--no-index"])
            .arg(site(version))
            .args([
                "--package",
                &format!("pkg:pypi/{PACKAGE}"),
                "--version",
                version,
            ]),
    )
}

fn sparql(bin: &Path, data: &Path, q: &str) -> Value {
    let out = Command::new(bin)
        .arg("--data-dir")
        .arg(data)
        .args(["--json", "sparql", q])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Symbols stored in one release, or in all of them.
/// Symbols stored in one release graph (a Package URL with version), or in all.
fn symbol_count(bin: &Path, data: &Path, release: Option<&str>) -> usize {
    let graph = release.map_or("?g".to_string(), |r| format!("<{r}>"));
    let v = sparql(
        bin,
        data,
        &format!(
            "SELECT (COUNT(?s) AS ?n) WHERE {{ GRAPH {graph} {{ ?s <https://refgraph.dev/ontology#qualifiedName> ?q }} }}"
        ),
    );
    v["results"]["bindings"][0]["n"]["value"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// Canonical names of one release (the names asked in the latency run).
fn names_of(bin: &Path, data: &Path, version: &str) -> Vec<String> {
    let v = sparql(
        bin,
        data,
        &format!(
            "SELECT ?q WHERE {{ GRAPH <pkg:pypi/{PACKAGE}@{version}> {{ ?s <https://refgraph.dev/ontology#qualifiedName> ?q }} }} ORDER BY ?q"
        ),
    );
    v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["q"]["value"].as_str().unwrap().to_string())
        .collect()
}

struct Mcp {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
    id: u64,
}

impl Mcp {
    fn start(bin: &Path, data: &Path) -> Mcp {
        Mcp::start_with(bin, data, &[])
    }
    /// With more global options (`--model-dir M`) before `serve`.
    fn start_with(bin: &Path, data: &Path, options: &[&str]) -> Mcp {
        let mut child = Command::new(bin)
            .arg("--data-dir")
            .arg(data)
            .args(options)
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

impl Drop for Mcp {
    /// The server is stopped and reaped, whichever part of the bench started it.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn main() {
    // `cargo bench --bench refgraph [-- ingest|latency|npm|openapi|search|diff|http|scale|usage|unseen]` runs one part; nothing runs all.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let part = |name: &str| args.is_empty() || args.iter().any(|a| a == name);
    let bin = binary();
    println!("refgraph benchmark: {RUNS} runs each, medians\n");
    if part("ingest") {
        ingest_vs_griffe(&bin, &site(VERSION));
    }
    if part("latency") {
        latency(&bin);
    }
    if part("openapi") {
        openapi::ingest_vs_validator(&bin);
    }
    if part("npm") {
        npm_vs_typescript(&bin);
    }
    if part("search") {
        search::search_vs_python_rag(&bin);
    }
    if part("diff") {
        diff::diff_vs_peers(&bin);
    }
    if part("http") {
        http::load_vs_oxigraph(&bin);
    }
    if part("scale") {
        scale::latency_at_scale(&bin);
    }
    if part("usage") {
        usage::usage_path_latency(&bin);
    }
    if part("unseen") {
        unseen::unseen_packages(&bin);
    }
}

/// The large npm SDK: thousands of files, declarations generated by tsc.
const NPM_PACKAGE: &str = "@aws-sdk/client-ec2";
const NPM_VERSION: &str = "3.701.0";

/// `npm pack` + unpack once into the cache; returns the folder holding package.json.
fn npm_release(name: &str, version: &str) -> PathBuf {
    let dir = cache()
        .join("bench-npm")
        .join(format!("{}-{version}", name.replace('/', "-")));
    if !dir.join(".complete").exists() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        run(Command::new("npm").current_dir(&dir).args([
            "pack",
            "--silent",
            &format!("{name}@{version}"),
        ]));
        let tgz = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "tgz"))
            .expect("npm pack wrote a tarball");
        run(Command::new("tar").arg("xzf").arg(&tgz).arg("-C").arg(&dir));
        std::fs::write(dir.join(".complete"), "").unwrap();
    }
    dir.join("package")
}

/// `npm install typescript` once (the same tools the oracle test uses).
fn typescript_tools() -> PathBuf {
    npm_tools(
        "node_tools",
        "typescript@5.4.5",
        "node_modules/typescript/package.json",
    )
}

/// `npm install SPEC` into the cache folder `dir` once (`marker`, relative to it, says so).
fn npm_tools(dir: &str, spec: &str, marker: &str) -> PathBuf {
    let tools = cache().join(dir);
    if !tools.join(marker).exists() {
        std::fs::create_dir_all(&tools).unwrap();
        std::fs::write(tools.join("package.json"), "{\"private\": true}\n").unwrap();
        run(Command::new("npm").current_dir(&tools).args([
            "install",
            "--silent",
            "--no-audit",
            "--no-fund",
            spec,
        ]));
    }
    tools
}

fn npm_vs_typescript(bin: &Path) {
    let pkg = npm_release(NPM_PACKAGE, NPM_VERSION);
    let tools = typescript_tools();
    let files = count_files(&pkg);
    let purl = format!("pkg:npm/{NPM_PACKAGE}");
    let mut ours = Vec::new();
    let mut tsc_wall = Vec::new();
    let mut tsc_walk = Vec::new();
    for _ in 0..RUNS {
        let data = tempfile::tempdir().unwrap();
        ours.push(timed(
            Command::new(bin)
                .arg("--data-dir")
                .arg(data.path())
                .args(["ingest", "--no-index"])
                .arg(&pkg)
                .args(["--package", &purl, "--version", NPM_VERSION]),
        ));
        let out = tempfile::NamedTempFile::new().unwrap();
        let t = Instant::now();
        let o = Command::new("node")
            .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/ts_api.mjs"))
            .arg("--pkg")
            .arg(&pkg)
            .arg("--tools")
            .arg(&tools)
            .arg("--out")
            .arg(out.path())
            .output()
            .unwrap();
        tsc_wall.push(t.elapsed().as_secs_f64());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let walk: f64 = String::from_utf8_lossy(&o.stderr)
            .lines()
            .find_map(|l| l.strip_prefix("walk_seconds "))
            .and_then(|v| v.trim().parse().ok())
            .expect("ts_api.mjs prints walk_seconds");
        tsc_walk.push(walk);
    }
    let data = tempfile::tempdir().unwrap();
    run(Command::new(bin)
        .arg("--data-dir")
        .arg(data.path())
        .args(["ingest", "--no-index"])
        .arg(&pkg)
        .args(["--package", &purl, "--version", NPM_VERSION]));
    let release = format!("pkg:npm/{}@{NPM_VERSION}", NPM_PACKAGE.replace('@', "%40"));
    let symbols = symbol_count(bin, data.path(), Some(&release));
    let (o, w, k) = (median(ours), median(tsc_wall), median(tsc_walk));
    println!(
        "| ingest of {NPM_PACKAGE} {NPM_VERSION} ({files} files) | seconds (median) | ratio |"
    );
    println!("|---|---|---|");
    println!("| refgraph ingest (parse, resolve, on-disk store) | {o:.2} | 1.00 |");
    println!(
        "| TypeScript 5.4.5 checker walk, whole process (tests/oracle/ts_api.mjs) | {w:.2} | {:.2}x slower |",
        w / o
    );
    println!(
        "| TypeScript 5.4.5 checker walk, walk only (program + checker + exports) | {k:.2} | {:.2}x slower |",
        k / o
    );
    println!("({symbols} public symbols stored)\n");
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() { count_files(&p) } else { 1 }
        })
        .sum()
}

fn ingest_vs_griffe(bin: &Path, src: &Path) {
    let griffe = griffe();

    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..RUNS {
        let data = tempfile::tempdir().unwrap();
        ours.push(ingest(bin, data.path(), VERSION));
        let out = tempfile::NamedTempFile::new().unwrap();
        theirs.push(timed(
            Command::new(&griffe)
                .args(["dump", IMPORT, "--search"])
                .arg(src)
                .arg("--output")
                .arg(out.path()),
        ));
    }
    let data = tempfile::tempdir().unwrap();
    ingest(bin, data.path(), VERSION);
    let symbols = symbol_count(
        bin,
        data.path(),
        Some(&format!("pkg:pypi/{PACKAGE}@{VERSION}")),
    );
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
}

fn latency(bin: &Path) {
    let data = tempfile::tempdir().unwrap();
    ingest(bin, data.path(), VERSION);
    for v in FILL {
        ingest(bin, data.path(), v);
    }
    let stored = symbol_count(bin, data.path(), None);
    let names = names_of(bin, data.path(), VERSION);
    let mut mcp = Mcp::start(bin, data.path());
    let mut hits = Vec::with_capacity(CALLS);
    let mut misses = Vec::new();
    let step = (names.len() / CALLS).max(1);
    let versions: Vec<&str> = std::iter::once(VERSION)
        .chain(FILL.iter().copied())
        .collect();
    // A short pause lets the server preload its name tables, as a long-running server has.
    std::thread::sleep(Duration::from_secs(2));
    let t0 = Instant::now();
    let first = mcp.request(
        "tools/call",
        json!({"name": "get_api_detail", "arguments": {"name": names[0], "package": format!("pkg:pypi/{PACKAGE}"), "version": VERSION}}),
    );
    assert_eq!(first["result"]["isError"], false, "{first}");
    println!(
        "first call after start: {:.2} ms",
        t0.elapsed().as_secs_f64() * 1000.0
    );
    for i in 0..CALLS {
        let name = &names[(i * step) % names.len()];
        let version = versions[i % versions.len()];
        let t = Instant::now();
        let r = mcp.request(
            "tools/call",
            json!({"name": "get_api_detail", "arguments": {"name": name, "package": format!("pkg:pypi/{PACKAGE}"), "version": version}}),
        );
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if std::env::var_os("REFGRAPH_BENCH_SLOW").is_some() && ms > 5.0 {
            eprintln!(
                "slow: {ms:.1} ms {name} {version} error={}",
                r["result"]["isError"]
            );
        }
        if r["result"]["isError"] == false {
            hits.push(ms);
        } else {
            misses.push(ms);
        }
    }
    let mut all: Vec<f64> = hits.iter().chain(&misses).copied().collect();
    for v in [&mut hits, &mut misses, &mut all] {
        v.sort_by(f64::total_cmp);
    }
    println!(
        "| get_api_detail over MCP stdio, {} releases, {stored} symbols stored | calls | p50 ms | p99 ms |",
        versions.len()
    );
    println!("|---|---|---|---|");
    for (label, v) in [
        ("all calls", &all),
        ("found", &hits),
        (
            "not found (absent in that version; ranked candidates)",
            &misses,
        ),
    ] {
        if !v.is_empty() {
            println!(
                "| {label} | {} | {:.2} | {:.2} |",
                v.len(),
                percentile(v, 0.5),
                percentile(v, 0.99)
            );
        }
    }
    std::thread::sleep(Duration::from_millis(10));
}
