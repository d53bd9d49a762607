//! Concept search: the text index over docstrings and doc pages, its version rules, its
//! rebuild from the store, and the MCP tools.

use std::path::PathBuf;
use std::sync::Arc;

use refgraph::answer::{DocQuery, DocsError, Engine, ReleaseError};
use refgraph::index::{FusionConfig, Mode, TextIndex};
use refgraph::model::PackageId;
use refgraph::store::Store;

use crate::support::{acme, copy_tree, ingest, sample, try_ingest};

/// The installed model: CI installs it (`refgraph model install` in scripts/setup); a missing
/// model fails the vector tests rather than skipping them.
fn model() -> PathBuf {
    let dir = refgraph::index::embed::model_dir(None).expect("a model directory");
    assert!(
        refgraph::index::embed::model_present(&dir),
        "no embedding model in {}: run `refgraph model install` (scripts/setup does)",
        dir.display()
    );
    dir
}

/// acme-storage 1.0.0 and 2.0.0 with a text index; `vectors` loads the model.
fn indexed(vectors: bool, dir: Option<&std::path::Path>) -> Engine {
    let model = if vectors {
        Some(model())
    } else {
        Some(PathBuf::from("/nonexistent/refgraph-model"))
    };
    let index = match dir {
        Some(d) => TextIndex::open(d, model).unwrap(),
        None => TextIndex::in_memory(model).unwrap(),
    };
    synced(acme().store().clone(), index, None)
}

/// `store` with an in-memory text index brought up to date, without a model (BM25 and names),
/// and synonym tables from `synonyms`.
fn searchable(store: Store, synonyms: Option<PathBuf>) -> Engine {
    let index = TextIndex::in_memory(Some(PathBuf::from("/nonexistent"))).unwrap();
    synced(store, index, synonyms)
}

/// `store` searched through `index`, brought up to date.
fn synced(store: Store, index: TextIndex, synonyms: Option<PathBuf>) -> Engine {
    let e = Engine::new(store).with_index(Arc::new(index), synonyms);
    e.sync_index(false, &|_, _, _| {}).unwrap();
    e
}

fn q(query: &str, version: Option<&str>) -> DocQuery {
    DocQuery {
        query: query.into(),
        package: Some("pkg:pypi/acme-storage".into()),
        version: version.map(str::to_string),
        limit: Some(5),
        ..Default::default()
    }
}

/// Qualified names of the entities of the top `n` hits, in order.
fn top_entities(e: &Engine, query: &DocQuery, mode: Mode, n: usize) -> Vec<String> {
    let (s, _) = e.docs().search_docs_with(query, mode).unwrap();
    s.results
        .iter()
        .take(n)
        .flat_map(|h| h.entities.iter().map(|x| x.qualified_name.clone()))
        .collect()
}

#[test]
fn identifiers_and_words_are_found_without_a_model() {
    let e = indexed(false, None);
    let (s, line) = e
        .docs()
        .search_docs_with(&q("put_object", Some("2.0.0")), Mode::Fused)
        .unwrap();
    assert_eq!(line, "2.0.0");
    assert!(!s.semantic);
    assert!(
        s.note
            .as_deref()
            .is_some_and(|n| n.contains("no embedding model is installed")),
        "{:?}",
        s.note
    );
    // Said beside another note too: a query nothing matches, without a model.
    let (none, _) = e
        .docs()
        .search_docs_with(&q("bake a chocolate cake", Some("2.0.0")), Mode::Fused)
        .unwrap();
    let note = none.note.unwrap_or_default();
    assert!(
        note.starts_with("nothing") && note.contains("no embedding model is installed"),
        "{note}"
    );
    assert_eq!(
        s.results[0].entities[0].qualified_name,
        "acme_storage.StorageClient.put_object"
    );
    assert_eq!(s.results[0].version, "2.0.0");
    assert!(
        s.results[0]
            .source_url
            .starts_with("acme_storage/_client.py:"),
        "{:?}",
        s.results[0]
    );
    // A docstring links the symbols it names: list_buckets says it was renamed to
    // :meth:`iter_buckets`, a method of the same class.
    let (s, _) = e
        .docs()
        .search_docs_with(&q("list_buckets", Some("2.0.0")), Mode::Fused)
        .unwrap();
    let names: Vec<&str> = s.results[0]
        .entities
        .iter()
        .map(|x| x.qualified_name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "acme_storage.StorageClient.list_buckets",
            "acme_storage.StorageClient.iter_buckets"
        ]
    );
    // camelCase and snake_case parts match words: "presigned url" finds generate_presigned_url.
    let hits = top_entities(&e, &q("presigned url", None), Mode::Fused, 3);
    assert!(
        hits.contains(&"acme_storage.StorageClient.generate_presigned_url".to_string()),
        "{hits:?}"
    );
}

