//! npm releases end to end on the samples written for these tests (samples/npm): exact
//! answers, version questions across two releases, and bad input that loses nothing.

use std::path::{Path, PathBuf};

use refgraph::answer::{Chosen, Engine, LookupError, ReleaseError};
use refgraph::ingest::{IngestError, IngestReport};
use refgraph::model::PackageId;
use refgraph::store::Store;

use crate::support::repo;

fn npm_sample(dir: &str) -> PathBuf {
    repo().join("samples/npm").join(dir)
}

fn ingest_npm(
    store: &Store,
    path: &Path,
    name: &str,
    version: &str,
) -> Result<IngestReport, IngestError> {
    crate::support::try_ingest(
        store,
        path,
        &PackageId::new(refgraph::model::Ecosystem::Npm, name),
        version,
    )
}

fn acme() -> (Store, Engine) {
    let store = Store::in_memory();
    for v in ["1.0.0", "2.0.0"] {
        ingest_npm(
            &store,
            &npm_sample(&format!("acme-storage-{v}")),
            "@acme/storage",
            v,
        )
        .unwrap();
    }
    (store.clone(), Engine::new(store))
}

fn snapshot(e: &Engine) -> String {
    crate::support::snapshot(
        e,
        "@acme/storage",
        "1.0.0",
        "@acme/storage:StorageClient.list",
    )
}

#[test]
fn declarations_give_exact_signatures_and_javascript_is_not_needed() {
    let (_, e) = acme();
    let v1 = e
        .choose(Some("pkg:npm/%40acme/storage"), Some("1.0.0"), None)
        .unwrap();
    assert_eq!(v1.release.release, "pkg:npm/%40acme/storage@1.0.0");
    let get = e
        .lookup()
        .api_detail(&v1, "@acme/storage:StorageClient.get")
        .unwrap();
    assert_eq!(get.kind, "method");
    assert_eq!(
        get.signature.as_deref(),
        Some("get(key: string): Promise<Uint8Array>")
    );
    // The declaration gives the signature, the JavaScript beside it the source location.
    assert_eq!(get.source.file.as_deref(), Some("dist/client.js"));
    assert_eq!(get.source.line, Some(8));
    assert_eq!(get.defined_in.as_deref(), Some("dist/client.d.ts"));
    let list = e
        .lookup()
        .api_detail(&v1, "@acme/storage:StorageClient.list")
        .unwrap();
    let params: Vec<(&str, &str, bool, Option<&str>)> = list
        .params
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.kind.as_str(),
                p.required,
                p.type_.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        params,
        vec![
            ("prefix", "positional", false, Some("string")),
            ("fields", "rest", false, Some("string[]")),
        ]
    );
    let class = e
        .lookup()
        .api_detail(&v1, "@acme/storage:StorageClient")
        .unwrap();
    assert_eq!(
        class.signature.as_deref(),
        Some("new StorageClient(endpoint: string, options?: ClientOptions)")
    );
    // `export *` re-exports; a private member is not public API.
    assert!(
        e.lookup()
            .api_detail(&v1, "@acme/storage:StorageError")
            .is_ok()
    );
    match e
        .lookup()
        .api_detail(&v1, "@acme/storage:StorageClient.sign")
    {
        Err(LookupError::NotFound { .. }) => {}
        other => panic!("private member answered: {other:?}"),
    }
    let put = e
        .lookup()
        .api_detail(&v1, "@acme/storage:StorageClient.put")
        .unwrap();
    let dep = put.deprecation.expect("@deprecated is read");
    assert_eq!(dep.message.as_deref(), Some("use upload() instead"));
}

