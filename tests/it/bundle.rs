//! Offline bundles (issue 50, item 3): `refgraph export` on one data directory, `refgraph import`
//! on another with no network and no sentence model: the same answers, the same concept-search
//! ranking; a damaged, truncated or incompatible bundle is refused and writes nothing.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::repo;

fn refgraph(data: &Path, model: Option<&Path>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_refgraph"));
    c.arg("--data-dir").arg(data).args(args);
    match model {
        Some(m) => c.env("REFGRAPH_MODEL_DIR", m),
        None => c.env("REFGRAPH_MODEL_DIR", data.join("no-model")),
    };
    // No registry is reachable from the importing machine.
    c.env("REFGRAPH_PYPI_URL", "http://127.0.0.1:9/pypi")
        .env("REFGRAPH_NPM_URL", "http://127.0.0.1:9");
    c.output().unwrap()
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(out: Output, what: &str) -> Value {
    serde_json::from_str(&ok(out, what)).unwrap()
}

/// The sentence model the test suite installs (scripts/test), if this run has it.
fn model() -> Option<PathBuf> {
    std::env::var_os("REFGRAPH_MODEL_DIR")
        .map(PathBuf::from)
        .filter(|m| m.join("model.onnx").exists())
}

/// What a client sees of a data directory: symbols, versions, a diff, and concept-search
/// rankings with their scores. The first [`NO_QUERY_VECTOR`] need no query embedded.
const NO_QUERY_VECTOR: usize = 7;

fn answers(data: &Path, model: Option<&Path>) -> Vec<Value> {
    let q = |args: &[&str]| json(refgraph(data, model, args), &args.join(" "));
    let mut out = vec![
        q(&["--json", "releases"]),
        q(&[
            "--json",
            "api",
            "acme_storage.StorageClient.upload_file",
            "--package",
            "acme-storage",
            "--version",
            "2.0.0",
        ]),
        q(&[
            "--json",
            "api",
            "@acme/storage:StorageClient.put",
            "--package",
            "@acme/storage",
            "--version",
            "1.0.0",
        ]),
        q(&[
            "--json",
            "versions",
            "acme_storage.StorageClient.generate_presigned_url",
            "--package",
            "acme-storage",
        ]),
        q(&["--json", "diff", "acme-storage", "1.0.0", "2.0.0"]),
        q(&["--json", "list", "acme-storage", "--version", "1"]),
    ];
    for (query, mode) in [
        ("delete objects older than a date", "bm25"),
        ("give someone a temporary link to download a file", "fused"),
        ("delete objects older than a date", "fused"),
        ("retry a failed upload", "vector"),
    ] {
        if mode != "bm25" && model.is_none() {
            continue;
        }
        let mut v = q(&[
            "--json",
            "search",
            query,
            "--package",
            "acme-storage",
            "--mode",
            mode,
        ]);
        // Timing is not an answer.
        if let Some(o) = v.as_object_mut() {
            o.remove("took_ms");
        }
        out.push(v);
    }
    out
}

fn populate(data: &Path, model: Option<&Path>) {
    for (path, package, version) in [
        (
            "samples/python/acme-storage-1.0.0",
            "pkg:pypi/acme-storage",
            "1.0.0",
        ),
        (
            "samples/python/acme-storage-2.0.0",
            "pkg:pypi/acme-storage",
            "2.0.0",
        ),
        (
            "samples/npm/acme-storage-1.0.0",
            "pkg:npm/@acme/storage",
            "1.0.0",
        ),
    ] {
        let p = repo().join(path);
        ok(
            refgraph(
                data,
                model,
                &[
                    "ingest",
                    p.to_str().unwrap(),
                    "--package",
                    package,
                    "--version",
                    version,
                ],
            ),
            path,
        );
    }
    let docs = repo().join("samples/docs/acme-storage");
    ok(
        refgraph(
            data,
            model,
            &[
                "docs",
                docs.to_str().unwrap(),
                "--package",
                "acme-storage",
                "--version",
                "2.0.0",
                "--base-url",
                "https://docs.acme.dev/",
            ],
        ),
        "docs",
    );
}

/// The members of a bundle, to damage one on purpose.
fn unpack(bundle: &Path) -> Vec<(String, Vec<u8>)> {
    let f = std::fs::File::open(bundle).unwrap();
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(f));
    tar.entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let name = e.path().unwrap().to_string_lossy().into_owned();
            let mut b = Vec::new();
            e.read_to_end(&mut b).unwrap();
            (name, b)
        })
        .collect()
}

