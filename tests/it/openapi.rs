//! OpenAPI specs: the samples under samples/openapi/, broken and huge specs, and agreement with
//! a plain walk of real specs from npm (tests/oracle/openapi_walk.py).

use std::path::{Path, PathBuf};

use refgraph::answer::{ApiDetail, Engine, LookupError};
use refgraph::extract::Language;
use refgraph::ingest::{IngestError, IngestReport, Limits, read_release};
use refgraph::model::PackageId;
use refgraph::store::Store;

use crate::support::repo;

pub(crate) mod oracle;

fn spec(name: &str) -> PathBuf {
    repo().join("samples/openapi").join(name)
}

pub(crate) fn ingest_spec(
    store: &Store,
    path: &Path,
    package: &str,
    version: &str,
) -> Result<IngestReport, IngestError> {
    crate::support::try_ingest(
        store,
        path,
        &PackageId::new(refgraph::model::Ecosystem::Generic, package),
        version,
    )
}

/// The petstore sample in its two releases.
fn petstore() -> Engine {
    let store = Store::in_memory();
    for v in ["1.0.0", "2.0.0"] {
        ingest_spec(&store, &spec(&format!("petstore-{v}.yaml")), "petstore", v).unwrap();
    }
    Engine::new(store)
}

fn detail(e: &Engine, package: &str, version: &str, name: &str) -> ApiDetail {
    let chosen = e.choose(Some(package), Some(version), None).unwrap();
    e.lookup()
        .api_detail(&chosen, name)
        .unwrap_or_else(|err| panic!("{name} in {package} {version}: {err}"))
}

/// `(kind, name, required)` of every parameter, sorted (order carries no meaning).
fn params(d: &ApiDetail) -> Vec<(String, String, bool)> {
    let mut out: Vec<_> = d
        .params
        .iter()
        .map(|p| (p.kind.clone(), p.name.clone(), p.required))
        .collect();
    out.sort();
    out
}

fn p(kind: &str, name: &str, required: bool) -> (String, String, bool) {
    (kind.into(), name.into(), required)
}

fn body_props(d: &ApiDetail) -> Option<Vec<(String, bool)>> {
    let rb = d.request_body.as_ref()?;
    Some(
        rb.properties
            .as_ref()?
            .iter()
            .map(|p| (p.name.clone(), p.required))
            .collect(),
    )
}

