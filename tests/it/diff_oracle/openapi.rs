//! Migration reports of real OpenAPI pairs against a plain walk of both spec files
//! (tests/oracle/openapi_walk.py, the oracle of the OpenAPI test, no OpenAPI library): per
//! endpoint (method and path, path-parameter names ignored), the operations removed, the
//! parameters removed, added as required, made required or moved to another location, and
//! the request body properties that became required, by set difference of the two walks. An
//! endpoint gone whose operationId names another endpoint now is a removal and a move: its
//! parameters are compared with the new endpoint's.

use std::collections::{BTreeMap, BTreeSet};

use refgraph::answer::Engine;
use refgraph::model::endpoint_key;
use refgraph::store::Store;
use serde_json::Value;

use super::{ratio, report_checked};
use crate::openapi::oracle::{SPECS, Spec, walk};
use crate::support::cache_dir;

/// One fact of a migration: (endpoint key, what happened, parameter or property).
type Fact = (String, &'static str, String);

/// The report rules the walk can judge, with the fact each one states.
const RULES: &[(&str, &str)] = &[
    ("operation_removed", "operation removed"),
    ("parameter_removed", "parameter removed"),
    ("required_parameter_added", "required parameter added"),
    ("parameter_became_required", "parameter became required"),
    ("parameter_location_changed", "parameter moved"),
    ("request_property_required_added", "body property required"),
];

struct Op {
    /// The endpoint as written, then the operationId when there is one.
    names: Vec<String>,
    /// Parameter name -> (location, required). The request body is the parameter `body`.
    params: BTreeMap<String, (String, bool)>,
    /// Request body property -> required; empty when the body is not an object with properties.
    body: BTreeMap<String, bool>,
}

fn ops(walked: &Value) -> BTreeMap<String, Op> {
    let mut out = BTreeMap::new();
    for op in walked["operations"].as_array().unwrap() {
        let endpoint = format!(
            "{} {}",
            op["method"].as_str().unwrap(),
            op["path"].as_str().unwrap()
        );
        let mut names = vec![endpoint.clone()];
        names.extend(op["operationId"].as_str().map(str::to_string));
        let mut params: BTreeMap<String, (String, bool)> = op["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let name = p["name"].as_str().unwrap().to_string();
                (
                    name,
                    (
                        p["in"].as_str().unwrap().to_string(),
                        p["required"].as_bool().unwrap(),
                    ),
                )
            })
            .collect();
        let mut body = BTreeMap::new();
        if op["body"].is_object() {
            params.insert(
                "body".into(),
                ("body".into(), op["body"]["required"].as_bool().unwrap()),
            );
            for p in op["body"]["properties"].as_array().into_iter().flatten() {
                body.insert(
                    p["name"].as_str().unwrap().to_string(),
                    p["required"].as_bool().unwrap(),
                );
            }
        }
        let key = endpoint_key(&endpoint).unwrap();
        out.insert(
            key,
            Op {
                names,
                params,
                body,
            },
        );
    }
    out
}

fn oracle_facts(a: &BTreeMap<String, Op>, b: &BTreeMap<String, Op>) -> BTreeSet<Fact> {
    let mut facts = BTreeSet::new();
    for (key, old) in a {
        // An endpoint gone is a removal; when its operationId now names another endpoint, the
        // operation moved there, and its parameters are compared with the new endpoint's.
        let new = match b.get(key) {
            Some(new) => new,
            None => {
                facts.insert((key.clone(), "operation removed", String::new()));
                let id = old.names.get(1);
                match b.values().find(|op| id.is_some() && op.names.get(1) == id) {
                    Some(moved) => moved,
                    None => continue,
                }
            }
        };
        for (name, (loc, req)) in &old.params {
            match new.params.get(name) {
                None => facts.insert((key.clone(), "parameter removed", name.clone())),
                Some((l, r)) => {
                    if l != loc {
                        facts.insert((key.clone(), "parameter moved", name.clone()));
                    }
                    *r && !req
                        && facts.insert((key.clone(), "parameter became required", name.clone()))
                }
            };
        }
        for (name, (_, req)) in &new.params {
            if *req && !old.params.contains_key(name) {
                facts.insert((key.clone(), "required parameter added", name.clone()));
            }
        }
        for (prop, req) in &new.body {
            if *req && old.body.get(prop) != Some(&true) {
                facts.insert((key.clone(), "body property required", prop.clone()));
            }
        }
    }
    facts
}

/// The two releases of `package` in the OpenAPI oracle test's list, older first.
fn pair(package: &str) -> (&'static Spec, &'static Spec) {
    let mut it = SPECS.iter().filter(|s| s.package == package);
    (it.next().unwrap(), it.next().unwrap())
}

#[test]
fn migration_reports_agree_with_a_walk_of_real_openapi_pairs() {
    let cache = cache_dir();
    let mut failures = Vec::new();
    let mut total = 0;
    for package in ["directus-api", "blockfrost-api"] {
        let (old, new) = pair(package);
        let store = Store::in_memory();
        let mut walks = Vec::new();
        for s in [old, new] {
            let path = crate::npm_spec::npm_spec(&cache, s.npm, s.version, s.file);
            crate::openapi::ingest_spec(&store, &path, s.package, s.version)
                .unwrap_or_else(|e| panic!("{} {}: {e}", s.npm, s.version));
            walks.push(ops(&walk(&path)));
        }
        let (a, b) = (&walks[0], &walks[1]);
        let want = oracle_facts(a, b);
        let report = report_checked(&Engine::new(store), package, old.version, new.version);

        // A reported name is an operationId or an endpoint of either release.
        let mut key_of: BTreeMap<&str, &str> = BTreeMap::new();
        for side in [a, b] {
            for (key, op) in side {
                for n in &op.names {
                    key_of.entry(n.as_str()).or_insert(key.as_str());
                }
            }
        }
        let mut got = BTreeSet::new();
        for c in &report.changes {
            // A removed operation paired with a probable replacement is still a removal.
            let rule = if c.rule == "probable_rename" && c.symbol_kind == "operation" {
                "operation_removed"
            } else {
                c.rule.as_str()
            };
            let Some((_, what)) = RULES.iter().find(|(r, _)| *r == rule) else {
                continue;
            };
            let key = key_of.get(c.qualified_name.as_str()).unwrap_or_else(|| {
                panic!(
                    "{package}: report names {} which the walk does not",
                    c.qualified_name
                )
            });
            got.insert((
                key.to_string(),
                *what,
                c.parameter.clone().unwrap_or_default(),
            ));
        }
        let missed: Vec<&Fact> = want.difference(&got).collect();
        let wrong: Vec<&Fact> = got.difference(&want).collect();
        let recall = ratio(want.len() - missed.len(), want.len());
        let precision = ratio(got.len() - wrong.len(), got.len());
        let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, what, _) in &want {
            *by_kind.entry(what).or_default() += 1;
        }
        println!(
            "{package} {} -> {}: walk {} facts {by_kind:?}; recall {recall:.4}, precision {precision:.4}",
            old.version,
            new.version,
            want.len()
        );
        println!("  missed: {missed:?}\n  wrong: {wrong:?}");
        total += want.len();
        if recall < 0.98 || precision < 0.95 {
            failures.push(format!(
                "{package}: recall {recall:.4} (>= 0.98), precision {precision:.4} (>= 0.95)"
            ));
        }
    }
    assert!(total >= 20, "only {total} changes to judge");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
