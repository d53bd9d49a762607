//! Bad input gets a clear error and loses nothing.

use std::io::Write;

use refgraph::answer::Engine;
use refgraph::extract::Language;
use refgraph::ingest::{IngestError, Limits, read_release};
use refgraph::store::Store;

use crate::support::{copy_tree, ingest, sample};

fn snapshot(e: &Engine) -> String {
    crate::support::snapshot(e, "acme-storage", "1.0.0", "acme_storage.StorageClient")
}

#[test]
fn a_syntax_error_is_a_diagnostic_and_the_rest_of_the_release_ingests() {
    let store = Store::in_memory();
    ingest(
        &store,
        &sample("acme-storage-1.0.0"),
        "acme-storage",
        "1.0.0",
    );
    let engine = Engine::new(store.clone());
    let before = snapshot(&engine);
    let report = ingest(&store, &sample("broken-0.1.0"), "broken", "0.1.0");
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.file == "broken_pkg/bad.py" && d.message.contains("syntax error")),
        "{:?}",
        report.diagnostics
    );
    let broken = engine.choose(Some("broken"), None, None).unwrap();
    let names: Vec<String> = engine
        .lookup()
        .list(&broken, None, None, 1000, None)
        .unwrap()
        .items
        .into_iter()
        .map(|i| i.qualified_name)
        .collect();
    for n in [
        "broken_pkg.greet",
        "broken_pkg.Square",
        "broken_pkg.greetings",
        "broken_pkg.shapes",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }
    // The diagnostic is stored with the release.
    let diags = engine
        .lookup()
        .diagnostics(&broken.release.release)
        .unwrap();
    assert!(
        diags
            .iter()
            .any(|(f, line, _)| f == "broken_pkg/bad.py" && *line > 0)
    );
    assert_eq!(snapshot(&engine), before);
}

fn wheel_bytes() -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut buf);
    let root = sample("acme-storage-1.0.0");
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "py" || e == "pyi") {
                let rel = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                zip.start_file(rel, zip::write::SimpleFileOptions::default())
                    .unwrap();
                zip.write_all(&std::fs::read(&path).unwrap()).unwrap();
            }
        }
    }
    zip.finish().unwrap();
    buf.into_inner()
}

#[test]
fn a_truncated_archive_is_refused_and_the_store_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("acme_storage-1.0.0-py3-none-any.whl");
    let bytes = wheel_bytes();
    std::fs::write(&good, &bytes).unwrap();
    // The whole wheel reads like the source tree.
    let (files, _) = read_release(&good, Language::Python, &Limits::default()).unwrap();
    assert!(files.iter().any(|f| f.path == "acme_storage/_client.py"));

    let store = Store::in_memory();
    ingest(
        &store,
        &sample("acme-storage-1.0.0"),
        "acme-storage",
        "1.0.0",
    );
    let engine = Engine::new(store);
    let before = snapshot(&engine);
    let cut = dir.path().join("acme_storage-1.0.1-py3-none-any.whl");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    match read_release(&cut, Language::Python, &Limits::default()) {
        Err(IngestError::BadArchive { reason, .. }) => assert!(!reason.is_empty()),
        other => panic!("expected BadArchive, got {:?}", other.map(|f| f.0.len())),
    }
    let tgz = dir.path().join("acme-storage-1.0.1.tar.gz");
    std::fs::write(&tgz, b"\x1f\x8b\x08\x00garbage").unwrap();
    assert!(matches!(
        read_release(&tgz, Language::Python, &Limits::default()),
        Err(IngestError::BadArchive { .. })
    ));
    assert_eq!(snapshot(&engine), before);
}

#[test]
fn archive_limits_stop_oversized_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.whl");
    std::fs::write(&path, wheel_bytes()).unwrap();
    let tight = Limits {
        max_file_bytes: 64,
        ..Limits::default()
    };
    let (files, diags) = read_release(&path, Language::Python, &tight).unwrap();
    assert!(files.iter().all(|f| f.text.len() <= 64));
    assert!(diags.iter().any(|d| d.message.contains("larger than")));
    let few = Limits {
        max_entries: 2,
        ..Limits::default()
    };
    assert!(matches!(
        read_release(&path, Language::Python, &few),
        Err(IngestError::Limit(..))
    ));
}