#[test]
fn operations_answer_parameters_bodies_responses_and_security() {
    let e = petstore();
    let d = detail(&e, "petstore", "1.0.0", "createPet");
    assert_eq!(d.kind, "operation");
    assert_eq!(d.aliases, vec!["POST /pets"]);
    assert_eq!(params(&d), vec![p("body", "body", true)]);
    let rb = d.request_body.as_ref().unwrap();
    assert!(rb.required);
    assert_eq!(rb.media_types, vec!["application/json", "application/xml"]);
    assert_eq!(rb.schema.as_deref(), Some("NewPet"));
    assert_eq!(
        body_props(&d).unwrap(),
        vec![
            ("category".into(), false),
            ("name".into(), true),
            ("status".into(), false),
            ("tag".into(), false)
        ]
    );
    let responses = d.responses.as_ref().unwrap();
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0].status, "201");
    assert_eq!(responses[0].schema.as_deref(), Some("Pet"));
    let http = d.http.as_ref().unwrap();
    assert_eq!(
        (http.method.as_str(), http.path.as_str()),
        ("POST", "/pets")
    );
    assert_eq!(http.security, vec!["oauth[pets:write]"]);
    assert_eq!(d.source.file.as_deref(), Some("petstore-1.0.0.yaml"));
    assert_eq!(d.defined_in.as_deref(), Some("#/paths/~1pets/post"));
    assert_eq!(
        d.source.line, None,
        "a spec pointer, not a line, locates an operation"
    );

    // A parameter through $ref, a header, the global security, response headers.
    let d = detail(&e, "petstore", "1.0.0", "listPets");
    assert_eq!(
        params(&d),
        vec![
            p("header", "X-Request-Id", false),
            p("query", "limit", false),
            p("query", "tag", false)
        ]
    );
    let limit = d.params.iter().find(|p| p.name == "limit").unwrap();
    assert_eq!(limit.type_.as_deref(), Some("integer(int32)"));
    // Its description, from the component the $ref names; `tag` has none.
    assert_eq!(
        limit.description.as_deref(),
        Some("How many pets to return.")
    );
    let tag = d.params.iter().find(|p| p.name == "tag").unwrap();
    assert_eq!(tag.description, None);
    assert_eq!(d.http.as_ref().unwrap().security, vec!["api_key"]);
    assert_eq!(d.http.as_ref().unwrap().tags, vec!["pets"]);
    let ok = &d.responses.as_ref().unwrap()[0];
    assert_eq!(
        (ok.status.as_str(), ok.schema.as_deref()),
        ("200", Some("array<Pet>"))
    );
    assert_eq!(ok.headers, vec!["X-Next"]);
    assert!(d.request_body.is_none());
    assert_eq!(
        d.signature.as_deref(),
        Some(
            "GET /pets(limit?: query integer(int32), tag?: query array<string>, \
             X-Request-Id?: header string(uuid))"
        )
    );

    // No operationId: named by its endpoint. Path-level parameters merge with the
    // operation's, whose `verbose` (required) wins; allOf parts of the body merge.
    let d = detail(&e, "petstore", "1.0.0", "POST /stores/{storeId}/pets");
    assert_eq!(d.qualified_name, "POST /stores/{storeId}/pets");
    assert_eq!(
        params(&d),
        vec![
            p("body", "body", false),
            p("cookie", "session", false),
            p("path", "storeId", true),
            p("query", "verbose", true)
        ]
    );
    assert_eq!(
        body_props(&d).unwrap(),
        vec![
            ("category".into(), false),
            ("name".into(), true),
            ("shelf".into(), true),
            ("status".into(), false),
            ("tag".into(), false)
        ]
    );
    // `security: []` opts out of the global requirement.
    let d = detail(&e, "petstore", "1.0.0", "GET /health");
    assert_eq!(d.http.as_ref().unwrap().security, Vec::<String>::new());
    assert_eq!(
        d.responses.as_ref().unwrap()[0].media_types,
        vec!["text/plain"]
    );

    // Deprecation, x-sunset and a deprecated parameter.
    let d = detail(&e, "petstore", "1.0.0", "deletePet");
    assert!(d.deprecated);
    assert_eq!(
        d.http.as_ref().unwrap().sunset.as_deref(),
        Some("2025-06-30")
    );
    assert_eq!(
        params(&d),
        vec![p("path", "id", true), p("query", "reason", false)]
    );
}

#[test]
fn what_a_document_says_of_its_tags_is_a_fact_of_the_release() {
    let e = petstore();
    let q = "PREFIX rg: <https://refgraph.dev/ontology#>
             SELECT ?r ?d WHERE { GRAPH ?r { ?r rg:tagDescription ?d } } ORDER BY ?r";
    let rows = crate::support::sparql_rows(&e, q, &["r", "d"]);
    // 1.0.0 describes no tag; 2.0.0 describes `pets` and not `stores`.
    assert_eq!(
        rows,
        [[
            "pkg:generic/petstore@2.0.0".to_string(),
            "pets\tAnimals for sale, and their adoption records. Each pet belongs to one store."
                .to_string()
        ]]
    );
}

