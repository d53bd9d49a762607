//! Migration reports of real PyPI release pairs against Python's `inspect` (the oracle of
//! tests/oracle/py_inspect.py run on each installed release): symbols removed and symbols whose
//! parameters changed, by set difference of the two oracle outputs, compared with what
//! `diff_report` says. Needs python3 with pip and the registry.

mod npm;
mod openapi;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use refgraph::answer::Engine;
use refgraph::diff::DiffOptions;
use refgraph::extract::Language;
use refgraph::ingest::{Limits, ingest_files, read_release};
use refgraph::model::PackageId;
use refgraph::store::Store;
use serde_json::Value;

use crate::oracle::{RELEASES, Release, norm_default, oracle};
use crate::support::cache_dir;

/// Pairs with known breaking changes: click 8 dropped Python 2 helpers and reworked its parser;
/// marshmallow 3 changed load/dump and the field signatures, and moved members between a class
/// and its base or to an alias (`Schema.dump` inherited from `BaseSchema` in 2.x, defined on
/// `Schema` in 3.x, where `BaseSchema` is an alias of `Schema`).
const PAIRS: &[(&Release, &Release)] = &[
    // The signature oracle test's two click releases.
    (&RELEASES[0], &RELEASES[1]),
    (
        &Release {
            name: "marshmallow",
            version: "2.21.0",
            import: "marshmallow",
            deps: &[],
        },
        &Release {
            name: "marshmallow",
            version: "3.21.3",
            import: "marshmallow",
            deps: &["packaging==24.1"],
        },
    ),
];

/// The rules about what `inspect` sees of a parameter list: names, order, kinds, required,
/// defaults. (Types, return types and async are outside the oracle.)
const PARAMETER_RULES: &[&str] = &[
    "parameter_removed",
    "required_parameter_added",
    "optional_parameter_added",
    "parameter_renamed",
    "parameter_reordered",
    "parameter_kind_stricter",
    "parameter_kind_looser",
    "parameter_became_required",
    "parameter_became_optional",
    "default_changed",
    "variadic_removed",
    "variadic_added",
];

struct Side {
    /// Every public name (canonical and alias) -> the canonical one.
    names: BTreeMap<String, String>,
    symbols: BTreeMap<String, Value>,
}

fn side(o: &Value) -> Side {
    let symbols: BTreeMap<String, Value> = serde_json::from_value(o["symbols"].clone()).unwrap();
    let mut names = BTreeMap::new();
    for (name, sym) in &symbols {
        names.insert(name.clone(), name.clone());
        for a in sym["aliases"].as_array().into_iter().flatten() {
            names.insert(a.as_str().unwrap().to_string(), name.clone());
        }
    }
    Side { names, symbols }
}

/// A parameter as the comparison sees it: name, kind, required, default (only where the oracle
/// read it from the source).
type Param = (String, String, bool, Option<String>);

fn params(sym: &Value) -> Option<Vec<Param>> {
    let ps = sym.get("params")?.as_array()?;
    Some(
        ps.iter()
            .map(|p| {
                let default = (p["default_from"].as_str() != Some("repr"))
                    .then(|| p["default"].as_str().map(norm_default))
                    .flatten();
                (
                    p["name"].as_str().unwrap_or("").to_string(),
                    p["kind"].as_str().unwrap_or("").to_string(),
                    p["required"].as_bool().unwrap_or(false),
                    default,
                )
            })
            .collect(),
    )
}

/// The names a report may use for an oracle symbol: its canonical name, its aliases, and for a
/// member inherited from a base, the base's member (a report names the change once, where the
/// member is defined).
fn report_names(side: &Side, name: &str) -> Vec<String> {
    let sym = &side.symbols[name];
    let mut out = vec![name.to_string()];
    out.extend(
        sym["aliases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str().map(str::to_string)),
    );
    if let Some(owner) = sym["inherited_from"].as_str() {
        // The oracle names the owner by its defining path; the report by its canonical name.
        let owner = side.names.get(owner).map(String::as_str).unwrap_or(owner);
        let member = name.rsplit('.').next().unwrap_or(name);
        out.push(format!("{owner}.{member}"));
    }
    out
}

/// The report, checked against the same report with the signature rules run over every
/// symbol of both releases: the shortcut (only symbols whose signature changed) loses nothing.
fn report_checked(
    engine: &Engine,
    package: &str,
    from: &str,
    to: &str,
) -> refgraph::diff::DiffReport {
    let report = engine
        .diff()
        .diff_report(package, from, to, &DiffOptions::default())
        .unwrap();
    let full = engine
        .diff()
        .diff_report(
            package,
            from,
            to,
            &DiffOptions {
                exhaustive: true,
                ..DiffOptions::default()
            },
        )
        .unwrap();
    let lines = |r: &refgraph::diff::DiffReport| -> BTreeSet<String> {
        r.changes
            .iter()
            .map(|c| serde_json::to_string(c).unwrap())
            .collect()
    };
    let (fast, slow) = (lines(&report), lines(&full));
    assert!(
        fast == slow,
        "{package} {from} -> {to}: the report differs when every symbol is compared\n\
         only in the report: {:#?}\nonly when every symbol is compared: {:#?}",
        fast.difference(&slow).collect::<Vec<_>>(),
        slow.difference(&fast).collect::<Vec<_>>()
    );
    assert_eq!(
        serde_json::to_value(&report.summary).unwrap(),
        serde_json::to_value(&full.summary).unwrap()
    );
    report
}

/// What a report says was removed (removals and probable renames) and which symbols it says
/// changed their parameter lists (the findings of `parameter_rules`).
fn reported<'r>(
    report: &'r refgraph::diff::DiffReport,
    parameter_rules: &[&str],
) -> (Vec<&'r str>, BTreeSet<&'r str>) {
    let removed = report
        .changes
        .iter()
        .filter(|c| c.kind == "removed" || c.kind == "renamed")
        .map(|c| c.qualified_name.as_str())
        .collect();
    let changed = report
        .changes
        .iter()
        .filter(|c| parameter_rules.contains(&c.rule.as_str()))
        .map(|c| c.qualified_name.as_str())
        .collect();
    (removed, changed)
}

