//! The extractors' recursion limits (`$ref` chains, schema nesting, re-export chains): each is
//! reached by a generated release one step past it, reported with the option that raises it,
//! and raised by that option (flag or environment) from the command line.

use std::path::Path;

use refgraph::extract::{ExtractLimits, Language, SourceFile};

fn file(path: &str, text: String) -> SourceFile {
    SourceFile {
        path: path.into(),
        text: text.into_bytes(),
    }
}

fn names(
    files: &[SourceFile],
    language: Language,
    limits: &ExtractLimits,
) -> (Vec<String>, String) {
    let facts = language.extract(files, limits);
    let names = facts
        .symbols
        .iter()
        .map(|s| s.qualified_name.clone())
        .collect();
    let diags: Vec<String> = facts.diagnostics.iter().map(|d| d.to_string()).collect();
    (names, diags.join("\n"))
}

/// `deep/__init__.py` imports `f` from `m0`, which imports it from `m1`, ... `m{n-1}` defines it.
fn python_chain(n: usize) -> Vec<SourceFile> {
    let mut files = vec![file("deep/__init__.py", "from .m0 import f\n".into())];
    for i in 0..n - 1 {
        files.push(file(
            &format!("deep/m{i}.py"),
            format!("from .m{} import f\n", i + 1),
        ));
    }
    files.push(file(
        &format!("deep/m{}.py", n - 1),
        "def f(x, *, y=1):\n    \"\"\"The end of the chain.\"\"\"\n".into(),
    ));
    files
}

/// `index.d.ts` re-exports everything of `m0.d.ts`, which re-exports `m1.d.ts`, ...
fn npm_chain(n: usize) -> Vec<SourceFile> {
    let mut files = vec![
        file(
            "package.json",
            r#"{"name": "deep", "types": "index.d.ts"}"#.into(),
        ),
        file("index.d.ts", "export * from './m0';\n".into()),
    ];
    for i in 0..n - 1 {
        files.push(file(
            &format!("m{i}.d.ts"),
            format!("export {{ f }} from './m{}';\n", i + 1),
        ));
    }
    files.push(file(
        &format!("m{}.d.ts", n - 1),
        "export declare function f(x: string, y?: number): void;\n".into(),
    ));
    files
}

/// A `$ref` chain: parameter P0 refers to P1, ... P{n-1} is the parameter.
fn ref_chain(n: usize) -> Vec<SourceFile> {
    let mut params = serde_json::Map::new();
    for i in 0..n - 1 {
        params.insert(
            format!("P{i}"),
            serde_json::json!({"$ref": format!("#/components/parameters/P{}", i + 1)}),
        );
    }
    params.insert(
        format!("P{}", n - 1),
        serde_json::json!({"name": "limit", "in": "query", "schema": {"type": "integer"}}),
    );
    let spec = serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "deep", "version": "1"},
        "paths": {"/items": {"get": {
            "operationId": "listItems",
            "parameters": [{"$ref": "#/components/parameters/P0"}],
            "responses": {"200": {"description": "ok"}}
        }}},
        "components": {"parameters": params}
    });
    vec![file("spec.json", spec.to_string())]
}

/// A request body whose schema nests `n` levels of `$ref`d `allOf` parts; the innermost adds
/// the property `deepest`.
fn nested_schemas(n: usize) -> Vec<SourceFile> {
    let mut schemas = serde_json::Map::new();
    for i in 0..n - 1 {
        schemas.insert(
            format!("S{i}"),
            serde_json::json!({"allOf": [{"$ref": format!("#/components/schemas/S{}", i + 1)}],
                               "properties": {format!("p{i}"): {"type": "string"}}}),
        );
    }
    schemas.insert(
        format!("S{}", n - 1),
        serde_json::json!({"type": "object", "properties": {"deepest": {"type": "string"}}}),
    );
    let spec = serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "nested", "version": "1"},
        "paths": {"/items": {"post": {
            "operationId": "createItem",
            "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}},
            "responses": {"201": {"description": "created"}}
        }}},
        "components": {"schemas": schemas}
    });
    vec![file("spec.json", spec.to_string())]
}

#[test]
fn reexport_chains_stop_at_the_limit_and_say_which_option_raises_it() {
    let defaults = ExtractLimits::default();
    let raised = ExtractLimits {
        max_reexport_depth: 200,
        ..defaults
    };
    // Python: 80 modules deep is past the default of 64.
    let files = python_chain(80);
    let (got, diags) = names(&files, Language::Python, &defaults);
    assert!(!got.iter().any(|n| n == "deep.f"), "{got:?}");
    assert!(
        got.iter().any(|n| n == "deep.m79.f"),
        "the definition stays"
    );
    assert!(
        diags.contains("more than 64") && diags.contains("--max-reexport-depth"),
        "{diags}"
    );
    let (got, diags) = names(&files, Language::Python, &raised);
    assert!(got.iter().any(|n| n == "deep.f"), "{got:?}");
    assert!(!diags.contains("--max-reexport-depth"), "{diags}");
    // A chain within the default is followed, and says nothing.
    let (got, diags) = names(&python_chain(20), Language::Python, &defaults);
    assert!(got.iter().any(|n| n == "deep.f"), "{got:?}");
    assert!(!diags.contains("--max-reexport-depth"), "{diags}");

    // npm: the same through `export *` and `export { f } from`.
    let files = npm_chain(80);
    let (got, diags) = names(&files, Language::JavaScript, &defaults);
    assert!(!got.iter().any(|n| n == "deep:f"), "{got:?}");
    assert!(
        diags.contains("more than 64") && diags.contains("--max-reexport-depth"),
        "{diags}"
    );
    let (got, diags) = names(&files, Language::JavaScript, &raised);
    assert!(got.iter().any(|n| n == "deep:f"), "{got:?}");
    assert!(!diags.contains("--max-reexport-depth"), "{diags}");
    let (got, _) = names(&npm_chain(20), Language::JavaScript, &defaults);
    assert!(got.iter().any(|n| n == "deep:f"), "{got:?}");
}

