//! The SPARQL catalog: every `src/queries/*.rq`, registered by one macro, parsed once.

use std::sync::OnceLock;

use oxigraph::model::Term;
use oxigraph::sparql::{PreparedSparqlQuery, SparqlEvaluator};

/// A registered query: its id (the file stem) and text.
///
/// Inputs are bound by writing their terms into the text before parsing: Oxigraph's
/// `substitute_variable` filters after evaluation, so a query bound to one symbol would still
/// scan every symbol of the store. With constants in the text the optimiser uses the indexes.
pub struct CatalogQuery {
    pub id: &'static str,
    pub text: &'static str,
    parsed: OnceLock<PreparedSparqlQuery>,
}

impl CatalogQuery {
    pub(crate) const fn new(id: &'static str, text: &'static str) -> Self {
        CatalogQuery {
            id,
            text,
            parsed: OnceLock::new(),
        }
    }

    /// The parsed query; registered queries are checked by tests, so parsing cannot fail.
    /// The query with `?name` inputs replaced by constant terms, parsed.
    pub fn bind(&self, bindings: &[(&str, Term)]) -> PreparedSparqlQuery {
        if bindings.is_empty() {
            return self.get().clone();
        }
        let text = substitute(self.text, bindings);
        SparqlEvaluator::new()
            .parse_query(&text)
            .unwrap_or_else(|e| panic!("src/queries/{}.rq with bound inputs: {e}", self.id))
    }

    /// [`CatalogQuery::bind`], evaluated under `token`: cancelling it stops the evaluation.
    pub fn bind_cancellable(
        &self,
        bindings: &[(&str, Term)],
        token: oxigraph::sparql::CancellationToken,
    ) -> PreparedSparqlQuery {
        SparqlEvaluator::new()
            .with_cancellation_token(token)
            .parse_query(&substitute(self.text, bindings))
            .unwrap_or_else(|e| panic!("src/queries/{}.rq with bound inputs: {e}", self.id))
    }

    pub fn get(&self) -> &PreparedSparqlQuery {
        self.parsed.get_or_init(|| {
            SparqlEvaluator::new()
                .parse_query(self.text)
                .unwrap_or_else(|e| panic!("src/queries/{}.rq does not parse: {e}", self.id))
        })
    }
}

/// Replaces whole-word `?var` occurrences outside comments and strings with the terms' SPARQL
/// syntax (`<iri>`, `"literal"` with escapes, as `Term`'s Display writes them).
fn substitute(text: &str, bindings: &[(&str, Term)]) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let mut rest = line;
        while let Some(pos) = rest.find(['?', '"']) {
            out.push_str(&rest[..pos]);
            let tail = &rest[pos..];
            if let Some(body) = tail.strip_prefix('"') {
                // Copy a string literal verbatim (no `?` inside it is a variable), escapes too.
                let mut end = tail.len();
                let mut escaped = false;
                for (i, c) in body.char_indices() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => {
                            end = i + 2;
                            break;
                        }
                        _ => escaped = false,
                    }
                }
                out.push_str(&tail[..end]);
                rest = &tail[end..];
                continue;
            }
            let name_len = tail[1..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(tail.len() - 1);
            let name = &tail[1..1 + name_len];
            match bindings.iter().find(|(n, _)| *n == name) {
                Some((_, term)) => out.push_str(&term.to_string()),
                None => out.push_str(&tail[..1 + name_len]),
            }
            rest = &tail[1 + name_len..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

macro_rules! catalog {
    ($($id:ident),* $(,)?) => {
        $(
            pub static $id: CatalogQuery = CatalogQuery::new(
                stringify!($id),
                include_str!(concat!("queries/", stringify!($id), ".rq")),
            );
        )*

        /// Every registered query.
        pub fn all() -> Vec<&'static CatalogQuery> {
            vec![$(&$id),*]
        }

        #[cfg(test)]
        mod per_query_tests {
            $(
                #[test]
                #[allow(non_snake_case)]
                fn $id() {
                    super::check_query(&super::$id);
                }
            )*
        }
    };
}

#[allow(non_upper_case_globals)]
mod registered {
    use super::*;
    catalog! {
        releases,
        constructor_params,
        list_symbols,
        diagnostics,
        symbol_by_endpoint,
        operations_by_endpoint,
        requests_by_key,
        operations_by_tag,
        doc_chunks,
        symbol_params,
        tag_descriptions,
        doc_sections,
        signature_changed,
        symbol_mentions,
        symbol_triples,
        takers,
    }
}

pub use registered::*;

/// What every catalog query must satisfy: it parses, it documents itself in leading `#`
/// comments (purpose, inputs, output), and its output order is deterministic.
#[cfg(test)]
pub(crate) fn check_query(q: &CatalogQuery) {
    let _ = q.get();
    let header: Vec<&str> = q.text.lines().take_while(|l| l.starts_with('#')).collect();
    assert!(
        header.len() >= 3,
        "{}.rq: needs a # header (purpose, inputs, output)",
        q.id
    );
    assert!(
        header.iter().any(|l| l.contains("Inputs:")) && header.iter().any(|l| l.contains("Output")),
        "{}.rq: the header must name its Inputs: and Output:",
        q.id
    );
    assert!(
        q.text.contains("ORDER BY"),
        "{}.rq: needs an ORDER BY",
        q.id
    );
}

#[cfg(test)]
mod tests {
    use oxigraph::model::{Literal, NamedNode};

    /// The entity page's queries parse with their inputs bound (an IRI cannot stand where
    /// a variable can in every place, ORDER BY for one).
    #[test]
    fn entity_queries_parse_with_their_inputs_bound() {
        let iri = |s: &str| NamedNode::new_unchecked(s).into();
        let release = "pkg:pypi/a@1";
        let token = oxigraph::sparql::CancellationToken::new();
        let _ = super::symbol_triples.bind_cancellable(
            &[
                ("symbol", iri("pkg:pypi/a#a.f")),
                ("release", iri(release)),
                ("local", Literal::new_simple_literal("pkg:pypi/a@1#").into()),
            ],
            token.clone(),
        );
        let _ = super::symbol_mentions.bind_cancellable(
            &[
                ("symbol", iri("pkg:pypi/a#a.f")),
                ("release", iri(release)),
                ("docs", iri("pkg:pypi/a@1/docs")),
            ],
            token,
        );
    }

    #[test]
    fn inputs_become_constants_and_nothing_else_changes() {
        let q = "# ?release in a comment\nSELECT ?x WHERE { GRAPH ?release { ?x ?p \"?release\" . ?x ?p ?name } }";
        let text = super::substitute(
            q,
            &[
                ("release", NamedNode::new_unchecked("pkg:pypi/a@1").into()),
                ("name", Literal::new_simple_literal("a \"b\"").into()),
            ],
        );
        assert_eq!(
            text.trim(),
            "SELECT ?x WHERE { GRAPH <pkg:pypi/a@1> { ?x ?p \"?release\" . ?x ?p \"a \\\"b\\\"\" } }"
        );
    }

    #[test]
    fn every_rq_file_is_registered_under_its_stem() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/queries");
        let ids: Vec<&str> = super::all().iter().map(|q| q.id).collect();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            assert_eq!(
                path.extension().and_then(|e| e.to_str()),
                Some("rq"),
                "{}",
                path.display()
            );
            let stem = path.file_stem().unwrap().to_str().unwrap();
            assert!(
                ids.contains(&stem),
                "{} is not registered in queries.rs",
                path.display()
            );
        }
    }
}
