//! The hand-written samples: exact answers, version history, candidates, determinism.

use refgraph::answer::{LookupError, QueryError, ReleaseError};
use refgraph::extract::Language;
use refgraph::extract::python::extract;
use refgraph::ingest::{Limits, read_release};

use crate::support::{acme, sample};

fn params(d: &refgraph::answer::ApiDetail) -> Vec<(String, String, bool, Option<String>)> {
    d.params
        .iter()
        .map(|p| {
            (
                p.name.clone(),
                p.kind.clone(),
                p.required,
                p.default.clone(),
            )
        })
        .collect()
}

fn p(
    name: &str,
    kind: &str,
    required: bool,
    default: Option<&str>,
) -> (String, String, bool, Option<String>) {
    (
        name.into(),
        kind.into(),
        required,
        default.map(str::to_string),
    )
}

#[test]
fn constructor_signature_is_exact_with_every_parameter_kind() {
    let e = acme();
    let v1 = e
        .choose(Some("pkg:pypi/acme-storage"), Some("1.0.0"), None)
        .unwrap();
    let d = e
        .lookup()
        .api_detail(&v1, "acme_storage.StorageClient")
        .unwrap();
    assert_eq!(d.kind, "class");
    assert_eq!(
        d.defined_in.as_deref(),
        Some("acme_storage._client.StorageClient")
    );
    assert_eq!(
        params(&d),
        vec![
            p(
                "endpoint",
                "positional_only",
                false,
                Some("DEFAULT_ENDPOINT")
            ),
            p("region", "positional_or_keyword", false, Some("None")),
            p("scopes", "var_positional", false, None),
            p("timeout", "keyword_only", false, Some("30.0")),
            p("retries", "keyword_only", false, Some("DEFAULT_RETRIES")),
            p(
                "user_agent",
                "keyword_only",
                false,
                Some("(\"acme-storage\", \"python\")")
            ),
            p("signature_version", "keyword_only", false, Some("'auto'")),
            p("transport_options", "var_keyword", false, None),
        ]
    );
    assert_eq!(d.source.file.as_deref(), Some("acme_storage/_client.py"));
    // The alias `Client = StorageClient` names the same class.
    assert!(
        d.aliases.contains(&"acme_storage.Client".to_string()),
        "{:?}",
        d.aliases
    );
    // 2.0.0 changed one default and nothing else in the constructor.
    let v2 = e.choose(Some("acme-storage"), Some("2.0.0"), None).unwrap();
    let d2 = e
        .lookup()
        .api_detail(&v2, "acme_storage.StorageClient")
        .unwrap();
    assert_eq!(d2.params[3].default.as_deref(), Some("60.0"));
}

#[test]
fn newest_release_is_used_and_said_when_no_version_is_given() {
    let e = acme();
    let c = e.choose(Some("acme-storage"), None, None).unwrap();
    assert_eq!(c.version_line(), "2.0.0 (newest indexed)");
}

#[test]
fn methods_leave_out_the_receiver_and_keep_their_flavour() {
    let e = acme();
    let v2 = e.choose(Some("acme-storage"), Some("2.0.0"), None).unwrap();
    let url = e
        .lookup()
        .api_detail(&v2, "acme_storage.StorageClient.generate_presigned_url")
        .unwrap();
    assert_eq!(url.kind, "method");
    assert_eq!(url.params[0].name, "bucket");
    assert!(
        url.params
            .iter()
            .any(|p| p.name == "http_method" && p.required)
    );
    assert_eq!(
        e.lookup()
            .api_detail(&v2, "acme_storage.StorageClient.build_object_url")
            .unwrap()
            .kind,
        "staticmethod"
    );
    let from_env = e
        .lookup()
        .api_detail(&v2, "acme_storage.StorageClient.from_env")
        .unwrap();
    assert_eq!(from_env.kind, "classmethod");
    assert!(from_env.params.iter().all(|p| p.name != "cls"));
    assert_eq!(
        e.lookup()
            .api_detail(&v2, "acme_storage.StorageClient.timeout")
            .unwrap()
            .kind,
        "property"
    );
    let part = e
        .lookup()
        .api_detail(&v2, "acme_storage.transfer.upload.Uploader.upload_part")
        .unwrap();
    assert!(part.is_async);
    // Inherited from the private base: listed on the public class, saying where it comes from.
    let close = e
        .lookup()
        .api_detail(&v2, "acme_storage.StorageClient.close")
        .unwrap();
    assert_eq!(
        close.inherited_from.as_deref(),
        Some("acme_storage._client._BaseService")
    );
    // The class-level alias `upload_file = put_object` has put_object's signature.
    let put = e
        .lookup()
        .api_detail(&v2, "acme_storage.StorageClient.put_object")
        .unwrap();
    let alias = e
        .lookup()
        .api_detail(&v2, "acme_storage.StorageClient.upload_file")
        .unwrap();
    assert_eq!(put.signature, alias.signature);
}