#[test]
fn a_folder_without_python_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "hi").unwrap();
    let store = Store::in_memory();
    let (files, diags) = read_release(dir.path(), Language::Python, &Limits::default()).unwrap();
    let err = refgraph::ingest::ingest_files(
        &store,
        &refgraph::model::PackageId::new(refgraph::model::Ecosystem::Pypi, "x"),
        "1.0",
        &files,
        diags,
        "here",
        None,
    )
    .unwrap_err();
    assert!(err.to_string().contains("no Python API found"), "{err}");
}

#[test]
fn reingesting_replaces_the_release_graph_whole() {
    let store = Store::in_memory();
    ingest(
        &store,
        &sample("acme-storage-1.0.0"),
        "acme-storage",
        "1.0.0",
    );
    // The same version, re-ingested from other sources, holds only the new facts.
    ingest(
        &store,
        &sample("acme-storage-2.0.0"),
        "acme-storage",
        "1.0.0",
    );
    let e = Engine::new(store);
    let v = e.choose(Some("acme-storage"), Some("1.0.0"), None).unwrap();
    assert!(
        e.lookup()
            .api_detail(&v, "acme_storage.transfer.upload.upload_bytes")
            .is_err()
    );
    assert!(
        e.lookup()
            .api_detail(&v, "acme_storage.transfer.upload.upload_directory")
            .is_ok()
    );
    assert_eq!(e.releases().unwrap().len(), 1);
}

