//! Usage paths on real SDK releases (issue 10): for methods of the classes a client holds, the
//! best path's import, construction and attribute chain are run on the installed release by
//! tests/oracle/py_usage.py (PyPI) and tests/oracle/js_usage.mjs (npm). Only constructors
//! run: no request leaves the machine.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use refgraph::answer::{Chosen, Engine};
use refgraph::extract::Language;
use refgraph::ingest::{Limits, ingest_files, read_release};
use refgraph::model::{Ecosystem, PackageId};
use refgraph::store::Store;
use serde_json::{Value, json};

use crate::support::{cache_dir, repo, sparql_rows as rows};

struct Sdk {
    ecosystem: Ecosystem,
    name: &'static str,
    version: &'static str,
}

const SDKS: &[Sdk] = &[
    Sdk {
        ecosystem: Ecosystem::Pypi,
        name: "stripe",
        version: "11.4.1",
    },
    Sdk {
        ecosystem: Ecosystem::Pypi,
        name: "openai",
        version: "1.57.0",
    },
    Sdk {
        ecosystem: Ecosystem::Npm,
        name: "openai",
        version: "4.77.0",
    },
];

/// Module and export path of a public name: Python `a.b.C` -> (`a.b`, `C`); npm
/// `spec:Path.x` -> (`spec`, `Path.x`).
fn split_name(q: &str, javascript: bool) -> (String, String) {
    let (m, n) = if javascript {
        q.split_once(':').unwrap()
    } else {
        q.rsplit_once('.').unwrap()
    };
    (m.to_string(), n.to_string())
}

/// Methods checked per release: spread over the held classes, in name order.
const PER_SDK: usize = 40;

/// The oracle case for a path: what to import, its root (construct a class, call a factory, or
/// use the class itself for a class method), the root's required arguments and the chain.
fn case(
    engine: &Engine,
    chosen: &refgraph::answer::Chosen,
    id: &str,
    p: &refgraph::answer::usage::UsagePath,
) -> Value {
    let javascript = chosen.release.ecosystem == Ecosystem::Npm;
    let import = &p.steps[0];
    assert_eq!(import.action, "import", "{p:?}");
    let (module, _) = split_name(&import.symbol, javascript);
    let first = p
        .steps
        .iter()
        .find(|s| s.action != "import")
        .expect("a path does more than import");
    // `Class.method(...)` on the imported class is the target itself: the chain holds it.
    let on_class = first.action == "call" && first.code.starts_with('.');
    let (root, callee) = match first.action.as_str() {
        "construct" => ("construct", first.symbol.clone()),
        _ if on_class => ("class", import.symbol.clone()),
        _ => ("call", first.symbol.clone()),
    };
    let sep = if javascript { ":" } else { "." };
    let name = callee.strip_prefix(&format!("{module}{sep}")).unwrap();
    let args: Vec<Value> = if root == "class" {
        vec![]
    } else {
        engine
            .lookup()
            .api_detail(chosen, &callee)
            .unwrap()
            .params
            .iter()
            .filter(|a| a.required)
            .map(|a| json!({"name": a.name, "kind": a.kind}))
            .collect()
    };
    // The steps after the root, one per chain element.
    let after: Vec<&refgraph::answer::usage::UsageStep> = p
        .steps
        .iter()
        .filter(|s| s.action != "import")
        .skip(usize::from(!on_class))
        .collect();
    assert_eq!(after.len(), p.chain.len(), "{p:?}");
    let chain: Vec<Value> = p
        .chain
        .iter()
        .zip(after)
        .map(|(n, s)| json!({"name": n, "call": s.action == "call"}))
        .collect();
    // A factory is not called (it may send a request): the chain runs on an instance of the
    // class it returns, constructed like a `construct` root.
    let instance_of = (root == "call").then(|| {
        let class = first.gives.clone().expect("a factory step names its class");
        let (m, n) = split_name(&class, javascript);
        let args: Vec<Value> = engine
            .lookup()
            .api_detail(chosen, &class)
            .unwrap()
            .params
            .iter()
            .filter(|a| a.required)
            .map(|a| json!({"name": a.name, "kind": a.kind}))
            .collect();
        json!({"module": m, "name": n, "args": args})
    });
    json!({"id": id, "module": module, "name": name, "root": root, "args": args, "chain": chain,
           "instance_of": instance_of})
}

