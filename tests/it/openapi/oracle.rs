//! Oracle agreement on real OpenAPI specs shipped in npm packages: every operation refgraph
//! answers is compared with a plain JSON/YAML walk of the same file in Python
//! (tests/oracle/openapi_walk.py): method, path, operationId, parameter names, locations and
//! required flags, and the request body's required flag and top-level properties.
//! Needs the npm registry (cached under $REFGRAPH_TEST_CACHE) and python3 with PyYAML.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use refgraph::answer::Engine;
use refgraph::store::Store;
use serde_json::Value;

use super::ingest_spec;
use crate::support::{cache_dir, repo};

pub(crate) struct Spec {
    pub(crate) npm: &'static str,
    pub(crate) version: &'static str,
    /// The spec's path inside the tarball.
    pub(crate) file: &'static str,
    pub(crate) package: &'static str,
}

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        npm: "@directus/specs",
        version: "9.22.4",
        file: "package/dist/openapi.json",
        package: "directus-api",
    },
    Spec {
        npm: "@directus/specs",
        version: "15.2.0",
        file: "package/dist/openapi.json",
        package: "directus-api",
    },
    Spec {
        npm: "@blockfrost/openapi",
        version: "0.1.54",
        file: "package/openapi.yaml",
        package: "blockfrost-api",
    },
    Spec {
        npm: "@blockfrost/openapi",
        version: "0.1.93",
        file: "package/openapi.yaml",
        package: "blockfrost-api",
    },
];