#[test]
fn endpoints_match_across_versions_whatever_the_path_parameter_names() {
    let e = petstore();
    // `METHOD /path` is an alias, and path-parameter names do not matter.
    for asked in ["GET /pets/{id}", "GET /pets/{petId}", "get /pets/{x}"] {
        assert_eq!(
            detail(&e, "petstore", "1.0.0", asked).qualified_name,
            "getPet"
        );
        assert_eq!(
            detail(&e, "petstore", "2.0.0", asked).qualified_name,
            "showPetById"
        );
    }
    // getPet was renamed showPetById with the same endpoint: the same operation.
    let c = e
        .lookup()
        .check_version(Some("pkg:generic/petstore"), "getPet", Some("2.0.0"))
        .unwrap();
    assert_eq!(c.available_in_requested, Some(true));
    assert_eq!(c.introduced_in.as_deref(), Some("1.0.0"));
    assert!(c.versions.iter().all(|v| v.available == Some(true)));

    let c = e
        .lookup()
        .check_version(Some("petstore"), "deletePet", Some("2.0.0"))
        .unwrap();
    assert_eq!(c.available_in_requested, Some(false));
    assert_eq!(c.removed_in.as_deref(), Some("2.0.0"));
    assert_eq!(c.deprecated_in.as_deref(), Some("1.0.0"));

    let c = e
        .lookup()
        .check_version(Some("petstore"), "POST /pets/{id}/photos", Some("1.0.0"))
        .unwrap();
    assert_eq!(c.available_in_requested, Some(false));
    assert_eq!(c.qualified_name, "uploadPhoto");
    assert_eq!(c.introduced_in.as_deref(), Some("2.0.0"));

    // listPets gained a required `owner`: its signature changed.
    let c = e
        .lookup()
        .check_version(Some("petstore"), "listPets", None)
        .unwrap();
    assert!(!c.versions[0].signature_changed);
    assert!(c.versions[1].signature_changed);

    // A made-up endpoint is a normal answer, not an error; never a guess.
    let c = e
        .lookup()
        .check_version(Some("petstore"), "GET /pets/{id}/toys", Some("2.0.0"))
        .unwrap();
    assert_eq!(c.available_in_requested, Some(false));
    assert!(c.versions.iter().all(|v| v.available == Some(false)));
    let v2 = e.choose(Some("petstore"), Some("2.0.0"), None).unwrap();
    match e.lookup().api_detail(&v2, "listPet") {
        Err(LookupError::NotFound { candidates, .. }) => {
            assert_eq!(candidates[0].qualified_name, "listPets")
        }
        other => panic!("expected not found, got {other:?}"),
    }
}

#[test]
fn schema_properties_have_their_facts_and_a_version_history() {
    let e = petstore();
    let d = detail(&e, "petstore", "1.0.0", "NewPet.name");
    assert_eq!(d.kind, "attribute");
    let s = d.schema.as_ref().unwrap();
    assert_eq!(s.type_.as_deref(), Some("string"));
    assert!(s.required);
    assert_eq!(s.constraints, vec!["maxLength=64", "minLength=1"]);
    assert!(
        detail(&e, "petstore", "1.0.0", "NewPet.tag")
            .schema
            .unwrap()
            .nullable
    );
    assert_eq!(
        detail(&e, "petstore", "1.0.0", "NewPet.status")
            .schema
            .unwrap()
            .enum_values,
        vec!["\"available\"", "\"pending\"", "\"sold\""]
    );
    // Pet = allOf [NewPet, {id}]: both parts' properties, the part's `required` kept.
    let id = detail(&e, "petstore", "1.0.0", "Pet.id").schema.unwrap();
    assert!(id.read_only && id.required);
    assert_eq!(id.format.as_deref(), Some("int64"));
    assert!(!detail(&e, "petstore", "1.0.0", "Pet.name").deprecated);
    let secret = detail(&e, "petstore", "1.0.0", "Error.secret");
    assert!(secret.deprecated && secret.schema.unwrap().write_only);
    assert!(
        detail(&e, "petstore", "1.0.0", "Category")
            .schema
            .unwrap()
            .recursive
    );
    assert_eq!(
        detail(&e, "petstore", "1.0.0", "Pet").signature.as_deref(),
        Some("allOf<NewPet|object> {category?, name, status?, tag?, id}")
    );

    let c = e
        .lookup()
        .check_version(Some("petstore"), "NewPet.tag", None)
        .unwrap();
    assert_eq!(c.removed_in.as_deref(), Some("2.0.0"));
    let c = e
        .lookup()
        .check_version(Some("petstore"), "NewPet.birthday", Some("1.0.0"))
        .unwrap();
    assert_eq!(c.available_in_requested, Some(false));
    assert_eq!(c.introduced_in.as_deref(), Some("2.0.0"));
}

#[test]
fn operations_list_by_tag_and_path_prefix() {
    let e = petstore();
    let v1 = e.choose(Some("petstore"), Some("1.0.0"), None).unwrap();
    let names = |kind: Option<&str>, prefix: Option<&str>, tag: Option<&str>| -> Vec<String> {
        e.lookup()
            .list_filtered(&v1, kind, prefix, tag, 1000, None)
            .unwrap()
            .items
            .into_iter()
            .map(|i| i.qualified_name)
            .collect()
    };
    assert_eq!(
        names(None, None, Some("stores")),
        vec!["POST /stores/{storeId}/pets"]
    );
    assert_eq!(
        names(Some("operation"), Some("/pets"), None),
        vec!["createPet", "deletePet", "getPet", "listPets"]
    );
    assert_eq!(
        names(None, Some("GET /pets"), None),
        vec!["getPet", "listPets"]
    );
    assert_eq!(
        names(Some("schema"), None, None),
        vec!["Category", "Error", "NewPet", "Pet"]
    );
    assert_eq!(names(None, None, Some("no-such-tag")), Vec::<String>::new());
}

