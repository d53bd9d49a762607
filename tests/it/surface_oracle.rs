//! Public-surface agreement with Python itself on real releases of widely used libraries
//! (issue 31): every name the release's modules expose at run time should be answered
//! available, none answered a proven "no", and hardly any name refgraph offers should be
//! missing at run time.
//!
//! The oracle (tests/oracle/py_surface.py) installs each release with uv, every dependency at
//! its version of the release's era (`--exclude-newer`), imports it with nothing else on the
//! path and walks its public names; refgraph ingests the release's wheel from PyPI, and its
//! sdist apart, whose answers are compared with the wheel's.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use refgraph::answer::Engine;
use refgraph::store::Store;
use serde_json::Value;

use crate::support::{cache_dir, cache_lock, repo};

struct Release {
    name: &'static str,
    version: &'static str,
    import: &'static str,
}

const fn rel(name: &'static str, version: &'static str, import: &'static str) -> Release {
    Release {
        name,
        version,
        import,
    }
}

/// Two releases of each library, far enough apart that the way they build their surface
/// changed (lazy loaders, stubs, `__all__` arithmetic, compiled cores).
const RELEASES: &[Release] = &[
    rel("scikit-image", "0.20.0", "skimage"),
    rel("scikit-image", "0.24.0", "skimage"),
    rel("xarray", "2023.1.0", "xarray"),
    rel("xarray", "2024.6.0", "xarray"),
    rel("statsmodels", "0.14.0", "statsmodels"),
    rel("statsmodels", "0.14.4", "statsmodels"),
    rel("astropy", "5.2", "astropy"),
    rel("astropy", "6.1.0", "astropy"),
    rel("transformers", "4.30.0", "transformers"),
    rel("transformers", "4.46.0", "transformers"),
    rel("pydantic", "1.10.13", "pydantic"),
    rel("pydantic", "2.5.0", "pydantic"),
    rel("pydantic", "2.9.2", "pydantic"),
    rel("sqlalchemy", "1.4.50", "sqlalchemy"),
    rel("sqlalchemy", "2.0.30", "sqlalchemy"),
    rel("aiohttp", "3.8.6", "aiohttp"),
    rel("aiohttp", "3.10.10", "aiohttp"),
    rel("polars", "0.20.0", "polars"),
    rel("polars", "1.9.0", "polars"),
    rel("shapely", "2.0.1", "shapely"),
    rel("shapely", "2.0.6", "shapely"),
    rel("h5py", "3.8.0", "h5py"),
    rel("h5py", "3.11.0", "h5py"),
    rel("lxml", "4.9.3", "lxml"),
    rel("lxml", "5.2.2", "lxml"),
    rel("cryptography", "41.0.7", "cryptography"),
    rel("cryptography", "43.0.3", "cryptography"),
    rel("protobuf", "4.25.3", "google.protobuf"),
    rel("protobuf", "5.28.3", "google.protobuf"),
    rel("orjson", "3.9.10", "orjson"),
    rel("orjson", "3.10.7", "orjson"),
    rel("rich", "12.6.0", "rich"),
    rel("rich", "13.7.1", "rich"),
    rel("attrs", "22.2.0", "attr"),
    rel("attrs", "23.2.0", "attrs"),
    rel("boto3", "1.28.0", "boto3"),
    rel("boto3", "1.35.0", "boto3"),
    rel("networkx", "2.8.8", "networkx"),
    rel("networkx", "3.2.1", "networkx"),
    rel("plotly", "4.14.3", "plotly"),
    rel("plotly", "5.24.1", "plotly"),
];

/// What is reached so far, with a little room (see the end of the test); measured on
/// 2026-12-07 over 41 releases: recall 0.8467, 0 false, 0.0057 absent. Issue 31's targets are
/// 0.99, 0, 0.01: the last two are met and asserted as such; recall is held where it is. Of
/// the 11,756 null answers, 11,176 are astropy 6.1.0's: its unit modules fill `__all__` from
/// the names `def_unit(..., namespace=globals(), prefixes=True)` injects (km, cm, ...), which
/// only running astropy's unit machinery can tell. networkx and plotly (issue 49) read 1.000:
/// before their star imports were read in statement order, plotly's stale `graph_objects.py`
/// shadowed by its package and its `relative_import` tables read, 377 of their names were a
/// false "no".
const RECALL_FLOOR: f64 = 0.845;
const ABSENT_CEILING: f64 = 0.01;