fn is_under(name: &str, container: &str) -> bool {
    name.len() > container.len()
        && name.starts_with(container)
        && name.as_bytes()[container.len()] == b'.'
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

#[test]
fn migration_reports_agree_with_inspect_on_real_pypi_pairs() {
    let cache = cache_dir();
    let mut failures = Vec::new();
    for (old, new) in PAIRS {
        let store = Store::in_memory();
        let id = PackageId::new(refgraph::model::Ecosystem::Pypi, old.name);
        for rel in [old, new] {
            let fetched =
                refgraph::fetch::fetch_pypi(&id, rel.version, &cache.join("pypi"), &|_, _| {})
                    .unwrap_or_else(|e| panic!("fetching {} {}: {e}", rel.name, rel.version));
            let (files, diags) =
                read_release(&fetched.path, Language::Python, &Limits::default()).unwrap();
            ingest_files(&store, &id, rel.version, &files, diags, &fetched.url, None).unwrap();
        }
        let report = report_checked(&Engine::new(store), old.name, old.version, new.version);
        let (a, b) = (side(&oracle(old, &cache)), side(&oracle(new, &cache)));

        // The oracle's answer: canonical baseline names with no public name left, and symbols
        // still there whose parameter list differs.
        let removed: BTreeSet<&String> = a
            .symbols
            .iter()
            .filter(|(name, sym)| {
                !b.names.contains_key(*name)
                    && !sym["aliases"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|x| b.names.contains_key(x.as_str().unwrap()))
            })
            .map(|(n, _)| n)
            .collect();
        let mut changed = BTreeSet::new();
        let mut unchanged = HashSet::new();
        for (name, sym) in &a.symbols {
            let Some(now) = b.names.get(name).and_then(|c| b.symbols.get(c)) else {
                continue;
            };
            let (Some(p), Some(q)) = (params(sym), params(now)) else {
                continue;
            };
            let all_names = std::iter::once(name.clone()).chain(
                sym["aliases"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|x| x.as_str().unwrap().to_string()),
            );
            if p != q {
                changed.insert(name.clone());
            } else {
                unchanged.extend(all_names);
            }
        }

        // The report's answer. A removed container covers its members.
        let (reported_removed, reported_changed) = reported(&report, PARAMETER_RULES);
        let covered = |name: &str| {
            report_names(&a, name)
                .iter()
                .any(|n| reported_removed.iter().any(|r| r == n || is_under(n, r)))
        };
        let missed_removed: Vec<&&String> = removed.iter().filter(|n| !covered(n)).collect();
        // A reported removal is wrong when the oracle still finds the name in the new release.
        let wrong_removed: Vec<&&str> = reported_removed
            .iter()
            .filter(|n| b.names.contains_key(**n))
            .collect();
        let changed_hit = |name: &String| {
            report_names(&a, name)
                .iter()
                .any(|n| reported_changed.contains(n.as_str()))
        };
        let missed_changed: Vec<&String> = changed.iter().filter(|n| !changed_hit(n)).collect();
        let wrong_changed: Vec<&&str> = reported_changed
            .iter()
            .filter(|n| unchanged.contains(**n))
            .collect();

        let recall = ratio(
            removed.len() - missed_removed.len() + changed.len() - missed_changed.len(),
            removed.len() + changed.len(),
        );
        let judged = reported_removed.len() + reported_changed.len();
        let precision = ratio(judged - wrong_removed.len() - wrong_changed.len(), judged);
        println!(
            "{} {} -> {}: oracle {} removed, {} changed; recall {recall:.4}, precision {precision:.4}",
            old.name,
            old.version,
            new.version,
            removed.len(),
            changed.len()
        );
        println!("  missed removed: {missed_removed:?}\n  missed changed: {missed_changed:?}");
        println!("  wrong removed: {wrong_removed:?}\n  wrong changed: {wrong_changed:?}");
        assert!(
            removed.len() + changed.len() >= 20,
            "{}: too few changes to judge",
            old.name
        );
        if recall < 0.98 || precision < 0.95 {
            failures.push(format!(
                "{} {} -> {}: recall {recall:.4} (>= 0.98), precision {precision:.4} (>= 0.95)",
                old.name, old.version, new.version
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