#[test]
fn readme_sections_are_chunks_linked_to_the_symbols_they_mention() {
    let e = indexed(false, None);
    let (s, _) = e
        .docs()
        .search_docs_with(
            &q("retried network errors failed upload", Some("2.0.0")),
            Mode::Bm25Only,
        )
        .unwrap();
    let retries = s
        .results
        .iter()
        .find(|h| h.section_path == "Acme Storage SDK for Python > Uploading files > Retries")
        .unwrap_or_else(|| panic!("no Retries section in {:#?}", s.results));
    let names: Vec<&str> = retries
        .entities
        .iter()
        .map(|x| x.qualified_name.as_str())
        .collect();
    assert!(names.contains(&"acme_storage.StorageError"), "{names:?}");
    assert!(
        names.contains(&"acme_storage.StorageError.retryable"),
        "{names:?}"
    );
    assert_eq!(retries.source_url, "README.md");
    // The page, whole, with its table.
    let page = e.docs().get_page(&retries.page).unwrap();
    assert_eq!(page.title, "Acme Storage SDK for Python");
    assert!(
        page.markdown.contains("| http_method |"),
        "{}",
        page.markdown
    );
    assert!(page.markdown.contains("```python\nimport acme_storage"));
    // 1.0.0 ships no README: its search never shows 2.0.0's pages.
    let (old, _) = e
        .docs()
        .search_docs_with(&q("retried network errors", Some("1.0.0")), Mode::Bm25Only)
        .unwrap();
    assert!(
        old.results
            .iter()
            .all(|h| h.version == "1.0.0" && h.source_url != "README.md")
    );
}

#[test]
fn versions_are_never_substituted() {
    let e = indexed(false, None);
    match e.docs().search_docs(&q("bucket", Some("3.0.0"))) {
        Err(DocsError::Release(ReleaseError::VersionNotIndexed { indexed, .. })) => {
            assert_eq!(indexed, ["1.0.0", "2.0.0"])
        }
        other => panic!("expected VersionNotIndexed, got {other:?}"),
    }
    let (_, line) = e.docs().search_docs(&q("bucket", None)).unwrap();
    assert_eq!(line, "2.0.0 (newest indexed)");
    let mut no_package = q("bucket", Some("2.0.0"));
    no_package.package = None;
    assert!(matches!(
        e.docs().search_docs(&no_package),
        Err(DocsError::BadArgument(_))
    ));
}

#[test]
fn paraphrases_find_the_api_through_vectors_and_noise_finds_nothing() {
    let e = indexed(true, None);
    let query = q(
        "give someone a temporary link to download one file",
        Some("2.0.0"),
    );
    let (s, _) = e.docs().search_docs(&query).unwrap();
    assert!(s.semantic);
    let names: Vec<&str> = s
        .results
        .iter()
        .flat_map(|h| h.entities.iter().map(|x| x.qualified_name.as_str()))
        .collect();
    assert!(
        names.contains(&"acme_storage.StorageClient.generate_presigned_url"),
        "{names:?}"
    );
    let (none, _) = e
        .docs()
        .search_docs(&q("bake a chocolate cake with strawberries", Some("2.0.0")))
        .unwrap();
    assert!(none.results.is_empty(), "{:#?}", none.results);
    assert!(
        none.note.as_deref().unwrap_or("").contains("nothing"),
        "{:?}",
        none.note
    );
    // Nothing useful is hidden: the candidates the relevance bar turned away are listed apart.
    assert!(
        !none.closest.is_empty() && none.closest.len() <= 5,
        "{:#?}",
        none.closest
    );
}

