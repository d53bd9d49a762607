//! Project context (issue 8): every lockfile and manifest format on the sample projects in
//! `samples/projects`, version ranges against the real PyPI and npm release lists checked by
//! independent oracles (Python's `packaging`, npm's `semver`), `refgraph sync` with ten
//! dependencies, and MCP roots with the official MCP Python SDK.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use refgraph::model::{Ecosystem, PackageId};
use refgraph::project::{Project, Resolution};
use serde_json::Value;

use crate::openapi::oracle::python;
use crate::support::{cache_dir, npm_install, repo, run_python};

fn project(name: &str) -> Project {
    Project::load(&repo().join("samples/projects").join(name)).unwrap()
}

fn offline(_: &PackageId) -> Result<(Vec<String>, String), String> {
    Err("no registry in this test".into())
}

fn resolve_offline(p: &Project, transitive: bool) -> Vec<Resolution> {
    p.resolve_all(transitive, &mut offline)
}

/// (package, version, how)
type Pin = (&'static str, &'static str, &'static str);

/// (sample, pins): every direct dependency each lockfile pins.
const PINNED: &[(&str, &[Pin])] = &[
    (
        "py-requirements",
        &[
            ("pkg:pypi/click", "8.1.7", "pinned by requirements.txt:7"),
            ("pkg:pypi/idna", "3.7", "pinned by requirements.txt:9"),
        ],
    ),
    (
        "py-uv",
        &[
            ("pkg:pypi/click", "8.1.7", "pinned by uv.lock:10"),
            ("pkg:pypi/attrs", "23.2.0", "pinned by uv.lock:5"),
            ("pkg:pypi/pyyaml", "6.0.2", "pinned by uv.lock:37"),
            ("pkg:pypi/pytest", "8.3.3", "pinned by uv.lock:32"),
        ],
    ),
    (
        "py-poetry",
        &[
            ("pkg:pypi/click", "7.1.2", "pinned by poetry.lock:4"),
            ("pkg:pypi/pydantic", "1.10.13", "pinned by poetry.lock:26"),
            ("pkg:pypi/pytest", "7.4.4", "pinned by poetry.lock:37"),
        ],
    ),
    (
        "py-pipenv",
        &[
            ("pkg:pypi/requests", "2.31.0", "pinned by Pipfile.lock:33"),
            ("pkg:pypi/click", "8.1.7", "pinned by Pipfile.lock:23"),
            (
                "pkg:pypi/marshmallow",
                "3.21.3",
                "pinned by Pipfile.lock:30",
            ),
            ("pkg:pypi/pytest", "8.0.0", "pinned by Pipfile.lock:39"),
        ],
    ),
    (
        "js-npm",
        &[
            (
                "pkg:npm/commander",
                "12.1.0",
                "pinned by package-lock.json:20",
            ),
            (
                "pkg:npm/left-pad",
                "1.3.0",
                "pinned by package-lock.json:33",
            ),
            // `"my-ms": "npm:ms@^2.1.0"`: the alias installs ms 2.1.3 in node_modules/my-ms;
            // the ms 2.0.0 hoisted to node_modules/ms is another package's.
            ("pkg:npm/ms", "2.1.3", "pinned by package-lock.json:44"),
            (
                "pkg:npm/typescript",
                "5.4.5",
                "pinned by package-lock.json:63",
            ),
        ],
    ),
    (
        "js-npm-v1",
        &[
            (
                "pkg:npm/commander",
                "11.1.0",
                "pinned by package-lock.json:7",
            ),
            ("pkg:npm/ms", "2.1.2", "pinned by package-lock.json:12"),
        ],
    ),
    (
        "js-yarn-classic",
        &[
            // Not 2.20.3, the copy another dependency needs: the entry for `^11.0.0`.
            ("pkg:npm/commander", "11.1.0", "pinned by yarn.lock:5"),
            ("pkg:npm/lodash", "4.17.21", "pinned by yarn.lock:15"),
            ("pkg:npm/widget-kit", "1.4.2", "pinned by yarn.lock:20"),
        ],
    ),
    (
        "js-yarn-berry",
        &[
            ("pkg:npm/commander", "12.1.0", "pinned by yarn.lock:8"),
            ("pkg:npm/mobx", "6.13.5", "pinned by yarn.lock:15"),
            ("pkg:npm/typescript", "5.4.5", "pinned by yarn.lock:32"),
        ],
    ),
    (
        "js-pnpm",
        &[
            ("pkg:npm/mobx", "6.13.5", "pinned by pnpm-lock.yaml:11"),
            // `4.0.7(mobx@6.13.5)(react@18.3.1)`: peers are not part of the version.
            (
                "pkg:npm/mobx-react-lite",
                "4.0.7",
                "pinned by pnpm-lock.yaml:14",
            ),
            ("pkg:npm/typescript", "5.4.5", "pinned by pnpm-lock.yaml:18"),
        ],
    ),
    (
        "js-pnpm-v6",
        &[
            ("pkg:npm/commander", "11.1.0", "pinned by pnpm-lock.yaml:8"),
            ("pkg:npm/kleur", "4.1.5", "pinned by pnpm-lock.yaml:11"),
        ],
    ),
];

#[test]
fn every_lockfile_format_resolves_to_its_pins() {
    for (sample, want) in PINNED {
        let p = project(sample);
        assert!(p.problems.is_empty(), "{sample}: {:?}", p.problems);
        let all = resolve_offline(&p, false);
        // Without a version: the git dependencies (never a lockfile's entry for them: npm and
        // yarn record a version for git checkouts too), and, offline, the unlocked ranges.
        let mut unversioned: Vec<&str> = all
            .iter()
            .filter(|r| r.version.is_none())
            .map(|r| r.package.as_str())
            .collect();
        let (git, ranges): (&[&str], &[&str]) = match *sample {
            "py-poetry" => (&["pkg:pypi/internal-sdk"], &[]),
            "js-npm" | "js-yarn-classic" => (&["pkg:npm/internal-ui"], &[]),
            "py-requirements" => (
                &[],
                &["pkg:pypi/pydantic", "pkg:pypi/pytest", "pkg:pypi/six"],
            ),
            _ => (&[], &[]),
        };
        let mut expected: Vec<&str> = git.iter().chain(ranges).copied().collect();
        expected.sort();
        unversioned.sort();
        assert_eq!(unversioned, expected, "{sample}");
        for r in all.iter().filter(|r| r.version.is_none()) {
            assert_eq!(
                r.not_from_registry,
                git.contains(&r.package.as_str()),
                "{sample}: {r:?}"
            );
        }
        let got: Vec<(String, Option<String>, String)> = all
            .into_iter()
            .filter(|r| r.version.is_some())
            .map(|r| (r.package, r.version, r.how))
            .collect();
        let mut got_sorted = got.clone();
        got_sorted.sort();
        let mut want_sorted: Vec<(String, Option<String>, String)> = want
            .iter()
            .map(|(p, v, h)| (p.to_string(), Some(v.to_string()), h.to_string()))
            .collect();
        want_sorted.sort();
        assert_eq!(got_sorted, want_sorted, "{sample}");
    }
}

#[test]
fn ranges_without_a_lock_and_non_registry_dependencies_are_said_so() {
    // py-requirements: two ranges; offline they cannot be matched, and the answer says why.
    let p = project("py-requirements");
    let r = resolve_offline(&p, false);
    let pydantic = r.iter().find(|r| r.package == "pkg:pypi/pydantic").unwrap();
    assert_eq!(pydantic.version, None);
    assert_eq!(pydantic.requested.as_deref(), Some(">=1.10, <2"));
    assert!(
        pydantic.problem.as_deref().unwrap().contains("no registry"),
        "{pydantic:?}"
    );
    // `-e ./tools/lint-plugin` is an option line, not a requirement; `six ; marker` is one.
    assert!(r.iter().any(|r| r.package == "pkg:pypi/six"));
    assert_eq!(r.len(), 5, "{r:#?}");
    // The git dependency in py-poetry is listed, never given a version.
    let p = project("py-poetry");
    let sdk = resolve_offline(&p, false)
        .into_iter()
        .find(|r| r.package == "pkg:pypi/internal-sdk")
        .unwrap();
    assert!(sdk.not_from_registry && sdk.version.is_none(), "{sdk:?}");
    // Transitive entries appear only when asked for.
    let p = project("py-uv");
    assert!(
        !resolve_offline(&p, false)
            .iter()
            .any(|r| r.package == "pkg:pypi/colorama")
    );
    let colorama = resolve_offline(&p, true)
        .into_iter()
        .find(|r| r.package == "pkg:pypi/colorama")
        .unwrap();
    assert!(!colorama.direct && colorama.version.as_deref() == Some("0.4.6"));
    // The project itself (`source = { editable = "." }`) is not a dependency.
    assert!(
        !resolve_offline(&p, true)
            .iter()
            .any(|r| r.package.contains("inventory-api"))
    );
}

#[test]
fn broken_project_files_are_reported_and_the_rest_still_counts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("package.json"), "{\"dependencies\": {").unwrap();
    std::fs::write(
        dir.path().join("requirements.txt"),
        "click==8.1.7\nthis is not a requirement!\n-r ../../etc/passwd\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("poetry.lock"), "[[package]\nname = ").unwrap();
    let p = Project::load(dir.path()).unwrap();
    let problems = p.problems.join("\n");
    assert!(problems.contains("package.json:"), "{problems}");
    assert!(problems.contains("poetry.lock:"), "{problems}");
    assert!(problems.contains("requirements.txt:2"), "{problems}");
    assert!(
        problems.contains("only requirement files inside the project"),
        "{problems}"
    );
    let r = resolve_offline(&p, false);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].version.as_deref(), Some("8.1.7"));
    // A folder with none of the files is an error that names what is read.
    let empty = tempfile::tempdir().unwrap();
    let e = Project::load(empty.path()).unwrap_err();
    assert!(e.contains("pnpm-lock.yaml"), "{e}");
}