/// The SDK release fetched from its registry and ingested into a fresh in-memory store.
fn ingest_sdk(sdk: &Sdk, cache: &Path) -> (Engine, Chosen) {
    let store = Store::in_memory();
    let id = PackageId::new(sdk.ecosystem, sdk.name);
    let fetched = if sdk.ecosystem == Ecosystem::Npm {
        refgraph::fetch::fetch_npm(&id, sdk.version, &cache.join("npm"), &|_, _| {})
    } else {
        refgraph::fetch::fetch_pypi(&id, sdk.version, &cache.join("pypi"), &|_, _| {})
    }
    .unwrap_or_else(|e| panic!("fetching {} {}: {e}", sdk.name, sdk.version));
    let language = Language::for_package(&id);
    let (files, diags) = read_release(&fetched.path, language, &Limits::default()).unwrap();
    ingest_files(&store, &id, sdk.version, &files, diags, &fetched.url, None).unwrap();
    let engine = Engine::new(store);
    let chosen = engine
        .choose(Some(&id.purl()), Some(sdk.version), None)
        .unwrap();
    (engine, chosen)
}

/// The release installed where the oracles read it: `pip install --target` (with its
/// dependencies, for imports) or `npm install`; returns the directory the release's own
/// source paths are relative to.
fn install_sdk(sdk: &Sdk, cache: &Path) -> PathBuf {
    if sdk.ecosystem == Ecosystem::Npm {
        let dir = format!("usage-{}-{}", sdk.name, sdk.version);
        let spec = format!("{}@{}", sdk.name, sdk.version);
        crate::support::npm_install(cache, &dir, sdk.name, &spec)
    } else {
        let site = cache
            .join("site")
            .join(format!("{}-{}-with-deps", sdk.name, sdk.version));
        crate::oracle::pip_install_into(&site, &[format!("{}=={}", sdk.name, sdk.version)], true);
        site
    }
}

#[test]
fn usage_paths_run_on_the_installed_releases() {
    let cache = cache_dir();
    let mut checked = 0usize;
    let mut valid = 0usize;
    let mut failures = String::new();
    for sdk in SDKS {
        let javascript = sdk.ecosystem == Ecosystem::Npm;
        let (engine, chosen) = ingest_sdk(sdk, &cache);

        // Targets: public methods of the classes some class holds as an attribute.
        let held = engine
            .sparql(&format!(
                "PREFIX rg: <https://refgraph.dev/ontology#>
                 SELECT DISTINCT ?m WHERE {{ GRAPH <{}> {{
                   ?r rg:relationKind \"attribute\" ; rg:target ?c .
                   ?c rg:qualifiedName ?cn .
                   ?x a rg:Method ; rg:parent ?c ; rg:qualifiedName ?m .
                 }} }} ORDER BY ?m",
                chosen.release.release
            ))
            .unwrap();
        let methods: Vec<String> = held["results"]["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["m"]["value"].as_str().unwrap().to_string())
            .collect();
        assert!(
            methods.len() >= PER_SDK,
            "{} {}: only {} methods of held classes",
            sdk.name,
            sdk.version,
            methods.len()
        );
        let step = methods.len() / PER_SDK;
        let targets: Vec<&String> = methods.iter().step_by(step).take(PER_SDK).collect();
        let mut cases = Vec::new();
        let mut snippets = std::collections::HashMap::new();
        for (i, m) in targets.iter().enumerate() {
            let u = engine.usage().usage_paths(&chosen, m, 1).unwrap();
            let Some(p) = u.paths.first() else {
                failures.push_str(&format!(
                    "  {} {}: {m}: no path ({})\n",
                    sdk.name,
                    sdk.version,
                    u.note.unwrap_or_default()
                ));
                continue;
            };
            let id = format!("{i}");
            snippets.insert(id.clone(), (m.to_string(), p.snippet.clone()));
            cases.push(case(&engine, &chosen, &id, p));
        }
        let installed = install_sdk(sdk, &cache);
        let mut child = if javascript {
            Command::new("node")
                .arg(repo().join("tests/oracle/js_usage.mjs"))
                .arg(&installed)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("node runs")
        } else {
            Command::new("python3")
                .arg("-S")
                .arg(repo().join("tests/oracle/py_usage.py"))
                .arg("--path")
                .arg(&installed)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("python3 runs")
        };
        serde_json::to_writer(child.stdin.take().unwrap(), &cases).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "the usage oracle failed for {}",
            sdk.name
        );
        let verdicts: serde_json::Map<String, Value> = serde_json::from_slice(&out.stdout).unwrap();
        let (mut n, mut ok) = (targets.len(), 0);
        for (id, v) in &verdicts {
            if v == "ok" {
                ok += 1;
            } else {
                let (m, snippet) = &snippets[id];
                failures.push_str(&format!(
                    "  {} {}: {m}: {v}\n    {}\n",
                    sdk.name,
                    sdk.version,
                    snippet.replace('\n', "\n    ")
                ));
            }
        }
        n = n.max(verdicts.len());
        println!(
            "{} {}: {ok}/{n} usage paths valid; e.g. {}:\n{}",
            sdk.name, sdk.version, snippets["0"].0, snippets["0"].1
        );
        checked += n;
        valid += ok;
    }
    if !failures.is_empty() {
        println!("failures:\n{failures}");
    }
    let rate = valid as f64 / checked as f64;
    println!("overall: {valid}/{checked} = {rate:.3}");
    assert!(checked >= 30, "only {checked} methods checked");
    assert!(rate >= 0.9, "usage paths valid {rate:.3} < 0.9");
}