#[test]
fn versions_of_an_npm_package_are_told_apart() {
    let (_, e) = acme();
    let put = e
        .lookup()
        .check_version(
            Some("@acme/storage"),
            "@acme/storage:StorageClient.put",
            None,
        )
        .unwrap();
    assert_eq!(put.introduced_in.as_deref(), Some("1.0.0"));
    assert_eq!(put.removed_in.as_deref(), Some("2.0.0"));
    let del = e
        .lookup()
        .check_version(
            Some("@acme/storage"),
            "@acme/storage:StorageClient.delete",
            Some("1.0.0"),
        )
        .unwrap();
    assert_eq!(del.available_in_requested, Some(false));
    assert_eq!(del.introduced_in.as_deref(), Some("2.0.0"));
    let v2 = e
        .choose(Some("@acme/storage"), Some("2.0.0"), None)
        .unwrap();
    // A public subpath of the exports map is its own specifier.
    let retry = e
        .lookup()
        .api_detail(&v2, "@acme/storage/retry:withRetry")
        .unwrap();
    assert_eq!(
        retry.signature.as_deref(),
        Some("withRetry(fn: () => Promise<T>, policy?: RetryPolicy): Promise<T>")
    );
    let upload = e.lookup().api_detail(&v2, "@acme/storage:upload").unwrap();
    assert_eq!(upload.params.len(), 4);
    assert_eq!(upload.params[3].name, "options");
    assert!(!upload.params[3].required);
    // Never another version's answer.
    match e.choose(Some("@acme/storage"), Some("3.0.0"), None) {
        Err(ReleaseError::VersionNotIndexed { indexed, .. }) => {
            assert_eq!(indexed, vec!["1.0.0", "2.0.0"])
        }
        other => panic!("expected VersionNotIndexed, got {other:?}"),
    }
}

#[test]
fn a_broken_npm_package_gets_diagnostics_and_keeps_what_parses() {
    let (store, e) = acme();
    let before = snapshot(&e);
    let report = ingest_npm(&store, &npm_sample("broken-0.1.0"), "broken", "0.1.0").unwrap();
    let messages: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("lib/other.js:2:") && m.contains("syntax error")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("\"./missing\"")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("condition 'import'")),
        "{messages:?}"
    );
    let b = e.choose(Some("broken"), Some("0.1.0"), None).unwrap();
    let ok = e.lookup().api_detail(&b, "broken:ok").unwrap();
    assert_eq!(ok.signature.as_deref(), Some("ok(a, b = 2)"));
    assert_eq!(snapshot(&e), before, "other releases answer as before");
}

/// A tar.gz holding `entries` (path, bytes), with paths written raw so `../` survives.
fn raw_tgz(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut tar = Vec::new();
    for (path, data) in entries {
        let mut header = [0u8; 512];
        header[..path.len()].copy_from_slice(path.as_bytes());
        header[100..107].copy_from_slice(b"0000644");
        header[108..115].copy_from_slice(b"0000000");
        header[116..123].copy_from_slice(b"0000000");
        header[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
        header[136..147].copy_from_slice(b"00000000000");
        header[156] = b'0';
        header[257..263].copy_from_slice(b"ustar\0");
        header[263..265].copy_from_slice(b"00");
        header[148..156].copy_from_slice(b"        ");
        let sum: u32 = header.iter().map(|b| *b as u32).sum();
        header[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        tar.extend_from_slice(&header);
        tar.extend_from_slice(data);
        tar.resize(tar.len().div_ceil(512) * 512, 0);
    }
    tar.resize(tar.len() + 1024, 0);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &tar).unwrap();
    gz.finish().unwrap()
}

#[test]
fn a_tarball_with_parent_paths_writes_nothing_outside_and_ingests_the_rest() {
    let (store, e) = acme();
    let before = snapshot(&e);
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("cache");
    std::fs::create_dir_all(&inner).unwrap();
    let tgz = inner.join("evil-1.0.0.tgz");
    std::fs::write(
        &tgz,
        raw_tgz(&[
            (
                "package/package.json",
                br#"{"name": "evil", "main": "index.js"}"#,
            ),
            ("package/index.js", b"exports.fine = function (x) {};\n"),
            ("package/../../escaped.js", b"exports.bad = 1;\n"),
            ("../escaped2.js", b"exports.bad = 2;\n"),
        ]),
    )
    .unwrap();
    let report = ingest_npm(&store, &tgz, "evil", "1.0.0").unwrap();
    let unsafe_paths = report
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("unsafe path"))
        .count();
    assert_eq!(unsafe_paths, 2, "{:?}", report.diagnostics);
    for p in [
        dir.path().join("escaped.js"),
        dir.path().join("escaped2.js"),
        inner.join("escaped.js"),
    ] {
        assert!(!p.exists(), "{} was written", p.display());
    }
    let ev = e.choose(Some("evil"), Some("1.0.0"), None).unwrap();
    assert!(e.lookup().api_detail(&ev, "evil:fine").is_ok());
    match e.lookup().api_detail(&ev, "evil:bad") {
        Err(LookupError::NotFound { .. }) => {}
        other => panic!("a file outside the package was read: {other:?}"),
    }
    // A truncated tarball is refused as a whole.
    let bytes = std::fs::read(&tgz).unwrap();
    let cut = inner.join("cut-1.0.0.tgz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert!(matches!(
        ingest_npm(&store, &cut, "cut", "1.0.0"),
        Err(IngestError::BadArchive { .. })
    ));
    // A package.json that is not JSON is a clear error, not an empty release.
    let bad = tempfile::tempdir().unwrap();
    std::fs::write(bad.path().join("package.json"), "{ \"name\": ").unwrap();
    std::fs::write(bad.path().join("index.js"), "exports.a = 1;\n").unwrap();
    let err = ingest_npm(&store, bad.path(), "bad", "1.0.0").unwrap_err();
    assert!(err.to_string().contains("no JavaScript API found"), "{err}");
    assert_eq!(snapshot(&e), before, "other releases answer as before");
}