pub(crate) const PACKAGING_ORACLE: &str = r#"
import json, sys
from packaging.specifiers import SpecifierSet
from packaging.version import Version, InvalidVersion
out = []
for case in json.load(sys.stdin):
    ok = []
    for v in case["versions"]:
        try:
            ok.append(Version(v))
        except InvalidVersion:
            pass
    spec = SpecifierSet(case["range"])
    # The newest final release the range admits (pre-releases only when the range names one).
    match = [v for v in ok if spec.contains(v, prereleases=spec.prereleases or False)]
    out.append(str(max(match)) if match else None)
print(json.dumps(out))
"#;

pub(crate) const SEMVER_ORACLE: &str = r#"
const semver = require(process.argv[1] + '/node_modules/semver');
let input = '';
process.stdin.on('data', d => input += d);
process.stdin.on('end', () => {
  const out = JSON.parse(input).map(c => semver.maxSatisfying(c.versions, c.range));
  console.log(JSON.stringify(out));
});
"#;

pub(crate) fn oracle<T: serde::de::DeserializeOwned>(cmd: &mut Command, input: &Value) -> T {
    use std::io::Write;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("oracle runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "oracle failed");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn ranges_agree_with_packaging_and_node_semver_on_real_release_lists() {
    let cache = cache_dir().join("registry");
    for (sample, ecosystem) in [("ranges-py", "pypi"), ("ranges-js", "npm")] {
        let p = project(sample);
        let mut lists: Vec<(String, Vec<String>)> = Vec::new();
        let resolved = p.resolve_all(false, &mut |id| {
            let v = refgraph::fetch::registry_versions(id, &cache, Duration::from_secs(3600))
                .map_err(|e| e.to_string())?;
            lists.push((id.purl(), v.versions.clone()));
            Ok((v.versions, "registry releases".into()))
        });
        assert_eq!(resolved.len(), 5, "{sample}: {resolved:#?}");
        let cases: Vec<Value> = resolved
            .iter()
            .map(|r| {
                let versions = &lists.iter().find(|(p, _)| *p == r.package).unwrap().1;
                assert!(versions.len() > 5, "{}: {versions:?}", r.package);
                // The oracles take the range as written (npm) or as PEP 440 text.
                serde_json::json!({"range": r.requested.clone().unwrap_or_default(), "versions": versions})
            })
            .collect();
        let want: Vec<Option<String>> = if ecosystem == "pypi" {
            oracle(
                Command::new(python()).args(["-c", PACKAGING_ORACLE]),
                &Value::from(cases),
            )
        } else {
            let tools = npm_install(&cache_dir(), "node_semver", "semver", "semver@7.6.3");
            oracle(
                Command::new("node").args(["-e", SEMVER_ORACLE, tools.to_str().unwrap()]),
                &Value::from(cases),
            )
        };
        for (r, w) in resolved.iter().zip(&want) {
            // `packaging` prints a normalised version (`2.31.0` stays, `1.0` stays `1.0`).
            assert_eq!(r.version.as_ref(), w.as_ref(), "{sample}: {r:?}");
            assert!(
                r.version.is_some(),
                "{sample}: every sample range matches a release"
            );
        }
        eprintln!(
            "{sample}: {}",
            resolved
                .iter()
                .map(|r| format!(
                    "{} {} -> {}",
                    r.package,
                    r.requested.as_deref().unwrap_or(""),
                    r.version.as_deref().unwrap_or("?")
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
}

const PACKAGING_ORDER: &str = r#"
import json, sys
from packaging.version import Version, InvalidVersion
out = []
for versions in json.load(sys.stdin):
    ok = []
    for v in versions:
        try:
            Version(v)
            ok.append(v)
        except InvalidVersion:
            pass
    out.append(sorted(ok, key=Version))
print(json.dumps(out))
"#;

const SEMVER_ORDER: &str = r#"
const semver = require(process.argv[1] + '/node_modules/semver');
let input = '';
process.stdin.on('data', d => input += d);
process.stdin.on('end', () => {
  const out = JSON.parse(input).map(vs => semver.sort(vs.filter(v => semver.valid(v) === v)));
  console.log(JSON.stringify(out));
});
"#;

/// Releases are ordered (newest indexed, history, `introduced_in`) as the registries' own
/// tools order them: `packaging` for PyPI, npm's `semver` for npm, on whole real release
/// lists with pre-, post- and dev releases and multi-digit pre-release numbers.
#[test]
fn release_order_agrees_with_packaging_and_node_semver_on_real_release_lists() {
    use refgraph::version::version_key;
    let cache = cache_dir().join("registry");
    for (ecosystem, packages) in [
        (
            Ecosystem::Pypi,
            &["django", "numpy", "setuptools", "pydantic", "sqlalchemy"][..],
        ),
        (
            Ecosystem::Npm,
            &["typescript", "react", "rxjs", "@angular/core"][..],
        ),
    ] {
        let mut lists = Vec::new();
        for name in packages {
            let (id, _) =
                refgraph::model::PackageId::parse(&format!("pkg:{ecosystem}/{name}")).unwrap();
            let v = refgraph::fetch::registry_versions(&id, &cache, Duration::from_secs(3600))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                v.versions.len() > 50,
                "{name}: {} versions",
                v.versions.len()
            );
            lists.push(v.versions);
        }
        let input = Value::from(lists.clone());
        let want: Vec<Vec<String>> = if ecosystem == Ecosystem::Pypi {
            oracle(Command::new(python()).args(["-c", PACKAGING_ORDER]), &input)
        } else {
            let tools = npm_install(&cache_dir(), "node_semver", "semver", "semver@7.6.3");
            oracle(
                Command::new("node").args(["-e", SEMVER_ORDER, tools.to_str().unwrap()]),
                &input,
            )
        };
        for ((name, all), want) in packages.iter().zip(lists).zip(want) {
            // The versions the oracle reads, in refgraph's order.
            let mut ours: Vec<String> = all.into_iter().filter(|v| want.contains(v)).collect();
            ours.sort_by_key(|v| version_key(ecosystem, v));
            let first_difference = ours.iter().zip(&want).position(|(a, b)| a != b);
            let from = |v: &[String]| -> Vec<String> {
                v.iter()
                    .skip(first_difference.unwrap_or(0))
                    .take(5)
                    .cloned()
                    .collect()
            };
            assert_eq!(
                first_difference,
                None,
                "{name}: refgraph orders {:?} where the oracle orders {:?}",
                from(&ours),
                from(&want)
            );
            assert_eq!(ours.len(), want.len(), "{name}");
            eprintln!(
                "{ecosystem}/{name}: {} releases in the oracle's order",
                ours.len()
            );
        }
    }
}

fn refgraph(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_refgraph"));
    c.arg("--data-dir").arg(data);
    // The text index is not what this tests; no model keeps ingest quick.
    c.env("REFGRAPH_MODEL_DIR", data.join("no-model"));
    c
}

fn sync_json(data: &Path, sample: &str) -> (Value, Duration) {
    let started = Instant::now();
    let out = refgraph(data)
        .args(["--json", "sync", "--no-index"])
        .arg(repo().join("samples/projects").join(sample))
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "sync failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    (serde_json::from_slice(&out.stdout).unwrap(), took)
}

fn outcomes(report: &Value, outcome: &str) -> usize {
    report["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["outcome"] == outcome)
        .count()
}

#[test]
fn sync_ingests_ten_dependencies_and_a_second_run_sends_no_request() {
    let data = tempfile::tempdir().unwrap();
    let (first, t1) = sync_json(data.path(), "sync-ten");
    assert_eq!(outcomes(&first, "ingested"), 10, "{first:#}");
    assert_eq!(first["ingested"].as_array().unwrap().len(), 10);
    assert!(
        first["registry_requests"].as_u64().unwrap() >= 10,
        "{first:#}"
    );
    let (second, t2) = sync_json(data.path(), "sync-ten");
    assert_eq!(outcomes(&second, "indexed"), 10, "{second:#}");
    assert_eq!(second["ingested"].as_array().unwrap().len(), 0);
    assert_eq!(second["registry_requests"], 0, "{second:#}");
    eprintln!(
        "sync of 10 dependencies: first run {:.2} s ({} registry requests), second run {:.3} s (0 requests)",
        t1.as_secs_f64(),
        first["registry_requests"],
        t2.as_secs_f64()
    );
    // A release stored by another version of refgraph is fetched from the cache and ingested again.
    crate::support::make_stale(
        &refgraph::store::Store::open(&data.path().join("store")).unwrap(),
        "pkg:pypi/six@1.16.0",
    );
    let (third, _) = sync_json(data.path(), "sync-ten");
    assert_eq!(outcomes(&third, "indexed"), 9, "{third:#}");
    assert_eq!(
        third["ingested"],
        serde_json::json!(["pkg:pypi/six@1.16.0"])
    );
    // One request: PyPI's file list for six (the archive itself comes from the cache).
    assert_eq!(third["registry_requests"], 1, "{third:#}");
    let six = item(&third, "pkg:pypi/six");
    assert_eq!(six["outcome"], "ingested");
    assert!(
        six["detail"]
            .as_str()
            .unwrap()
            .contains("stored by another version of refgraph (facts version 0), ingested again"),
        "{six:#}"
    );
    let out = refgraph(data.path())
        .args(["--json", "releases"])
        .output()
        .unwrap();
    let releases: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        releases
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["stale"] == false
                && r["facts_version"]
                    == refgraph::lower::facts_version(
                        r["ecosystem"].as_str().unwrap().parse().unwrap()
                    )),
        "{releases:#}"
    );
    // One ingested from local files is never replaced by the registry's archive: still
    // indexed, said to be stale.
    let wheel = walk_files(&data.path().join("cache"))
        .into_iter()
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("six-1.16.0"))
        })
        .expect("six's wheel in the download cache");
    let st = refgraph(data.path())
        .arg("ingest")
        .arg(&wheel)
        .args([
            "--package",
            "pkg:pypi/six",
            "--version",
            "1.16.0",
            "--no-index",
        ])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    crate::support::make_stale(
        &refgraph::store::Store::open(&data.path().join("store")).unwrap(),
        "pkg:pypi/six@1.16.0",
    );
    let (fourth, _) = sync_json(data.path(), "sync-ten");
    assert_eq!(outcomes(&fourth, "indexed"), 10, "{fourth:#}");
    assert_eq!(fourth["ingested"], serde_json::json!([]));
    let six = item(&fourth, "pkg:pypi/six");
    let detail = six["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("stored by another version of refgraph")
            && detail.contains(&wheel.display().to_string()),
        "{six:#}"
    );
    // The releases answer: one from each ecosystem.
    let out = refgraph(data.path())
        .args(["--json", "api", "six.add_move"])
        .args(["--package", "pkg:pypi/six", "--version", "1.16.0"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = refgraph(data.path())
        .args(["--json", "api", "commander:Command.option"])
        .args(["--package", "pkg:npm/commander", "--version", "12.1.0"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run_roots_client(data: &Path, a: &Path, b: &Path, extra: &[&str]) -> Value {
    let mut args: Vec<&OsStr> = vec![
        OsStr::new(env!("CARGO_BIN_EXE_refgraph")),
        data.as_os_str(),
        a.as_os_str(),
        b.as_os_str(),
    ];
    args.extend(extra.iter().map(OsStr::new));
    let no_model = data.join("no-model");
    run_python(
        "tests/mcp/roots.py",
        &args,
        &[("REFGRAPH_MODEL_DIR", &no_model)],
    )
}

fn first_line(v: &Value) -> &str {
    v["text"].as_str().unwrap().lines().next().unwrap()
}

#[test]
fn mcp_answers_for_the_release_each_root_pins() {
    let data = tempfile::tempdir().unwrap();
    let a = repo().join("samples/projects/py-poetry"); // click 7.1.2 by poetry.lock
    let b = repo().join("samples/projects/py-uv"); // click 8.1.7 by uv.lock
    // The store starts empty: each pinned release is fetched from PyPI when first needed.
    let seen = run_roots_client(data.path(), &a, &b, &[]);
    assert!(
        seen["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "resolve_versions"),
        "{seen}"
    );
    let a_detail = &seen["a_detail"];
    assert_eq!(a_detail["is_error"], false, "{a_detail}");
    assert_eq!(
        first_line(a_detail),
        "[Version: 7.1.2 (pinned by poetry.lock:4)]"
    );
    assert_eq!(a_detail["structured"]["version"], "7.1.2");
    // get_terminal_size exists in 7.1.2 and was removed in 8.1.
    assert_eq!(seen["a_gone"]["is_error"], false, "{}", seen["a_gone"]);
    let resolve = &seen["a_resolve"]["structured"]["projects"][0];
    let click = resolve["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["package"] == "pkg:pypi/click")
        .unwrap();
    assert_eq!(click["version"], "7.1.2");
    assert_eq!(click["indexed"], true);

    let b_detail = &seen["b_detail"];
    assert_eq!(
        first_line(b_detail),
        "[Version: 8.1.7 (pinned by uv.lock:10)]"
    );
    assert_eq!(b_detail["structured"]["version"], "8.1.7");
    assert_ne!(
        a_detail["structured"]["signature"], b_detail["structured"]["signature"],
        "click.echo changed between 7.1.2 and 8.1.7"
    );
    assert_eq!(seen["b_gone"]["is_error"], true, "{}", seen["b_gone"]);
    assert!(first_line(&seen["b_gone"]).starts_with("[Version: 8.1.7 (pinned by uv.lock:10)]"));
    let check = &seen["b_check"];
    assert!(
        first_line(check).starts_with("[Version: 8.1.7 (pinned by uv.lock:10)]"),
        "{check}"
    );
    assert_eq!(check["structured"]["available_in_requested"], false);
    assert_eq!(check["structured"]["removed_in"], "8.1.7");

    // Two roots pinning different releases: no silent choice.
    let both = &seen["both"];
    assert_eq!(both["is_error"], true);
    let text = both["text"].as_str().unwrap();
    assert!(
        text.contains("7.1.2") && text.contains("8.1.7") && text.contains("`root`"),
        "{text}"
    );
    assert!(
        first_line(&seen["both_root_b"]).starts_with("[Version: 8.1.7 (pinned by uv.lock:10)]")
    );
    // An explicit version beats every pin.
    assert_eq!(first_line(&seen["explicit"]), "[Version: 8.1.7]");
    // Asked once at the first call, then once after each roots/list_changed: the list is
    // cached in between.
    assert_eq!(seen["roots_asked"], 3, "{seen}");
    // `pkg:...@version` names the release as surely as `version`: no pin applies.
    assert!(
        first_line(&seen["purl_version"]).starts_with("[Version: 8.1.7]"),
        "{}",
        seen["purl_version"]
    );
    assert_eq!(
        seen["purl_version"]["structured"]["available_in_requested"],
        false
    );
    // A `root` that is not a project is an error, not a silent fallback to the newest.
    let bad = &seen["bad_root"];
    assert_eq!(bad["is_error"], true, "{bad}");
    assert!(
        bad["text"]
            .as_str()
            .unwrap()
            .contains("none of the manifests"),
        "{bad}"
    );

    // Offline, a pin that is not indexed is reported with what is, and nothing else answers.
    let c = tempfile::tempdir().unwrap();
    std::fs::write(c.path().join("requirements.txt"), "click==8.0.0\n").unwrap();
    let seen = run_roots_client(data.path(), c.path(), &b, &["--offline"]);
    let missing = &seen["a_detail"];
    assert_eq!(missing["is_error"], true, "{missing}");
    assert_eq!(
        first_line(missing),
        "[Version: 8.0.0 (pinned by requirements.txt:1; not indexed)]"
    );
    let text = missing["text"].as_str().unwrap();
    assert!(
        text.contains("indexed versions: 7.1.2, 8.1.7")
            && text.contains("Not answering from another version"),
        "{text}"
    );
    assert_eq!(
        missing["structured"]["indexed"],
        serde_json::json!(["7.1.2", "8.1.7"])
    );

    // A pin fetched by the server is read within the limits `serve` was given, as `refgraph
    // add` reads it (it once used the defaults whatever the command line said).
    let strict = tempfile::tempdir().unwrap();
    let seen = run_roots_client(strict.path(), &a, &b, &["--max-entries", "3"]);
    let refused = &seen["a_detail"];
    assert_eq!(refused["is_error"], true, "{refused}");
    let text = refused["text"].as_str().unwrap();
    assert!(
        text.contains("entries (limit 3)") && text.contains("not indexed"),
        "{text}"
    );
}

/// The sync report's item for `package`.
fn item<'a>(report: &'a Value, package: &str) -> &'a Value {
    report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["package"] == package)
        .unwrap_or_else(|| panic!("{package} is not in the report"))
}

/// Every file under `dir`, recursively.
fn walk_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk_files(&p));
        } else {
            out.push(p);
        }
    }
    out
}
