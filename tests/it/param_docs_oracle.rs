//! Parameter descriptions read from Python docstrings, checked against the `docstring_parser`
//! package (tests/oracle/py_param_docs.py) on real releases in the three styles: click (reST
//! `:param x:`), rich (Google `Args:`), networkx (NumPy `Parameters`).

use std::collections::BTreeMap;
use std::process::Command;

use refgraph::answer::{Engine, LookupError};
use refgraph::store::Store;
use serde_json::Value;

use crate::oracle::{Release, ingest_release, oracle, pip_install_into};
use crate::support::{cache_dir, repo};

const RELEASES: &[Release] = &[
    Release {
        name: "click",
        version: "8.1.7",
        import: "click",
        deps: &[],
    },
    Release {
        name: "rich",
        version: "13.9.4",
        import: "rich",
        deps: &["markdown-it-py==3.0.0", "mdurl==0.1.2", "pygments==2.18.0"],
    },
    Release {
        name: "networkx",
        version: "3.4.2",
        import: "networkx",
        deps: &[],
    },
];

/// Whitespace collapsed: line breaks inside a description are layout.
fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn python_parameter_descriptions_agree_with_docstring_parser() {
    let cache = cache_dir();
    let parser = cache.join("site").join("docstring-parser-0.16");
    pip_install_into(&parser, &["docstring-parser==0.16".to_string()], false);
    let store = Store::in_memory();
    for rel in RELEASES {
        ingest_release(&store, rel, &cache);
    }
    let engine = Engine::new(store);
    let mut report = String::new();
    for rel in RELEASES {
        let symbols: BTreeMap<String, Value> =
            serde_json::from_value(oracle(rel, &cache)["symbols"].clone()).unwrap();
        let names: Vec<&String> = symbols
            .iter()
            .filter(|(_, s)| s.get("params").is_some())
            .map(|(n, _)| n)
            .collect();
        let dir = cache.join("oracle");
        let names_file = dir.join(format!("{}-{}-names.json", rel.name, rel.version));
        let out = dir.join(format!("{}-{}-param-docs.json", rel.name, rel.version));
        std::fs::write(&names_file, serde_json::to_string(&names).unwrap()).unwrap();
        let site = cache
            .join("site")
            .join(format!("{}-{}", rel.name, rel.version));
        let mut cmd = Command::new("python3");
        cmd.arg("-S")
            .arg(repo().join("tests/oracle/py_param_docs.py"))
            .arg("--path")
            .arg(&site)
            .arg("--path")
            .arg(&parser);
        if !rel.deps.is_empty() {
            cmd.arg("--path").arg(
                cache
                    .join("site")
                    .join(format!("{}-{}-deps", rel.name, rel.version)),
            );
        }
        let status = cmd
            .arg("--names")
            .arg(&names_file)
            .arg("--out")
            .arg(&out)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "param docs oracle failed for {}",
            rel.name
        );
        let want: BTreeMap<String, BTreeMap<String, String>> =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let chosen = engine
            .choose(Some(rel.name), Some(rel.version), None)
            .unwrap();
        // Parameters of the signature that either side describes.
        let (mut n, mut ok, mut symbols_described) = (0usize, 0usize, 0usize);
        let mut disagreements = Vec::new();
        for (name, docs) in &want {
            let d = match engine.lookup().api_detail(&chosen, name) {
                Ok(d) => d,
                Err(LookupError::NotFound { .. }) => continue,
                Err(e) => panic!("{name}: {e}"),
            };
            if !docs.is_empty() {
                symbols_described += 1;
            }
            for p in &d.params {
                let theirs = docs.get(&p.name).map(|s| norm(s));
                let ours = p.description.as_deref().map(norm);
                if theirs.is_none() && ours.is_none() {
                    continue;
                }
                n += 1;
                // docstring_parser runs a reST field on to the next field, so it gives the
                // last one the directives that follow the field list too ("..
                // versionadded:: 8.0"): ours must then be its lines before the directive.
                let agree = match (docs.get(&p.name), &ours) {
                    (Some(t), Some(o)) => {
                        let lines: Vec<&str> = t.lines().collect();
                        norm(t) == *o
                            || (1..lines.len()).any(|k| {
                                norm(&lines[..k].join("\n")) == *o
                                    && lines[k..]
                                        .iter()
                                        .find(|l| !l.trim().is_empty())
                                        .is_some_and(|l| l.starts_with(".. "))
                            })
                    }
                    _ => false,
                };
                if agree {
                    ok += 1;
                } else {
                    disagreements.push(format!(
                        "  {name}({}): docstring_parser {theirs:?}\n      refgraph {ours:?}",
                        p.name
                    ));
                }
            }
        }
        let rate = ok as f64 / n.max(1) as f64;
        println!(
            "{} {}: {ok}/{n} parameter descriptions agree with docstring_parser ({rate:.3}), {symbols_described} symbols described",
            rel.name, rel.version
        );
        for d in disagreements.iter().take(12) {
            println!("{d}");
        }
        assert!(
            n >= 50,
            "{} {}: only {n} described parameters",
            rel.name,
            rel.version
        );
        if rate < 0.95 {
            report.push_str(&format!(
                "{} {}: {ok}/{n} ({rate:.3})\n{}\n",
                rel.name,
                rel.version,
                disagreements.join("\n")
            ));
        }
    }
    assert!(report.is_empty(), "below 0.95 agreement:\n{report}");
}