/// The `requests` relations (the HTTP request a method body sends, which links it to the
/// OpenAPI operation it wraps) on the same three releases, against an independent parser
/// of the same sources: Python's `ast` (tests/oracle/py_requests.py) and the TypeScript
/// compiler (tests/oracle/js_requests.mjs) find the calls by the rules of
/// src/extract/requests.rs. Every relation must be a call the oracle finds at that file and
/// line with that endpoint key (precision), and every call the oracle finds in the body of
/// a public callable must be a relation (recall).
#[test]
fn requested_endpoints_agree_with_the_oracle_parsers() {
    let cache = cache_dir();
    let mut report = String::new();
    let mut worst = 1.0f64;
    for sdk in SDKS {
        let (engine, chosen) = ingest_sdk(sdk, &cache);
        let installed = install_sdk(sdk, &cache);
        let graph = &chosen.release.release;
        let found: BTreeSet<(String, usize, String)> = rows(
            &engine,
            &format!(
                "PREFIX rg: <https://refgraph.dev/ontology#>
                 SELECT ?file ?line ?key WHERE {{ GRAPH <{graph}> {{
                   ?s rg:relation ?r . ?r rg:requestKey ?key ; rg:sourceFile ?file ; rg:line ?line
                 }} }}"
            ),
            &["file", "line", "key"],
        )
        .into_iter()
        .map(|r| (r[0].clone(), r[1].parse().unwrap(), r[2].clone()))
        .collect();
        // Where the public callables are: a call inside one of them must be found.
        let callables: HashSet<(String, usize)> = rows(
            &engine,
            &format!(
                "PREFIX rg: <https://refgraph.dev/ontology#>
                 SELECT ?file ?line WHERE {{ GRAPH <{graph}> {{
                   ?s a ?t ; rg:sourceFile ?file ; rg:line ?line .
                   VALUES ?t {{ rg:Function rg:Method rg:Staticmethod rg:Classmethod }}
                 }} }}"
            ),
            &["file", "line"],
        )
        .into_iter()
        .map(|r| (r[0].clone(), r[1].parse().unwrap()))
        .collect();
        let output = if sdk.ecosystem == Ecosystem::Npm {
            let tools = crate::npm_oracle::node_tools(&cache);
            Command::new("node")
                .arg(repo().join("tests/oracle/js_requests.mjs"))
                .arg("--pkg")
                .arg(installed.join("node_modules").join(sdk.name))
                .arg("--tools")
                .arg(&tools)
                .output()
        } else {
            Command::new("python3")
                .arg(repo().join("tests/oracle/py_requests.py"))
                .arg(&installed)
                .output()
        }
        .expect("the oracle runs");
        assert!(
            output.status.success(),
            "the requests oracle failed for {}: {}",
            sdk.name,
            String::from_utf8_lossy(&output.stderr)
        );
        let oracle: Vec<(String, usize, usize, String)> =
            serde_json::from_slice(&output.stdout).unwrap();
        let oracle_calls: HashSet<(String, usize, String)> = oracle
            .iter()
            .map(|(f, _, l, k)| (f.clone(), *l, k.clone()))
            .collect();
        let precise = found.iter().filter(|r| oracle_calls.contains(*r)).count();
        let expected: BTreeSet<(String, usize, String)> = oracle
            .iter()
            .filter(|(f, d, _, _)| callables.contains(&(f.clone(), *d)))
            .map(|(f, _, l, k)| (f.clone(), *l, k.clone()))
            .collect();
        let recalled = expected.iter().filter(|r| found.contains(*r)).count();
        let precision = precise as f64 / found.len().max(1) as f64;
        let recall = recalled as f64 / expected.len().max(1) as f64;
        report.push_str(&format!(
            "{} {}: {} requests found, {precise} confirmed by the oracle (precision {precision:.3}); \
             {} in public callables by the oracle, {recalled} found (recall {recall:.3})\n",
            sdk.name,
            sdk.version,
            found.len(),
            expected.len()
        ));
        for r in found.iter().filter(|r| !oracle_calls.contains(*r)).take(5) {
            report.push_str(&format!("  not confirmed: {r:?}\n"));
        }
        for r in expected.iter().filter(|r| !found.contains(*r)).take(5) {
            report.push_str(&format!("  missed: {r:?}\n"));
        }
        assert!(
            expected.len() >= 50,
            "{} {}: only {} requests to check\n{report}",
            sdk.name,
            sdk.version,
            expected.len()
        );
        worst = worst.min(precision).min(recall);
    }
    println!("{report}");
    assert!(
        worst >= 0.98,
        "requests disagree with the oracle:\n{report}"
    );
}
