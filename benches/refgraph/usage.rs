//! `cargo bench --bench refgraph -- usage`: `get_usage_path` latency over MCP stdio on a real
//! SDK release of more than 5,000 symbols (twilio 9.4.1: about 11,000 symbols, a client whose
//! properties lead through API versions to hundreds of resource lists). Issue 10's target: p99
//! under 20 ms.

use std::path::Path;
use std::time::Instant;

use serde_json::json;

use super::{Mcp, cache, percentile, run, sparql, symbol_count};

const PACKAGE: &str = "twilio";
const VERSION: &str = "9.4.1";
const CALLS: usize = 1000;

pub fn usage_path_latency(bin: &Path) {
    let id = refgraph::model::PackageId::new(refgraph::model::Ecosystem::Pypi, PACKAGE);
    let wheel = refgraph::fetch::fetch_pypi(&id, VERSION, &cache().join("pypi"), &|_, _| {})
        .unwrap_or_else(|e| panic!("{PACKAGE} {VERSION}: {e}"))
        .path;
    let data = tempfile::tempdir_in(cache()).unwrap();
    run(std::process::Command::new(bin)
        .arg("--data-dir")
        .arg(data.path())
        .args(["--model-dir", "/nonexistent", "ingest", "--no-index"])
        .arg(&wheel)
        .args([
            "--package",
            &format!("pkg:pypi/{PACKAGE}"),
            "--version",
            VERSION,
        ]));
    let release = format!("pkg:pypi/{PACKAGE}@{VERSION}");
    let symbols = symbol_count(bin, data.path(), Some(&release));
    // Every public method of a class that some class hands out (as an attribute or property).
    let v = sparql(
        bin,
        data.path(),
        &format!(
            "PREFIX rg: <https://refgraph.dev/ontology#>
             SELECT DISTINCT ?m WHERE {{ GRAPH <{release}> {{
               ?p rg:relation ?r . ?r rg:target ?c .
               {{ ?r rg:relationKind \"attribute\" }} UNION {{ ?r rg:relationKind \"returns\" . ?p a rg:Property }}
               ?x a rg:Method ; rg:parent ?c ; rg:qualifiedName ?m . }} }} ORDER BY ?m"
        ),
    );
    let methods: Vec<String> = v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["m"]["value"].as_str().unwrap().to_string())
        .collect();
    assert!(methods.len() > 100, "{} methods", methods.len());
    let mut mcp = Mcp::start_with(bin, data.path(), &["--model-dir", "/nonexistent"]);
    let call = |mcp: &mut Mcp, name: &str| {
        let r = mcp.request(
            "tools/call",
            json!({"name": "get_usage_path", "arguments": {"name": name, "package": PACKAGE, "version": VERSION}}),
        );
        assert!(r["result"]["isError"] != true, "{name}: {r}");
        r
    };
    // The first call builds the release's relation graph (kept for the server's lifetime).
    let t = Instant::now();
    call(&mut mcp, &methods[0]);
    let first_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mut ms = Vec::with_capacity(CALLS);
    let mut with_path = 0;
    for i in 0..CALLS {
        let name = &methods[(i * 7919) % methods.len()];
        let t = Instant::now();
        let r = call(&mut mcp, name);
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        if r["result"]["structuredContent"]["paths"]
            .as_array()
            .is_some_and(|p| !p.is_empty())
        {
            with_path += 1;
        }
    }
    ms.sort_by(f64::total_cmp);
    let (p50, p99) = (percentile(&ms, 0.5), percentile(&ms, 0.99));
    println!("## get_usage_path: {PACKAGE} {VERSION}, {symbols} symbols\n");
    println!("| calls | methods asked | answered with a path | first call ms | p50 ms | p99 ms |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| {CALLS} | {} | {with_path} | {first_ms:.1} | {p50:.2} | {p99:.2} |",
        methods.len()
    );
    println!(
        "\ntarget (issue 10): p99 < 20 ms on a release of >= 5,000 symbols: {}",
        if p99 < 20.0 && symbols >= 5000 {
            "met"
        } else {
            "NOT met"
        }
    );
}
