//! Replays every committed fuzz input (`fuzz/corpus/TARGET` and `fuzz/regressions/TARGET`)
//! through the function its fuzz target calls, so the checks the fuzzers ran keep holding on
//! every test run, without a nightly toolchain. The fuzzers themselves: fuzz/README.md.

use std::path::Path;

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 7] = [
    ("openapi", refgraph::fuzz::openapi),
    ("python", refgraph::fuzz::python),
    ("javascript", refgraph::fuzz::javascript),
    ("package_json", refgraph::fuzz::package_json),
    ("docs", refgraph::fuzz::docs),
    ("archive", refgraph::fuzz::archive),
    ("sparql", refgraph::fuzz::sparql),
];

fn inputs(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return vec![];
    };
    let mut out: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

#[test]
fn every_committed_fuzz_input_still_passes_its_checks() {
    let root = super::support::repo().join("fuzz");
    let mut failures = Vec::new();
    for (name, target) in TARGETS {
        let corpus = inputs(&root.join("corpus").join(name));
        // Seeded from samples/ and grown by the fuzzer: an empty corpus means a broken checkout.
        assert!(
            corpus.len() >= 3,
            "fuzz/corpus/{name} holds {} inputs",
            corpus.len()
        );
        for path in corpus
            .iter()
            .chain(&inputs(&root.join("regressions").join(name)))
        {
            let data = std::fs::read(path).unwrap();
            if std::panic::catch_unwind(|| target(&data)).is_err() {
                failures.push(format!("{name}: {}", path.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "inputs that fail:\n{}",
        failures.join("\n")
    );
}
