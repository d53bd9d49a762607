//! Issue 49, items 1-3: run-time inspection. Names only the run time makes answer present with
//! provenance `runtime`, checked against Python itself; a hostile release is contained and
//! reported, one test per misdeed, and the store keeps what it had.
//!
//! These tests need bubblewrap (`apt-get install bubblewrap`, which `.ci/run` does): without it
//! they fail, saying so, rather than pass untested.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use refgraph::answer::Engine;
use refgraph::extract::Language;
use refgraph::ingest::{Limits, ingest_files_inspecting, read_release};
use refgraph::inspect::{InspectOptions, ModuleOutcome, Subject, inspect};
use refgraph::model::{Ecosystem, PackageId};
use refgraph::store::Store;

use crate::support::sample;

/// One inspection at a time: the process checks below count the sandbox's processes.
static SANDBOX: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    SANDBOX.lock().unwrap_or_else(|e| e.into_inner())
}

fn options() -> InspectOptions {
    let o = InspectOptions {
        module_seconds: 5,
        memory_bytes: 1 << 30,
        cpu_seconds: 60,
        ..Default::default()
    };
    refgraph::inspect::available(&o).unwrap_or_else(|e| panic!("{e}"));
    o
}

/// Ingests a sample folder, with inspection when `inspect` is given.
fn ingest(
    store: &Store,
    dir: &Path,
    name: &str,
    inspect: Option<&InspectOptions>,
) -> refgraph::ingest::IngestReport {
    let package = PackageId::new(Ecosystem::Pypi, name);
    let (files, diags) = read_release(dir, Language::Python, &Limits::default()).unwrap();
    ingest_files_inspecting(
        store,
        &package,
        "1.0.0",
        &files,
        diags,
        &dir.display().to_string(),
        None,
        &Default::default(),
        inspect.map(|o| (Subject::Tree(dir), o)),
    )
    .unwrap()
}

