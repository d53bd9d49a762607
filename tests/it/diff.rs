//! `diff_versions` on the sample release pairs: what was removed, added, changed and deprecated
//! (samples/python/CHANGES.md lists the intended changes), for Python, npm and OpenAPI.

use refgraph::diff::DiffReport;

use crate::support::{acme, make_stale};

fn kinds_of<'a>(d: &'a DiffReport, name: &str) -> Vec<&'a str> {
    d.changes
        .iter()
        .filter(|c| c.qualified_name == name)
        .map(|c| c.kind.as_str())
        .collect()
}

#[test]
fn python_sample_pair_reports_the_intended_changes_and_nothing_that_still_resolves() {
    let e = acme();
    let d = e
        .diff()
        .diff_versions("acme-storage", "1.0.0", "2.0.0", false, 5000, None)
        .unwrap();
    assert_eq!((d.from.as_str(), d.to.as_str()), ("1.0.0", "2.0.0"));
    // 1: removed; 2: added; 3: renamed as a new method plus a deprecated old one.
    assert_eq!(
        kinds_of(&d, "acme_storage.transfer.upload_bytes"),
        vec!["removed"]
    );
    assert_eq!(
        kinds_of(&d, "acme_storage.transfer.upload_directory"),
        vec!["added"]
    );
    assert_eq!(
        kinds_of(&d, "acme_storage.StorageClient.iter_buckets"),
        vec!["added"]
    );
    assert_eq!(
        kinds_of(&d, "acme_storage.StorageClient.list_buckets"),
        vec!["deprecated"]
    );
    // 4, 5, 6: signatures changed, old and new given.
    for name in [
        "acme_storage.StorageClient.generate_presigned_url",
        "acme_storage.transfer.upload_file",
        "acme_storage.StorageClient",
    ] {
        let c = d
            .changes
            .iter()
            .find(|c| c.qualified_name == name && c.kind == "changed")
            .unwrap_or_else(|| panic!("{name} not reported as changed"));
        assert_ne!(c.old_signature, c.new_signature);
    }
    // 8: a deprecated method removed.
    assert_eq!(
        kinds_of(&d, "acme_storage.StorageClient.get_bucket_acl"),
        vec!["removed"]
    );
    // 7: TransferConfig moved but is still acme_storage.TransferConfig: not removed or added
    // (its signature did change: 2.0.0 describes it in a stub, where defaults are `...`).
    assert!(
        !kinds_of(&d, "acme_storage.TransferConfig")
            .iter()
            .any(|k| *k == "removed" || *k == "added")
    );
    // Unchanged symbols are not reported.
    assert!(kinds_of(&d, "acme_storage.Bucket.is_public").is_empty());
    assert_eq!(d.summary.removed, kinds_count(&d, "removed"));
    // Breaking only, and paging.
    let b = e
        .diff()
        .diff_versions("acme-storage", "1.0.0", "2.0.0", true, 5000, None)
        .unwrap();
    assert!(b.changes.iter().all(|c| c.breaking));
    assert_eq!(b.changes.len(), d.summary.breaking);
    let p1 = e
        .diff()
        .diff_versions("acme-storage", "1.0.0", "2.0.0", false, 2, None)
        .unwrap();
    let p2 = e
        .diff()
        .diff_versions(
            "acme-storage",
            "1.0.0",
            "2.0.0",
            false,
            2,
            p1.next_cursor.as_deref(),
        )
        .unwrap();
    assert_eq!(p1.changes.len(), 2);
    assert_eq!(p2.changes[0].qualified_name, d.changes[2].qualified_name);
    // A version that is not indexed is an error, never another version.
    assert!(
        e.diff()
            .diff_versions("acme-storage", "1.0.0", "9.9.9", false, 10, None)
            .is_err()
    );
}

fn kinds_count(d: &DiffReport, kind: &str) -> usize {
    d.changes.iter().filter(|c| c.kind == kind).count()
}

