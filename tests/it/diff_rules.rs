//! Every diff rule on its own sample pair (`samples/diff/<rule>/`, one kind of change each):
//! the rule fires, nothing breaking fires that the pair does not contain, and the text,
//! Markdown and JSON reports are snapshots (`tests/it/snapshots/`).

use std::path::{Path, PathBuf};

use refgraph::answer::Engine;
use refgraph::diff::{DiffOptions, DiffReport, rules};
use refgraph::model::PackageId;
use refgraph::store::Store;

use crate::support::{repo, try_ingest};

fn pairs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("samples/diff"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The pair's two releases and the package they are ingested as: a `package.json` makes it
/// npm, `1.0.0.yaml` an OpenAPI spec, anything else a Python source root.
fn release(dir: &Path, version: &str) -> (PathBuf, PackageId) {
    let spec = dir.join(format!("{version}.yaml"));
    if spec.exists() {
        return (
            spec,
            PackageId::new(refgraph::model::Ecosystem::Generic, "diffcase"),
        );
    }
    let root = dir.join(version);
    let ecosystem = if root.join("package.json").exists() {
        refgraph::model::Ecosystem::Npm
    } else {
        refgraph::model::Ecosystem::Pypi
    };
    (root, PackageId::new(ecosystem, "diffcase"))
}

fn diff(dir: &Path) -> DiffReport {
    let store = Store::in_memory();
    let mut package = None;
    for v in ["1.0.0", "2.0.0"] {
        let (path, id) = release(dir, v);
        let report = try_ingest(&store, &path, &id, v).expect("sample ingests");
        assert!(
            report.diagnostics.is_empty(),
            "{}: {:?}",
            path.display(),
            report.diagnostics
        );
        package = Some(id);
    }
    let purl = package.unwrap().purl();
    Engine::new(store)
        .diff()
        .diff_report(&purl, "1.0.0", "2.0.0", &DiffOptions::default())
        .unwrap()
}

#[test]
fn every_rule_fires_on_its_sample_pair_and_the_reports_are_as_reviewed() {
    let mut failures = Vec::new();
    for dir in pairs() {
        let rule = dir.file_name().unwrap().to_str().unwrap().to_string();
        let d = diff(&dir);
        if !d.summary.by_rule.contains_key(&rule) {
            failures.push(format!(
                "{rule}: did not fire; found {:?}",
                d.summary.by_rule
            ));
        }
        let json = serde_json::to_string_pretty(&d).unwrap();
        let all = format!(
            "{}\n\n---- markdown ----\n{}\n---- json ----\n{json}\n",
            d.to_text(),
            d.to_markdown()
        );
        insta::assert_snapshot!(rule.clone(), all);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_a_sample_pair() {
    let dirs: Vec<String> = pairs()
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    for r in rules::all() {
        assert!(
            dirs.iter().any(|d| d == r.id()),
            "rule {} has no samples/diff/{}/ pair",
            r.id(),
            r.id()
        );
    }
    assert!(dirs.iter().any(|d| d == "probable_rename"));
}

/// `docs/diff-report.schema.json` is the schema the code produces: regenerate it with
/// `refgraph diff --schema > docs/diff-report.schema.json` when the report changes.
#[test]
fn the_published_json_schema_is_the_reports_schema() {
    let published: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("docs/diff-report.schema.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(published, refgraph::diff::render::json_schema());
    // Every field a report carries is described.
    let props = &published["properties"];
    for k in ["package", "from", "to", "summary", "changes"] {
        assert!(props.get(k).is_some(), "schema lacks {k}");
    }
    let change = &published["$defs"]["Change"]["properties"];
    for k in [
        "kind",
        "qualified_name",
        "severity",
        "rule",
        "detail",
        "replacement",
    ] {
        assert!(change.get(k).is_some(), "schema lacks Change.{k}");
    }
}

fn refgraph(data: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_refgraph"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .output()
        .expect("refgraph runs")
}

/// The CLI gate a CI job would use: `--fail-on` exit codes, an ignore file, every format.
#[test]
fn diff_cli_formats_fail_on_and_ignore_file() {
    let data = tempfile::tempdir().unwrap();
    for v in ["1.0.0", "2.0.0"] {
        let path = repo().join(format!("samples/python/acme-storage-{v}"));
        let out = refgraph(
            data.path(),
            &[
                "ingest",
                path.to_str().unwrap(),
                "--package",
                "pkg:pypi/acme-storage",
                "--version",
                v,
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let diff = |extra: &[&str]| {
        let mut args = vec!["diff", "acme-storage", "1.0.0", "2.0.0"];
        args.extend_from_slice(extra);
        refgraph(data.path(), &args)
    };
    let json = diff(&["--format", "json"]);
    assert_eq!(json.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let changes = report["changes"].as_array().unwrap().len();
    let breaking = report["summary"]["breaking"].as_u64().unwrap();
    assert!(breaking > 0 && changes as u64 > breaking);

    // --fail-on: 4 when a change of that severity (or worse) is there.
    assert_eq!(diff(&["--fail-on", "breaking"]).status.code(), Some(4));
    assert_eq!(
        diff(&["--fail-on", "possibly-breaking"]).status.code(),
        Some(4)
    );

    // An ignore file listing every breaking rule found lets the gate pass, and says so.
    let rules: Vec<String> = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["breaking"] == true)
        .map(|c| c["rule"].as_str().unwrap().to_string())
        .collect();
    let ignore = data.path().join("ignore");
    std::fs::write(
        &ignore,
        format!("# accepted for 2.0\n{}\n", rules.join("\n")),
    )
    .unwrap();
    let ignored = diff(&[
        "--fail-on",
        "breaking",
        "--ignore",
        ignore.to_str().unwrap(),
    ]);
    assert_eq!(ignored.status.code(), Some(0));
    let text = String::from_utf8_lossy(&ignored.stdout);
    assert!(text.contains(&format!("; {breaking} ignored")), "{text}");
    std::fs::write(&ignore, "no_such_rule\n").unwrap();
    let bad = diff(&["--ignore", ignore.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no rule is called `no_such_rule`"));

    // Markdown: one table row per change; HTML: one row per change, the filters, no outside
    // requests.
    let md = String::from_utf8(diff(&["--format", "md"]).stdout).unwrap();
    assert_eq!(md.lines().filter(|l| l.starts_with("| `")).count(), changes);
    let html = String::from_utf8(diff(&["--format", "html"]).stdout).unwrap();
    assert_eq!(html.matches("<tr class=\"change\"").count(), changes);
    assert!(html.contains("class=\"severity\"") && html.contains("id=\"module\""));
    assert!(!html.contains("http://") && !html.contains("src=\"http"));

    // --rules lists every registered rule.
    let listed = String::from_utf8(refgraph(data.path(), &["diff", "--rules"]).stdout).unwrap();
    assert_eq!(listed.lines().count(), rules::all().len());
}

/// The HTML report in headless Chromium (tests/browser/diff_report.py, Selenium): it renders
/// (a screenshot with content), and unticking a severity or picking a module hides exactly
/// the other rows.
#[test]
fn html_report_renders_and_its_filters_work_in_headless_chromium() {
    let d = crate::support::acme()
        .diff()
        .diff_report("acme-storage", "1.0.0", "2.0.0", &DiffOptions::default())
        .unwrap();
    let dir = crate::support::cache_dir().join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("acme-storage-1.0.0-2.0.0.html");
    let shot = dir.join("acme-storage-1.0.0-2.0.0.png");
    let _ = std::fs::remove_file(&shot);
    std::fs::write(&page, d.to_html()).unwrap();
    let out = std::process::Command::new(crate::openapi::oracle::python())
        .arg(repo().join("tests/browser/diff_report.py"))
        .arg(&page)
        .arg(&shot)
        .output()
        .expect("python runs (scripts/setup installs selenium, chromium and its driver)");
    assert!(
        out.status.success(),
        "browser check failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = d.changes.len() as u64;
    let breaking = d.changes.iter().filter(|c| c.breaking).count() as u64;
    assert!(breaking > 0 && breaking < rows, "{seen}");
    assert_eq!(seen["title"], "pkg:pypi/acme-storage 1.0.0 → 2.0.0");
    assert_eq!(seen["rows"], rows);
    assert_eq!(seen["visible"], rows);
    assert_eq!(seen["visible_without_breaking"], rows - breaking);
    assert!(
        !seen["severities_without_breaking"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "breaking"),
        "{seen}"
    );
    assert_eq!(
        seen["shown_text"],
        format!("{} of {rows} shown", rows - breaking)
    );
    let in_module = seen["visible_in_module"].as_u64().unwrap();
    assert!(in_module > 0 && in_module < rows, "{seen}");
    assert_eq!(
        seen["modules_of_visible"],
        serde_json::json!([seen["module"]])
    );
    // The screenshot is a real render: a PNG of some size, not a blank page.
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    assert!(
        png.len() > 30_000,
        "screenshot is {} bytes: blank?",
        png.len()
    );
}
