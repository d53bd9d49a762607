//! Usage paths and `related` on the acme-payments sample (issue 10): relations extracted from
//! `__init__` statements, annotated fields, return types and bases; paths ranked through the
//! client; every step cites its source.

use refgraph::answer::Engine;
use refgraph::store::Store;

use crate::support::{ingest, sample};

fn payments() -> Engine {
    let store = Store::in_memory();
    ingest(
        &store,
        &sample("acme-payments-1.0.0"),
        "acme-payments",
        "1.0.0",
    );
    Engine::new(store)
}

fn paths(e: &Engine, name: &str) -> refgraph::answer::usage::UsagePaths {
    let chosen = e
        .choose(Some("pkg:pypi/acme-payments"), Some("1.0.0"), None)
        .unwrap();
    e.usage().usage_paths(&chosen, name, 3).unwrap()
}

#[test]
fn a_service_method_is_reached_through_the_client() {
    let e = payments();
    let u = paths(&e, "acme_payments.InvoiceService.pay");
    assert_eq!(u.version, "1.0.0");
    let best = &u.paths[0];
    assert_eq!(
        best.snippet,
        "from acme_payments import AcmeClient\n\nacme_client = AcmeClient(api_key)\nacme_client.billing.invoices.pay(invoice_id)"
    );
    assert_eq!(best.chain, vec!["billing", "invoices", "pay"]);
    let actions: Vec<&str> = best.steps.iter().map(|s| s.action.as_str()).collect();
    assert_eq!(
        actions,
        vec!["import", "construct", "attribute", "attribute", "call"]
    );
    // Each attribute step cites the statement that gives it its class.
    let billing = &best.steps[2];
    assert_eq!(billing.source, "acme_payments/_client.py:27");
    assert_eq!(
        billing.evidence.as_deref(),
        Some("self.billing = BillingResources(self._requestor)")
    );
    let invoices = &best.steps[3];
    assert_eq!(invoices.source, "acme_payments/resources/_billing.py:37");
    // Constructing the service directly is a valid but worse path: it ranks after the client.
    assert!(u.paths.len() >= 2, "{:#?}", u.paths);
    assert!(
        u.paths[1..].iter().any(|p| p
            .snippet
            .contains("invoice_service = InvoiceService(requestor)")),
        "{:#?}",
        u.paths
    );
}

#[test]
fn annotated_attributes_factories_and_inherited_members_count() {
    let e = payments();
    // `self.subscriptions: SubscriptionService = ...`: the annotation gives the class.
    let u = paths(&e, "acme_payments.SubscriptionService.cancel");
    assert_eq!(u.paths[0].chain, vec!["billing", "subscriptions", "cancel"]);
    // A member inherited from a private base is reached on the public subclass.
    let u = paths(&e, "acme_payments.CustomerService.ping");
    assert_eq!(u.paths[0].chain, vec!["customers", "ping"]);
    // The factory function is a second way to the client.
    let u = paths(&e, "acme_payments.CustomerService.create");
    assert!(
        u.paths.iter().any(|p| p.snippet.contains(
            "from acme_payments import create_client\n\nacme_client = create_client(api_key)\nacme_client.customers.create(email=email)"
        )),
        "{:#?}",
        u.paths
    );
    // An assignment inside a nested function is not the receiver's attribute.
    let chosen = e
        .choose(Some("acme-payments"), Some("1.0.0"), None)
        .unwrap();
    let r = e
        .usage()
        .related(&chosen, "acme_payments.AcmeClient", Some("attribute"))
        .unwrap();
    let names: Vec<_> = r.related.iter().map(|x| x.name.clone().unwrap()).collect();
    assert_eq!(names, vec!["billing", "customers"]);
}

#[test]
fn a_function_and_a_class_are_imported_directly() {
    let e = payments();
    let u = paths(&e, "acme_payments.create_client");
    assert_eq!(
        u.paths[0].snippet,
        "from acme_payments import create_client\n\ncreate_client(api_key)"
    );
    let u = paths(&e, "acme_payments.AcmeClient");
    assert_eq!(
        u.paths[0].snippet,
        "from acme_payments import AcmeClient\n\nacme_client = AcmeClient(api_key)"
    );
}

