//! Blanking the function bodies nothing reads before parsing (`extract::python::skim`) must
//! change no fact: on every Python file of real releases, the skimmed parse and the whole
//! parse give the same module syntax and the same diagnostics.

use refgraph::extract::Language;
use refgraph::extract::python::{module_name_for, parse_module, parse_module_whole, skim};
use refgraph::ingest::{Limits, read_release};
use refgraph::model::PackageId;

use crate::support::cache_dir;

/// Libraries of different eras and habits: Django's ORM and templates, SQLAlchemy's
/// generated-looking typing, pydantic's metaclasses, transformers' lazy modules and the
/// largest file count, astropy's units and f-strings, aiohttp, rich, boto3's small modules.
const RELEASES: &[(&str, &str)] = &[
    ("django", "5.1.4"),
    ("sqlalchemy", "2.0.30"),
    ("pydantic", "2.9.2"),
    ("pydantic", "1.10.13"),
    ("transformers", "4.46.0"),
    ("astropy", "6.1.0"),
    ("xarray", "2024.6.0"),
    ("aiohttp", "3.10.10"),
    ("rich", "13.7.1"),
    ("boto3", "1.35.0"),
    ("click", "7.1.2"),
];

#[test]
fn skimming_changes_no_fact_of_real_releases() {
    let cache = cache_dir();
    let (mut files, mut skimmed, mut bodies) = (0usize, 0usize, 0usize);
    let mut differ = Vec::new();
    for (name, version) in RELEASES {
        let id = PackageId::new(refgraph::model::Ecosystem::Pypi, name);
        let fetched = refgraph::fetch::fetch_pypi(&id, version, &cache.join("pypi"), &|_, _| {})
            .unwrap_or_else(|e| panic!("fetching {name} {version} from PyPI: {e}"));
        let (sources, _) =
            read_release(&fetched.path, Language::Python, &Limits::default()).unwrap();
        for file in &sources {
            let Some(module) = module_name_for(&file.path) else {
                continue;
            };
            if !file.path.ends_with(".py") {
                continue;
            }
            files += 1;
            let text = String::from_utf8_lossy(&file.text);
            if text.contains("def ") {
                bodies += 1;
            }
            if skim::skim(&file.text).is_some() {
                skimmed += 1;
            }
            let fast = format!("{:?}", parse_module(&module, file));
            let whole = format!("{:?}", parse_module_whole(&module, file));
            if fast != whole {
                differ.push(format!("{name} {version} {}", file.path));
            }
        }
    }
    eprintln!("{files} files, {bodies} with a function, {skimmed} skimmed");
    assert!(
        differ.is_empty(),
        "{} files parse otherwise when skimmed:\n{}",
        differ.len(),
        differ.join("\n")
    );
    // The check means something only if most files were skimmed.
    assert!(files > 3_000, "{files} files read");
    assert!(
        skimmed * 10 >= bodies * 8,
        "only {skimmed} of {bodies} files with a function were skimmed"
    );
}