/// With abstention on, a question the release cannot answer gets no results, a note that says
/// why and the closest chunks apart, while a question it answers still gets its answer. Off by
/// default: the same question then gets hits.
#[test]
fn abstention_answers_an_unanswerable_question_with_a_note_and_the_closest_chunks() {
    let abstaining = |on: bool| {
        let mut index = TextIndex::in_memory(Some(model())).unwrap();
        if on {
            index.fusion = FusionConfig::parse("abstain_cosine=0.44").unwrap();
        }
        synced(acme().store().clone(), index, None)
    };
    let negative = q(
        "stream telemetry over a websocket with quic backpressure to the upload",
        Some("2.0.0"),
    );
    let e = abstaining(true);
    let (s, _) = e.docs().search_docs(&negative).unwrap();
    assert!(s.results.is_empty(), "{:#?}", s.results);
    assert!(!s.closest.is_empty(), "the closest chunks are kept");
    let note = s.note.unwrap_or_default();
    assert!(
        note.starts_with("nothing relevant found") && note.contains("'websocket'"),
        "{note}"
    );
    let (answered, _) = e
        .docs()
        .search_docs(&q(
            "give someone a temporary link to download one file",
            Some("2.0.0"),
        ))
        .unwrap();
    assert!(
        answered.closest.is_empty()
            && answered
                .results
                .iter()
                .any(|h| h.entities.iter().any(
                    |x| x.qualified_name == "acme_storage.StorageClient.generate_presigned_url"
                )),
        "{:#?}",
        answered.results
    );
    let (default, _) = abstaining(false).docs().search_docs(&negative).unwrap();
    assert!(
        !default.results.is_empty() && default.closest.is_empty(),
        "{:?}",
        default.note
    );
}

#[test]
fn synonyms_map_phrases_to_identifiers() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("pypi/acme-storage.txt");
    std::fs::create_dir_all(table.parent().unwrap()).unwrap();
    std::fs::write(&table, "上传文件 = put_object\n").unwrap();
    let store = acme().store().clone();
    let e = searchable(store, Some(dir.path().to_path_buf()));
    let hits = top_entities(&e, &q("如何上传文件", Some("2.0.0")), Mode::Fused, 1);
    assert_eq!(hits, ["acme_storage.StorageClient.put_object"]);
}

#[test]
fn the_index_rebuilds_from_the_store_and_reingest_replaces_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let index_dir = dir.path().join("index");
    let e = indexed(false, Some(&index_dir));
    let before = e.text_index_handle().unwrap().len().unwrap();
    assert!(before > 40, "{before}");
    let top = top_entities(
        &e,
        &q("iterate over buckets", Some("2.0.0")),
        Mode::Fused,
        1,
    );
    drop(e);
    // Gone entirely: `reindex` rebuilds the same chunks from the store.
    std::fs::remove_dir_all(&index_dir).unwrap();
    let e = indexed(false, Some(&index_dir));
    assert_eq!(e.text_index_handle().unwrap().len().unwrap(), before);
    assert_eq!(
        top_entities(
            &e,
            &q("iterate over buckets", Some("2.0.0")),
            Mode::Fused,
            1
        ),
        top
    );

    // Re-ingest 2.0.0 from a copy whose README changed: the old sections are gone.
    let copy = tempfile::tempdir().unwrap();
    copy_tree(&sample("acme-storage-2.0.0"), copy.path());
    std::fs::write(
        copy.path().join("README.md"),
        "# Acme\n\n## Zebra crossings\n\nUse `put_object` to store zebras.\n",
    )
    .unwrap();
    ingest(e.store(), copy.path(), "acme-storage", "2.0.0");
    e.sync_index(false, &|_, _, _| {}).unwrap();
    let (s, _) = e
        .docs()
        .search_docs_with(&q("retried network errors", Some("2.0.0")), Mode::Bm25Only)
        .unwrap();
    assert!(
        s.results.iter().all(|h| h.source_url != "README.md"),
        "stale README chunks: {:#?}",
        s.results
    );
    let (z, _) = e
        .docs()
        .search_docs(&q("zebra crossings", Some("2.0.0")))
        .unwrap();
    assert_eq!(z.results[0].section_path, "Acme > Zebra crossings");
    assert_eq!(
        z.results[0].entities[0].qualified_name,
        "acme_storage.StorageClient.put_object"
    );
}