/// The venv scripts/setup makes (PyYAML pinned), else the system python3.
pub fn python() -> PathBuf {
    let venv = cache_dir().join("venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

pub(crate) fn walk(spec: &Path) -> Value {
    let out = spec.with_extension("walk.json");
    // The oracle and the migration-report tests walk the same specs at once.
    let lock = crate::support::cache_lock(&out);
    let _held = lock.lock().unwrap_or_else(|p| p.into_inner());
    let status = Command::new(python())
        .arg(repo().join("tests/oracle/openapi_walk.py"))
        .arg(spec)
        .arg(&out)
        .status()
        .expect("python3 is needed for the OpenAPI oracle (scripts/setup)");
    assert!(
        status.success(),
        "openapi_walk.py failed on {}",
        spec.display()
    );
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// One operation of the walk against refgraph's answer; `Err(reason)` on disagreement.
fn compare(e: &Engine, chosen: &refgraph::answer::Chosen, op: &Value) -> Result<String, String> {
    let method = op["method"].as_str().unwrap();
    let path = op["path"].as_str().unwrap();
    let endpoint = format!("{method} {path}");
    let name = op["operationId"].as_str().unwrap_or(&endpoint);
    let d = e
        .lookup()
        .api_detail(chosen, name)
        .map_err(|err| format!("{name}: {err}"))?;
    // The endpoint names the same operation (an operationId used twice is the one exception:
    // the second operation is then named by its endpoint).
    let by_endpoint = e
        .lookup()
        .api_detail(chosen, &endpoint)
        .map_err(|err| format!("{endpoint}: {err}"))?;
    let http = d.http.as_ref().ok_or(format!("{name}: no HTTP facts"))?;
    if (http.method.as_str(), http.path.as_str()) != (method, path) {
        return Err(format!(
            "{name}: walk {method} {path}, refgraph {} {}",
            http.method, http.path
        ));
    }
    if by_endpoint.http.as_ref().map(|h| h.path.as_str()) != Some(path) {
        return Err(format!(
            "{endpoint} resolves to {}",
            by_endpoint.qualified_name
        ));
    }
    if http.operation_id.as_deref() != op["operationId"].as_str() && d.qualified_name != endpoint {
        return Err(format!(
            "{name}: operationId walk {:?}, refgraph {:?}",
            op["operationId"], http.operation_id
        ));
    }
    let mut want: BTreeSet<(String, String, bool)> = op["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["in"].as_str().unwrap().to_string(),
                p["name"].as_str().unwrap().to_string(),
                p["required"].as_bool().unwrap(),
            )
        })
        .collect();
    let body = &op["body"];
    if body.is_object() {
        want.insert((
            "body".into(),
            "body".into(),
            body["required"].as_bool().unwrap(),
        ));
    }
    let got: BTreeSet<(String, String, bool)> = d
        .params
        .iter()
        .map(|p| (p.kind.clone(), p.name.clone(), p.required))
        .collect();
    if want != got || got.len() != d.params.len() {
        return Err(format!(
            "{name}: parameters walk {want:?}, refgraph {got:?}"
        ));
    }
    if body.is_object() {
        let rb = d
            .request_body
            .as_ref()
            .ok_or(format!("{name}: no request_body"))?;
        let want_media: Vec<&str> = body["media_types"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        if rb.media_types != want_media {
            return Err(format!(
                "{name}: media types walk {want_media:?}, refgraph {:?}",
                rb.media_types
            ));
        }
        let want_props: Option<Vec<(String, bool)>> = body["properties"].as_array().map(|a| {
            a.iter()
                .map(|p| {
                    (
                        p["name"].as_str().unwrap().to_string(),
                        p["required"].as_bool().unwrap(),
                    )
                })
                .collect()
        });
        let mut got_props: Option<Vec<(String, bool)>> = rb
            .properties
            .as_ref()
            .map(|ps| ps.iter().map(|p| (p.name.clone(), p.required)).collect());
        if let Some(g) = got_props.as_mut() {
            g.sort();
        }
        if want_props != got_props {
            return Err(format!(
                "{name}: body properties walk {want_props:?}, refgraph {got_props:?}"
            ));
        }
    }
    Ok(d.qualified_name)
}

#[test]
fn operations_agree_with_a_plain_walk_of_real_npm_specs() {
    let store = Store::in_memory();
    let mut paths = Vec::new();
    for s in SPECS {
        let path = crate::npm_spec::npm_spec(&cache_dir(), s.npm, s.version, s.file);
        let report = ingest_spec(&store, &path, s.package, s.version)
            .unwrap_or_else(|e| panic!("{} {}: {e}", s.npm, s.version));
        for d in &report.diagnostics {
            println!("  {} {} diagnostic: {d}", s.npm, s.version);
        }
        paths.push(path);
    }
    let e = Engine::new(store);
    let mut report = String::new();
    let (mut total, mut agree) = (0, 0);
    for (s, path) in SPECS.iter().zip(&paths) {
        let walked = walk(path);
        let ops = walked["operations"].as_array().unwrap();
        let chosen = e.choose(Some(s.package), Some(s.version), None).unwrap();
        let mut names = BTreeSet::new();
        let mut ok = 0;
        for op in ops {
            match compare(&e, &chosen, op) {
                Ok(name) => {
                    ok += 1;
                    names.insert(name);
                }
                Err(reason) => report.push_str(&format!("  {} {}: {reason}\n", s.npm, s.version)),
            }
        }
        // Nothing extra either: the release lists exactly the walked operations.
        let mut listed_names: BTreeSet<String> = BTreeSet::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = e
                .lookup()
                .list(&chosen, Some("operation"), None, 1000, cursor.as_deref())
                .unwrap();
            listed_names.extend(page.items.iter().map(|i| i.qualified_name.clone()));
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        let extra: Vec<_> = listed_names.difference(&names).collect();
        if !extra.is_empty() {
            report.push_str(&format!(
                "  {} {}: not in the walk: {extra:?}\n",
                s.npm, s.version
            ));
        }
        println!(
            "{} {} (openapi {}): {ok}/{} operations agree with the walk",
            s.npm,
            s.version,
            walked["openapi"],
            ops.len()
        );
        assert!(
            ops.len() >= 90,
            "{} {}: only {} operations",
            s.npm,
            s.version,
            ops.len()
        );
        total += ops.len();
        agree += ok;
    }
    if !report.is_empty() {
        println!("disagreements:\n{report}");
    }
    println!("overall: {agree}/{total}");
    assert!(report.is_empty(), "disagreements with the walk:\n{report}");

    // What changed between the two Directus releases, by endpoint.
    let c = e
        .lookup()
        .check_version(Some("directus-api"), "GET /webhooks", Some("15.2.0"))
        .unwrap();
    assert_eq!(c.available_in_requested, Some(false));
    assert_eq!(c.removed_in.as_deref(), Some("15.2.0"));
    let c = e
        .lookup()
        .check_version(Some("directus-api"), "POST /comments", Some("9.22.4"))
        .unwrap();
    assert_eq!(c.available_in_requested, Some(false));
    assert_eq!(c.introduced_in.as_deref(), Some("15.2.0"));
}
