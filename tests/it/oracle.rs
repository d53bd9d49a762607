//! Oracle agreement on real PyPI releases: every public function, method and constructor
//! signature refgraph extracts is compared with Python's own `inspect.signature` on the
//! installed release (tests/oracle/py_inspect.py). Needs python3 with pip and the registry.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use refgraph::answer::{Engine, LookupError};
use refgraph::extract::Language;
use refgraph::ingest::{Limits, ingest_files, read_release};
use refgraph::model::PackageId;
use refgraph::store::Store;
use serde_json::Value;

use crate::support::{cache_dir, repo};

pub(crate) struct Release {
    pub name: &'static str,
    pub version: &'static str,
    pub import: &'static str,
    /// Pinned run-time dependencies the oracle needs to import the package.
    pub deps: &'static [&'static str],
}

pub(crate) const RELEASES: &[Release] = &[
    Release {
        name: "click",
        version: "7.1.2",
        import: "click",
        deps: &[],
    },
    Release {
        name: "click",
        version: "8.1.7",
        import: "click",
        deps: &[],
    },
    Release {
        name: "requests",
        version: "2.32.3",
        import: "requests",
        deps: &[
            "urllib3==2.2.3",
            "idna==3.10",
            "charset-normalizer==3.4.0",
            "certifi==2024.8.30",
        ],
    },
    // Methods made by factories in class bodies (`visit_Add = _make_binop("+")`), chained
    // aliases, `del` in a class body.
    Release {
        name: "jinja2",
        version: "3.1.4",
        import: "jinja2",
        deps: &["markupsafe==2.1.5"],
    },
    // Names imported under `if TYPE_CHECKING:` (not exports), `if __name__ == "__main__":`
    // demo classes, `lru_cache`d functions.
    Release {
        name: "rich",
        version: "13.9.4",
        import: "rich",
        deps: &["markdown-it-py==3.0.0", "mdurl==0.1.2", "pygments==2.18.0"],
    },
];

fn pip_install(target: &Path, specs: &[String]) {
    pip_install_into(target, specs, false)
}

/// `pip install --target` once (a `.complete` marker says it finished), with or without the
/// releases' own dependencies.
pub(crate) fn pip_install_into(target: &Path, specs: &[String], with_deps: bool) {
    let lock = crate::support::cache_lock(target);
    let _held = lock.lock().unwrap_or_else(|p| p.into_inner());
    if target.join(".complete").exists() {
        return;
    }
    let _ = std::fs::remove_dir_all(target);
    let status = Command::new("python3")
        .env("PIP_ROOT_USER_ACTION", "ignore")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args((!with_deps).then_some("--no-deps"))
        .arg("--target")
        .arg(target)
        .args(specs)
        .status()
        .expect("python3 with pip is needed for the oracle test (see .ci/run)");
    assert!(status.success(), "pip install {specs:?} failed");
    std::fs::write(target.join(".complete"), "").unwrap();
}

/// Fetches the release's wheel from PyPI (cached) and ingests it into `store`.
pub(crate) fn ingest_release(store: &Store, rel: &Release, cache: &Path) {
    let (id, fetched, files, diags) = fetch_and_read(rel, cache);
    ingest_files(
        store,
        &id,
        rel.version,
        &files,
        diags,
        &fetched.url,
        Some(fetched.sha256),
    )
    .unwrap();
}

/// The release's wheel from PyPI (cached), read as `refgraph add` reads it: a wheel's
/// sourceless compiled modules from the sdist.
fn fetch_and_read(
    rel: &Release,
    cache: &Path,
) -> (
    PackageId,
    refgraph::fetch::Fetched,
    Vec<refgraph::extract::SourceFile>,
    Vec<refgraph::model::Diagnostic>,
) {
    let id = PackageId::new(refgraph::model::Ecosystem::Pypi, rel.name);
    let fetched = refgraph::fetch::fetch_pypi(&id, rel.version, &cache.join("pypi"), &|_, _| {})
        .unwrap_or_else(|e| panic!("fetching {} {} from PyPI: {e}", rel.name, rel.version));
    let (files, diags) =
        refgraph::ingest::read_fetched(&id, rel.version, &fetched, &Limits::default()).unwrap();
    (id, fetched, files, diags)
}