fn script() -> PathBuf {
    repo().join("tests/oracle/py_surface.py")
}

/// uv, from PyPI, into the cache once.
fn uv(cache: &Path) -> PathBuf {
    let dir = cache.join("tools/uv");
    crate::oracle::pip_install_into(&dir, &["uv==0.13.9".to_string()], false);
    dir.join("bin/uv")
}

/// The release and its era's dependencies, installed into the cache once.
fn site(cache: &Path, r: &Release) -> PathBuf {
    let target = cache
        .join("surface/site")
        .join(format!("{}-{}", r.name, r.version));
    let lock = cache_lock(&target);
    let _held = lock.lock().unwrap_or_else(|p| p.into_inner());
    if target.join(".complete").exists() {
        return target;
    }
    let _ = std::fs::remove_dir_all(&target);
    let status = Command::new("python3")
        .env("UV_CACHE_DIR", cache.join("surface/uv-cache"))
        .arg(script())
        .args(["install", "--uv"])
        .arg(uv(cache))
        .arg("--target")
        .arg(&target)
        .arg("--spec")
        .arg(format!("{}=={}", r.name, r.version))
        .status()
        .expect("python3 runs the surface oracle");
    assert!(
        status.success(),
        "installing {} {} failed",
        r.name,
        r.version
    );
    std::fs::write(target.join(".complete"), "").unwrap();
    target
}