#[test]
fn sources_run_stubs_give_types_and_overloads_are_kept() {
    let e = acme();
    let v2 = e.choose(Some("acme-storage"), Some("2.0.0"), None).unwrap();
    let up = e
        .lookup()
        .api_detail(&v2, "acme_storage.transfer.upload.upload_file")
        .unwrap();
    // The function lives in the `.py`; its types come from the `.pyi` beside it.
    assert_eq!(
        up.source.file.as_deref(),
        Some("acme_storage/transfer/upload.py")
    );
    assert!(
        up.params.iter().all(|p| p.type_.is_some()),
        "{:?}",
        up.params
    );
    let content_type = up.params.iter().find(|p| p.name == "content_type").unwrap();
    assert_eq!(content_type.kind, "keyword_only");
    let get = e
        .lookup()
        .api_detail(&v2, "acme_storage.StorageClient.get_object")
        .unwrap();
    assert_eq!(get.overloads.len(), 2, "{get:?}");
}

#[test]
fn deprecations_are_reported_with_their_replacement() {
    let e = acme();
    let v2 = e.choose(Some("acme-storage"), Some("2.0.0"), None).unwrap();
    let lb = e
        .lookup()
        .api_detail(&v2, "acme_storage.StorageClient.list_buckets")
        .unwrap();
    assert!(lb.deprecated);
    let dep = lb.deprecation.unwrap();
    assert!(
        dep.replacement
            .as_deref()
            .unwrap_or("")
            .contains("iter_buckets"),
        "{dep:?}"
    );
    let is_public = e
        .lookup()
        .api_detail(&v2, "acme_storage.models.Bucket.is_public")
        .unwrap();
    assert_eq!(is_public.deprecation.unwrap().since.as_deref(), Some("0.9"));
}

#[test]
fn version_history_names_where_a_symbol_appeared_and_disappeared() {
    let e = acme();
    let removed = e
        .lookup()
        .check_version(
            Some("acme-storage"),
            "acme_storage.transfer.upload.upload_bytes",
            Some("2.0.0"),
        )
        .unwrap();
    assert_eq!(removed.available_in_requested, Some(false));
    assert_eq!(removed.introduced_in.as_deref(), Some("1.0.0"));
    assert_eq!(removed.removed_in.as_deref(), Some("2.0.0"));
    let added = e
        .lookup()
        .check_version(
            Some("acme-storage"),
            "acme_storage.transfer.upload.upload_directory",
            None,
        )
        .unwrap();
    assert_eq!(added.introduced_in.as_deref(), Some("2.0.0"));
    assert_eq!(added.removed_in, None);
    let changed = e
        .lookup()
        .check_version(
            Some("acme-storage"),
            "acme_storage.StorageClient.generate_presigned_url",
            None,
        )
        .unwrap();
    assert!(changed.versions[1].signature_changed);
    // A moved class stays available through its package re-export.
    let moved = e
        .lookup()
        .check_version(Some("acme-storage"), "acme_storage.TransferConfig", None)
        .unwrap();
    assert!(moved.versions.iter().all(|v| v.available == Some(true)));
    let gone = e
        .lookup()
        .check_version(
            Some("acme-storage"),
            "acme_storage.models.TransferConfig",
            Some("2.0.0"),
        )
        .unwrap();
    assert_eq!(gone.available_in_requested, Some(false));
    // An unknown name is a normal answer: available nowhere.
    let unknown = e
        .lookup()
        .check_version(
            Some("acme-storage"),
            "acme_storage.NoSuchThing",
            Some("1.0.0"),
        )
        .unwrap();
    assert_eq!(unknown.available_in_requested, Some(false));
    assert_eq!(unknown.qualified_name, "acme_storage.NoSuchThing");
}