/// A question in Chinese is searched in English, word by word through the glossary that
/// `refgraph model install` derives from CC-CEDICT; the result says what was searched, with
/// the developer thesaurus's readings beside the words it knows.
#[test]
fn chinese_questions_are_searched_in_english() {
    let dir = model();
    assert!(
        dir.join(refgraph::index::glossary::FILE).is_file(),
        "no glossary in {}: run `refgraph model install` (scripts/test does)",
        dir.display()
    );
    let e = indexed(true, None);
    for (query, english, want) in [
        (
            "删除对象",
            "delete (remove) object",
            "acme_storage.StorageClient.delete_object",
        ),
        (
            "如何列出所有的桶？",
            "list bucket",
            "acme_storage.StorageClient.list_buckets",
        ),
        (
            "从环境变量创建客户端",
            "environment variable create client",
            "acme_storage.StorageClient.from_env",
        ),
    ] {
        let (s, _) = e.docs().search_docs(&q(query, Some("2.0.0"))).unwrap();
        assert_eq!(s.searched_as.as_deref(), Some(english), "{query}");
        let top: Vec<&str> = s
            .results
            .iter()
            .take(3)
            .flat_map(|h| h.entities.iter().map(|x| x.qualified_name.as_str()))
            .collect();
        assert!(top.contains(&want), "{query}: {top:?}");
    }
    // English the thesaurus has no word of is searched as it is.
    let (s, _) = e
        .docs()
        .search_docs(&q("list the buckets", Some("2.0.0")))
        .unwrap();
    assert_eq!(s.searched_as, None);
    // Jargon is searched with the thesaurus's long forms beside it (the vector reads them).
    let (s, _) = e
        .docs()
        .search_docs(&q("make a client from env vars", Some("2.0.0")))
        .unwrap();
    assert_eq!(
        s.searched_as.as_deref(),
        Some("make a client from env vars (environment variables)")
    );
    assert_eq!(
        s.results[0].entities[0].qualified_name,
        "acme_storage.StorageClient.from_env"
    );
    // Without a glossary the answer says how to get one, rather than searching Chinese
    // characters no document holds.
    let e = indexed(false, None);
    let (s, _) = e.docs().search_docs(&q("删除对象", Some("2.0.0"))).unwrap();
    assert!(
        s.note
            .as_deref()
            .is_some_and(|n| n.contains("refgraph model install") && n.contains("glossary")),
        "{:?}",
        s.note
    );
}

/// A synchronous method and its asynchronous twin answer one question: one result links
/// both, and the place the twin would take goes to the next answer.
#[test]
fn sync_and_async_twins_fold_into_one_result() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("twins");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("__init__.py"),
        r#"class Client:
    def fetch_page(self, url):
        """Download one web page and return its body."""

class AsyncClient:
    async def fetch_page(self, url):
        """Download one web page and return its body."""

def fetch_many(urls):
    """Download several web pages at once."""
"#,
    )
    .unwrap();
    let store = Store::in_memory();
    let id = PackageId::new(refgraph::model::Ecosystem::Pypi, "twins");
    try_ingest(&store, dir.path(), &id, "1.0.0").unwrap();
    let e = searchable(store, None);
    let (s, _) = e
        .docs()
        .search_docs(&DocQuery {
            query: "download web page body".into(),
            package: Some("twins".into()),
            limit: Some(2),
            ..Default::default()
        })
        .unwrap();
    let names: Vec<Vec<&str>> = s
        .results
        .iter()
        .map(|h| {
            h.entities
                .iter()
                .map(|e| e.qualified_name.as_str())
                .collect()
        })
        .collect();
    let first = &names[0];
    assert!(
        first.contains(&"twins.Client.fetch_page")
            && first.contains(&"twins.AsyncClient.fetch_page"),
        "{names:?}"
    );
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(names[1][0], "twins.fetch_many", "{names:?}");
}

/// The petstore 2.0.0 sample spec, searchable without a model.
fn petstore_2() -> Engine {
    let store = Store::in_memory();
    let spec = crate::support::repo().join("samples/openapi/petstore-2.0.0.yaml");
    let id = PackageId::new(refgraph::model::Ecosystem::Generic, "petstore");
    try_ingest(&store, &spec, &id, "2.0.0").unwrap();
    searchable(store, None)
}

fn petstore_query(query: &str) -> DocQuery {
    DocQuery {
        query: query.into(),
        package: Some("petstore".into()),
        ..Default::default()
    }
}

#[test]
fn openapi_operations_are_searchable_by_summary() {
    let e = petstore_2();
    let (s, _) = e.docs().search_docs(&petstore_query("list pets")).unwrap();
    assert!(!s.results.is_empty());
    assert_eq!(s.results[0].entities[0].kind, "operation");
    assert_eq!(s.results[0].content_type, "api_reference");
}

