//! The labelled query set (`tests/search_queries.json`): concept search on real releases
//! fetched from PyPI and npm, scored hit@5 with BM25 alone, vectors alone and fused, side by
//! side, so the fusion has to earn its place.

use std::sync::Arc;

use refgraph::answer::{DocQuery, Engine};
use refgraph::index::{Mode, TextIndex};
use refgraph::model::PackageId;
use refgraph::store::Store;

use crate::support::{cache_dir, repo, try_ingest};

#[derive(serde::Deserialize)]
struct Labelled {
    package: String,
    version: String,
    query: String,
    answers: Vec<String>,
    kind: String,
}

fn releases() -> Engine {
    let cache = cache_dir();
    let store = Store::in_memory();
    // click's sdist, not its wheel: the same sources with the release's docs/ folder, the doc
    // pages the acceptance asks the set to be scored on (the wheel ships only its README).
    let click = PackageId::new(refgraph::model::Ecosystem::Pypi, "click");
    let sdist =
        refgraph::fetch::fetch_pypi_sdist("click", "8.1.7", &cache.join("pypi"), &|_, _| {})
            .expect("click 8.1.7 sdist from PyPI");
    try_ingest(&store, &sdist.path, &click, "8.1.7").unwrap();
    let commander = PackageId::new(refgraph::model::Ecosystem::Npm, "commander");
    let tgz = refgraph::fetch::fetch_npm(&commander, "12.1.0", &cache.join("npm"), &|_, _| {})
        .expect("commander 12.1.0 from npm");
    try_ingest(&store, &tgz.path, &commander, "12.1.0").unwrap();
    let model = refgraph::index::embed::model_dir(None).expect("model dir");
    let index = TextIndex::in_memory(Some(model)).unwrap();
    let e = Engine::new(store).with_index(Arc::new(index), Some(repo().join("samples/synonyms")));
    e.sync_index(false, &|_, _, _| {}).unwrap();
    assert!(
        e.text_index_handle().unwrap().embedder().is_some(),
        "no embedding model: run `refgraph model install` (scripts/setup does)"
    );
    e
}

fn hit(e: &Engine, l: &Labelled, mode: Mode) -> bool {
    let q = DocQuery {
        query: l.query.clone(),
        package: Some(l.package.clone()),
        version: Some(l.version.clone()),
        limit: Some(5),
        ..Default::default()
    };
    let (s, _) = e.docs().search_docs_with(&q, mode).unwrap();
    if l.answers.is_empty() {
        return s.results.is_empty();
    }
    s.results.iter().take(5).any(|h| {
        h.entities.iter().any(|x| {
            l.answers
                .iter()
                .any(|a| x.qualified_name == *a || x.qualified_name.starts_with(&format!("{a}.")))
        })
    })
}

#[test]
fn labelled_queries_hit_at_5_fused_against_bm25_and_vectors() {
    let set: Vec<Labelled> = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/search_queries.json")).unwrap(),
    )
    .unwrap();
    assert!(set.len() >= 40, "the set needs at least 40 queries");
    let e = releases();
    let mut kinds: Vec<String> = set.iter().map(|l| l.kind.clone()).collect();
    kinds.sort();
    kinds.dedup();
    let mut table = String::from("kind            n   bm25  vector  fused\n");
    let mut totals = [0usize; 3];
    let mut misses = Vec::new();
    for kind in &kinds {
        let rows: Vec<&Labelled> = set.iter().filter(|l| &l.kind == kind).collect();
        let mut counts = [0usize; 3];
        for l in &rows {
            for (i, mode) in [Mode::Bm25Only, Mode::VectorOnly, Mode::Fused]
                .into_iter()
                .enumerate()
            {
                let ok = hit(&e, l, mode);
                counts[i] += usize::from(ok);
                if mode == Mode::Fused && !ok {
                    misses.push(format!("{} [{}] want {:?}", l.query, l.kind, l.answers));
                }
            }
        }
        for i in 0..3 {
            totals[i] += counts[i];
        }
        let n = rows.len() as f64;
        table.push_str(&format!(
            "{kind:<14} {:>3}  {:.2}   {:.2}   {:.2}\n",
            rows.len(),
            counts[0] as f64 / n,
            counts[1] as f64 / n,
            counts[2] as f64 / n
        ));
    }
    let n = set.len() as f64;
    let [bm25, vector, fused] = totals.map(|c| c as f64 / n);
    table.push_str(&format!(
        "all            {:>3}  {bm25:.2}   {vector:.2}   {fused:.2}\n",
        set.len()
    ));
    eprintln!("{table}\nfused misses:\n  {}", misses.join("\n  "));
    // Fusion must beat each ranking alone, and reach the target.
    assert!(
        fused >= bm25 && fused >= vector,
        "fusion does not earn its place:\n{table}"
    );
    assert!(fused >= 0.9, "fused hit@5 below the 0.9 target:\n{table}");
}

/// The README of commander 12.1.0 (npm) links the symbols its code names, not the words of
/// its terminal sessions, its variables or strings: `error: option ... is invalid` is output,
/// `const options = program.opts()` a variable, `{ writeErr: ... }` an options property.
#[test]
fn readme_links_name_what_the_code_calls_not_its_output_or_variables() {
    let cache = cache_dir();
    let store = Store::in_memory();
    let commander = PackageId::new(refgraph::model::Ecosystem::Npm, "commander");
    let tgz = refgraph::fetch::fetch_npm(&commander, "12.1.0", &cache.join("npm"), &|_, _| {})
        .expect("commander 12.1.0 from npm");
    try_ingest(&store, &tgz.path, &commander, "12.1.0").unwrap();
    let e = Engine::new(store);
    let chunks =
        refgraph::index::chunks::release_chunks(e.store(), &e.releases().unwrap()[0]).unwrap();
    let links = |section: &str| -> Vec<String> {
        let mut names: Vec<String> = chunks
            .iter()
            .filter(|c| c.section_path.ends_with(section))
            .flat_map(|c| c.entities.iter().map(|x| x.qualified_name.clone()))
            .collect();
        assert!(!names.is_empty(), "no linked section '{section}'");
        names.sort();
        names.dedup();
        names
    };
    let all: Vec<String> = chunks
        .iter()
        .filter(|c| c.source_url.eq_ignore_ascii_case("Readme.md"))
        .flat_map(|c| c.entities.iter().map(|x| x.qualified_name.clone()))
        .collect();
    assert!(all.len() > 100, "{} links", all.len());
    // `import { Command } from 'commander'` names no option; `{ from: 'user' }` does.
    assert!(
        !links("Declaring program variable").contains(&"commander:ParseOptions.from".to_string())
    );
    assert!(
        links(".parse() and .parseAsync()").contains(&"commander:ParseOptions.from".to_string())
    );
    // `console.error(...)` and `error: option '-d' ...` (output) name no symbol...
    let handler = links("Commands > Action handler");
    assert!(
        !handler.iter().any(|n| n.ends_with(".error")),
        "{handler:?}"
    );
    // ... `program.error(...)` does.
    assert!(links("Display error").contains(&"commander:Command.error".to_string()));
    let commands = links("Commander.js > Commands");
    assert!(commands.contains(&"commander:Command.addCommand".to_string()));
    assert!(!commands.contains(&"commander:Option.name".to_string()));
    let exit = links("Override exit and output handling");
    for right in [
        "commander:Command.exitOverride",
        "commander:Command.configureOutput",
        "commander:OutputConfiguration.writeErr",
    ] {
        assert!(exit.contains(&right.to_string()), "{right}: {exit:?}");
    }
}