fn pack(members: &[(String, Vec<u8>)], to: &Path) {
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(to).unwrap(),
        flate2::Compression::fast(),
    );
    let mut tar = tar::Builder::new(gz);
    for (name, bytes) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, name, bytes.as_slice()).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap();
}

#[test]
fn an_imported_bundle_answers_as_the_machine_that_exported_it() {
    let model = model();
    let model = model.as_deref();
    let here = tempfile::tempdir().unwrap();
    populate(here.path(), model);
    let bundle = here.path().join("acme.refgraph");
    let report = json(
        refgraph(
            here.path(),
            model,
            &["--json", "export", "--all", "-o", bundle.to_str().unwrap()],
        ),
        "export",
    );
    assert_eq!(report["releases"].as_array().unwrap().len(), 3, "{report}");
    if model.is_some() {
        assert!(report["vectors"].as_u64().unwrap() > 10, "{report}");
    }
    let before = answers(here.path(), model);

    // The other machine: no registry, and no sentence model; the bundle's vectors rank.
    let there = tempfile::tempdir().unwrap();
    let checked = ok(
        refgraph(
            there.path(),
            None,
            &["import", "--check", bundle.to_str().unwrap()],
        ),
        "check",
    );
    assert!(checked.contains("every member checks out"), "{checked}");
    assert!(checked.contains("pkg:pypi/acme-storage@2.0.0"), "{checked}");
    assert!(
        !there.path().join("store").exists(),
        "--check writes nothing"
    );
    let imported = json(
        refgraph(
            there.path(),
            None,
            &["--json", "import", bundle.to_str().unwrap()],
        ),
        "import",
    );
    assert_eq!(imported["warnings"], serde_json::json!([]), "{imported}");
    assert_eq!(imported["vectors"], report["vectors"], "{imported}");
    // Without a model here a search still ranks with the bundle's vectors of the documents,
    // but cannot embed a new query: compare what needs no query vector.
    let after_without_model = answers(there.path(), None);
    let without_vectors = |all: &[Value]| -> Vec<Value> { all[..NO_QUERY_VECTOR].to_vec() };
    assert_eq!(
        without_vectors(&before),
        without_vectors(&after_without_model),
        "lookups, diffs and BM25 search agree"
    );
    // With the same model installed there, every ranking agrees too, and nothing was
    // re-embedded to get there.
    if model.is_some() {
        assert_eq!(
            before,
            answers(there.path(), model),
            "fused and vector search agree"
        );
    }
    // Importing again replaces the releases with themselves, whole: doc pages added here to a
    // release in the bundle since are gone with the rest of the old release.
    let docs = repo().join("samples/docs/acme-storage");
    ok(
        refgraph(
            there.path(),
            None,
            &[
                "docs",
                docs.to_str().unwrap(),
                "--package",
                "acme-storage",
                "--version",
                "1.0.0",
            ],
        ),
        "docs here",
    );
    let has_docs = |data: &Path| {
        ok(
            refgraph(
                data,
                None,
                &[
                    "sparql",
                    "ASK { GRAPH <pkg:pypi/acme-storage@1.0.0/docs> { ?s ?p ?o } }",
                ],
            ),
            "ask",
        )
        .contains("true")
    };
    assert!(has_docs(there.path()));
    ok(
        refgraph(there.path(), None, &["import", bundle.to_str().unwrap()]),
        "import again",
    );
    assert!(!has_docs(there.path()), "the old release's doc pages went");
    assert_eq!(
        without_vectors(&answers(there.path(), None)),
        without_vectors(&before)
    );
}