#[test]
fn the_cli_limits_are_configurable_and_say_how_to_raise_them() {
    let data = tempfile::tempdir().unwrap();
    let run = |args: &[&str], envs: &[(&str, &str)]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_refgraph"));
        c.arg("--data-dir").arg(data.path());
        c.args(args)
            .arg("ingest")
            .arg(sample("acme-storage-1.0.0"))
            .args(["--package", "pkg:pypi/acme-storage", "--version", "1.0.0"])
            .arg("--no-index");
        for (k, v) in envs {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    // Each limit, by flag or environment, stops the same release the defaults accept.
    for (args, envs, says) in [
        (&["--max-entries", "2"][..], &[][..], "more than 2 entries"),
        (
            &[][..],
            &[("REFGRAPH_MAX_TOTAL_BYTES", "200")][..],
            "more than 200 bytes",
        ),
    ] {
        let out = run(args, envs);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} {envs:?} passed");
        assert!(err.contains(says) && err.contains("--max-entries"), "{err}");
    }
    // A file over --max-file-bytes is skipped with a diagnostic, not a failure.
    let out = run(&["--json", "--max-file-bytes", "300"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["message"].as_str().unwrap_or("").contains("300")),
        "{report:#}"
    );
    // The refused attempts stored nothing (the --max-file-bytes one stored a release).
    let _ = std::fs::remove_dir_all(data.path());
    let out = run(&["--max-entries", "2"], &[]);
    assert!(!out.status.success());
    let listed = std::process::Command::new(env!("CARGO_BIN_EXE_refgraph"))
        .arg("--data-dir")
        .arg(data.path())
        .args(["--json", "releases"])
        .output()
        .unwrap();
    let releases: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(releases, serde_json::json!([]), "{releases}");
    // The default limits accept the release.
    let out = run(&[], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// rst_parser panics on what it does not implement (a generic `admonition`): the page is kept
/// as written, the ingest succeeds, and no panic message alarms the user.
#[test]
fn a_page_the_rst_parser_gives_up_on_is_kept_without_a_panic_message() {
    let src = tempfile::tempdir().unwrap();
    copy_tree(&sample("acme-storage-1.0.0"), src.path());
    std::fs::create_dir_all(src.path().join("docs")).unwrap();
    std::fs::write(
        src.path().join("docs/guide.rst"),
        "Guide\n=====\n\n.. admonition:: Quokka notes\n\n   Buckets hold objects.\n\nUse :meth:`StorageClient.put_object` to upload.\n",
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let refgraph = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_refgraph"))
            .arg("--data-dir")
            .arg(data.path())
            .args(args)
            .env("REFGRAPH_MODEL_DIR", "/nonexistent/refgraph-model")
            .output()
            .unwrap()
    };
    let out = refgraph(&[
        "ingest",
        src.path().to_str().unwrap(),
        "--package",
        "pkg:pypi/acme-storage",
        "--version",
        "1.0.0",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // The page was kept as written: its words are found.
    let out = refgraph(&["--json", "search", "quokka notes", "--mode", "bm25"]);
    let found = String::from_utf8_lossy(&out.stdout);
    assert!(found.contains("docs/guide.rst"), "{found}");
}

/// rst_parser's time grows much faster than a page's length: xarray 2023.1.0's sdist ships a
/// `docs/whats-new.rst` of 6,500 lines it did not finish in 5 minutes, which hung the ingest of
/// the sdist. Read from the sdist fetched from PyPI, the page converts in seconds, sections and
/// levels intact.
#[test]
fn a_long_changelog_page_converts_in_seconds() {
    let cache = crate::support::cache_dir();
    let fetched =
        refgraph::fetch::fetch_pypi_sdist("xarray", "2023.1.0", &cache.join("pypi"), &|_, _| {})
            .expect("fetching the xarray 2023.1.0 sdist from PyPI");
    // Read from the archive itself: a changelog is no page of the release's docs (ingest
    // leaves it out), but whatever page a user adds is converted the same way.
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(
        std::fs::File::open(&fetched.path).unwrap(),
    ));
    let mut text = String::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        if entry
            .path()
            .is_ok_and(|p| p.to_string_lossy().ends_with("/doc/whats-new.rst"))
        {
            std::io::Read::read_to_string(&mut entry, &mut text).unwrap();
            break;
        }
    }
    assert!(
        text.lines().count() > 6000,
        "the sdist ships doc/whats-new.rst"
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let started = std::time::Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(refgraph::extract::docs::rst_to_markdown(&text, &[]));
    });
    let md = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("converting whats-new.rst took more than a minute");
    let took = started.elapsed();
    assert!(took.as_secs() < 20, "took {took:?}");
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
    // One title, then a section per release with its kinds of change one level down.
    assert_eq!(
        headings.first().copied(),
        Some("# What's New"),
        "{headings:?}"
    );
    let at = headings
        .iter()
        .position(|h| h.starts_with("## v0.16.0"))
        .expect("the v0.16.0 section");
    assert_eq!(headings[at + 1], "### Breaking changes", "{headings:?}");
    // The page has 294 titles; a piece the parser does not take is kept as written, so a
    // few titles stay in reStructuredText.
    assert!(headings.len() > 250, "{}", headings.len());
}

/// A reader that stops early (`refgraph sparql ... | head -1`) ends the command quietly, as it
/// ends other command-line tools, not with a panic about a broken pipe.
#[test]
fn a_closed_output_pipe_ends_a_command_without_a_panic() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let data = tempfile::tempdir().unwrap();
    let ingested = Command::new(env!("CARGO_BIN_EXE_refgraph"))
        .arg("--data-dir")
        .arg(data.path())
        .arg("ingest")
        .arg(sample("acme-storage-1.0.0"))
        .args([
            "--package",
            "pkg:pypi/acme-storage",
            "--version",
            "1.0.0",
            "--no-index",
        ])
        .output()
        .unwrap();
    assert!(ingested.status.success(), "{ingested:?}");
    // Far more output than a pipe buffers (64 KiB): 10,000 rows of a cross product.
    let digits = "VALUES ?d { 0 1 2 3 4 5 6 7 8 9 }";
    let query = format!(
        "SELECT ?a ?b ?c ?d WHERE {{ {} {} {} {digits} }}",
        digits.replace("?d", "?a"),
        digits.replace("?d", "?b"),
        digits.replace("?d", "?c"),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_refgraph"))
        .arg("--data-dir")
        .arg(data.path())
        .args(["sparql", &query])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(!first.is_empty());
    // The reader is gone; the command must notice and stop.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // 128 + SIGPIPE, what a shell reports for `yes | head -1`.
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    // `chunks` writes through its own buffer: the same status when its reader is gone (here
    // before it writes at all; opening the store takes far longer than closing a pipe).
    let mut child = Command::new(env!("CARGO_BIN_EXE_refgraph"))
        .arg("--data-dir")
        .arg(data.path())
        .arg("chunks")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "chunks: {stderr}");
}