#[test]
fn misspelt_and_partial_names_get_ranked_candidates_not_answers() {
    let e = acme();
    let v2 = e.choose(Some("acme-storage"), Some("2.0.0"), None).unwrap();
    for asked in [
        "acme_storage.StorageClient.put_objet",
        "StorageClient.put_object",
    ] {
        match e.lookup().api_detail(&v2, asked) {
            Err(LookupError::NotFound { candidates, .. }) => {
                assert_eq!(
                    candidates.first().map(|c| c.qualified_name.as_str()),
                    Some("acme_storage.StorageClient.put_object"),
                    "{asked}: {candidates:?}"
                );
            }
            other => panic!("{asked}: expected NotFound, got {other:?}"),
        }
    }
}

#[test]
fn unindexed_versions_and_packages_are_errors_that_list_what_is_indexed() {
    let e = acme();
    match e.choose(Some("acme-storage"), Some("3.0.0"), None) {
        Err(ReleaseError::VersionNotIndexed { indexed, .. }) => {
            assert_eq!(indexed, vec!["1.0.0", "2.0.0"])
        }
        other => panic!("{other:?}"),
    }
    match e.choose(Some("pkg:pypi/nope"), None, None) {
        Err(ReleaseError::UnknownPackage { indexed, .. }) => {
            assert_eq!(indexed, vec!["pkg:pypi/acme-storage"])
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn extraction_is_deterministic() {
    let (files, _) = read_release(
        &sample("acme-storage-2.0.0"),
        Language::Python,
        &Limits::default(),
    )
    .unwrap();
    let a = extract(&files);
    let b = extract(&files);
    assert_eq!(a.symbols, b.symbols);
    assert!(a.symbols.len() > 40, "{}", a.symbols.len());
}

#[test]
fn listing_filters_by_kind_and_pages() {
    let e = acme();
    let v2 = e.choose(Some("acme-storage"), Some("2.0.0"), None).unwrap();
    let fns = e
        .lookup()
        .list(&v2, Some("function"), None, 2, None)
        .unwrap();
    assert_eq!(fns.items.len(), 2);
    assert!(fns.items.iter().all(|i| i.kind == "function"));
    let next = e
        .lookup()
        .list(&v2, Some("function"), None, 2, fns.next_cursor.as_deref())
        .unwrap();
    assert_ne!(next.items[0].qualified_name, fns.items[0].qualified_name);
    assert!(e.lookup().list(&v2, Some("widget"), None, 2, None).is_err());
}

#[test]
fn sparql_reads_and_refuses_updates() {
    let e = acme();
    let v = e
        .sparql("PREFIX rg: <https://refgraph.dev/ontology#> SELECT ?v WHERE { ?r a rg:Release ; rg:version ?v } ORDER BY ?v")
        .unwrap();
    let vs: Vec<&str> = v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["v"]["value"].as_str().unwrap())
        .collect();
    assert_eq!(vs, vec!["1.0.0", "2.0.0"]);
    assert!(matches!(
        e.sparql("DELETE WHERE { ?s ?p ?o }"),
        Err(QueryError::UpdateRefused)
    ));
    assert!(matches!(
        e.sparql("SELECT ?x WHERE {"),
        Err(QueryError::BadQuery(_))
    ));
    // Nothing was deleted.
    assert_eq!(e.releases().unwrap().len(), 2);
}

#[test]
fn sparql_rows_and_time_are_limited() {
    let mut e = acme();
    e.limits.max_rows = 3;
    let v = e
        .sparql("SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } }")
        .unwrap();
    assert_eq!(v["results"]["bindings"].as_array().unwrap().len(), 3);
    assert_eq!(v["truncated"], true);
    e.limits.max_rows = usize::MAX;
    e.limits.timeout = std::time::Duration::from_millis(50);
    // A cartesian product far too large to finish: cut at the timeout, not hung.
    let started = std::time::Instant::now();
    let r = e.sparql("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }");
    assert!(matches!(r, Err(QueryError::Timeout(_))), "{r:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// `class C(Q, P)` with both bases defining `m`: Python calls `Q.m` (the method resolution
/// order), whatever order the store keeps a property's values in.
#[test]
fn a_member_two_bases_define_is_the_one_the_mro_finds_first() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("mro");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("__init__.py"),
        "class P:\n    def m(self, a): ...\n\nclass Q:\n    def m(self, a, b): ...\n\nclass C(Q, P):\n    pass\n\nclass D(P, Q):\n    pass\n",
    )
    .unwrap();
    let store = refgraph::store::Store::in_memory();
    crate::support::try_ingest(
        &store,
        dir.path(),
        &refgraph::model::PackageId::new(refgraph::model::Ecosystem::Pypi, "mro"),
        "1.0.0",
    )
    .unwrap();
    let e = refgraph::answer::Engine::new(store);
    let v = e.choose(Some("mro"), Some("1.0.0"), None).unwrap();
    for (name, owner) in [("mro.C.m", "mro.Q.m"), ("mro.D.m", "mro.P.m")] {
        let d = e.lookup().api_detail(&v, name).unwrap();
        assert_eq!(d.qualified_name, owner, "{name}");
    }
}

/// A name is available, absent (proven) or unknown: lazyhub serves names through a module
/// `__getattr__`, names them for type checkers, and ships a compiled module.
#[test]
fn availability_is_yes_no_or_unknown_never_a_guessed_no() {
    let store = refgraph::store::Store::in_memory();
    crate::support::ingest(&store, &sample("lazyhub-1.0.0"), "lazyhub", "1.0.0");
    let e = refgraph::answer::Engine::new(store);
    let check = |name: &str| {
        e.lookup()
            .check_version(Some("lazyhub"), name, Some("1.0.0"))
            .unwrap()
    };
    // Served by `__getattr__`, listed under `if TYPE_CHECKING:`: there at run time.
    let download = check("lazyhub.download");
    assert_eq!(download.available_in_requested, Some(true));
    assert_eq!(download.qualified_name, "lazyhub.download");
    // A plain module's own import reaches the function; the answer names the canonical one.
    let reached = check("lazyhub.client.upload");
    assert_eq!(reached.available_in_requested, Some(true));
    assert_eq!(reached.qualified_name, "lazyhub.upload");
    // A private helper that a public module imports: there when the module runs, though no
    // API symbol of its own (no signature is claimed).
    let helper = check("lazyhub.client.retry_delay");
    assert_eq!(helper.available_in_requested, Some(true));
    assert_eq!(helper.versions[0].signature, None);
    // Variables that `__all__` names, and a name bound from the compiled module.
    for name in ["lazyhub.DEFAULT_ENDPOINT", "lazyhub.fast_hash"] {
        assert_eq!(check(name).available_in_requested, Some(true), "{name}");
    }
    // Not in the sources, but the module `__getattr__` may serve it: unknown, with the reason.
    let maybe = check("lazyhub.snapshot_download");
    assert_eq!(maybe.available_in_requested, None);
    assert!(
        maybe
            .unknown_reason
            .as_deref()
            .unwrap()
            .contains("__getattr__")
    );
    assert_eq!(maybe.versions[0].available, None);
    // Attributes of a function of a compiled module: unknown too.
    let native = check("lazyhub.fast_hash.cache");
    assert_eq!(native.available_in_requested, None);
    // A `__getattr__` whose body can be read serves what it names, and nothing else.
    assert_eq!(
        check("lazyhub.compat.OldClient").available_in_requested,
        Some(true)
    );
    assert_eq!(
        check("lazyhub.compat.NewClient").available_in_requested,
        Some(false)
    );
    // A branch that raises is a removal message, not a name served.
    assert_eq!(
        check("lazyhub.compat.RemovedClient").available_in_requested,
        Some(false)
    );
    // Underscore names bound in a module exist too; what an imported module holds is
    // known at run time only.
    assert_eq!(check("lazyhub._LAZY").available_in_requested, Some(true));
    assert_eq!(
        check("lazyhub.compat.warnings.warn").available_in_requested,
        None
    );
    // A plain module without `__getattr__` is known whole: absent is proven.
    let absent = check("lazyhub.client.snapshot_download");
    assert_eq!(absent.available_in_requested, Some(false));
    assert_eq!(absent.unknown_reason, None);
    // Members of a class are known as well.
    assert_eq!(
        check("lazyhub.Client.pull").available_in_requested,
        Some(false)
    );
    // `global` in a function the module calls binds the name on import; in one it does not
    // call, the name exists only once someone calls it: unknown, saying which function.
    assert_eq!(
        check("lazyhub.registry.default_store").available_in_requested,
        Some(true)
    );
    let later = check("lazyhub.registry.active_backend");
    assert_eq!(later.available_in_requested, None);
    assert!(
        later
            .unknown_reason
            .as_deref()
            .is_some_and(|r| r.contains("configure()")),
        "{:?}",
        later.unknown_reason
    );
    // A method of an instance bound at module level is a name of the module.
    assert_eq!(
        check("lazyhub.registry.open_url").available_in_requested,
        Some(true)
    );
    assert_eq!(
        check("lazyhub.registry.close_url").available_in_requested,
        Some(false)
    );
    // A class holds what its body binds, what its standard bases give (`args` of an
    // exception, `mro` of every class) and what a metaclass of the release sets; absent is
    // proven for the rest.
    for (name, answer) in [
        ("lazyhub.registry.Backend.LOCAL", Some(true)),
        ("lazyhub.registry.HubError.retryable", Some(true)),
        ("lazyhub.registry.HubError.args", Some(true)),
        ("lazyhub.registry.HubError.status", Some(false)),
        ("lazyhub.registry.Store.kind", Some(true)),
        ("lazyhub.registry.Store.mro", Some(true)),
        ("lazyhub.registry.Store.registry_key", Some(true)),
        ("lazyhub.registry.Store.registered", Some(true)),
        ("lazyhub.registry.Store.created_by", Some(true)),
        ("lazyhub.registry.Store.default_bucket", Some(true)),
        ("lazyhub.registry.Store.get", Some(false)),
        // `_log.last = name` in the metaclass writes another object, not the class.
        ("lazyhub.registry.Store.last", Some(false)),
    ] {
        assert_eq!(check(name).available_in_requested, answer, "{name}");
    }
    // Bound only when an optional dependency is installed: available, with the module's test.
    for name in [
        "lazyhub.accel.parallel_download",
        "lazyhub.accel.ParallelUploader",
    ] {
        let c = check(name);
        assert_eq!(c.available_in_requested, Some(true), "{name}");
        let r = c
            .requires
            .unwrap_or_else(|| panic!("{name}: no requirement"));
        assert_eq!(
            (r.test.as_str(), r.module.as_str()),
            ("is_fastxfer_available()", "lazyhub.accel")
        );
    }
    assert_eq!(
        check("lazyhub.accel.OptionalDependencyNotAvailable").requires,
        None
    );
    // A base from outside the release (enum.Enum brings `name` and `value`) or a class
    // decorator (`@plugin` sets a computed name) can add members: unknown, with the reason.
    for (name, why) in [
        ("lazyhub.registry.Store.__init_subclass__", "dunder"),
        ("lazyhub.registry.Backend.ARCHIVE", "enum.Enum"),
        ("lazyhub.registry.Mirror.plugin_mirror", "@plugin"),
    ] {
        let c = check(name);
        assert_eq!(c.available_in_requested, None, "{name}");
        assert!(
            c.unknown_reason.as_deref().is_some_and(|r| r.contains(why)),
            "{name}: {:?}",
            c.unknown_reason
        );
    }
}

/// A compiled module whose Cython source ships with it (as lxml's wheels ship `etree.pyx` and
/// the `.pxi` files it includes): its Python API is read from the source, with each symbol's
/// own file and line; C-level names (`cdef` functions and variables, `DEF`) do not exist for
/// Python.
#[test]
fn cython_sources_give_names_signatures_and_their_own_lines() {
    let store = refgraph::store::Store::in_memory();
    crate::support::ingest(&store, &sample("fastxml-1.0.0"), "fastxml", "1.0.0");
    let e = refgraph::answer::Engine::new(store);
    let v = e.choose(Some("fastxml"), Some("1.0.0"), None).unwrap();
    let api = |name: &str| e.lookup().api_detail(&v, name).unwrap();

    let parse = api("fastxml.fromstring");
    assert_eq!(
        params(&parse),
        vec![
            p("text", "positional_or_keyword", true, None),
            p("parser", "positional_or_keyword", false, Some("None")),
            p("base_url", "keyword_only", false, Some("None")),
        ]
    );
    assert_eq!(parse.source.file.as_deref(), Some("fastxml/parser.pxi"));
    assert_eq!(parse.source.line, Some(15));
    assert_eq!(
        params(&api("fastxml.Element")),
        vec![
            p("tag", "positional_or_keyword", true, None),
            p("attrib", "positional_or_keyword", false, Some("None")),
            p("strict", "keyword_only", false, Some("True")),
        ]
    );
    let children = api("fastxml.Element.children");
    assert_eq!(
        params(&children),
        vec![p("limit", "positional_or_keyword", false, Some("-1"))]
    );
    assert_eq!(children.source.file.as_deref(), Some("fastxml/tree.pyx"));
    assert_eq!(children.source.line, Some(35));
    assert_eq!(
        params(&api("fastxml.Parser")),
        vec![
            p("recover", "keyword_only", false, Some("False")),
            p("target", "keyword_only", false, Some("None")),
            p("max_depth", "keyword_only", false, Some("256")),
        ]
    );
    assert_eq!(
        params(&api("fastxml.tostring")),
        vec![
            p("element", "positional_or_keyword", true, None),
            p("encoding", "keyword_only", false, Some("None")),
            p("pretty_print", "keyword_only", false, Some("False")),
        ]
    );

    let check = |name: &str| {
        e.lookup()
            .check_version(Some("fastxml"), name, Some("1.0.0"))
            .unwrap()
            .available_in_requested
    };
    for name in [
        "fastxml.tree.VERSION",
        "fastxml.tree.ParseError",
        "fastxml.tree.Element.tag_name",
        "fastxml.tree.Element.line",
        "fastxml.tree.Element.get",
    ] {
        assert_eq!(check(name), Some(true), "{name}");
    }
    for name in [
        "fastxml.tree._encode",
        "fastxml.tree._VERSION_INT",
        "fastxml.tree.BUFFER_SIZE",
        "fastxml.tree.Element._depth",
        "fastxml.tree.strlen",
    ] {
        assert_eq!(check(name), Some(false), "{name} is C-level");
    }
}

/// A module protoc generates binds its names through protobuf's builder from the serialized
/// descriptor it holds: refgraph reads the descriptor. What real protobuf (5.28, upb) binds
/// when it imports samples/python/protohub-1.0.0/protohub/orders_pb2.py: the classes Order
/// (nesting Line and the enum Status), OrderService and OrderService_Stub; the enum Currency
/// with its values; the private descriptors _ORDER, _ORDER_LINE, _ORDER_STATUS, _CURRENCY,
/// _ORDERSERVICE.
#[test]
fn protoc_generated_modules_bind_what_their_descriptor_holds() {
    let store = refgraph::store::Store::in_memory();
    crate::support::ingest(&store, &sample("protohub-1.0.0"), "protohub", "1.0.0");
    let e = refgraph::answer::Engine::new(store);
    let check = |name: &str| {
        e.lookup()
            .check_version(Some("protohub"), name, Some("1.0.0"))
            .unwrap()
    };
    for name in [
        "protohub.Order",
        "protohub.orders_pb2.Order.Line",
        "protohub.orders_pb2.Order.Status",
        "protohub.orders_pb2.Order.SHIPPED",
        "protohub.orders_pb2.Order.order_id",
        "protohub.orders_pb2.OrderService",
        "protohub.orders_pb2.OrderService_Stub",
        "protohub.orders_pb2.Currency",
        "protohub.orders_pb2.EUR",
        "protohub.orders_pb2._ORDER_LINE",
        "protohub.orders_pb2.DESCRIPTOR",
    ] {
        assert_eq!(check(name).available_in_requested, Some(true), "{name}");
    }
    // The module is read whole: a name its descriptor does not hold is a proven "no".
    let absent = check("protohub.orders_pb2.Invoice");
    assert_eq!(absent.available_in_requested, Some(false));
    // Members of a nested class are not resolved (for any Python class): unknown, not "no".
    let nested = check("protohub.orders_pb2.Order.Line.quantity");
    assert_eq!(nested.available_in_requested, None);
    // A message's other members come from protobuf's Message, outside the release.
    let inherited = check("protohub.orders_pb2.Order.SerializeToString");
    assert_eq!(inherited.available_in_requested, None);
    // The answer points at the descriptor's line.
    let v = e.choose(Some("protohub"), Some("1.0.0"), None).unwrap();
    let order = e.lookup().api_detail(&v, "protohub.Order").unwrap();
    assert_eq!(order.source.file.as_deref(), Some("protohub/orders_pb2.py"));
    assert_eq!(order.source.line, Some(14));
}

/// What Python itself reaches, by `tests/oracle/py_surface.py check`, for each of `names`
/// with only the sample folder `dir` on the path.
fn python_reaches(dir: &str, import: &str, names: &[&str]) -> serde_json::Value {
    use std::io::Write;
    let mut child = std::process::Command::new("python3")
        .arg("-S")
        .arg(crate::support::repo().join("tests/oracle/py_surface.py"))
        .args(["check", "--import", import, "--path"])
        .arg(sample(dir))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs the surface oracle");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(names.join("\n").as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the surface oracle failed on {dir}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Issue 49, item 0: the namespace star imports, version branches, lazy tables and unpacking
/// give at run time, each answer held to what Python reaches. `Some(b)` is refgraph's exact
/// answer and must equal Python's; `None` is "unknown", which must say why.
#[test]
fn star_imports_version_branches_and_lazy_tables_answer_what_python_reaches() {
    // (sample folder, package, [(name, refgraph's answer)])
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, Option<bool>)]);
    let cases: &[Case] = &[
        (
            "graphkit-1.0.0",
            "graphkit",
            &[
                // Both star-imported subpackages bind `community`; the later one wins.
                ("graphkit.community.louvain_communities", Some(true)),
                ("graphkit.community.modularity", Some(true)),
                ("graphkit.community.planted_partition_graph", Some(false)),
                ("graphkit.planted_partition_graph", Some(true)),
                ("graphkit.shortest_path", Some(true)),
                (
                    "graphkit.generators.community.planted_partition_graph",
                    Some(true),
                ),
                // Unpacking binds every name of its pattern.
                ("graphkit.MIN_NODES", Some(true)),
                ("graphkit.MAX_NODES", Some(true)),
                ("graphkit.DEFAULT_SEED", Some(true)),
                ("graphkit.DEFAULT_WEIGHT", Some(true)),
                ("graphkit.OTHER_WEIGHTS", Some(true)),
                ("graphkit.MEDIUM_NODES", Some(false)),
            ],
        ),
        (
            "figlib-1.0.0",
            "figlib",
            &[
                // Both arms of the version branch bind; the package shadows `objects.py`.
                ("figlib.objects.Bar", Some(true)),
                ("figlib.objects.Scatter", Some(true)),
                ("figlib.objects.bar.Marker", Some(true)),
                ("figlib.objects.FigureWidget", Some(true)),
                // Its second `__getattr__` hands unknown names to the first one, which only
                // the run time holds: unknown, never "no".
                ("figlib.objects.Histogram", None),
                // `relative_import` alone: its tables are read.
                ("figlib.validators.PadValidator", Some(true)),
                ("figlib.validators.FontValidator", Some(true)),
                ("figlib.validators.SizeValidator", Some(false)),
                // A lazy table no reader knows: unknown, never "no".
                ("figlib.themes.Dark", None),
                ("figlib.themes.Light", None),
            ],
        ),
    ];
    for (dir, package, expected) in cases {
        let store = refgraph::store::Store::in_memory();
        crate::support::ingest(&store, &sample(dir), package, "1.0.0");
        let e = refgraph::answer::Engine::new(store);
        let names: Vec<&str> = expected.iter().map(|(n, _)| *n).collect();
        let python = python_reaches(dir, package, &names);
        for (name, want) in *expected {
            let answer = e
                .lookup()
                .check_version(Some(package), name, Some("1.0.0"))
                .unwrap();
            assert_eq!(answer.available_in_requested, *want, "{name}");
            match want {
                Some(b) => assert_eq!(python[name], *b, "{name}: Python disagrees"),
                None => assert!(
                    answer
                        .unknown_reason
                        .as_deref()
                        .is_some_and(|r| r.contains("__getattr__")),
                    "{name}: {:?}",
                    answer.unknown_reason
                ),
            }
        }
    }
}

