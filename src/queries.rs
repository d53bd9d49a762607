//! The SPARQL catalog: every `src/queries/*.rq`, registered by one macro, parsed once.

use std::sync::OnceLock;

use oxigraph::sparql::{PreparedSparqlQuery, SparqlEvaluator};

/// A registered query: its id (the file stem) and text.
pub struct CatalogQuery {
    pub id: &'static str,
    pub text: &'static str,
    parsed: OnceLock<PreparedSparqlQuery>,
}

impl CatalogQuery {
    /// The parsed query; registered queries are checked by tests, so parsing cannot fail.
    pub fn get(&self) -> &PreparedSparqlQuery {
        self.parsed.get_or_init(|| {
            SparqlEvaluator::new()
                .parse_query(self.text)
                .unwrap_or_else(|e| panic!("src/queries/{}.rq does not parse: {e}", self.id))
        })
    }
}

macro_rules! catalog {
    ($($id:ident),* $(,)?) => {
        $(
            pub static $id: CatalogQuery = CatalogQuery {
                id: stringify!($id),
                text: include_str!(concat!("queries/", stringify!($id), ".rq")),
                parsed: OnceLock::new(),
            };
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
        symbol_by_name,
        symbol_detail,
        symbol_values,
        symbol_params,
        symbol_overloads,
        symbol_names,
        list_symbols,
        diagnostics,
    }
}

pub use registered::*;

/// What every catalog query must satisfy: it parses, it documents itself in leading `#`
/// comments (purpose, inputs, output), and its output order is deterministic.
#[cfg(test)]
fn check_query(q: &CatalogQuery) {
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