/// [`ingest_release`] with run-time inspection (issue 49): the modules whose names the static
/// reading leaves unknown are imported in the sandbox from `site`, where the release and its
/// dependencies are installed. Returns the report and the seconds the whole ingest took.
pub(crate) fn ingest_release_inspected(
    store: &Store,
    rel: &Release,
    cache: &Path,
    site: &Path,
) -> (refgraph::ingest::IngestReport, f64) {
    let start = std::time::Instant::now();
    let (id, fetched, files, diags) = fetch_and_read(rel, cache);
    let options = refgraph::inspect::InspectOptions {
        module_seconds: 120,
        ..Default::default()
    };
    let report = refgraph::ingest::ingest_files_inspecting(
        store,
        &id,
        rel.version,
        &files,
        diags,
        &fetched.url,
        Some(fetched.sha256),
        &Default::default(),
        Some((refgraph::inspect::Subject::Installed(site), &options)),
    )
    .unwrap();
    (report, start.elapsed().as_secs_f64())
}

/// Fetches the release's source distribution from PyPI (cached) and ingests it into `store`:
/// what a release with no wheel gives refgraph to read.
pub(crate) fn ingest_sdist(store: &Store, rel: &Release, cache: &Path) {
    let id = PackageId::new(refgraph::model::Ecosystem::Pypi, rel.name);
    let fetched =
        refgraph::fetch::fetch_pypi_sdist(rel.name, rel.version, &cache.join("pypi"), &|_, _| {})
            .unwrap_or_else(|e| panic!("fetching the sdist of {} {}: {e}", rel.name, rel.version));
    let (files, diags) = read_release(&fetched.path, Language::Python, &Limits::default()).unwrap();
    ingest_files(
        store,
        &id,
        rel.version,
        &files,
        diags,
        &fetched.url,
        Some(fetched.sha256),
    )
    .unwrap();
}

