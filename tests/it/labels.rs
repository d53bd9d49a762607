//! Version labels (issue 50, item 2): `8.1`, `8`, `latest`, `stable`, ranges and npm dist-tags
//! choose among the indexed releases and among a registry's, every answer says what was asked
//! and which release answered, and a label that matches nothing is an error listing the
//! versions there are. Real release lists are checked against `packaging` (pip's PEP 440) and
//! npm's `semver` and `npm view`.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use refgraph::answer::{Engine, ErrorKind, Failure, ReleaseError};
use refgraph::model::{Ecosystem, PackageId};
use refgraph::store::Store;
use refgraph::version::label::{LabelError, resolve};
use serde_json::Value;

use crate::openapi::oracle::python;
use crate::project::{PACKAGING_ORACLE, SEMVER_ORACLE, oracle};
use crate::support::{cache_dir, npm_install, repo, try_ingest};

/// acme-storage on both registries, with a pre-release above the newest final release: Python
/// 1.0.0, 1.1.0 (the 1.0.0 sources again), 2.0.0, 2.1.0rc1; npm 1.0.0, 2.0.0, 2.1.0-beta.1.
fn acme_with_prereleases() -> Engine {
    let store = Store::in_memory();
    let py = PackageId::new(Ecosystem::Pypi, "acme-storage");
    for (dir, v) in [
        ("1.0.0", "1.0.0"),
        ("1.0.0", "1.1.0"),
        ("2.0.0", "2.0.0"),
        ("2.0.0", "2.1.0rc1"),
    ] {
        let path = repo().join(format!("samples/python/acme-storage-{dir}"));
        try_ingest(&store, &path, &py, v).expect("python sample");
    }
    let npm = PackageId::new(Ecosystem::Npm, "@acme/storage");
    for (dir, v) in [
        ("1.0.0", "1.0.0"),
        ("2.0.0", "2.0.0"),
        ("2.0.0", "2.1.0-beta.1"),
    ] {
        let path = repo().join(format!("samples/npm/acme-storage-{dir}"));
        try_ingest(&store, &path, &npm, v).expect("npm sample");
    }
    Engine::new(store)
}

#[test]
fn labels_choose_among_the_indexed_releases_and_every_answer_says_which() {
    let e = acme_with_prereleases();
    let choose = |package: &str, label: &str| {
        e.choose(Some(package), Some(label), None)
            .unwrap_or_else(|err| panic!("{package} {label}: {err}"))
    };
    for (package, label, want) in [
        ("acme-storage", "2.0.0", "2.0.0"),
        ("acme-storage", "==1.1.0", "1.1.0"),
        ("acme-storage", "1", "1.1.0"),
        ("acme-storage", "1.0", "1.0.0"),
        ("acme-storage", "1.*", "1.1.0"),
        ("acme-storage", "2", "2.0.0"),
        ("acme-storage", "latest", "2.0.0"),
        ("acme-storage", "stable", "2.0.0"),
        ("acme-storage", ">=1,<2", "1.1.0"),
        ("acme-storage", "~=1.0", "1.1.0"),
        ("acme-storage", "^1.0", "1.1.0"),
        ("acme-storage", ">=2.1.0rc1", "2.1.0rc1"),
        ("acme-storage", "2.1.0rc1", "2.1.0rc1"),
        ("@acme/storage", "1", "1.0.0"),
        ("@acme/storage", "2.x", "2.0.0"),
        ("@acme/storage", "latest", "2.0.0"),
        ("@acme/storage", "^1.0.0 || ^2.0.0", "2.0.0"),
        ("@acme/storage", ">=2.1.0-beta.0", "2.1.0-beta.1"),
        ("@acme/storage", "v2.0.0", "2.0.0"),
    ] {
        let c = choose(package, label);
        assert_eq!(c.release.version, want, "{package} {label}");
        let line = c.version_line();
        // The version itself, however pinned (`==1.1.0`, `v2.0.0`), needs no note.
        if label.trim_start_matches("==").trim_start_matches('v') == want {
            assert_eq!(line, want, "the version itself needs no note");
        } else {
            assert!(
                line.starts_with(&format!("{want} (asked {label} -> {want}")),
                "{package} {label}: {line}"
            );
        }
    }
    // pip's pin is exact: `==1` is release 1.0.0 (PEP 440's 1 == 1.0.0), where the label `1`
    // is the newest 1.x.
    let c = e.choose(Some("acme-storage==1"), None, None).unwrap();
    assert_eq!(c.release.version, "1.0.0");
    assert_eq!(
        e.choose(Some("acme-storage"), Some("1"), None)
            .unwrap()
            .release
            .version,
        "1.1.0"
    );
    // A package URL's own @label reads the same way.
    let c = e
        .choose(Some("pkg:pypi/acme-storage@1"), None, None)
        .unwrap();
    assert_eq!(
        c.version_line(),
        "1.1.0 (asked 1 -> 1.1.0: the newest indexed 1.*)"
    );

    // Labels that match nothing: an error naming the label and every indexed version, never
    // another release in its place. Pre-releases are not chosen by a prefix or a keyword.
    for (package, label, why) in [
        ("acme-storage", "3", "no indexed release is 3.*"),
        ("acme-storage", "2.1", "pre-releases (2.1.0rc1)"),
        ("acme-storage", ">=3", "no indexed release matches >=3"),
        ("@acme/storage", "^3", "no indexed release matches ^3"),
        ("@acme/storage", "2.1", "pre-releases (2.1.0-beta.1)"),
    ] {
        let err = e.choose(Some(package), Some(label), None).unwrap_err();
        assert!(
            matches!(err, ReleaseError::LabelMatchesNothing(_)),
            "{label}: {err:?}"
        );
        assert_eq!(err.kind(), ErrorKind::NotFound);
        assert_eq!(err.version_not_indexed(), Some(label));
        let text = err.to_string();
        assert!(text.contains(why), "{label}: {text}");
        assert!(text.contains("indexed versions: "), "{text}");
        assert!(err.indexed().len() >= 3, "{text}");
    }
    let err = e
        .choose(Some("acme-storage"), Some("2.0.1"), None)
        .unwrap_err();
    assert!(matches!(err, ReleaseError::VersionNotIndexed { .. }));
    let err = e
        .choose(Some("acme-storage"), Some("the new one"), None)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    assert!(err.to_string().contains("PEP 440"), "{err}");

    // check_version: the release a label chose is the requested one, and it says so.
    let c = e
        .lookup()
        .check_version(
            Some("acme-storage"),
            "acme_storage.StorageClient",
            Some("1"),
        )
        .unwrap();
    assert_eq!(c.requested_version.as_deref(), Some("1.1.0"));
    assert_eq!(c.available_in_requested, Some(true));
    assert_eq!(
        c.chosen_by.as_deref(),
        Some("1.1.0 (asked 1 -> 1.1.0: the newest indexed 1.*)")
    );
    let exact = e
        .lookup()
        .check_version(
            Some("acme-storage"),
            "acme_storage.StorageClient",
            Some("1.1.0"),
        )
        .unwrap();
    assert_eq!(exact.chosen_by, None);

    // A migration report between two labels names both choices.
    let d = e
        .diff()
        .diff_report("acme-storage", "1", "latest", &Default::default())
        .unwrap();
    assert_eq!((d.from.as_str(), d.to.as_str()), ("1.1.0", "2.0.0"));
    assert_eq!(
        d.chosen_by,
        [
            "from 1.1.0 (asked 1 -> 1.1.0: the newest indexed 1.*)",
            "to 2.0.0 (asked latest -> 2.0.0: the newest indexed final release)"
        ]
    );
    assert!(d.summary.removed + d.summary.added + d.summary.changed > 0);
    assert!(d.to_text().contains("asked latest -> 2.0.0"));
}