/// An operation is found by what its spec says of its tag, words its own summary lacks: the
/// `pets` tag of petstore 2.0.0 is "Animals for sale, and their adoption records".
#[test]
fn openapi_operations_are_found_by_their_tags_words() {
    let e = petstore_2();
    let (s, _) = e
        .docs()
        .search_docs(&petstore_query("adoption records"))
        .unwrap();
    let top = s.results.first().expect("a hit");
    assert_eq!(top.entities[0].kind, "operation", "{top:#?}");
    let text = e.docs().get_page(&top.id).unwrap().markdown;
    assert!(
        text.contains("pets: Animals for sale, and their adoption records."),
        "{text}"
    );
    // Every operation found is filed under `pets`: the `stores` operations are not found.
    for h in s
        .results
        .iter()
        .filter(|h| h.entities[0].kind == "operation")
    {
        let page = e.docs().get_page(&h.id).unwrap().markdown;
        assert!(page.contains("adoption records"), "{page}");
    }
}

/// In an OpenAPI spec the question is which operation to call: a schema that matches the
/// words better (its name is the query) comes after the operations found, not before.
#[test]
fn openapi_operations_come_before_the_schemas_they_outrank() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("widgets.yaml");
    std::fs::write(
        &spec,
        r#"openapi: 3.0.3
info: {title: Widgets, version: 1.0.0}
paths:
  /widgets/{id}:
    delete:
      operationId: removeGadget
      summary: Remove one item from the shop
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "204": {description: removed}
components:
  schemas:
    Widget:
      description: A widget. Widgets are what the shop sells; a widget has a name and a price.
      type: object
      properties:
        name: {type: string}
        price: {type: number}
"#,
    )
    .unwrap();
    let store = Store::in_memory();
    let id = PackageId::new(refgraph::model::Ecosystem::Generic, "widgets");
    try_ingest(&store, &spec, &id, "1.0.0").unwrap();
    let e = searchable(store, None);
    for query in ["widget", "widgets the shop sells"] {
        let (s, _) = e
            .docs()
            .search_docs(&DocQuery {
                query: query.into(),
                package: Some("widgets".into()),
                ..Default::default()
            })
            .unwrap();
        let kinds: Vec<&str> = s
            .results
            .iter()
            .map(|h| h.entities[0].kind.as_str())
            .collect();
        assert_eq!(kinds, ["operation", "schema"], "{query}: {:#?}", s.results);
    }
    // Searched across packages, the schema is not moved below another package's weaker hits:
    // the list follows the fused scores.
    let gizmos = PackageId::new(refgraph::model::Ecosystem::Generic, "gizmos");
    try_ingest(e.store(), &spec, &gizmos, "1.0.0").unwrap();
    e.sync_index(false, &|_, _, _| {}).unwrap();
    let (s, _) = e
        .docs()
        .search_docs(&DocQuery {
            query: "widget".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(s.releases.len(), 2, "{:?}", s.releases);
    let kinds: Vec<&str> = s
        .results
        .iter()
        .map(|h| h.entities[0].kind.as_str())
        .collect();
    assert_eq!(kinds[0], "schema", "{:#?}", s.results);
    assert!(
        s.results.windows(2).all(|w| w[0].score >= w[1].score),
        "not in score order: {:#?}",
        s.results
    );
}

#[tokio::test]
async fn search_docs_and_get_page_over_mcp() {
    use crate::mcp::{call, text_of};
    use rmcp::ServiceExt;
    let engine = Arc::new(indexed(false, None));
    let logdir = tempfile::tempdir().unwrap();
    let log_path = logdir.path().join("log/query-log.jsonl");
    let log = Arc::new(refgraph::mcp::QueryLog::open(&log_path).unwrap());
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = refgraph::mcp::RefgraphServer::new(engine)
            .with_log(log)
            .serve(server_io)
            .await
            .expect("server starts");
        running.waiting().await.ok();
    });
    let client = ().serve(client_io).await.expect("client connects");
    let r = call(
        &client,
        "search_docs",
        serde_json::json!({"query": "create a bucket", "package": "acme-storage", "limit": 3}),
    )
    .await;
    assert_eq!(r.is_error, Some(false));
    assert!(
        text_of(&r).starts_with("[Version: 2.0.0 (newest indexed)]"),
        "{}",
        text_of(&r)
    );
    let v = r.structured_content.unwrap();
    let results = v["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 3);
    for field in [
        "id",
        "title",
        "section_path",
        "snippet",
        "source_url",
        "package",
        "version",
        "content_type",
        "score",
        "entities",
    ] {
        assert!(
            results[0].get(field).is_some(),
            "no {field} in {}",
            results[0]
        );
    }
    let page = call(
        &client,
        "get_page",
        serde_json::json!({"id": results[0]["page"]}),
    )
    .await;
    assert_eq!(page.is_error, Some(false));
    let p = page.structured_content.unwrap();
    assert_eq!(p["version"], "2.0.0");
    assert!(!p["markdown"].as_str().unwrap().is_empty());
    let missing = call(&client, "get_page", serde_json::json!({"id": "nope"})).await;
    assert_eq!(missing.is_error, Some(true));
    let bad = call(
        &client,
        "search_docs",
        serde_json::json!({"query": "bucket", "package": "acme-storage", "version": "9.9.9"}),
    )
    .await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text_of(&bad).contains("1.0.0, 2.0.0"), "{}", text_of(&bad));
    for _ in 0..2 {
        let none = call(
            &client,
            "search_docs",
            serde_json::json!({"query": "quantum chromodynamics lattice", "package": "acme-storage"}),
        )
        .await;
        assert_eq!(none.is_error, Some(false));
    }

    // Doc pages are resources too.
    let resources = client.list_all_resources().await.unwrap();
    let readme = resources
        .iter()
        .find(|r| r.name == "Acme Storage SDK for Python")
        .unwrap_or_else(|| panic!("{resources:#?}"));
    assert!(readme.uri.starts_with("refgraph://page/"), "{}", readme.uri);
    let read = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            readme.uri.clone(),
        ))
        .await
        .unwrap();
    let rmcp::model::ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
        panic!("not text: {read:?}")
    };
    assert!(
        text.starts_with("[Version: 2.0.0]\n# Acme Storage SDK for Python"),
        "{text}"
    );
    assert!(text.contains("## Sharing a file with a link"));
    assert!(
        client
            .read_resource(rmcp::model::ReadResourceRequestParams::new(
                "refgraph://page/nope"
            ))
            .await
            .is_err()
    );

    // A call that fails at the protocol level (no such tool) is logged all the same.
    assert!(
        client
            .call_tool(rmcp::model::CallToolRequestParams::new(
                "search_the_web".to_string()
            ))
            .await
            .is_err()
    );

    // The query log has one line per call, and `misses` ranks what found nothing.
    let log = std::fs::read_to_string(&log_path).unwrap();
    let entries: Vec<refgraph::mcp::QueryLogEntry> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(entries.len(), 7, "{log}");
    assert!(
        entries[6].tool == "search_the_web" && entries[6].is_error && entries[6].note.is_some(),
        "{log}"
    );
    assert_eq!(entries[0].tool, "search_docs");
    assert_eq!(
        entries[0].version.as_deref(),
        Some("2.0.0 (newest indexed)")
    );
    assert!(entries[0].results >= 1 && entries[0].ms > 0.0);
    assert!(entries[3].is_error);
    let misses = refgraph::mcp::misses(&log);
    assert_eq!(misses[0].0, "quantum chromodynamics lattice");
    assert_eq!(misses[0].2, 2);
    assert!(
        misses.iter().any(|m| m.0 == "bucket" && m.3 == "error"),
        "{misses:?}"
    );
}