#[test]
fn ref_chains_and_schema_nesting_stop_at_their_limits() {
    let defaults = ExtractLimits::default();
    // 100 hops is past the default of 64: the operation loses the parameter and says why.
    let params = |facts: &refgraph::model::ReleaseFacts| -> Vec<String> {
        let op = facts
            .symbols
            .iter()
            .find(|s| s.qualified_name == "listItems")
            .expect("the operation is extracted");
        op.params.iter().map(|p| p.name.clone()).collect()
    };
    let facts = Language::OpenApi.extract(&ref_chain(100), &defaults);
    assert!(!params(&facts).contains(&"limit".to_string()));
    let diags: Vec<String> = facts.diagnostics.iter().map(|d| d.to_string()).collect();
    let diags = diags.join("\n");
    assert!(
        diags.contains("more than 64 $refs") && diags.contains("--max-ref-hops"),
        "{diags}"
    );
    let raised = ExtractLimits {
        max_ref_hops: 128,
        ..defaults
    };
    let facts = Language::OpenApi.extract(&ref_chain(100), &raised);
    assert_eq!(params(&facts), ["limit"]);
    assert!(
        !facts
            .diagnostics
            .iter()
            .any(|d| d.message.contains("--max-ref-hops"))
    );

    // Schema nesting: 30 levels is past the default of 16.
    let body_has_deepest = |limits: &ExtractLimits| {
        let facts = Language::OpenApi.extract(&nested_schemas(30), limits);
        let body = facts.operations["createItem"]
            .request_body
            .clone()
            .expect("a request body");
        let props: Vec<String> = body
            .properties
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.name)
            .collect();
        let diags: Vec<String> = facts.diagnostics.iter().map(|d| d.to_string()).collect();
        (props.iter().any(|p| p == "deepest"), diags.join("\n"))
    };
    let (deepest, diags) = body_has_deepest(&defaults);
    assert!(!deepest);
    assert!(
        diags.contains("more than 16 $refs deep") && diags.contains("--max-schema-nesting"),
        "{diags}"
    );
    let (deepest, diags) = body_has_deepest(&ExtractLimits {
        max_schema_nesting: 40,
        ..defaults
    });
    assert!(deepest, "{diags}");
    assert!(!diags.contains("--max-schema-nesting"), "{diags}");
}

/// The options reach the extractors from the command line, by flag and by environment.
#[test]
fn the_cli_passes_the_recursion_limits_to_the_extractors() {
    let root = tempfile::tempdir().unwrap();
    let write = |dir: &Path, files: &[SourceFile]| {
        for f in files {
            let p = dir.join(&f.path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, &f.text).unwrap();
        }
    };
    let py = root.path().join("py");
    write(&py, &python_chain(80));
    let spec = root.path().join("spec");
    write(&spec, &ref_chain(100));
    let ingest = |path: &Path, package: &str, args: &[&str], env: Option<(&str, &str)>| {
        let data = tempfile::tempdir().unwrap();
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_refgraph"));
        c.arg("--data-dir")
            .arg(data.path())
            .arg("--json")
            .args(args);
        c.arg("ingest")
            .arg(path)
            .args(["--package", package, "--version", "1.0.0", "--no-index"]);
        if let Some((k, v)) = env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        report["diagnostics"].to_string()
    };
    let d = ingest(&py, "pkg:pypi/deep", &[], None);
    assert!(d.contains("--max-reexport-depth"), "{d}");
    let d = ingest(&py, "pkg:pypi/deep", &["--max-reexport-depth", "100"], None);
    assert!(!d.contains("--max-reexport-depth"), "{d}");
    let d = ingest(
        &py,
        "pkg:pypi/deep",
        &[],
        Some(("REFGRAPH_MAX_REEXPORT_DEPTH", "100")),
    );
    assert!(!d.contains("--max-reexport-depth"), "{d}");
    let spec = spec.join("spec.json");
    let d = ingest(&spec, "pkg:generic/deep", &[], None);
    assert!(d.contains("--max-ref-hops"), "{d}");
    let d = ingest(&spec, "pkg:generic/deep", &["--max-ref-hops", "128"], None);
    assert!(!d.contains("--max-ref-hops"), "{d}");
}

/// `refgraph add` holds a registry release to the archive limits, by flag and by environment,
/// and stores nothing it refused. (`serve` holds `POST /api/releases` and the releases a
/// project pins to the same limits: tests/it/http.rs and tests/it/project.rs.)
#[test]
fn add_holds_a_fetched_release_to_the_archive_limits() {
    let data = tempfile::tempdir().unwrap();
    let refgraph = |args: &[&str], env: Option<(&str, &str)>| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_refgraph"));
        c.arg("--data-dir").arg(data.path()).args(args);
        if let Some((k, v)) = env {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    // six 1.16.0's wheel holds 6 entries.
    for (args, env) in [
        (&["add", "--no-index", "--max-entries", "3"][..], None),
        (
            &["add", "--no-index"][..],
            Some(("REFGRAPH_MAX_ENTRIES", "3")),
        ),
    ] {
        let mut args = args.to_vec();
        args.push("pkg:pypi/six@1.16.0");
        let out = refgraph(&args, env);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} {env:?} passed");
        assert!(err.contains("6 entries (limit 3)"), "{err}");
    }
    let listed = refgraph(&["--json", "releases"], None);
    let releases: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(releases, serde_json::json!([]));
    let out = refgraph(&["add", "--no-index", "pkg:pypi/six@1.16.0"], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