/// Release `version` of a package `sdk` made of `files` (path, text) and a `package.json`
/// whose types are `index.d.ts`, ingested into `store`.
fn ingest_sdk(store: &Store, version: &str, files: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    let package = r#"{"name": "sdk", "version": "1.0.0", "types": "index.d.ts"}"#;
    for (name, text) in std::iter::once(&("package.json", package)).chain(files) {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let report = ingest_npm(store, dir.path(), "sdk", version).unwrap();
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}

/// A package `sdk` 1.0.0 made of `files` (path, text), ingested into a fresh store, chosen.
fn sdk_release(files: &[(&str, &str)]) -> (Engine, Chosen) {
    let store = Store::in_memory();
    ingest_sdk(&store, "1.0.0", files);
    let e = Engine::new(store);
    let v = e.choose(Some("sdk"), Some("1.0.0"), None).unwrap();
    (e, v)
}

/// Bases written through a namespace and with type arguments (`extends Core.APIClient<{}>`,
/// as openai-node writes its client) are stored by their canonical names: lookups, the class
/// detail and the diff's inherited-member rule all follow them.
#[test]
fn bases_written_through_a_namespace_or_with_type_arguments_are_followed() {
    const CORE: &str = "export declare class APIClient<Opts> {\n    get(path: string, opts?: Opts): Promise<Response>;\n}\nexport declare class Page<T> {\n    next(): Promise<Page<T>>;\n}\n";
    const V1: &str = "import * as Core from './core';\nexport { APIClient, Page } from './core';\nexport declare class Client {}\nexport declare class Users {}\n";
    const V2: &str = "import * as Core from './core';\nimport { Page } from './core';\nexport { APIClient, Page } from './core';\nexport declare class Client extends Core.APIClient<{}> {}\nexport declare class Users extends Page<string> {}\n";
    let store = Store::in_memory();
    ingest_sdk(&store, "1.0.0", &[("core.d.ts", CORE), ("index.d.ts", V1)]);
    ingest_sdk(&store, "2.0.0", &[("core.d.ts", CORE), ("index.d.ts", V2)]);
    let e = Engine::new(store);
    let v = e.choose(Some("sdk"), Some("2.0.0"), None).unwrap();
    let client = e.lookup().api_detail(&v, "sdk:Client").unwrap();
    assert_eq!(client.bases, ["sdk:APIClient"]);
    // One `extends` link, with the source text as its evidence.
    let related = e
        .usage()
        .related(&v, "sdk:Client", Some("base"))
        .unwrap()
        .related;
    assert_eq!(related.len(), 1, "{related:?}");
    let get = e.lookup().api_detail(&v, "sdk:Client.get").unwrap();
    assert_eq!(get.qualified_name, "sdk:APIClient.get");
    assert_eq!(get.inherited_from.as_deref(), Some("sdk:APIClient"));
    let next = e.lookup().api_detail(&v, "sdk:Users.next").unwrap();
    assert_eq!(next.qualified_name, "sdk:Page.next");
    // Not in 1.0.0, where neither class has a base.
    let v1 = e.choose(Some("sdk"), Some("1.0.0"), None).unwrap();
    assert!(e.lookup().api_detail(&v1, "sdk:Client.get").is_err());

    let d = e
        .diff()
        .diff_report(
            "pkg:npm/sdk",
            "1.0.0",
            "2.0.0",
            &refgraph::diff::DiffOptions::default(),
        )
        .unwrap();
    let mut gained: Vec<&str> = d
        .changes
        .iter()
        .filter(|c| c.rule == "inherited_member_added")
        .map(|c| c.qualified_name.as_str())
        .collect();
    gained.sort();
    assert_eq!(
        gained,
        ["sdk:Client.get", "sdk:Users.next"],
        "{:#?}",
        d.changes
    );
}

/// The shapes of openai-node's index: error classes three levels deep, a namespace re-exported
/// as `declare const X: typeof Errors.X` and `export import x = Uploads.x`.
#[test]
fn members_inherited_through_several_bases_and_typeof_reexports_resolve() {
    let (e, v) = sdk_release(&[
        (
            "error.d.ts",
            "export declare class APIError extends Error {\n    readonly status: number | undefined;\n    static generate(status: number): APIError;\n}\nexport declare class APIConnectionError extends APIError {}\nexport declare class APIConnectionTimeoutError extends APIConnectionError {}\n",
        ),
        (
            "uploads.d.ts",
            "export declare function toFile(value: Blob, name?: string): Promise<File>;\n",
        ),
        (
            "index.d.ts",
            "import * as Errors from './error';\nimport * as Uploads from './uploads';\nexport declare const APIError: typeof Errors.APIError, APIConnectionError: typeof Errors.APIConnectionError, APIConnectionTimeoutError: typeof Errors.APIConnectionTimeoutError;\nexport import toFile = Uploads.toFile;\n",
        ),
    ]);
    // Two bases up, through the re-exported name.
    let status = e
        .lookup()
        .api_detail(&v, "sdk:APIConnectionTimeoutError.status")
        .unwrap();
    assert_eq!(status.qualified_name, "sdk:APIError.status");
    assert_eq!(status.inherited_from.as_deref(), Some("sdk:APIError"));
    // `typeof Errors.APIError` is the class, with its members, not a variable.
    let class = e.lookup().api_detail(&v, "sdk:APIError").unwrap();
    assert_eq!(class.kind, "class");
    assert!(e.lookup().api_detail(&v, "sdk:APIError.generate").is_ok());
    let to_file = e.lookup().api_detail(&v, "sdk:toFile").unwrap();
    assert_eq!(to_file.kind, "function");
    assert_eq!(to_file.qualified_name, "sdk:toFile");
}

/// A public class whose base is exported under no name (`class Client extends BaseClient`):
/// the base's members are the class's, declared where the base declares them, and the
/// lookup goes on through the base's own public base.
#[test]
fn members_of_a_base_no_public_name_reaches_are_listed_on_the_class() {
    let (e, v) = sdk_release(&[
        (
            "core.d.ts",
            "export declare class Resource {\n    close(): void;\n}\nexport declare class BaseClient extends Resource {\n    /** Send a request. */\n    request(path: string, init?: RequestInit): Promise<Response>;\n    get(path: string): Promise<Response>;\n}\n",
        ),
        (
            "client.d.ts",
            "import { BaseClient } from './core';\nexport declare class Client extends BaseClient {\n    get(path: string, retries?: number): Promise<Response>;\n}\n",
        ),
        (
            "index.d.ts",
            "export { Client } from './client';\nexport { Resource } from './core';\n",
        ),
    ]);
    let request = e.lookup().api_detail(&v, "sdk:Client.request").unwrap();
    assert_eq!(request.qualified_name, "sdk:Client.request");
    assert_eq!(request.source.file.as_deref(), Some("core.d.ts"));
    assert_eq!(
        request.inherited_from.as_deref(),
        Some("core.d.ts:BaseClient")
    );
    assert_eq!(request.description.as_deref(), Some("Send a request."));
    let names: Vec<&str> = request.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["path", "init"]);
    // The class's own override wins over the base's.
    let get = e.lookup().api_detail(&v, "sdk:Client.get").unwrap();
    assert_eq!(get.params.len(), 2);
    // Past the private base, its public base.
    let close = e.lookup().api_detail(&v, "sdk:Client.close").unwrap();
    assert_eq!(close.qualified_name, "sdk:Resource.close");
    // The private base itself stays private.
    assert!(e.lookup().api_detail(&v, "sdk:BaseClient").is_err());

    // All in one file, as bundled declarations are.
    let (e, v) = sdk_release(&[(
        "index.d.ts",
        "export declare class Resource {\n    close(): void;\n}\ndeclare class BaseClient extends Resource {\n    request(path: string): Promise<Response>;\n}\nexport declare class Client extends BaseClient {}\n",
    )]);
    assert!(e.lookup().api_detail(&v, "sdk:Client.request").is_ok());
    let close = e.lookup().api_detail(&v, "sdk:Client.close").unwrap();
    assert_eq!(close.qualified_name, "sdk:Resource.close");
}