#[test]
fn a_docs_folder_joins_a_release_without_its_chrome() {
    let e = indexed(false, None);
    let dir = crate::support::repo().join("samples/docs/acme-storage");
    let options = refgraph::extract::docs::DocOptions {
        remove: vec![],
        base_url: Some("https://docs.acme.dev/".into()),
    };
    let add_docs = |version: &str| {
        let chosen = e.choose(Some("pkg:pypi/acme-storage"), Some(version), None)?;
        let (id, _) = PackageId::parse(&chosen.release.package).unwrap();
        Ok::<_, ReleaseError>(
            refgraph::ingest::add_docs(e.store(), &id, &chosen.release.version, &dir, &options)
                .unwrap(),
        )
    };
    let report = add_docs("2.0.0").unwrap();
    assert_eq!(report.release, "pkg:pypi/acme-storage@2.0.0");
    assert_eq!(report.graph, "pkg:pypi/acme-storage@2.0.0/docs");
    assert_eq!(report.pages, 1);
    assert!(report.mentions >= 2, "{report:?}");
    // A plain sync sees the new pages (the index stamp holds when they were added) and
    // reindexes that release alone, once.
    let done = e.sync_index(false, &|_, _, _| {}).unwrap();
    assert_eq!(done, ["pkg:pypi/acme-storage@2.0.0"]);
    assert!(e.sync_index(false, &|_, _, _| {}).unwrap().is_empty());
    let (s, _) = e
        .docs()
        .search_docs_with(
            &q("remove objects older than a cut-off", Some("2.0.0")),
            Mode::Bm25Only,
        )
        .unwrap();
    let hit = s
        .results
        .iter()
        .find(|h| h.source_url == "https://docs.acme.dev/lifecycle.html")
        .unwrap_or_else(|| panic!("{:#?}", s.results));
    let names: Vec<&str> = hit
        .entities
        .iter()
        .map(|x| x.qualified_name.as_str())
        .collect();
    assert!(
        names.contains(&"acme_storage.StorageClient.delete_object"),
        "{names:?}"
    );
    let page = e.docs().get_page(&hit.page).unwrap();
    assert_eq!(page.title, "Deleting old objects automatically");
    for chrome in [
        "Pricing and billing",
        "Related links",
        "All rights reserved",
        "Quickstart",
    ] {
        assert!(
            !page.markdown.contains(chrome),
            "{chrome} left in:\n{}",
            page.markdown
        );
    }
    assert!(
        page.markdown
            .contains("```python\nfor info in client.list_objects"),
        "{}",
        page.markdown
    );
    // The docs graph survives a re-ingest of the release's sources.
    ingest(
        e.store(),
        &sample("acme-storage-2.0.0"),
        "acme-storage",
        "2.0.0",
    );
    e.sync_index(false, &|_, _, _| {}).unwrap();
    let (again, _) = e
        .docs()
        .search_docs_with(
            &q("remove objects older than a cut-off", Some("2.0.0")),
            Mode::Bm25Only,
        )
        .unwrap();
    assert!(
        again
            .results
            .iter()
            .any(|h| h.source_url.ends_with("lifecycle.html"))
    );
    // A version that is not indexed gets no pages.
    assert!(matches!(
        add_docs("9.0.0"),
        Err(ReleaseError::VersionNotIndexed { .. })
    ));
}