/// What Python itself binds: every public name of the modules, imported outside any sandbox
/// (the sample is ours and harmless).
fn python_names(dir: &Path, modules: &[&str]) -> Vec<String> {
    let script = format!(
        "import importlib, sys\nsys.path.insert(0, {:?})\nfor m in {:?}:\n    mod = importlib.import_module(m)\n    for n in dir(mod):\n        if not n.startswith('_') and not type(getattr(mod, n)).__name__ == 'module':\n            print(m + '.' + n)\n",
        dir.display().to_string(),
        modules
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn names_made_at_import_answer_present_with_runtime_provenance() {
    let _g = lock();
    let dir = sample("unitkit-1.0.0");
    let modules = ["unitkit", "unitkit.si", "unitkit.quantities"];
    let truth = python_names(&dir, &modules);
    assert!(truth.len() > 20, "{truth:?}");

    // Without inspection: the names the source does not show are unknown, never absent, and
    // the report says which modules inspection would help.
    let plain = Store::in_memory();
    let report = ingest(&plain, &dir, "unitkit", None);
    assert_eq!(report.unknown_modules, modules_sorted(&modules));
    assert!(report.inspection.is_none());
    let e = Engine::new(plain);
    let c = e
        .lookup()
        .check_version(Some("unitkit"), "unitkit.km", Some("1.0.0"))
        .unwrap();
    assert_eq!(c.available_in_requested, None);
    assert!(c.unknown_reason.is_some());

    // With it: every name Python binds is present; those the source does not show say so.
    let store = Store::in_memory();
    let report = ingest(&store, &dir, "unitkit", Some(&options()));
    let summary = report.inspection.expect("inspected");
    assert_eq!(summary.modules_imported, 3, "{summary:?}");
    assert!(summary.modules_failed.is_empty(), "{summary:?}");
    let e = Engine::new(store);
    let mut runtime_only = 0;
    for name in &truth {
        let c = e
            .lookup()
            .check_version(Some("unitkit"), name, Some("1.0.0"))
            .unwrap();
        assert_eq!(c.available_in_requested, Some(true), "{name}: {c:?}");
        runtime_only += usize::from(c.provenance.is_some());
    }
    // Unit, def_unit and Quantity are read from the source; the units, the classes made in a
    // loop and the functions a factory made are not.
    assert!(runtime_only >= 20, "{runtime_only} of {}", truth.len());
    let static_one = e
        .lookup()
        .check_version(Some("unitkit"), "unitkit.Unit", Some("1.0.0"))
        .unwrap();
    assert_eq!(static_one.provenance, None);
    let v1 = e
        .choose(Some("pkg:pypi/unitkit"), Some("1.0.0"), None)
        .unwrap();
    // A function a factory made: its signature from inspect.signature, its file and line.
    let d = e.lookup().api_detail(&v1, "unitkit.convert_mass").unwrap();
    assert_eq!(d.signature.as_deref(), Some("(value, unit, *, to=None)"));
    assert_eq!(d.source.file.as_deref(), Some("unitkit/quantities.py"));
    assert_eq!(d.source.line, Some(18));
    assert!(
        d.provenance
            .as_deref()
            .unwrap_or("")
            .starts_with("runtime: "),
        "{d:?}"
    );
    // One object under four names is one symbol.
    let km = e.lookup().api_detail(&v1, "unitkit.si.kilometer").unwrap();
    assert_eq!(km.qualified_name, "unitkit.km");
    assert_eq!(km.kind, "attribute");
    // A name neither the source nor the import binds stays unknown: one interpreter's import
    // does not prove absence on every platform.
    let c = e
        .lookup()
        .check_version(Some("unitkit"), "unitkit.mile", Some("1.0.0"))
        .unwrap();
    assert_eq!(c.available_in_requested, None);
    // A static name the import did not bind (a Windows-only function) is kept, and said.
    let c = e
        .lookup()
        .check_version(
            Some("unitkit"),
            "unitkit.windows_registry_units",
            Some("1.0.0"),
        )
        .unwrap();
    assert_eq!(c.available_in_requested, Some(true));
    assert!(
        report.diagnostics.iter().any(
            |d| d.message.contains("windows_registry_units") && d.message.contains("not bound")
        ),
        "{:?}",
        report.diagnostics
    );
}

fn modules_sorted(m: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = m.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// A copy of the hostile sample in a fresh folder (the tests look for what it leaves).
fn hostile() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join("hostile");
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(sample("hostile-1.0.0").join("hostile")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
    let root = tmp.path().to_path_buf();
    (tmp, root)
}

/// Runs one hostile module, then the well-behaved one: the second is still read.
fn run_hostile(root: &Path, module: &str, opts: &InspectOptions) -> (ModuleOutcome, Duration) {
    let start = Instant::now();
    let modules = vec![format!("hostile.{module}"), "hostile.good".to_string()];
    let run = inspect(Subject::Tree(root), &modules, opts).unwrap();
    let took = start.elapsed();
    match run.modules.get("hostile.good") {
        Some(ModuleOutcome::Imported { names, .. }) => {
            assert!(names.contains_key("answer"), "{names:?}")
        }
        other => panic!("hostile.good after hostile.{module}: {other:?}"),
    }
    assert_eq!(
        sandbox_processes(),
        0,
        "processes left after hostile.{module}"
    );
    (run.modules[&format!("hostile.{module}")].clone(), took)
}

/// Processes still running the probe.
fn sandbox_processes() -> usize {
    let mut n = 0;
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline"))
            && String::from_utf8_lossy(&cmd).contains("inspect_probe.py")
        {
            n += 1;
        }
    }
    n
}

#[test]
fn hostile_network_is_unreachable() {
    let _g = lock();
    let (_tmp, root) = hostile();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    std::fs::write(root.join("hostile/_port.txt"), port.to_string()).unwrap();
    let (outcome, _) = run_hostile(&root, "network", &options());
    let ModuleOutcome::Imported { names, .. } = outcome else {
        panic!("{outcome:?}")
    };
    assert!(names.contains_key("network_tried"), "{names:?}");
    assert!(!names.contains_key("network_reached"), "{names:?}");
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the sandbox reached the host's loopback"
    );
}

#[test]
fn hostile_writes_outside_its_folder_are_refused() {
    let _g = lock();
    let (_tmp, root) = hostile();
    let (outcome, _) = run_hostile(&root, "escape", &options());
    assert!(
        matches!(outcome, ModuleOutcome::Imported { .. }),
        "{outcome:?}"
    );
    for p in [
        root.join("hostile/escaped.txt"),
        PathBuf::from("/tmp/refgraph-hostile-escaped.txt"),
        PathBuf::from("/root/refgraph-hostile-escaped.txt"),
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join("refgraph-hostile-escaped.txt"),
    ] {
        assert!(!p.exists(), "{} was written", p.display());
    }
}

#[test]
fn hostile_fork_bomb_is_bounded_and_every_process_killed() {
    let _g = lock();
    let (_tmp, root) = hostile();
    let (outcome, _) = run_hostile(&root, "forkbomb", &options());
    // The process limit stops the forks; the import then finishes, and the sleeping children
    // die with the sandbox (run_hostile counts them).
    assert!(
        matches!(&outcome, ModuleOutcome::Imported { names, .. } if names.contains_key("forkbomb_forked")),
        "{outcome:?}"
    );
}

#[test]
fn hostile_endless_loop_runs_out_of_cpu_time() {
    let _g = lock();
    let (_tmp, root) = hostile();
    let opts = InspectOptions {
        cpu_seconds: 2,
        module_seconds: 30,
        ..options()
    };
    let (outcome, took) = run_hostile(&root, "spin", &opts);
    let ModuleOutcome::Failed(why) = outcome else {
        panic!("{outcome:?}")
    };
    assert!(why.contains("CPU time"), "{why}");
    assert!(took < Duration::from_secs(25), "{took:?}");
}

#[test]
fn hostile_allocation_of_ten_gigabytes_fails_inside() {
    let _g = lock();
    let (_tmp, root) = hostile();
    let (outcome, _) = run_hostile(&root, "hog", &options());
    let ModuleOutcome::Failed(why) = outcome else {
        panic!("{outcome:?}")
    };
    assert!(why.contains("MemoryError"), "{why}");
}

#[test]
fn hostile_import_that_never_returns_is_killed_at_its_budget() {
    let _g = lock();
    let (_tmp, root) = hostile();
    let opts = InspectOptions {
        module_seconds: 3,
        ..options()
    };
    let (outcome, took) = run_hostile(&root, "hang", &opts);
    let ModuleOutcome::Failed(why) = outcome else {
        panic!("{outcome:?}")
    };
    assert!(why.contains("did not finish within 3 s"), "{why}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// The whole hostile release through the ingest path, into a store that holds another
/// release: that release is unharmed, and the hostile one is stored with what went wrong.
#[test]
fn a_hostile_release_inspected_leaves_the_store_whole() {
    let _g = lock();
    let (_tmp, root) = hostile();
    let store = Store::in_memory();
    crate::support::ingest(
        &store,
        &sample("acme-storage-1.0.0"),
        "acme-storage",
        "1.0.0",
    );
    let before = crate::support::snapshot(
        &Engine::new(store.clone()),
        "acme-storage",
        "1.0.0",
        "acme_storage.StorageClient",
    );
    let opts = InspectOptions {
        module_seconds: 3,
        ..options()
    };
    let report = ingest(&store, &root, "hostile", Some(&opts));
    let summary = report.inspection.expect("inspected");
    let failed: Vec<&str> = summary
        .modules_failed
        .iter()
        .map(|(m, _)| m.as_str())
        .collect();
    assert_eq!(failed, ["hostile.hang", "hostile.hog", "hostile.spin"]);
    assert_eq!(sandbox_processes(), 0);
    let e = Engine::new(store);
    assert_eq!(
        crate::support::snapshot(&e, "acme-storage", "1.0.0", "acme_storage.StorageClient"),
        before
    );
    let c = e
        .lookup()
        .check_version(Some("hostile"), "hostile.good.answer", Some("1.0.0"))
        .unwrap();
    assert_eq!(c.available_in_requested, Some(true));
    assert!(c.provenance.is_some());
}

/// `config.toml`'s `[inspect] packages` inspects those packages' releases without `--inspect`
/// (and only those); `--no-inspect` runs no package code; a misspelt setting is refused.
#[test]
fn a_config_lists_the_packages_inspected_without_the_flag() {
    let _g = lock();
    options();
    let data = tempfile::tempdir().unwrap();
    let ingest = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_refgraph"))
            .arg("--data-dir")
            .arg(data.path())
            .arg("--json")
            .arg("ingest")
            .arg(sample("unitkit-1.0.0"))
            .args(["--package", "unitkit", "--version", "1.0.0", "--no-index"])
            .args(extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let report: Option<serde_json::Value> = serde_json::from_slice(&out.stdout).ok();
        (out.status.success(), report, stderr)
    };
    let config = data.path().join("config.toml");
    let names_added = |r: &Option<serde_json::Value>| {
        r.as_ref().expect("a report")["inspection"]["names_added"].as_u64()
    };

    std::fs::write(
        &config,
        "[inspect]\npackages = [\"unitkit\"]\nseconds = 10\n",
    )
    .unwrap();
    let (ok, report, stderr) = ingest(&[]);
    assert!(ok, "{stderr}");
    assert!(names_added(&report).unwrap() >= 20, "{report:?}");

    let (ok, report, stderr) = ingest(&["--no-inspect"]);
    assert!(ok, "{stderr}");
    assert_eq!(names_added(&report), None, "{report:?}");

    std::fs::write(&config, "[inspect]\npackages = [\"h5py\"]\n").unwrap();
    let (ok, report, stderr) = ingest(&[]);
    assert!(ok, "{stderr}");
    assert_eq!(names_added(&report), None, "{report:?}");

    std::fs::write(&config, "[inspect]\npackage = [\"unitkit\"]\n").unwrap();
    let (ok, _, stderr) = ingest(&[]);
    assert!(!ok);
    assert!(
        stderr.contains("config.toml") && stderr.contains("unknown field `package`"),
        "{stderr}"
    );
}