/// Issue 49, item 4: a name bound only to a stub of a removed API (modelhub, modelled on
/// openai 1.x: proxies whose every call raises `APIRemovedInV1`) is answered absent, with a
/// note that says what using it does; Python confirms each of them raises that error. A
/// name both views export, and a proxy whose call raises something else, stay available.
#[test]
fn a_name_bound_only_to_a_stub_that_raises_a_removal_error_is_not_available() {
    let store = refgraph::store::Store::in_memory();
    crate::support::ingest(&store, &sample("modelhub-1.0.0"), "modelhub", "1.0.0");
    let e = refgraph::answer::Engine::new(store);
    let check = |name: &str| {
        e.lookup()
            .check_version(Some("modelhub"), name, Some("1.0.0"))
            .unwrap()
    };
    let stubs = [
        "modelhub.Completion",
        "modelhub.Embedding",
        "modelhub.FineTune",
        "modelhub.Engine",
        "modelhub.Completion.create",
    ];
    for name in stubs {
        let c = check(name);
        assert_eq!(c.available_in_requested, Some(false), "{name}");
        let why = c.raises_on_use.as_deref().unwrap_or_default();
        assert!(
            why.contains("modelhub.lib._old_api.APIRemovedInV1Proxy")
                && why.contains("APIRemovedInV1(symbol=self._symbol)"),
            "{name}: {why}"
        );
    }
    for name in [
        "modelhub.Client",
        "modelhub.ModelhubError",
        "modelhub.batches",
    ] {
        let c = check(name);
        assert_eq!(c.available_in_requested, Some(true), "{name}");
        assert_eq!(c.raises_on_use, None, "{name}");
    }
    // The oracle: each stub is bound, and using it raises the removal error.
    let script = format!(
        "import sys\nsys.path.insert(0, {:?})\nimport modelhub\nfor path in {:?}:\n    obj = modelhub\n    for part in path.split('.')[1:]:\n        obj = getattr(obj, part)\n    try:\n        obj()\n    except Exception as e:\n        print(path, type(e).__name__)\n",
        sample("modelhub-1.0.0").display().to_string(),
        stubs
    );
    let out = std::process::Command::new("python3")
        .args(["-S", "-c", &script])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    for name in stubs {
        assert!(
            printed.contains(&format!("{name} APIRemovedInV1\n")),
            "{name}: {printed}"
        );
    }
}