#[test]
fn a_search_says_when_the_index_is_behind_the_store() {
    let index = TextIndex::in_memory(Some(PathBuf::from("/nonexistent/refgraph-model"))).unwrap();
    let store = acme().store().clone();
    let e = Engine::new(store).with_index(Arc::new(index), None);
    // Stored (as after `ingest --no-index`) but never indexed.
    let (s, _) = e
        .docs()
        .search_docs(&q("create a bucket", Some("2.0.0")))
        .unwrap();
    let note = s.note.unwrap_or_default();
    assert!(
        note.contains("behind the store for pkg:pypi/acme-storage@2.0.0")
            && note.contains("refgraph reindex"),
        "{note}"
    );
    e.sync_index(false, &|_, _, _| {}).unwrap();
    let (s, _) = e
        .docs()
        .search_docs(&q("create a bucket", Some("2.0.0")))
        .unwrap();
    assert!(!s.results.is_empty());
    assert!(
        !s.note.unwrap_or_default().contains("behind"),
        "the note outlived the reindex"
    );
}

/// A symbol without documentation gets no vector (a bare name gives the sentence model
/// nothing to compare): the vector ranking never returns it, BM25 and the name ranking still
/// do, and the release does not count as lacking vectors (it is not reindexed again and
/// again).
#[test]
fn undocumented_symbols_are_found_by_words_and_names_but_not_by_vectors() {
    let store = Store::in_memory();
    try_ingest(
        &store,
        &crate::support::repo().join("samples/npm/acme-storage-2.0.0"),
        &PackageId::new(refgraph::model::Ecosystem::Npm, "acme-storage"),
        "2.0.0",
    )
    .unwrap();
    let index = TextIndex::in_memory(Some(model())).unwrap();
    let e = Engine::new(store).with_index(Arc::new(index), None);
    assert_eq!(e.sync_index(false, &|_, _, _| {}).unwrap().len(), 1);
    assert!(
        e.sync_index(false, &|_, _, _| {}).unwrap().is_empty(),
        "reindexed although nothing changed"
    );
    let query = |text: &str| DocQuery {
        query: text.into(),
        package: Some("pkg:npm/acme-storage".into()),
        limit: Some(50),
        ..Default::default()
    };
    // `list` has no JSDoc, `get` has one.
    let list = "@acme/storage:StorageClient.list";
    let get = "@acme/storage:StorageClient.get";
    let chunks =
        refgraph::index::chunks::release_chunks(e.store(), &e.releases().unwrap()[0]).unwrap();
    let embeds = |name: &str| {
        chunks
            .iter()
            .find(|c| c.title == name)
            .map(|c| c.embed_text.clone())
            .unwrap()
    };
    assert_eq!(embeds(list), "");
    assert!(embeds(get).contains("byte range"), "{}", embeds(get));
    let by_vector = top_entities(
        &e,
        &query("list the objects under a prefix"),
        Mode::VectorOnly,
        50,
    );
    assert!(!by_vector.iter().any(|n| n == list), "{by_vector:?}");
    let by_vector = top_entities(
        &e,
        &query("read an object or a byte range"),
        Mode::VectorOnly,
        50,
    );
    assert!(by_vector.iter().any(|n| n == get), "{by_vector:?}");
    for mode in [Mode::Bm25Only, Mode::Fused] {
        let found = top_entities(&e, &query("StorageClient.list"), mode, 5);
        assert!(found.iter().any(|n| n == list), "{mode:?}: {found:?}");
    }
}

