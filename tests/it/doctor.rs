//! Issue 50, item 4: `refgraph doctor` names each problem with the command that fixes it, and
//! exits 0 only when all is well.

use std::path::Path;

use crate::support::sample;

/// Runs `refgraph --json doctor` on `data` with the model looked for in `model`: exit status
/// and the checks by name.
fn doctor(data: &Path, model: &Path) -> (bool, serde_json::Map<String, serde_json::Value>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_refgraph"))
        .arg("--data-dir")
        .arg(data)
        .arg("--model-dir")
        .arg(model)
        .args(["--json", "doctor"])
        .env_remove("REFGRAPH_CONFIG")
        .output()
        .unwrap();
    let checks: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let by_name = checks
        .into_iter()
        .map(|c| (c["name"].as_str().unwrap().to_string(), c))
        .collect();
    (out.status.success(), by_name)
}

fn status<'a>(checks: &'a serde_json::Map<String, serde_json::Value>, name: &str) -> &'a str {
    checks[name]["status"].as_str().unwrap()
}

fn fix<'a>(checks: &'a serde_json::Map<String, serde_json::Value>, name: &str) -> &'a str {
    checks[name]["fix"].as_str().unwrap_or_default()
}

#[test]
fn doctor_names_each_problem_with_its_fix_and_passes_only_when_all_is_well() {
    // Where scripts/test installs the model.
    let model = std::env::var_os("REFGRAPH_MODEL_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| crate::support::cache_dir().join("model"));
    let data = tempfile::tempdir().unwrap();

    // A fresh machine with the model installed: no store yet is a note, not a problem.
    let (ok, checks) = doctor(data.path(), &model);
    assert_eq!(status(&checks, "model"), "ok", "{checks:?}");
    assert_eq!(status(&checks, "glossary"), "ok", "{checks:?}");
    assert_eq!(status(&checks, "store"), "note", "{checks:?}");
    assert_eq!(status(&checks, "PyPI"), "ok", "{checks:?}");
    assert_eq!(status(&checks, "npm"), "ok", "{checks:?}");
    assert!(ok, "{checks:?}");

    // No model: a problem, fixed by installing it.
    let (ok, checks) = doctor(data.path(), &data.path().join("no-model"));
    assert!(!ok);
    assert_eq!(status(&checks, "model"), "problem");
    assert!(fix(&checks, "model").starts_with("refgraph model install"));

    // A store another process holds, then a stale release in it.
    let store_dir = data.path().join("store");
    {
        let store = refgraph::store::Store::open(&store_dir).unwrap();
        crate::support::ingest(
            &store,
            &sample("acme-storage-1.0.0"),
            "acme-storage",
            "1.0.0",
        );
        crate::support::make_stale(&store, "pkg:pypi/acme-storage@1.0.0");
        store.flush().unwrap();
        let (ok, checks) = doctor(data.path(), &model);
        assert!(!ok);
        assert_eq!(status(&checks, "store"), "problem", "{checks:?}");
        assert!(fix(&checks, "store").contains("holds the store's lock"));
        // A writer beside it fails with that error and exit code 1; it used to crash on
        // dropping RocksDB's error (SIGSEGV, after printing it).
        let ingest = std::process::Command::new(env!("CARGO_BIN_EXE_refgraph"))
            .arg("--data-dir")
            .arg(data.path())
            .arg("ingest")
            .arg(sample("acme-storage-1.0.0"))
            .args([
                "--package",
                "acme-storage",
                "--version",
                "1.0.0",
                "--no-index",
            ])
            .output()
            .unwrap();
        assert_eq!(ingest.status.code(), Some(1), "{ingest:?}");
        assert!(String::from_utf8_lossy(&ingest.stderr).contains("LOCK"));
    }
    let (ok, checks) = doctor(data.path(), &model);
    assert!(!ok);
    assert_eq!(status(&checks, "store"), "ok", "{checks:?}");
    assert_eq!(status(&checks, "stale releases"), "problem");
    // Ingested from a folder: the fix ingests the folder again, not a registry release.
    let f = fix(&checks, "stale releases");
    assert!(
        f.starts_with("refgraph ingest ") && f.contains("acme-storage-1.0.0"),
        "{f}"
    );

    // A broken config.toml is a finding, not a failed command.
    std::fs::write(data.path().join("config.toml"), "[inspect]\nseconds = 0\n").unwrap();
    let (ok, checks) = doctor(data.path(), &model);
    assert!(!ok);
    assert_eq!(status(&checks, "config"), "problem");
    assert!(fix(&checks, "config").contains("config.toml"));
}
