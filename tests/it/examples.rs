//! Code examples resolved to the entities they use (issue 48, items 1 and 3), on real
//! releases fetched at test time: a README block's calls through a client it builds, on PyPI
//! and on npm, and the guides of a wheel's sdist read as `refgraph add` reads them.

use refgraph::answer::Engine;
use refgraph::ingest::{Ingester, Limits};
use refgraph::store::Store;

use crate::support::{cache_dir, sparql_rows as rows};

/// Fetches and ingests a release (`pkg:pypi/openai@1.54.4`) as `refgraph add` does, into a new
/// in-memory store.
fn added(release: &str) -> Engine {
    let store = Store::in_memory();
    let ingester = Ingester {
        cache: cache_dir(),
        limits: Limits::default(),
        inspect: None,
    };
    ingester
        .add(&store, release, &|_, _| {})
        .unwrap_or_else(|e| panic!("adding {release}: {e}"));
    Engine::new(store)
}

/// The symbols each doc section of `release` is linked to: (section path, qualified name).
fn section_links(e: &Engine, release: &str) -> Vec<(String, String)> {
    let q = format!(
        "PREFIX rg: <https://refgraph.dev/ontology#>
         SELECT ?path ?name WHERE {{ GRAPH <{release}> {{
           ?s a rg:DocSection ; rg:sectionPath ?path ; rg:mentions ?m .
           ?m rg:qualifiedName ?name }} }}"
    );
    rows(e, &q, &["path", "name"])
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect()
}

fn linked(links: &[(String, String)], section: &str, name: &str) -> bool {
    links.iter().any(|(p, n)| p.ends_with(section) && n == name)
}

#[test]
fn a_python_readme_block_reaches_the_method_it_calls_through_its_client() {
    // openai's README: `client = OpenAI()`, then `client.chat.completions.create(...)`. Only
    // the client's attributes lead there: `create` alone names dozens of methods.
    let store = added("pkg:pypi/openai@1.54.4");
    let links = section_links(&store, "pkg:pypi/openai@1.54.4");
    assert!(
        linked(
            &links,
            "OpenAI Python API library > Usage",
            "openai.resources.chat.Completions.create"
        ),
        "{links:?}"
    );
    // `client = AsyncOpenAI()` in the async section reaches the async twin.
    assert!(
        linked(
            &links,
            "> Async usage",
            "openai.resources.chat.AsyncCompletions.create"
        ),
        "{links:?}"
    );
}

#[test]
fn an_npm_readme_block_reaches_members_through_the_default_export_and_a_factory() {
    // axios's README: `const instance = axios.create({...})`, then
    // `instance.defaults.headers.common[...] = ...`. `axios` is declared `AxiosStatic`, whose
    // `create` returns an `AxiosInstance`.
    let store = added("pkg:npm/axios@1.7.7");
    let links = section_links(&store, "pkg:npm/axios@1.7.7");
    assert!(
        linked(
            &links,
            "Config Defaults > Custom instance defaults",
            "axios:AxiosStatic.create"
        ),
        "{links:?}"
    );
    assert!(
        linked(
            &links,
            "Config Defaults > Custom instance defaults",
            "axios:AxiosInstance.defaults"
        ),
        "{links:?}"
    );
}

#[test]
fn a_wheels_guides_come_from_its_sdist_with_their_examples() {
    // tenacity's wheel ships its README only; the sdist's doc/source/index.rst writes its
    // examples in Sphinx `testcode` blocks, whose code the reST parser alone dropped.
    let store = added("pkg:pypi/tenacity@9.0.0");
    let links = section_links(&store, "pkg:pypi/tenacity@9.0.0");
    assert!(
        linked(&links, "Examples > Stopping", "tenacity.stop_after_attempt"),
        "{links:?}"
    );
    let pages: Vec<String> = rows(
        &store,
        "PREFIX rg: <https://refgraph.dev/ontology#>
         SELECT ?url WHERE { GRAPH ?g { ?p a rg:DocPage ; rg:sourceUrl ?url } }",
        &["url"],
    )
    .into_iter()
    .map(|r| r[0].clone())
    .collect();
    assert!(
        pages.iter().any(|p| p == "doc/source/index.rst"),
        "{pages:?}"
    );
    // Changelogs are left out: they name every API without explaining any.
    assert!(
        !pages.iter().any(|p| p.to_lowercase().contains("changelog")),
        "{pages:?}"
    );
}