/// `refgraph list --limit N` gives N items past the engine's page of 1,000, not 1,000 and a
/// hint to raise the limit it already raised.
#[test]
fn list_follows_pages_up_to_its_limit() {
    use std::process::Command;
    let src = tempfile::tempdir().unwrap();
    let pkg = src.path().join("manyfuncs");
    std::fs::create_dir_all(&pkg).unwrap();
    let body: String = (0..1500)
        .map(|i| format!("def f{i:04}(x):\n    return x\n\n"))
        .collect();
    std::fs::write(pkg.join("__init__.py"), body).unwrap();
    let data = tempfile::tempdir().unwrap();
    let refgraph = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_refgraph"))
            .arg("--data-dir")
            .arg(data.path())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    refgraph(&[
        "ingest",
        src.path().to_str().unwrap(),
        "--package",
        "pkg:pypi/manyfuncs",
        "--version",
        "1.0",
        "--no-index",
    ]);
    let listed = refgraph(&["list", "manyfuncs", "--kind", "function", "--limit", "1400"]);
    let names: Vec<&str> = listed.lines().filter(|l| l.contains(" function")).collect();
    assert_eq!(names.len(), 1400, "{}", &listed[..200.min(listed.len())]);
    assert!(
        listed.ends_with("... 100 more (raise --limit)\n"),
        "{}",
        &listed[listed.len() - 200..]
    );
    let all = refgraph(&["list", "manyfuncs", "--kind", "function", "--limit", "2000"]);
    assert_eq!(
        all.lines().filter(|l| l.contains(" function")).count(),
        1500
    );
    assert!(!all.contains("more (raise --limit)"));
}

/// A wheel whose compiled module ships with neither source nor stub sends refgraph to the
/// release's sdist for its Cython source; when there is none to fetch (here: no such package
/// on PyPI), the wheel is read as it is and a diagnostic says why the module stays unknown.
#[test]
fn a_missing_sdist_leaves_the_wheel_whole_with_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("refgraph_no_such_pkg-1.0.0-cp311-cp311-linux_x86_64.whl");
    let mut buf = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut buf);
    for (name, text) in [
        (
            "refgraph_no_such_pkg/__init__.py",
            &b"from ._core import fast\n"[..],
        ),
        (
            "refgraph_no_such_pkg/_core.cpython-311-x86_64-linux-gnu.so",
            b"\x7fELF",
        ),
    ] {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text).unwrap();
    }
    zip.finish().unwrap();
    std::fs::write(&path, buf.into_inner()).unwrap();
    let fetched = refgraph::fetch::Fetched {
        uploaded: None,
        path,
        url: "file:///nowhere".into(),
        sha256: String::new(),
        from_cache: true,
        sdist: Default::default(),
    };
    let id = refgraph::model::PackageId::new(
        refgraph::model::Ecosystem::Pypi,
        "refgraph-no-such-pkg-7f3a",
    );
    let (files, diags) =
        refgraph::ingest::read_fetched(&id, "1.0.0", &fetched, &Limits::default()).unwrap();
    assert_eq!(files.len(), 2);
    let note = diags
        .iter()
        .find(|d| d.message.contains("could not be fetched"))
        .unwrap_or_else(|| panic!("no diagnostic about the sdist in {diags:?}"));
    assert!(
        note.message.contains("refgraph_no_such_pkg/_core"),
        "{}",
        note.message
    );
    // Said of the compiled file that is there, not of a source that is not.
    assert_eq!(
        note.file,
        "refgraph_no_such_pkg/_core.cpython-311-x86_64-linux-gnu.so"
    );
    // `refgraph ingest` of the wheel as a local file does not go to the network: it says
    // what is unknown and how to have it read.
    let local = refgraph::ingest::local_wheel_note(&id, "1.0.0", &fetched.path, &files)
        .expect("a note on the compiled module");
    assert_eq!(local.file, note.file);
    assert!(
        local.message.contains("refgraph_no_such_pkg/_core")
            && local
                .message
                .contains("refgraph add pkg:pypi/refgraph-no-such-pkg-7f3a@1.0.0"),
        "{}",
        local.message
    );
    let store = Store::in_memory();
    refgraph::ingest::ingest_files(&store, &id, "1.0.0", &files, diags, &fetched.url, None)
        .unwrap();
    let engine = Engine::new(store);
    // What the package imports from the module exists; the module's other names are unknown.
    let answer = |name: &str| {
        engine
            .lookup()
            .check_version(
                Some("pkg:pypi/refgraph-no-such-pkg-7f3a"),
                name,
                Some("1.0.0"),
            )
            .unwrap()
            .available_in_requested
    };
    assert_eq!(answer("refgraph_no_such_pkg.fast"), Some(true));
    assert_eq!(answer("refgraph_no_such_pkg._core.slow"), None);
}
