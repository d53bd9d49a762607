//! The MCP server in one process with an rmcp client over an in-memory pipe.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};

use refgraph::mcp::RefgraphServer;

use crate::support::acme;

pub(crate) fn text_of(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) async fn call(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    args: Value,
) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .expect("protocol-level success")
}

/// An in-process server over `engine` and a client connected to it through a pipe.
async fn connect(
    engine: Arc<refgraph::answer::Engine>,
) -> (
    rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tokio::task::JoinHandle<()>,
) {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(async move {
        let running = RefgraphServer::new(engine)
            .serve(server_io)
            .await
            .expect("server starts");
        running.waiting().await.ok();
    });
    let client = ().serve(client_io).await.expect("client connects");
    (client, server)
}

#[tokio::test]
async fn tools_answer_with_version_lines_structured_content_and_clear_errors() {
    let engine = Arc::new(acme());
    let (client, server) = connect(engine).await;

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        vec![
            "check_version",
            "diff_versions",
            "get_api_detail",
            "get_page",
            "get_usage_path",
            "list_apis",
            "related",
            "resolve_versions",
            "search_docs",
            "sparql_query"
        ]
    );
    for t in &tools {
        assert!(t.output_schema.is_some(), "{} has no outputSchema", t.name);
        let props = t
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object())
            .unwrap();
        for (name, schema) in props {
            assert!(
                schema.get("description").is_some(),
                "{}.{name} has no description",
                t.name
            );
        }
    }

    let ok = call(&client, "get_api_detail", json!({"name": "acme_storage.StorageClient.put_object", "package": "pkg:pypi/acme-storage"})).await;
    assert_eq!(ok.is_error, Some(false));
    assert!(
        text_of(&ok).starts_with("[Version: 2.0.0 (newest indexed)]\n"),
        "{}",
        text_of(&ok)
    );
    let s = ok.structured_content.clone().unwrap();
    assert_eq!(s["qualified_name"], "acme_storage.StorageClient.put_object");
    assert_eq!(s["version"], "2.0.0");
    assert!(
        s["params"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["name"] != "self")
    );

    // Usage paths and related entities over MCP: the version line first, the snippet and the
    // steps' sources in the structured content.
    let usage = call(&client, "get_usage_path", json!({"name": "acme_storage.StorageClient.put_object", "package": "acme-storage", "version": "2.0.0"})).await;
    assert_eq!(usage.is_error, Some(false));
    assert!(
        text_of(&usage).starts_with("[Version: 2.0.0]\n"),
        "{}",
        text_of(&usage)
    );
    let s = usage.structured_content.clone().unwrap();
    assert_eq!(
        s["paths"][0]["snippet"],
        "from acme_storage import StorageClient\n\nstorage_client = StorageClient()\nstorage_client.put_object(bucket, key, data)"
    );
    assert_eq!(
        s["paths"][0]["steps"][0]["source"],
        "acme_storage/_client.py:74"
    );
    let related = call(&client, "related", json!({"name": "acme_storage.Bucket", "package": "acme-storage", "version": "2.0.0", "relation": "returned_by"})).await;
    assert_eq!(related.is_error, Some(false));
    let names: Vec<&str> = related.structured_content.as_ref().unwrap()["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["qualified_name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"acme_storage.StorageClient.create_bucket"),
        "{names:?}"
    );
    let unknown = call(
        &client,
        "get_usage_path",
        json!({"name": "acme_storage.StorageClient.put_objekt", "package": "acme-storage"}),
    )
    .await;
    assert_eq!(unknown.is_error, Some(true));
    assert!(
        text_of(&unknown).contains("acme_storage.StorageClient.put_object"),
        "{}",
        text_of(&unknown)
    );

    let bad_version = call(
        &client,
        "get_api_detail",
        json!({"name": "acme_storage.StorageClient", "package": "acme-storage", "version": "9.9"}),
    )
    .await;
    assert_eq!(bad_version.is_error, Some(true));
    let t = text_of(&bad_version);
    assert!(
        t.starts_with("[Version: 9.9 (not indexed)]") && t.contains("1.0.0, 2.0.0"),
        "{t}"
    );

    let missing = call(&client, "get_api_detail", json!({"name": "acme_storage.StorageClient.put_objet", "package": "acme-storage", "version": "1.0.0"})).await;
    assert_eq!(missing.is_error, Some(true));
    let t = text_of(&missing);
    assert!(
        t.starts_with("[Version: 1.0.0]")
            && t.contains("not found")
            && t.contains("acme_storage.StorageClient.put_object"),
        "{t}"
    );

    let unknown_pkg = call(
        &client,
        "get_api_detail",
        json!({"name": "x", "package": "pkg:pypi/nope"}),
    )
    .await;
    assert_eq!(unknown_pkg.is_error, Some(true));
    assert!(text_of(&unknown_pkg).contains("pkg:pypi/acme-storage"));

    let check = call(&client, "check_version", json!({"name": "acme_storage.transfer.upload.upload_bytes", "package": "acme-storage", "version": "2.0.0"})).await;
    let s = check.structured_content.clone().unwrap();
    assert_eq!(s["available_in_requested"], false);
    assert_eq!(s["removed_in"], "2.0.0");
    assert!(text_of(&check).starts_with("[Version: 2.0.0]"));

    let bad_sparql = call(
        &client,
        "sparql_query",
        json!({"query": "SELECT * WHERE { ?s ?p"}),
    )
    .await;
    assert_eq!(bad_sparql.is_error, Some(true));
    let update = call(&client, "sparql_query", json!({"query": "CLEAR ALL"})).await;
    assert!(text_of(&update).contains("refused"));
    // This server opened no text index: concept search is a tool error that says where to
    // ask, not a protocol failure.
    let search = call(
        &client,
        "search_docs",
        json!({"query": "upload a file", "package": "acme-storage"}),
    )
    .await;
    assert_eq!(search.is_error, Some(true));
    assert!(
        text_of(&search).contains("text index is not open"),
        "{}",
        text_of(&search)
    );

    // Still serving, and nothing was lost.
    let list = call(
        &client,
        "list_apis",
        json!({"package": "acme-storage", "version": "1.0.0", "kind": "class"}),
    )
    .await;
    let s = list.structured_content.unwrap();
    assert!(
        s["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["qualified_name"] == "acme_storage.StorageClient")
    );
    let rows = call(
        &client,
        "sparql_query",
        json!({"query": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"}),
    )
    .await;
    assert_eq!(rows.is_error, Some(false));

    client.cancel().await.unwrap();
    server.await.unwrap();
}

/// The `sparql_query` tool answers at its time limit even when the evaluation takes seconds
/// more to notice it was cancelled (an aggregate over a cartesian product), and the server
/// keeps answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runaway_sparql_query_is_answered_at_the_time_limit() {
    let mut engine = acme();
    engine.limits.timeout = std::time::Duration::from_secs(1);
    let engine = Arc::new(engine);
    let (client, server) = connect(engine).await;
    let started = std::time::Instant::now();
    let runaway = call(
        &client,
        "sparql_query",
        json!({"query": "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"}),
    )
    .await;
    let took = started.elapsed();
    assert_eq!(runaway.is_error, Some(true));
    assert!(
        text_of(&runaway).contains("stopped after 1s"),
        "{}",
        text_of(&runaway)
    );
    assert!(
        took < std::time::Duration::from_millis(1500),
        "cut at the 1 s limit, took {took:?}"
    );
    let rows = call(
        &client,
        "sparql_query",
        json!({"query": "ASK { GRAPH ?g { ?s ?p ?o } }"}),
    )
    .await;
    assert_eq!(rows.is_error, Some(false), "{}", text_of(&rows));
    client.cancel().await.unwrap();
    server.abort();
}