#[test]
fn a_damaged_truncated_or_incompatible_bundle_is_refused_and_writes_nothing() {
    let here = tempfile::tempdir().unwrap();
    populate(here.path(), None);
    let bundle = here.path().join("acme.refgraph");
    ok(
        refgraph(
            here.path(),
            None,
            &["export", "acme-storage", "-o", bundle.to_str().unwrap()],
        ),
        "export",
    );
    // The machine that imports already has a release; a refused bundle must not touch it.
    let there = tempfile::tempdir().unwrap();
    let sample = repo().join("samples/python/acme-storage-1.0.0");
    ok(
        refgraph(
            there.path(),
            None,
            &[
                "ingest",
                sample.to_str().unwrap(),
                "--package",
                "pkg:pypi/mine",
                "--version",
                "0.1.0",
            ],
        ),
        "ingest",
    );
    let snapshot = || {
        (
            ok(
                refgraph(there.path(), None, &["--json", "releases"]),
                "releases",
            ),
            ok(
                refgraph(
                    there.path(),
                    None,
                    &[
                        "sparql",
                        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
                    ],
                ),
                "count",
            ),
        )
    };
    let before = snapshot();
    let refused = |file: &Path, why: &str| {
        let out = refgraph(there.path(), None, &["import", file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!out.status.success(), "{why}: accepted");
        assert!(stderr.contains(why), "{why}: {stderr}");
        assert_eq!(snapshot(), before, "{why}: the store is as it was");
    };
    // Cut short (a copy that stopped halfway).
    let bytes = std::fs::read(&bundle).unwrap();
    let cut = there.path().join("cut.refgraph");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    refused(&cut, "not a refgraph bundle");
    // A member changed after export: its hash no longer matches.
    let mut members = unpack(&bundle);
    let graph = members
        .iter_mut()
        .find(|(n, _)| n.ends_with("graph-0.nq"))
        .unwrap();
    let at = graph.1.len() / 2;
    graph.1[at] ^= 0x20;
    let damaged = there.path().join("damaged.refgraph");
    pack(&members, &damaged);
    refused(&damaged, "does not match its sha256");
    // Written by a refgraph whose facts this one does not read.
    let mut members = unpack(&bundle);
    let manifest = members
        .iter_mut()
        .find(|(n, _)| n == "manifest.json")
        .unwrap();
    let mut m: Value = serde_json::from_slice(&manifest.1).unwrap();
    m["releases"][0]["facts_version"] = Value::from(1);
    m["refgraph_version"] = Value::from("refgraph 0.0.1");
    manifest.1 = serde_json::to_vec(&m).unwrap();
    let old = there.path().join("old.refgraph");
    pack(&members, &old);
    refused(&old, "export it again");
    // A manifest that names another release's graph: its quads are its own graph's, but the
    // graph is not one of the release's.
    let mut members = unpack(&bundle);
    let manifest = members
        .iter_mut()
        .find(|(n, _)| n == "manifest.json")
        .unwrap();
    let mut m: Value = serde_json::from_slice(&manifest.1).unwrap();
    m["releases"][0]["graphs"][0]["name"] = Value::from("pkg:pypi/mine@0.1.0");
    manifest.1 = serde_json::to_vec(&m).unwrap();
    let foreign = there.path().join("foreign.refgraph");
    pack(&members, &foreign);
    refused(&foreign, "not one of its own");
    // A release that is not what its package and version say.
    let mut members = unpack(&bundle);
    let manifest = members
        .iter_mut()
        .find(|(n, _)| n == "manifest.json")
        .unwrap();
    let mut m: Value = serde_json::from_slice(&manifest.1).unwrap();
    m["releases"][0]["release"] = Value::from("pkg:pypi");
    manifest.1 = serde_json::to_vec(&m).unwrap();
    let renamed = there.path().join("renamed.refgraph");
    pack(&members, &renamed);
    refused(&renamed, "is not 1.0.0 of pkg:pypi/acme-storage");
    // Not a bundle at all.
    let other = there.path().join("other.refgraph");
    std::fs::write(&other, b"PK\x03\x04 a zip file").unwrap();
    refused(&other, "not a refgraph bundle");
    // The intact bundle loads beside what was there.
    ok(
        refgraph(there.path(), None, &["import", bundle.to_str().unwrap()]),
        "import",
    );
    let releases = ok(
        refgraph(there.path(), None, &["--json", "releases"]),
        "releases",
    );
    assert!(releases.contains("pkg:pypi/mine@0.1.0"), "{releases}");
    assert!(
        releases.contains("pkg:pypi/acme-storage@2.0.0"),
        "{releases}"
    );
    assert!(
        !releases.contains("@acme/storage"),
        "only what was exported"
    );
}