#[test]
fn openapi_operations_are_diffed_by_endpoint() {
    use refgraph::answer::Engine;
    use refgraph::extract::Language;
    use refgraph::ingest::{Limits, ingest_files, read_release};
    use refgraph::model::PackageId;
    use refgraph::store::Store;
    let store = Store::in_memory();
    for v in ["1.0.0", "2.0.0"] {
        let path = crate::support::repo().join(format!("samples/openapi/petstore-{v}.yaml"));
        let (files, diags) = read_release(&path, Language::OpenApi, &Limits::default()).unwrap();
        ingest_files(
            &store,
            &PackageId::new(refgraph::model::Ecosystem::Generic, "petstore"),
            v,
            &files,
            diags,
            "petstore",
            None,
        )
        .unwrap();
    }
    let e = Engine::new(store);
    let d = e
        .diff()
        .diff_versions("pkg:generic/petstore", "1.0.0", "2.0.0", false, 5000, None)
        .unwrap();
    // deletePet is gone in 2.0.0; GET /pets/{id} became GET /pets/{petId} under another
    // operationId: the same operation (path-parameter names do not count) whose operationId
    // changed, not a removal and an addition.
    assert_eq!(kinds_of(&d, "deletePet"), vec!["removed"]);
    assert_eq!(kinds_of(&d, "getPet"), vec!["changed"], "{:?}", d.changes);
    let renamed = d
        .changes
        .iter()
        .find(|c| c.qualified_name == "getPet")
        .unwrap();
    assert_eq!(renamed.rule, "operation_id_renamed");
    assert_eq!(renamed.replacement.as_deref(), Some("showPetById"));
    assert!(kinds_of(&d, "showPetById").is_empty());
    assert_eq!(kinds_of(&d, "uploadPhoto"), vec!["added"]);
    // listPets gained the required query parameter `owner`.
    let owner = d
        .changes
        .iter()
        .find(|c| c.qualified_name == "listPets")
        .unwrap();
    assert_eq!(
        (owner.rule.as_str(), owner.parameter.as_deref()),
        ("required_parameter_added", Some("owner"))
    );
    // Schemas are diffed too, as changes of the spec: `tag` left Pet, `birthday` arrived.
    let pet: Vec<(&str, Option<&str>)> = d
        .changes
        .iter()
        .filter(|c| c.qualified_name == "Pet")
        .map(|c| (c.rule.as_str(), c.parameter.as_deref()))
        .collect();
    assert_eq!(
        pet,
        vec![
            ("schema_property_removed", Some("tag")),
            ("schema_property_added", Some("birthday"))
        ]
    );
}

#[test]
fn a_release_stored_by_an_older_refgraph_is_named_in_the_diff() {
    let e = acme();
    let current = refgraph::lower::facts_version(refgraph::model::Ecosystem::Pypi);
    let rels = e.releases().unwrap();
    assert!(
        rels.iter().all(|r| r.facts_version == current && !r.stale),
        "{rels:?}"
    );
    let fresh = e
        .diff()
        .diff_versions("acme-storage", "1.0.0", "2.0.0", false, 5000, None)
        .unwrap();
    assert!(fresh.warnings.is_empty(), "{:?}", fresh.warnings);
    assert!(
        !serde_json::to_value(&fresh)
            .unwrap()
            .as_object()
            .unwrap()
            .contains_key("warnings")
    );

    make_stale(e.store(), "pkg:pypi/acme-storage@1.0.0");
    let rels = e.releases().unwrap();
    let old = rels.iter().find(|r| r.version == "1.0.0").unwrap();
    assert_eq!((old.facts_version, old.stale), (0, true));
    assert!(!rels.iter().find(|r| r.version == "2.0.0").unwrap().stale);

    let d = e
        .diff()
        .diff_versions("acme-storage", "1.0.0", "2.0.0", false, 5000, None)
        .unwrap();
    assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
    let w = &d.warnings[0];
    assert!(
        w.contains("pkg:pypi/acme-storage@1.0.0")
            && w.contains("facts version 0")
            && w.contains(&format!("writes {current}"))
            && w.contains("ingest it again from")
            && w.contains("samples/python/acme-storage-1.0.0"),
        "{w}"
    );
    // Every rendering says it, and the changes themselves are untouched.
    assert_eq!(d.changes.len(), fresh.changes.len());
    assert!(d.to_text().contains(&format!("warning: {w}")));
    assert!(d.to_markdown().contains("**Warning:**"));
    assert!(d.to_html().contains("class=\"warning\""));
    assert!(d.to_migration_guide(10).contains(&format!("Caution: {w}")));
    assert!(!fresh.to_html().contains("class=\"warning\""));
}