/// Issue 49, item 4: where type checkers and the run time disagree on a module's names, the
/// answer says so and which view it gives (typeview: a name imported for type checkers only,
/// a class only the stub declares, a function the stub leaves out). Python holds the run
/// time's side of each; a name both views have carries no note.
#[test]
fn where_type_checkers_and_the_run_time_disagree_the_answer_says_which_view_it_gives() {
    let store = refgraph::store::Store::in_memory();
    crate::support::ingest(&store, &sample("typeview-1.0.0"), "typeview", "1.0.0");
    let e = refgraph::answer::Engine::new(store);
    let check = |name: &str| {
        e.lookup()
            .check_version(Some("typeview"), name, Some("1.0.0"))
            .unwrap()
    };
    // (name, answer, the run time has it, where the view that has it sees it, view given)
    let cases = [
        (
            "typeview.RetryPolicy",
            false,
            false,
            "typeview/__init__.py:13",
            "the run time's view",
        ),
        (
            "typeview.Transport",
            false,
            false,
            "typeview/__init__.py:15",
            "the run time's view",
        ),
        (
            "typeview.client.AsyncClient",
            true,
            false,
            "typeview/client.pyi:11",
            "the type checkers' view",
        ),
        (
            "typeview.client.debug_dump",
            true,
            true,
            "typeview/client.py:23",
            "the run time's view",
        ),
    ];
    let names: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let python = python_reaches("typeview-1.0.0", "typeview", &names);
    for (name, answer, runtime, at, view) in cases {
        let c = check(name);
        assert_eq!(c.available_in_requested, Some(answer), "{name}: {c:?}");
        assert_eq!(python[name], runtime, "{name}: Python disagrees");
        let said = c.views_differ.as_deref().unwrap_or_default();
        assert!(said.contains(at) && said.contains(view), "{name}: {said}");
    }
    // The detail of a class only the stub declares names the stub's file, and says so.
    let v1 = e
        .choose(Some("pkg:pypi/typeview"), Some("1.0.0"), None)
        .unwrap();
    let d = e
        .lookup()
        .api_detail(&v1, "typeview.client.AsyncClient")
        .unwrap();
    assert_eq!(d.source.file.as_deref(), Some("typeview/client.pyi"));
    assert_eq!(d.source.line, Some(11));
    assert!(d.views_differ.is_some(), "{d:?}");
    for name in [
        "typeview.Client",
        "typeview.connect",
        "typeview.retry.RetryPolicy",
        "typeview.client.Client.get",
    ] {
        let c = check(name);
        assert_eq!(c.available_in_requested, Some(true), "{name}");
        assert_eq!(c.views_differ, None, "{name}");
    }
}
