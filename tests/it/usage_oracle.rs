//! Usage paths on real SDK releases (issue 10): for methods of the classes a client holds, the
//! best path's import, construction and attribute chain are run on the installed release by
//! tests/oracle/py_usage.py (PyPI) and tests/oracle/js_usage.mjs (npm). Only constructors
//! run: no request leaves the machine.

use std::process::{Command, Stdio};

use refgraph::answer::Engine;
use refgraph::extract::Language;
use refgraph::ingest::{Limits, ingest_files, read_release};
use refgraph::model::PackageId;
use refgraph::store::Store;
use serde_json::{Value, json};

use crate::support::{cache_dir, repo};

struct Sdk {
    ecosystem: &'static str,
    name: &'static str,
    version: &'static str,
}

const SDKS: &[Sdk] = &[
    Sdk {
        ecosystem: "pypi",
        name: "stripe",
        version: "11.4.1",
    },
    Sdk {
        ecosystem: "pypi",
        name: "openai",
        version: "1.57.0",
    },
    Sdk {
        ecosystem: "npm",
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
    let javascript = chosen.release.ecosystem == "npm";
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

#[test]
fn usage_paths_run_on_the_installed_releases() {
    let cache = cache_dir();
    let mut checked = 0usize;
    let mut valid = 0usize;
    let mut failures = String::new();
    for sdk in SDKS {
        let store = Store::in_memory();
        let javascript = sdk.ecosystem == "npm";
        let id = PackageId::new(sdk.ecosystem, sdk.name);
        let fetched = if javascript {
            refgraph::fetch::fetch_npm(&id, sdk.version, &cache.join("npm"), &|_, _| {})
        } else {
            refgraph::fetch::fetch_pypi(&id, sdk.version, &cache.join("pypi"), &|_, _| {})
        }
        .unwrap_or_else(|e| panic!("fetching {} {}: {e}", sdk.name, sdk.version));
        let language = Language::for_package(&id).unwrap();
        let (files, diags) = read_release(&fetched.path, language, &Limits::default()).unwrap();
        ingest_files(&store, &id, sdk.version, &files, diags, &fetched.url, None).unwrap();
        let engine = Engine::new(store);
        let chosen = engine
            .choose(Some(&id.purl()), Some(sdk.version), None)
            .unwrap();

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
            let u = engine.usage_paths(&chosen, m, 1).unwrap();
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
        let mut child = if javascript {
            let dir = format!("usage-{}-{}", sdk.name, sdk.version);
            let spec = format!("{}@{}", sdk.name, sdk.version);
            let tools = crate::support::npm_install(&cache, &dir, sdk.name, &spec);
            Command::new("node")
                .arg(repo().join("tests/oracle/js_usage.mjs"))
                .arg(&tools)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("node runs")
        } else {
            let site = cache
                .join("site")
                .join(format!("{}-{}-with-deps", sdk.name, sdk.version));
            crate::oracle::pip_install_into(
                &site,
                &[format!("{}=={}", sdk.name, sdk.version)],
                true,
            );
            Command::new("python3")
                .arg("-S")
                .arg(repo().join("tests/oracle/py_usage.py"))
                .arg("--path")
                .arg(&site)
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