#[test]
fn openapi_31_ingests_and_reports_what_it_loses() {
    let store = Store::in_memory();
    let report = ingest_spec(&store, &spec("openapi-3.1.json"), "events", "0.3.0").unwrap();
    let diags: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    for want in [
        "openapi-3.1.json#/webhooks",
        "'prefixItems'",
        "keyword beside $ref (description)",
        "'examples' beyond the first",
        "'info.summary'",
    ] {
        assert!(
            diags.iter().any(|d| d.contains(want)),
            "{want} not reported: {diags:#?}"
        );
    }
    let e = Engine::new(store);
    let d = detail(&e, "events", "0.3.0", "listEvents");
    assert_eq!(
        params(&d),
        vec![p("query", "kind", true), p("query", "since", false)]
    );
    let since = d.params.iter().find(|p| p.name == "since").unwrap();
    assert_eq!(since.type_.as_deref(), Some("string(date-time)"));
    let d = detail(&e, "events", "0.3.0", "recordEvent");
    assert_eq!(
        body_props(&d).unwrap(),
        vec![
            ("at".into(), true),
            ("id".into(), true),
            ("note".into(), false),
            ("pet".into(), false),
            ("tags".into(), false)
        ]
    );
    // `type: [string, "null"]` is nullable; a numeric exclusiveMinimum keeps its bound.
    assert!(
        detail(&e, "events", "0.3.0", "Event.note")
            .schema
            .unwrap()
            .nullable
    );
    assert_eq!(
        detail(&e, "events", "0.3.0", "Event.id")
            .schema
            .unwrap()
            .constraints,
        vec!["exclusiveMinimum=0"]
    );
}

#[test]
fn swagger_2_and_invalid_yaml_are_clear_errors() {
    let store = Store::in_memory();
    let err = ingest_spec(&store, &spec("swagger-2.0.json"), "old", "1.0.0").unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("Swagger 2.0") && text.contains("OpenAPI 3.0"),
        "{text}"
    );
    let err = ingest_spec(&store, &spec("invalid.yaml"), "broken", "1.0.0").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("invalid.yaml:9: invalid YAML"), "{text}");
    let tight = Limits {
        max_total_bytes: 1000,
        ..Limits::default()
    };
    let err = read_release(&spec("petstore-1.0.0.yaml"), Language::OpenApi, &tight).unwrap_err();
    assert!(err.to_string().contains("larger than 1000 bytes"), "{err}");
    let err = ingest_spec(&store, &repo().join("Cargo.toml"), "toml", "1.0.0").unwrap_err();
    assert!(err.to_string().contains("a single source file"), "{err}");
}

#[test]
fn dangling_refs_and_ref_cycles_are_diagnostics_not_failures() {
    let store = Store::in_memory();
    let report = ingest_spec(&store, &spec("dangling-ref.yaml"), "dangling", "1.0.0").unwrap();
    let diags: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    for want in [
        "dangling-ref.yaml#/paths/~1pets/post/parameters/0: dangling $ref '#/components/parameters/Missing'",
        "dangling-ref.yaml#/paths/~1pets/post/requestBody: dangling $ref",
        "dangling-ref.yaml#/components/schemas/Lost: dangling $ref",
        "file 'other.yaml' is not part of the release",
    ] {
        assert!(
            diags.iter().any(|d| d.contains(want)),
            "{want} not reported: {diags:#?}"
        );
    }
    let report = ingest_spec(&store, &spec("ref-cycle.yaml"), "cycles", "1.0.0").unwrap();
    assert!(
        report.diagnostics.iter().any(|d| d.file
            == "ref-cycle.yaml#/paths/~1loops/post/requestBody/content/application~1json/schema"
            && d.message.starts_with("$ref cycle")),
        "{:#?}",
        report.diagnostics
    );
    let e = Engine::new(store);
    // The operation keeps what could be read: its own parameter, no body.
    let d = detail(&e, "dangling", "1.0.0", "createPet");
    assert_eq!(params(&d), vec![p("query", "dryRun", false)]);
    // A recursive schema is kept, flattened one level, and marked.
    let d = detail(&e, "cycles", "1.0.0", "createNode");
    assert_eq!(
        body_props(&d).unwrap(),
        vec![
            ("children".into(), false),
            ("parent".into(), false),
            ("value".into(), true)
        ]
    );
    assert!(
        detail(&e, "cycles", "1.0.0", "Node")
            .schema
            .unwrap()
            .recursive
    );
    let d = detail(&e, "cycles", "1.0.0", "createLoop");
    assert_eq!(params(&d), vec![p("body", "body", false)]);
    assert!(d.request_body.unwrap().properties.is_none());
}