/// A relevant hit on a type lifts the callables that take it (issue 32): a question about an
/// option finds the options class, and through it the function that takes the options,
/// which shares none of the question's words; without the lift it is not found at all.
#[test]
fn a_hit_on_a_type_lifts_the_callables_that_take_it() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("weeks");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("__init__.py"),
        r#"class WeekOptions:
    """Say which weekday begins a week: Monday or Sunday."""

    @property
    def locale(self):
        """The language the names of the months are written in."""

class Calendar:
    """A calendar of holidays."""

def start_of_week(date, options: WeekOptions = None):
    """Return the first day of the week that holds the date."""

def end_of_month(date, calendar: Calendar = None):
    """Return the last day of the month."""
"#,
    )
    .unwrap();
    // A type more callables take than MAX_TAKERS (20) says nothing about any one of them.
    let mut everywhere =
        String::from("class MoonPhase:\n    \"\"\"A stage of the lunar cycle.\"\"\"\n");
    for i in 0..21 {
        everywhere.push_str(&format!(
            "\ndef step_{i}(x, p: MoonPhase = None):\n    \"\"\"Step {i}.\"\"\"\n"
        ));
    }
    std::fs::write(pkg.join("moon.py"), everywhere).unwrap();
    let store = Store::in_memory();
    let id = PackageId::new(refgraph::model::Ecosystem::Pypi, "weeks");
    try_ingest(&store, dir.path(), &id, "1.0.0").unwrap();
    let found = |lift: f32, query: &str| {
        let mut index = TextIndex::in_memory(Some(PathBuf::from("/nonexistent"))).unwrap();
        index.fusion.lift = lift;
        let e = Engine::new(store.clone()).with_index(Arc::new(index), None);
        e.sync_index(false, &|_, _, _| {}).unwrap();
        let (s, _) = e
            .docs()
            .search_docs(&DocQuery {
                query: query.into(),
                package: Some("weeks".into()),
                limit: Some(5),
                ..Default::default()
            })
            .unwrap();
        s.results
            .iter()
            .map(|h| h.entities[0].qualified_name.clone())
            .collect::<Vec<_>>()
    };
    let week = "weekday begins on monday";
    assert_eq!(
        found(0.5, week),
        ["weeks.WeekOptions", "weeks.start_of_week"],
        "the options class, then the function taking it (not end_of_month, which takes another type)"
    );
    assert_eq!(
        found(0.0, week),
        ["weeks.WeekOptions"],
        "no lift, no function"
    );
    // A property lifts what takes its class.
    assert_eq!(
        found(0.5, "language of month names"),
        ["weeks.WeekOptions.locale", "weeks.start_of_week"]
    );
    assert_eq!(
        found(0.5, "stage of the lunar cycle"),
        ["weeks.moon.MoonPhase"]
    );
}