/// A JSDoc comment is the symbol's docstring whole, as a Python docstring is: the tags that
/// document use (`@param`, `@returns`, `@example`) stay in it, each `@param`'s words are that
/// parameter's description, and the concept index reads all of it.
#[test]
fn jsdoc_tags_stay_in_the_docstring_and_describe_the_parameters() {
    let (e, v) = sdk_release(&[(
        "index.d.ts",
        "/**\n * During a transaction no views are updated until its end.\n *\n * @param action a function that updates some reactive state\n * @param thisArg - what `this` is inside it\n * @returns the value the action returned\n * @example\n * transaction(() => { a.x = 1; b.y = 2 })\n */\nexport declare function transaction<T>(action: () => T, thisArg?: unknown): T;\n/** @internal */\nexport declare function hidden(): void;\n/**\n * <p>Adds an object to a bucket.</p>\n * @example\n * ```javascript\n * await client.send(new PutObjectCommand({}));\n * ```\n */\nexport declare function putObject(input: object): Promise<void>;\n",
    )]);
    let t = e.lookup().api_detail(&v, "sdk:transaction").unwrap();
    let doc = t.description.as_deref().unwrap();
    assert!(
        doc.starts_with("During a transaction no views are updated until its end.")
            && doc.contains("@param action a function that updates some reactive state")
            && doc.contains("@returns the value the action returned")
            && doc.contains("@example\ntransaction(() => { a.x = 1; b.y = 2 })"),
        "{doc}"
    );
    let described: Vec<(&str, Option<&str>)> = t
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.description.as_deref()))
        .collect();
    assert_eq!(
        described,
        [
            (
                "action",
                Some("a function that updates some reactive state")
            ),
            ("thisArg", Some("what `this` is inside it")),
        ]
    );
    // A marker tag alone documents nothing.
    assert_eq!(
        e.lookup().api_detail(&v, "sdk:hidden").unwrap().description,
        None
    );
    // An HTML description (as the AWS SDK writes) is read as Markdown though an @example
    // fence follows it.
    let put = chunks_of(&e)
        .into_iter()
        .find(|c| c.title == "sdk:putObject")
        .unwrap();
    assert!(
        !put.text.contains("<p>") && put.text.contains("Adds an object to a bucket."),
        "{}",
        put.text
    );
    assert!(put.text.contains("```javascript"), "{}", put.text);
    // The index finds the function by the words of its parameters.
    let chunks = chunks_of(&e);
    let chunk = chunks
        .iter()
        .find(|c| c.title == "sdk:transaction")
        .unwrap();
    assert!(chunk.text.contains("reactive state"), "{}", chunk.text);
    assert!(
        chunk.embed_text.contains("reactive state"),
        "{}",
        chunk.embed_text
    );
}

/// Every chunk of the first stored release of `e`, as the text index reads them.
fn chunks_of(e: &Engine) -> Vec<refgraph::index::Chunk> {
    refgraph::index::chunks::release_chunks(e.store(), &e.releases().unwrap()[0]).unwrap()
}
