//! The ways hostile bytes reach refgraph, as functions of `&[u8]`: the fuzz targets under
//! `fuzz/` call them under libFuzzer, and `tests/it/fuzz_corpora.rs` replays every committed
//! corpus input and regression through them on each test run. Each one runs the real code
//! path and then checks what must hold whatever the input; a panic or a failed check is a bug.

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use oxigraph::model::{NamedNode, Quad, Term};

use crate::answer::{Engine, QueryLimits};
use crate::extract::{ExtractLimits, Language, SourceFile};
use crate::ingest::Limits;
use crate::lower::{Provenance, release_quads};
use crate::model::{Ecosystem, PackageId, ReleaseFacts};

/// Small limits, so one input cannot spend the fuzzer's time on legitimate but huge work.
fn limits() -> Limits {
    Limits {
        max_file_bytes: 1 << 20,
        max_total_bytes: 4 << 20,
        max_entries: 1_000,
        extract: ExtractLimits::default(),
    }
}

/// Lowers `facts` as a release would be and checks that every IRI written is a valid IRI:
/// names come from the input, so an unescaped one would poison the store's serialisations.
fn lower_and_check(ecosystem: Ecosystem, facts: &ReleaseFacts) {
    let package = PackageId::new(ecosystem, "fuzzed");
    let provenance = Provenance {
        source: "fuzz".into(),
        sha256: None,
        ingested_at: "2026-01-01T00:00:00Z".into(),
    };
    for quad in release_quads(&package, "1.0.0", facts, &provenance) {
        check_quad(&quad);
    }
}

fn check_quad(quad: &Quad) {
    let valid = |n: &NamedNode| {
        assert!(
            NamedNode::new(n.as_str()).is_ok(),
            "invalid IRI written to the store: <{}>",
            n.as_str()
        );
    };
    if let oxigraph::model::NamedOrBlankNode::NamedNode(n) = &quad.subject {
        valid(n);
    }
    valid(&quad.predicate);
    if let Term::NamedNode(n) = &quad.object {
        valid(n);
    }
    if let oxigraph::model::GraphName::NamedNode(n) = &quad.graph_name {
        valid(n);
    }
}

fn file(path: &str, data: &[u8]) -> SourceFile {
    SourceFile {
        path: path.into(),
        text: data.to_vec(),
    }
}

/// An OpenAPI document: JSON when it starts like JSON, YAML otherwise.
pub fn openapi(data: &[u8]) {
    let json = data.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let name = if json { "spec.json" } else { "spec.yaml" };
    let facts = Language::OpenApi.extract(&[file(name, data)], &ExtractLimits::default());
    lower_and_check(Ecosystem::Generic, &facts);
}

/// A Python module, as the `__init__.py` of a package and as a module inside it; and as a
/// Cython module, and the `.pxi` that module and another one include.
pub fn python(data: &[u8]) {
    let files = [
        file("pkg/__init__.py", data),
        file("pkg/sub.py", data),
        file("pkg/fast.pyx", data),
        file("pkg/part.pxi", data),
        file(
            "pkg/wrap.pyx",
            b"include \"part.pxi\"\ndef f(int x=1): pass\n",
        ),
    ];
    let facts = Language::Python.extract(&files, &ExtractLimits::default());
    lower_and_check(Ecosystem::Pypi, &facts);
}

/// A JavaScript file and a TypeScript declaration file with the same text, as the entry of a
/// package and a module it re-exports.
pub fn javascript(data: &[u8]) {
    let manifest = br#"{"name": "fuzzed", "main": "index.js", "types": "index.d.ts"}"#;
    let files = [
        file("package.json", manifest),
        file("index.js", data),
        file("index.d.ts", data),
        file("lib.js", data),
        file("lib.d.ts", data),
    ];
    let facts = Language::JavaScript.extract(&files, &ExtractLimits::default());
    lower_and_check(Ecosystem::Npm, &facts);
}

/// A `package.json`: the entry-point layout (`exports` maps, conditions, subpaths).
pub fn package_json(data: &[u8]) {
    let files = [
        file("package.json", data),
        file(
            "index.d.ts",
            b"export declare function f(a: string, b?: number): void;\n",
        ),
        file("index.js", b"exports.f = function f(a, b) {};\n"),
        file("lib/sub.d.ts", b"export * from '../index';\n"),
    ];
    let facts = Language::JavaScript.extract(&files, &ExtractLimits::default());
    lower_and_check(Ecosystem::Npm, &facts);
}

/// A documentation page, read as HTML and as Markdown: an answer or a diagnostic, and no
/// section is empty.
pub fn docs(data: &[u8]) {
    let options = crate::extract::docs::DocOptions::default();
    for path in ["docs/page.html", "docs/page.md"] {
        if let Ok(page) = crate::extract::docs::read_page(path, data, None, &options) {
            for s in &page.sections {
                assert!(!s.markdown.trim().is_empty(), "an empty section: {s:?}");
            }
        }
    }
}

/// A release archive, read as a wheel/zip and as a .tar.gz, for Python and for npm: whatever
/// it holds, no path escapes the release and no limit is exceeded.
pub fn archive(data: &[u8]) {
    let limits = limits();
    for language in [Language::Python, Language::JavaScript] {
        for name in ["fuzzed.whl", "fuzzed.tgz"] {
            let Ok((files, _)) =
                crate::ingest::read_archive_bytes(Path::new(name), data, language, &limits)
            else {
                continue;
            };
            let mut total = 0u64;
            for f in &files {
                let p = &f.path;
                assert!(
                    !p.is_empty()
                        && !p.starts_with('/')
                        && !p.contains('\\')
                        && !p.split('/').any(|c| c == ".." || c.is_empty()),
                    "unsafe path read from an archive: {p:?}"
                );
                assert!(f.text.len() as u64 <= limits.max_file_bytes);
                total += f.text.len() as u64;
            }
            assert!(total <= limits.max_total_bytes);
        }
    }
}

/// One engine over the sample releases, with a short query timeout.
fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let store = crate::store::Store::in_memory();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
        for (dir, package, version) in [
            ("python/acme-storage-1.0.0", "acme-storage", "1.0.0"),
            ("python/acme-storage-2.0.0", "acme-storage", "2.0.0"),
        ] {
            let package = PackageId::new(Ecosystem::Pypi, package);
            let (files, diags) =
                crate::ingest::read_release(&root.join(dir), Language::Python, &Limits::default())
                    .expect("the samples are readable");
            crate::ingest::ingest_files(&store, &package, version, &files, diags, dir, None)
                .expect("the samples ingest");
        }
        let mut engine = Engine::new(store);
        engine.limits = QueryLimits {
            timeout: Duration::from_millis(500),
            max_rows: 1_000,
        };
        engine
    })
}

/// SPARQL text, as the `sparql` tool and the console's endpoint take it: any text gets an
/// answer or an error, updates are refused, and the store is never changed.
pub fn sparql(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let engine = engine();
    let before = engine.store().oxigraph().len().unwrap_or(0);
    let _ = engine.sparql(text);
    assert_eq!(
        engine.store().oxigraph().len().unwrap_or(0),
        before,
        "a query changed the store"
    );
}