/// `count` operations, each with a description of `doc_bytes` bytes.
fn generated_spec(count: usize, doc_bytes: usize) -> String {
    let doc = "x".repeat(doc_bytes);
    let mut paths = serde_json::Map::new();
    for i in 0..count {
        paths.insert(
            format!("/r{i}/{{id}}"),
            serde_json::json!({"get": {
                "operationId": format!("op{i}"),
                "description": doc,
                "parameters": [
                    {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "q", "in": "query", "schema": {"type": "integer"}}
                ],
                "responses": {"200": {"description": "ok"}}
            }}),
        );
    }
    serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "generated", "version": "1"},
        "paths": paths
    })
    .to_string()
}

fn snapshot(e: &Engine) -> String {
    crate::support::snapshot(e, "petstore", "1.0.0", "createPet")
}

#[test]
fn bad_and_huge_specs_leave_other_releases_intact() {
    let store = Store::in_memory();
    ingest_spec(&store, &spec("petstore-1.0.0.yaml"), "petstore", "1.0.0").unwrap();
    let e = Engine::new(store.clone());
    let before = snapshot(&e);
    // Broken input, even under the name of the stored release, changes nothing.
    for bad in ["invalid.yaml", "swagger-2.0.json"] {
        assert!(ingest_spec(&store, &spec(bad), "petstore", "1.0.0").is_err());
    }
    for bad in ["dangling-ref.yaml", "ref-cycle.yaml"] {
        ingest_spec(&store, &spec(bad), "broken", "1.0.0").unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    // 10,000 operations.
    let many = dir.path().join("many.json");
    std::fs::write(&many, generated_spec(10_000, 0)).unwrap();
    let t = std::time::Instant::now();
    let report = ingest_spec(&store, &many, "many", "1.0.0").unwrap();
    assert_eq!(report.symbols, 10_000);
    println!("10,000 operations: {:.2}s", t.elapsed().as_secs_f64());
    // 50 MB: 2,000 operations with 25 kB descriptions.
    let big = dir.path().join("big.json");
    std::fs::write(&big, generated_spec(2_000, 25_000)).unwrap();
    let size = std::fs::metadata(&big).unwrap().len();
    assert!(size > 50_000_000, "{size}");
    let t = std::time::Instant::now();
    let report = ingest_spec(&store, &big, "big", "1.0.0").unwrap();
    assert_eq!(report.symbols, 2_000);
    println!(
        "{:.0} MB spec: {:.2}s",
        size as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    // Truncated in the middle: a clear error, nothing stored.
    let bytes = std::fs::read(&many).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let err = ingest_spec(&store, &cut, "many", "2.0.0").unwrap_err();
    assert!(err.to_string().contains("invalid JSON"), "{err}");

    let e = Engine::new(store);
    assert_eq!(snapshot(&e), before);
    let many = detail(&e, "many", "1.0.0", "GET /r9999/{x}");
    assert_eq!(many.qualified_name, "op9999");
    assert!(
        e.lookup()
            .check_version(Some("many"), "op1", Some("2.0.0"))
            .is_err(),
        "the truncated release must not be indexed"
    );
}

#[test]
fn refs_resolve_across_the_files_of_a_split_spec() {
    let store = Store::in_memory();
    let report = ingest_spec(&store, &spec("split"), "split", "1.0.0").unwrap();
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    assert_eq!(report.files, 4);
    let e = Engine::new(store);
    // A path item, its shared parameter and the body schema each live in another file.
    let d = detail(&e, "split", "1.0.0", "replacePet");
    assert_eq!(
        params(&d),
        vec![p("body", "body", true), p("path", "petId", true)]
    );
    assert_eq!(d.source.file.as_deref(), Some("paths/pet.yaml"));
    // Pet = allOf [#/Named, {owner}] inside schemas/owner.yaml: its refs are relative to it.
    assert_eq!(
        body_props(&d).unwrap(),
        vec![("name".into(), true), ("owner".into(), false)]
    );
    let d = detail(&e, "split", "1.0.0", "Owner");
    assert_eq!(d.signature.as_deref(), Some("object {name, pets?}"));
    assert_eq!(d.source.file.as_deref(), Some("schemas/owner.yaml"));
    assert_eq!(
        detail(&e, "split", "1.0.0", "Owner.pets")
            .signature
            .as_deref(),
        Some("pets?: array<Pet>")
    );
}

mod mcp {
    use std::sync::Arc;

    use rmcp::ServiceExt;
    use rmcp::model::{CallToolRequestParams, CallToolResult};
    use serde_json::{Value, json};

    use refgraph::mcp::RefgraphServer;

    async fn call(
        client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
        tool: &str,
        args: Value,
    ) -> (String, Value) {
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        let r: CallToolResult = client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
            .await
            .expect("protocol-level success");
        let text = r
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        (text, r.structured_content.unwrap_or(Value::Null))
    }

    #[tokio::test]
    async fn tools_answer_operations_bodies_tags_and_endpoint_versions() {
        let engine = Arc::new(super::petstore());
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            let running = RefgraphServer::new(engine)
                .serve(server_io)
                .await
                .expect("server starts");
            running.waiting().await.ok();
        });
        let client = ().serve(client_io).await.expect("client connects");
        let pkg = "pkg:generic/petstore";

        let (text, v) = call(
            &client,
            "get_api_detail",
            json!({"name": "POST /pets", "package": pkg, "version": "1.0.0"}),
        )
        .await;
        assert!(text.starts_with("[Version: 1.0.0]\n"), "{text}");
        assert!(
            text.contains("signature: POST /pets(body: body NewPet)"),
            "{text}"
        );
        assert_eq!(v["qualified_name"], "createPet");
        assert_eq!(
            v["params"],
            json!([{"name": "body", "kind": "body", "required": true, "type": "NewPet"}])
        );
        assert_eq!(v["request_body"]["required"], true);
        assert_eq!(
            v["request_body"]["properties"][1],
            json!({"name": "name", "required": true, "type": "string"})
        );
        assert_eq!(v["responses"][0]["status"], "201");

        let (text, v) = call(
            &client,
            "list_apis",
            json!({"package": pkg, "version": "1.0.0", "tag": "stores"}),
        )
        .await;
        assert!(text.starts_with("[Version: 1.0.0]"), "{text}");
        assert_eq!(
            v["items"][0]["qualified_name"],
            "POST /stores/{storeId}/pets"
        );
        assert_eq!(v["items"].as_array().unwrap().len(), 1);

        let (_, v) = call(
            &client,
            "check_version",
            json!({"name": "GET /pets/{anything}", "package": pkg, "version": "2.0.0"}),
        )
        .await;
        assert_eq!(v["available_in_requested"], true);
        assert_eq!(v["introduced_in"], "1.0.0");
        client.cancel().await.ok();
    }
}

/// An operation's chunk for concept search lists its parameters with their descriptions
/// (a `$ref`'d parameter's too), so words only a parameter uses find the operation.
#[test]
fn operation_chunks_list_their_parameters() {
    let store = Store::in_memory();
    ingest_spec(&store, &spec("petstore-1.0.0.yaml"), "petstore", "1.0.0").unwrap();
    let e = Engine::new(store);
    let chunks =
        refgraph::index::chunks::release_chunks(e.store(), &e.releases().unwrap()[0]).unwrap();
    let text = |title: &str| {
        chunks
            .iter()
            .find(|c| c.title == title)
            .map(|c| c.text.clone())
            .unwrap_or_else(|| panic!("no chunk titled {title}"))
    };
    let list = text("listPets");
    assert!(
        list.contains("Parameters:\n- limit: How many pets to return.\n- tag"),
        "{list}"
    );
}