/// What the oracles say a label picks: `packaging` takes the label as the PEP 440 specifier
/// set it stands for (`8.1` is `==8.1.*`, `latest` admits every final release); node's semver
/// takes npm labels as they are.
#[test]
fn labels_agree_with_packaging_and_node_semver_on_real_release_lists() {
    let cache = cache_dir().join("registry");
    let day = Duration::from_secs(24 * 3600);
    let versions = |eco, name| {
        refgraph::fetch::registry_versions(&PackageId::new(eco, name), &cache, day)
            .expect("registry answers")
    };
    let py_cases: &[(&str, &str, &str)] = &[
        ("click", "8.1", "==8.1.*"),
        ("click", "8", "==8.*"),
        ("click", "7", "==7.*"),
        ("click", "latest", ""),
        ("click", ">=7,<8", ">=7,<8"),
        ("click", "~=8.0", "~=8.0"),
        ("click", "^7.1", ">=7.1,<8"),
        ("pydantic", "1", "==1.*"),
        // A label that is itself a release is that release (pydantic 2.0, not 2.0.3); a
        // wildcard asks for the newest of the series.
        ("pydantic", "2.0", "==2.0"),
        ("pydantic", "2.0.*", "==2.0.*"),
        ("pydantic", "2.0.x", "==2.0.*"),
        ("pydantic", ">=2.0b1,<=2.0b3", ">=2.0b1,<=2.0b3"),
        ("pydantic", "stable", ""),
    ];
    let cases: Vec<Value> = py_cases
        .iter()
        .map(|(name, _, spec)| {
            serde_json::json!({"range": spec, "versions": versions(Ecosystem::Pypi, name).versions})
        })
        .collect();
    let want: Vec<Option<String>> = oracle(
        Command::new(python()).args(["-c", PACKAGING_ORACLE]),
        &Value::from(cases),
    );
    for ((name, label, _), want) in py_cases.iter().zip(&want) {
        let listed = versions(Ecosystem::Pypi, name);
        let got = resolve(Ecosystem::Pypi, label, &listed.versions, &[], "PyPI")
            .unwrap_or_else(|e| panic!("{name} {label}: {e}"));
        let want = want.as_deref().expect("every case matches a release");
        // `packaging` prints a normalised version; the registry's spelling is what is fetched.
        assert_eq!(
            refgraph::version::version_key(Ecosystem::Pypi, &got.version),
            refgraph::version::version_key(Ecosystem::Pypi, want),
            "{name} {label}: {} vs {want}",
            got.version
        );
        eprintln!("PyPI {name} {label} -> {}", got.version);
    }

    let npm_cases: &[(&str, &str)] = &[
        ("commander", "12"),
        ("commander", "12.0"),
        ("commander", "8.x"),
        ("commander", "^9.1"),
        ("commander", ">=9 <11"),
        ("commander", "8.x || 10.0.x"),
        ("express", "4"),
        ("express", "~4.17.0"),
    ];
    let cases: Vec<Value> = npm_cases
        .iter()
        .map(|(name, label)| {
            serde_json::json!({"range": label, "versions": versions(Ecosystem::Npm, name).versions})
        })
        .collect();
    let tools = npm_install(&cache_dir(), "node_semver", "semver", "semver@7.6.3");
    let want: Vec<Option<String>> = oracle(
        Command::new("node").args(["-e", SEMVER_ORACLE, tools.to_str().unwrap()]),
        &Value::from(cases),
    );
    for ((name, label), want) in npm_cases.iter().zip(&want) {
        let listed = versions(Ecosystem::Npm, name);
        let got = resolve(Ecosystem::Npm, label, &listed.versions, &listed.tags, "npm")
            .unwrap_or_else(|e| panic!("{name} {label}: {e}"));
        assert_eq!(Some(&got.version), want.as_ref(), "{name} {label}");
        eprintln!("npm {name} {label} -> {}", got.version);
    }
    // `latest` on npm is the registry's dist-tag, as `npm view` reads it.
    for name in ["commander", "express"] {
        let out = Command::new("npm")
            .args(["view", &format!("{name}@latest"), "version"])
            .output()
            .expect("npm runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let listed = versions(Ecosystem::Npm, name);
        let got = resolve(
            Ecosystem::Npm,
            "latest",
            &listed.versions,
            &listed.tags,
            "npm",
        )
        .unwrap();
        assert_eq!(got.version, want, "{name}@latest");
        assert_eq!(got.rule.as_deref(), Some("npm dist-tag latest"));
    }
    // Nothing matches: said, with no version put in its place.
    let click = versions(Ecosystem::Pypi, "click");
    assert!(matches!(
        resolve(Ecosystem::Pypi, "99", &click.versions, &[], "PyPI"),
        Err(LabelError::NoMatch(m)) if m == "no PyPI release is 99.*"
    ));
}

fn refgraph(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_refgraph"));
    c.arg("--data-dir").arg(data);
    c.env("REFGRAPH_MODEL_DIR", data.join("no-model"));
    c
}

/// `refgraph add` takes the same labels against the registry and says what it chose; the
/// answers that follow say what was asked and which release answered.
#[test]
fn add_reads_labels_against_the_registry_and_answers_say_what_answered() {
    let data = tempfile::tempdir().unwrap();
    let cache = cache_dir().join("registry");
    let click = refgraph::fetch::registry_versions(
        &PackageId::new(Ecosystem::Pypi, "click"),
        &cache,
        Duration::from_secs(3600),
    )
    .unwrap();
    // The oracle: packaging's newest final 7.* release (click 7.1 is a release itself, so
    // `7.1` on PyPI would be that one).
    let case = serde_json::json!([{"range": "==7.*", "versions": click.versions}]);
    let want: Vec<Option<String>> =
        oracle(Command::new(python()).args(["-c", PACKAGING_ORACLE]), &case);
    let want = want[0].clone().expect("click has 7.x releases");
    let out = refgraph(data.path())
        .args([
            "--json",
            "add",
            "--no-index",
            "click@7",
            "pkg:npm/commander@^2.19",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "pkg:pypi/click: asked 7 -> {want}: the newest PyPI 7.*"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "pkg:npm/commander: asked ^2.19 -> 2.20.3: the newest npm release matching ^2.19"
        ),
        "{stderr}"
    );
    let reports: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .map(Result::unwrap)
        .collect();
    assert_eq!(reports.len(), 2, "{reports:?}");
    assert_eq!(reports[0]["release"], format!("pkg:pypi/click@{want}"));
    assert!(
        reports[0]["chosen_by"]
            .as_str()
            .unwrap()
            .starts_with("asked 7 -> ")
    );

    // The indexed releases answer labels too, and the answer's first line says which.
    let out = refgraph(data.path())
        .args([
            "api",
            "click.echo",
            "--package",
            "click",
            "--version",
            "7.1",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with(&format!(
            "[Version: {want} (asked 7.1 -> {want}: the newest indexed 7.1.*)]"
        )),
        "{stdout}"
    );
    // A label nothing indexed matches: exit 3 and the indexed versions, no substitution.
    let out = refgraph(data.path())
        .args(["api", "click.echo", "--package", "click", "--version", "8"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "no indexed release is 8.*; indexed versions: {want}"
        )),
        "{stderr}"
    );
    // On the registry, a label nothing matches names the newest releases there are.
    let out = refgraph(data.path())
        .args(["add", "--no-index", "click@99"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("pkg:pypi/click@99: no PyPI release is 99.*; newest on PyPI: "),
        "{stderr}"
    );
}