fn oracle(site: &Path, args: &[&str], stdin: &str) -> Value {
    let mut child = Command::new("python3")
        .arg("-S")
        .arg(script())
        .args(args)
        .arg("--path")
        .arg(site)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs the surface oracle");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the surface oracle failed: {args:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[derive(Default)]
struct Tally {
    runtime: usize,
    yes: usize,
    no: Vec<String>,
    unknown: Vec<String>,
    offered: usize,
    absent: Vec<String>,
    /// Offered names in modules that need a dependency the install left out (torch).
    unverifiable: Vec<String>,
    /// Runtime names the release's sdist answers differently from its wheel: `name wheel sdist`.
    sdist_differs: Vec<String>,
    /// With run-time inspection (issue 49): null names now answered present, and those
    /// answered absent (must be none), or present without being marked runtime (none).
    inspected_yes: usize,
    inspected_no: Vec<String>,
    inspected_unmarked: Vec<String>,
    /// Seconds of the inspection (install and import) and of the whole inspected ingest.
    inspect_seconds: f64,
    ingest_seconds: f64,
}

/// What `check_version` answers for `name` in release `r`: available, proven absent, unknown.
fn available(engine: &Engine, r: &Release, name: &str) -> Option<bool> {
    engine
        .lookup()
        .check_version(Some(&format!("pkg:pypi/{}", r.name)), name, Some(r.version))
        .unwrap_or_else(|e| panic!("check_version {name}: {e}"))
        .available_in_requested
}

fn measure(r: &Release, cache: &Path) -> Tally {
    let site = site(cache, r);
    let walk = oracle(&site, &["walk", "--import", r.import], "");
    let store = Store::in_memory();
    let shim = crate::oracle::Release {
        name: r.name,
        version: r.version,
        import: r.import,
        deps: &[],
    };
    crate::oracle::ingest_release(&store, &shim, cache);
    let engine = Engine::new(store);
    // The same release read from its sdist, as refgraph reads a release that has no wheel.
    let sdist_store = Store::in_memory();
    crate::oracle::ingest_sdist(&sdist_store, &shim, cache);
    let from_sdist = Engine::new(sdist_store);
    let package = format!("pkg:pypi/{}", r.name);
    let mut t = Tally::default();
    let runtime: BTreeSet<String> = walk["names"].as_object().unwrap().keys().cloned().collect();
    for name in &runtime {
        t.runtime += 1;
        let wheel = available(&engine, r, name);
        match wheel {
            Some(true) => t.yes += 1,
            Some(false) => t.no.push(name.clone()),
            None => t.unknown.push(name.clone()),
        }
        let sdist = available(&from_sdist, r, name);
        if sdist != wheel {
            t.sdist_differs
                .push(format!("{name} wheel={wheel:?} sdist={sdist:?}"));
        }
    }
    // Run-time inspection, for a release whose names are not all told from its files.
    if !t.unknown.is_empty() {
        let store = Store::in_memory();
        let (report, seconds) =
            crate::oracle::ingest_release_inspected(&store, &shim, cache, &site);
        let i = report.inspection.expect("inspection ran");
        t.inspect_seconds = i.install_seconds + i.import_seconds;
        t.ingest_seconds = seconds;
        let inspected = Engine::new(store);
        for name in &t.unknown {
            let c = inspected
                .lookup()
                .check_version(Some(&package), name, Some(r.version))
                .unwrap_or_else(|e| panic!("check_version {name}: {e}"));
            match c.available_in_requested {
                Some(true) if c.provenance.is_none() => t.inspected_unmarked.push(name.clone()),
                Some(true) => t.inspected_yes += 1,
                Some(false) => t.inspected_no.push(name.clone()),
                None => {}
            }
        }
    }
    // Every name refgraph offers in a walked module, canonical or alias.
    let modules: BTreeSet<&str> = walk["modules"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let chosen = engine
        .choose(Some(&package), Some(r.version), None)
        .unwrap();
    let mut offered = BTreeSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = engine
            .lookup()
            .list(&chosen, None, None, 1000, cursor.as_deref())
            .unwrap();
        for item in &page.items {
            for n in std::iter::once(&item.qualified_name).chain(&item.aliases) {
                if let Some((parent, last)) = n.rsplit_once('.')
                    && modules.contains(parent)
                    && !last.starts_with('_')
                {
                    offered.insert(n.clone());
                }
            }
        }
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    t.offered = offered.len();
    let unknown: Vec<&String> = offered.difference(&runtime).collect();
    // With the file that defines each, so the oracle can tell a name it cannot import
    // without an optional dependency from one that is not there.
    let asked = unknown
        .iter()
        .map(|n| {
            let file = engine
                .lookup()
                .api_detail(&chosen, n)
                .ok()
                .and_then(|d| d.source.file)
                .unwrap_or_default();
            // A name refgraph says needs an optional dependency: the oracle runs the test.
            let guard = engine
                .lookup()
                .check_version(Some(&package), n, Some(r.version))
                .ok()
                .and_then(|c| c.requires)
                .map(|g| format!("\t{}\t{}", g.module, g.test))
                .unwrap_or_default();
            format!("{n}\t{file}{guard}")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let reach = oracle(&site, &["check", "--import", r.import], &asked);
    for n in unknown {
        match &reach[n.as_str()] {
            Value::Bool(true) => {}
            Value::String(_) => t.unverifiable.push(n.clone()),
            _ => t.absent.push(n.clone()),
        }
    }
    t
}

/// The figures of one run over every release: `(recall, false answers, null answers, share
/// of offered names absent at run time)`.
fn summary(rows: &BTreeMap<String, Tally>) -> (f64, usize, usize, f64) {
    let sum = |f: &dyn Fn(&Tally) -> usize| rows.values().map(f).sum::<usize>();
    let runtime = sum(&|t| t.runtime);
    let yes = sum(&|t| t.yes);
    let checked = sum(&|t| t.offered - t.unverifiable.len());
    (
        yes as f64 / runtime.max(1) as f64,
        sum(&|t| t.no.len()),
        sum(&|t| t.unknown.len()),
        sum(&|t| t.absent.len()) as f64 / checked.max(1) as f64,
    )
}

#[test]
fn public_surface_agrees_with_python_on_real_libraries() {
    let cache = cache_dir();
    let mut rows = BTreeMap::new();
    // REFGRAPH_SURFACE_ONLY=astropy,polars measures those libraries alone (the floors below
    // are for the whole set).
    let only = std::env::var("REFGRAPH_SURFACE_ONLY").ok();
    let chosen = RELEASES.iter().filter(|r| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|x| x == r.name))
    });
    for r in chosen {
        rows.insert(format!("{} {}", r.name, r.version), measure(r, &cache));
    }
    println!(
        "{:<26} {:>7} {:>7} {:>5} {:>6} {:>7} {:>6} {:>6} {:>6}",
        "release", "runtime", "recall", "false", "null", "offered", "absent", "unver.", "sdist≠"
    );
    for (k, t) in &rows {
        println!(
            "{k:<26} {:>7} {:>7.3} {:>5} {:>6} {:>7} {:>6} {:>6} {:>6}",
            t.runtime,
            t.yes as f64 / t.runtime.max(1) as f64,
            t.no.len(),
            t.unknown.len(),
            t.offered,
            t.absent.len(),
            t.unverifiable.len(),
            t.sdist_differs.len()
        );
        for (label, names, n) in [
            ("false", &t.no, 6),
            ("null", &t.unknown, 3),
            ("absent", &t.absent, 3),
            ("sdist", &t.sdist_differs, 3),
        ] {
            for name in names.iter().take(n) {
                println!("    {label:<7} {name}");
            }
        }
    }
    let (recall, no, unknown, absent) = summary(&rows);
    let sdist_differs: usize = rows.values().map(|t| t.sdist_differs.len()).sum();
    let sdist_false = rows
        .values()
        .flat_map(|t| &t.sdist_differs)
        .filter(|d| d.ends_with("sdist=Some(false)"))
        .count();
    println!(
        "sdist: {sdist_differs} runtime names answered otherwise than from the wheel, {sdist_false} of them a \"no\""
    );
    println!(
        "surface: {} releases of {} libraries; recall {recall:.4}, false {no}, null {unknown}, \
         absent at run time {absent:.4} (names needing an uninstalled optional dependency left out)",
        RELEASES.len(),
        RELEASES
            .iter()
            .map(|r| r.name)
            .collect::<BTreeSet<_>>()
            .len()
    );
    // With run-time inspection.
    let runtime: usize = rows.values().map(|t| t.runtime).sum();
    let yes: usize = rows.values().map(|t| t.yes + t.inspected_yes).sum();
    let inspected_no: usize = rows.values().map(|t| t.inspected_no.len()).sum();
    let unmarked: usize = rows.values().map(|t| t.inspected_unmarked.len()).sum();
    let inspected_rows: Vec<(&String, &Tally)> = rows
        .iter()
        .filter(|(_, t)| t.ingest_seconds > 0.0)
        .collect();
    let inspected = inspected_rows.len();
    let mut shares: Vec<f64> = inspected_rows
        .iter()
        .map(|(_, t)| t.inspect_seconds / t.ingest_seconds)
        .collect();
    shares.sort_by(f64::total_cmp);
    let mut per_release: Vec<f64> = inspected_rows
        .iter()
        .map(|(_, t)| t.inspect_seconds)
        .collect();
    per_release.sort_by(f64::total_cmp);
    let median = |v: &[f64]| v.get(v.len() / 2).copied().unwrap_or(0.0);
    let inspected_recall = yes as f64 / runtime.max(1) as f64;
    for (k, t) in &inspected_rows {
        println!(
            "inspect {k:<26} +{:>6} present, {:>3} false, {:>3} unmarked, inspection {:>6.1}s of {:>6.1}s ingest",
            t.inspected_yes,
            t.inspected_no.len(),
            t.inspected_unmarked.len(),
            t.inspect_seconds,
            t.ingest_seconds
        );
        for name in t.inspected_no.iter().chain(&t.inspected_unmarked).take(4) {
            println!("    wrong   {name}");
        }
    }
    println!(
        "surface with --inspect: recall {inspected_recall:.4}, false {inspected_no}, unmarked \
         {unmarked}; {inspected} releases inspected, inspection median {:.1}s per release, \
         median share of ingest {:.2}",
        median(&per_release),
        median(&shares)
    );
    let dump: BTreeMap<&String, Value> = rows
        .iter()
        .map(|(k, t)| {
            (
                k,
                serde_json::json!({"false": t.no, "null": t.unknown, "absent": t.absent,
                    "unverifiable": t.unverifiable, "sdist_differs": t.sdist_differs,
                    "inspected_false": t.inspected_no, "inspected_unmarked": t.inspected_unmarked}),
            )
        })
        .collect();
    std::fs::write(
        cache.join("surface/report.json"),
        serde_json::to_string_pretty(&dump).unwrap(),
    )
    .unwrap();
    // Issue 31 asks for recall >= 0.99, no false answer and at most 1% absent. The last two
    // are reached; recall is held where it is so that it cannot slip back.
    assert!(
        recall >= RECALL_FLOOR,
        "recall {recall:.4} < {RECALL_FLOOR}"
    );
    assert!(
        no == 0,
        "{no} runtime names answered a proven 'no' (see \"false\" in {})",
        cache.join("surface/report.json").display()
    );
    assert!(absent <= ABSENT_CEILING, "absent at run time {absent:.4}");
    // Issue 49: inspection never answers a runtime name "no", and marks every name it adds.
    assert!(
        inspected_no == 0 && unmarked == 0,
        "with --inspect: {inspected_no} false, {unmarked} unmarked (see the report)"
    );
    // Issue 31: an sdist resolves as its wheel does. On 2026-12-06, 22 of 59,384 runtime
    // names were answered otherwise: unknown from the sdist (modules its build makes:
    // shapely.lib, polars.polars, h5py.defs, lxml's header folders, astropy.compiler_version).
    // 338 more differed until the wheel's sourceless compiled modules were read from the
    // sdist's Cython sources too (h5py, astropy 5.2's scalar_inv_efuncs, statsmodels' linbin).
    // None may be a "no" (124 were before refgraph read the folders an sdist's build writes
    // into).
    assert!(
        sdist_false == 0,
        "{sdist_false} runtime names answered \"no\" from the sdist but not from the wheel \
         (see \"sdist_differs\" in the report)"
    );
}

/// Modules refgraph reads from Cython sources (`.pyx` and the `.pxi` they include) that the
/// wheel ships beside the compiled module, or, for a module the wheel ships compiled only
/// (h5py), that the release's sdist has.
const CYTHON: &[(Release, &[&str])] = &[
    (
        rel("h5py", "3.11.0", "h5py"),
        &["h5py.h5f", "h5py.h5p", "h5py.h5d", "h5py.h5t", "h5py.h5s"],
    ),
    (
        rel("lxml", "5.2.2", "lxml"),
        &["lxml.etree", "lxml.objectify"],
    ),
    (
        rel("lxml", "4.9.3", "lxml"),
        &["lxml.etree", "lxml.objectify"],
    ),
    (
        rel("sqlalchemy", "2.0.30", "sqlalchemy"),
        &[
            "sqlalchemy.cyextension.collections",
            "sqlalchemy.cyextension.immutabledict",
            "sqlalchemy.cyextension.processors",
            "sqlalchemy.cyextension.resultproxy",
            "sqlalchemy.cyextension.util",
        ],
    ),
    (
        rel("astropy", "6.1.0", "astropy"),
        &[
            "astropy.cosmology.flrw.scalar_inv_efuncs",
            "astropy.io.ascii.cparser",
        ],
    ),
];

/// Issue 31: the names and signatures of compiled modules come from what the release ships
/// of their source. Cython functions compiled with `binding=True` carry their signature, which
/// `inspect` reads from the installed release: every one must agree with what refgraph reads
/// from the `.pyx`, parameter by parameter (name, kind, required, default; only names and
/// kinds where Cython 0.29 hides the defaults, see tests/oracle/py_cython.py).
#[test]
fn cython_signatures_agree_with_inspect() {
    let cache = cache_dir();
    let (mut total, mut agree, mut unknown) = (0usize, 0usize, 0usize);
    let mut report = String::new();
    for (r, modules) in CYTHON {
        let site = site(&cache, r);
        let mut args = vec![];
        for m in *modules {
            args.extend(["--module", m]);
        }
        let mut cmd = Command::new("python3");
        let out = cmd
            .arg("-S")
            .arg(repo().join("tests/oracle/py_cython.py"))
            .arg("--path")
            .arg(&site)
            .args(&args)
            .output()
            .expect("python3 runs the Cython oracle");
        assert!(
            out.status.success(),
            "the Cython oracle failed on {}",
            r.name
        );
        let want: BTreeMap<String, Value> = serde_json::from_slice(&out.stdout).unwrap();
        let store = Store::in_memory();
        let shim = crate::oracle::Release {
            name: r.name,
            version: r.version,
            import: r.import,
            deps: &[],
        };
        crate::oracle::ingest_release(&store, &shim, &cache);
        let engine = Engine::new(store);
        let chosen = engine.choose(Some(r.name), Some(r.version), None).unwrap();
        let mut n = 0;
        for (name, found) in &want {
            n += 1;
            let params = found["params"].as_array().unwrap();
            // Cython 0.29 hides defaults from inspect: names and kinds are still checked.
            let hidden = found["defaults_hidden"].as_bool().unwrap();
            let verdict = match engine.lookup().api_detail(&chosen, name) {
                // A method under a compile-time `IF` exists or not by the build's settings,
                // which the source does not tell: it must be answered unknown, never "no".
                Err(_) if available(&engine, r, name).is_none() => {
                    unknown += 1;
                    continue;
                }
                Err(e) => Err(format!("not answered: {e}")),
                Ok(d) => {
                    let got: Vec<(String, String, bool, Option<String>)> = d
                        .params
                        .iter()
                        .map(|p| {
                            (
                                p.name.clone(),
                                p.kind.clone(),
                                p.required,
                                p.default.as_deref().map(crate::oracle::norm_default),
                            )
                        })
                        .collect();
                    let want: Vec<(String, String, bool, Option<String>)> = params
                        .iter()
                        .map(|p| {
                            (
                                p["name"].as_str().unwrap().to_string(),
                                p["kind"].as_str().unwrap().to_string(),
                                p["required"].as_bool().unwrap(),
                                p["default"].as_str().map(crate::oracle::norm_default),
                            )
                        })
                        .collect();
                    // A default written as a name (`_DEFAULT`) reads back as its value: only
                    // literals are compared.
                    let same = got.len() == want.len()
                        && got.iter().zip(&want).all(|(g, w)| {
                            g.0 == w.0
                                && g.1 == w.1
                                && (hidden || g.2 == w.2)
                                && (hidden
                                    || g.3 == w.3
                                    || g.3.as_deref().is_some_and(|d| {
                                        d.starts_with(|c: char| c.is_alphabetic() || c == '_')
                                            && !matches!(d, "True" | "False" | "None")
                                    }))
                        });
                    if same {
                        Ok(())
                    } else {
                        Err(format!("inspect {want:?}\n      refgraph {got:?}"))
                    }
                }
            };
            match verdict {
                Ok(()) => agree += 1,
                Err(why) => report.push_str(&format!("  {} {name}: {why}\n", r.version)),
            }
        }
        println!("{} {}: {n} Cython signatures", r.name, r.version);
        assert!(
            n >= 10,
            "{} {}: only {n} Cython signatures",
            r.name,
            r.version
        );
        total += n;
    }
    if !report.is_empty() {
        println!("disagreements:\n{report}");
    }
    println!(
        "cython: {agree}/{} signatures agree with inspect; {unknown} answered unknown (compile-time `IF`)",
        total - unknown
    );
    assert_eq!(
        agree,
        total - unknown,
        "Cython signatures that disagree with inspect"
    );
    assert!(
        unknown * 20 < total,
        "{unknown} of {total} answered unknown"
    );
}