#[test]
fn unknown_names_and_versions_are_refused_with_what_exists() {
    let e = payments();
    let chosen = e
        .choose(Some("acme-payments"), Some("1.0.0"), None)
        .unwrap();
    let err = e
        .usage()
        .usage_paths(&chosen, "acme_payments.InvoiceService.pai", 3)
        .unwrap_err()
        .to_string();
    assert!(err.contains("acme_payments.InvoiceService.pay"), "{err}");
    let err = e
        .choose(Some("acme-payments"), Some("9.9.9"), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("indexed versions: 1.0.0"), "{err}");
    let err = e
        .usage()
        .related(&chosen, "acme_payments.AcmeClient", Some("cousin"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown relation 'cousin'"), "{err}");
}

/// One snapshot of `related` per name, named `PREFIX_NAME` (dots, spaces and slashes as `_`).
fn snapshot_related(
    e: &Engine,
    chosen: &refgraph::answer::Chosen,
    prefix: &str,
    names: &[&str],
    relation: Option<&str>,
) {
    for name in names {
        let r = e.usage().related(chosen, name, relation).unwrap();
        insta::assert_snapshot!(
            format!("{prefix}_{}", name.replace(['.', ' ', '/'], "_")),
            r.text(&chosen.release.release)
        );
    }
}

#[test]
fn related_snapshots() {
    let e = payments();
    let chosen = e
        .choose(Some("acme-payments"), Some("1.0.0"), None)
        .unwrap();
    snapshot_related(
        &e,
        &chosen,
        "related",
        &[
            "acme_payments.AcmeClient",
            "acme_payments.CustomerService",
            "acme_payments.InvoiceService.pay",
            "acme_payments.Customer",
        ],
        None,
    );
}

#[test]
fn relations_are_queryable_with_sparql() {
    let e = payments();
    let rows = e
        .sparql(include_str!(
            "../../src/http/examples/10_attribute_types.rq"
        ))
        .unwrap();
    let text = rows.to_string();
    for expected in [
        "self.customers = CustomerService(self._requestor)",
        "self.subscriptions: SubscriptionService = SubscriptionService(requestor)",
        "customer_detail: Optional[Customer] = None",
    ] {
        assert!(text.contains(expected), "{expected} missing in {text}");
    }
}

/// The sample SDK beside the HTTP API it wraps (samples/openapi/acme-payments-api-1.0.0.yaml).
fn payments_and_api() -> Engine {
    let store = Store::in_memory();
    ingest(
        &store,
        &sample("acme-payments-1.0.0"),
        "acme-payments",
        "1.0.0",
    );
    crate::openapi::ingest_spec(
        &store,
        &crate::support::repo().join("samples/openapi/acme-payments-api-1.0.0.yaml"),
        "acme-payments-api",
        "1.0.0",
    )
    .unwrap();
    Engine::new(store)
}

#[test]
fn sdk_methods_and_the_operations_they_wrap_link_both_ways() {
    let e = payments_and_api();
    let sdk = e
        .choose(Some("pkg:pypi/acme-payments"), Some("1.0.0"), None)
        .unwrap();
    let api = e
        .choose(Some("pkg:generic/acme-payments-api"), Some("1.0.0"), None)
        .unwrap();
    snapshot_related(
        &e,
        &sdk,
        "wraps",
        &[
            "acme_payments.CustomerService.create",
            "acme_payments.CustomerService.retrieve",
            "acme_payments.InvoiceService.pay",
        ],
        None,
    );
    snapshot_related(
        &e,
        &api,
        "wrapped_by",
        &["createCustomer", "payInvoice", "POST /customers"],
        Some("wrapped_by"),
    );
    // A method that sends nothing wraps nothing; an operation no SDK requests is wrapped by
    // nothing: no link is guessed from names.
    let r = e
        .usage()
        .related(
            &sdk,
            "acme_payments.SubscriptionService.cancel",
            Some("wraps"),
        )
        .unwrap();
    assert!(r.related.is_empty(), "{:?}", r.related);
    let r = e
        .usage()
        .related(&api, "cancelSubscription", Some("wrapped_by"))
        .unwrap();
    assert!(r.related.is_empty(), "{:?}", r.related);
    // `GET /v1/customers` is listCustomers under the server's /v1, never retrieveCustomer.
    let r = e
        .usage()
        .related(&sdk, "acme_payments.CustomerService.list", Some("wraps"))
        .unwrap();
    let ops: Vec<&str> = r
        .related
        .iter()
        .map(|x| x.qualified_name.as_str())
        .collect();
    assert_eq!(ops, vec!["listCustomers"]);
    assert_eq!(
        r.related[0].package.as_deref(),
        Some("pkg:generic/acme-payments-api")
    );
    assert_eq!(r.related[0].versions, vec!["1.0.0"]);
}

#[test]
fn a_request_without_an_indexed_spec_is_still_a_fact() {
    let e = payments();
    let chosen = e
        .choose(Some("acme-payments"), Some("1.0.0"), None)
        .unwrap();
    let r = e
        .usage()
        .related(
            &chosen,
            "acme_payments.InvoiceService.pay",
            Some("requests"),
        )
        .unwrap();
    assert_eq!(r.related.len(), 1, "{:?}", r.related);
    let req = &r.related[0];
    assert_eq!(req.qualified_name, "POST /v1/invoices/{}/pay");
    assert_eq!(
        req.source.as_deref(),
        Some("acme_payments/resources/_billing.py:21")
    );
    assert_eq!(
        req.evidence.as_deref(),
        Some(
            "self._requestor.request(\"POST\", \"/v1/invoices/%s/pay\" % invoice_id, source=source)"
        )
    );
    let r = e
        .usage()
        .related(&chosen, "acme_payments.InvoiceService.pay", Some("wraps"))
        .unwrap();
    assert!(r.related.is_empty());
}