pub(crate) fn oracle(rel: &Release, cache: &Path) -> Value {
    let site = cache
        .join("site")
        .join(format!("{}-{}", rel.name, rel.version));
    pip_install(&site, &[format!("{}=={}", rel.name, rel.version)]);
    let mut cmd = Command::new("python3");
    cmd.arg("-S")
        .arg(repo().join("tests/oracle/py_inspect.py"))
        .arg("--path")
        .arg(&site);
    if !rel.deps.is_empty() {
        let deps = cache
            .join("site")
            .join(format!("{}-{}-deps", rel.name, rel.version));
        pip_install(
            &deps,
            &rel.deps.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        );
        cmd.arg("--path").arg(deps);
    }
    let out = cache
        .join("oracle")
        .join(format!("{}-{}.json", rel.name, rel.version));
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    // Tests running at once (signatures, parameter descriptions) ask for the same release:
    // one writes the file while the other would read it half written.
    let lock = crate::support::cache_lock(&out);
    let _held = lock.lock().unwrap_or_else(|p| p.into_inner());
    let status = cmd
        .args(["--import", rel.import, "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "oracle failed for {}", rel.name);
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

pub(crate) fn norm_default(s: &str) -> String {
    let s = s
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .replace('"', "'");
    // An integer as written (`0x00000000`, `1_000`) and as `inspect` prints its value (`0`).
    let digits = s.replace('_', "");
    let (radix, body) = match digits.get(..2).map(str::to_ascii_lowercase).as_deref() {
        Some("0x") => (16, &digits[2..]),
        Some("0o") => (8, &digits[2..]),
        Some("0b") => (2, &digits[2..]),
        _ => (10, digits.as_str()),
    };
    match u128::from_str_radix(body, radix) {
        Ok(n) if !body.is_empty() => n.to_string(),
        _ => s,
    }
}

/// Compares one oracle symbol with refgraph's answer; `Err(reason)` on disagreement.
fn compare(
    engine: &Engine,
    chosen: &refgraph::answer::Chosen,
    name: &str,
    sym: &Value,
) -> Result<(), String> {
    let mut names = vec![name.to_string()];
    names.extend(
        sym["aliases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_string)),
    );
    let mut detail = None;
    for n in &names {
        match engine.lookup().api_detail(chosen, n) {
            Ok(d) => {
                detail = Some(d);
                break;
            }
            Err(LookupError::NotFound { .. }) => continue,
            Err(e) => return Err(format!("error: {e}")),
        }
    }
    let Some(d) = detail else {
        return Err("not found under any public name".into());
    };
    let want = sym["params"].as_array().cloned().unwrap_or_default();
    let want_names: Vec<&str> = want
        .iter()
        .map(|p| p["name"].as_str().unwrap_or(""))
        .collect();
    let got_names: Vec<&str> = d.params.iter().map(|p| p.name.as_str()).collect();
    if want_names != got_names {
        return Err(format!(
            "names: inspect {want_names:?}, refgraph {got_names:?}"
        ));
    }
    for (w, g) in want.iter().zip(&d.params) {
        if w["kind"].as_str() != Some(g.kind.as_str()) {
            return Err(format!(
                "{}: kind inspect {}, refgraph {}",
                g.name, w["kind"], g.kind
            ));
        }
        if w["required"].as_bool() != Some(g.required) {
            return Err(format!(
                "{}: required inspect {}, refgraph {}",
                g.name, w["required"], g.required
            ));
        }
        let wd = w["default"].as_str().map(norm_default);
        let gd = g.default.as_deref().map(norm_default);
        if wd != gd && w["default_from"].as_str() != Some("repr") {
            return Err(format!(
                "{}: default inspect {wd:?}, refgraph {gd:?}",
                g.name
            ));
        }
    }
    Ok(())
}

#[test]
fn signatures_agree_with_inspect_on_real_pypi_releases() {
    let cache = cache_dir();
    let store = Store::in_memory();
    for rel in RELEASES {
        ingest_release(&store, rel, &cache);
    }
    let engine = Engine::new(store);
    let mut total = 0usize;
    let mut agree = 0usize;
    let mut report = String::new();
    for rel in RELEASES {
        let oracle = oracle(rel, &cache);
        let chosen = engine
            .choose(Some(rel.name), Some(rel.version), None)
            .unwrap();
        let symbols: BTreeMap<String, Value> =
            serde_json::from_value(oracle["symbols"].clone()).unwrap();
        let (mut n, mut ok) = (0, 0);
        for (name, sym) in &symbols {
            let kind = sym["kind"].as_str().unwrap_or("");
            if !matches!(
                kind,
                "function" | "method" | "classmethod" | "staticmethod" | "class"
            ) || sym.get("params").is_none()
            {
                continue;
            }
            n += 1;
            match compare(&engine, &chosen, name, sym) {
                Ok(()) => ok += 1,
                Err(reason) => report.push_str(&format!(
                    "  {}=={} {name}: {reason}\n",
                    rel.name, rel.version
                )),
            }
        }
        println!(
            "{} {}: {ok}/{n} signatures agree with inspect ({:.4})",
            rel.name,
            rel.version,
            ok as f64 / n.max(1) as f64
        );
        assert!(
            n > 100,
            "{} {}: only {n} symbols compared",
            rel.name,
            rel.version
        );
        total += n;
        agree += ok;
    }
    if !report.is_empty() {
        println!("disagreements:\n{report}");
    }
    let rate = agree as f64 / total as f64;
    println!("overall: {agree}/{total} = {rate:.4}");
    // 1.0 today over 3,070 signatures; jinja2's factory-made methods alone are 12.
    assert!(rate >= 0.999, "signature agreement {rate:.4} < 0.999");

    // Version questions across the two click releases.
    let removed = engine
        .lookup()
        .check_version(Some("click"), "click.get_terminal_size", None)
        .unwrap();
    assert_eq!(removed.introduced_in.as_deref(), Some("7.1.2"));
    assert_eq!(removed.removed_in.as_deref(), Some("8.1.7"));
    let added = engine
        .lookup()
        .check_version(
            Some("click"),
            "click.ParamType.shell_complete",
            Some("7.1.2"),
        )
        .unwrap();
    assert_eq!(added.available_in_requested, Some(false));
    assert_eq!(added.introduced_in.as_deref(), Some("8.1.7"));
}
