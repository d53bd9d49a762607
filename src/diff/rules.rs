//! The change rules: each a SPARQL query over a baseline and a current release graph
//! (`src/diff/rules/<id>.rq`) with its metadata beside it (`<id>.toml`), registered by one macro.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::queries::CatalogQuery;

/// How likely a change is to break code written against the baseline.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Code written against the baseline fails or behaves differently.
    Breaking,
    /// Some callers break (positional callers, exhaustive switches, type checkers).
    PossiblyBreaking,
    /// Nothing written against the baseline breaks.
    NotBreaking,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Breaking => "breaking",
            Severity::PossiblyBreaking => "possibly-breaking",
            Severity::NotBreaking => "not-breaking",
        }
    }
}

/// The coarse change kind of the eval contract, which every rule maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoarseKind {
    Added,
    Removed,
    Changed,
    Deprecated,
    Renamed,
}

impl CoarseKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CoarseKind::Added => "added",
            CoarseKind::Removed => "removed",
            CoarseKind::Changed => "changed",
            CoarseKind::Deprecated => "deprecated",
            CoarseKind::Renamed => "renamed",
        }
    }
}

/// Which release a name is looked up in before a finding is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Baseline,
    Current,
}

/// A rule's `.toml`: what the change is called, how bad it is, and the words of the report.
/// Templates take `{name}`, `{kind}` (the symbol's kind), `{param}`, `{old}`, `{new}`, `{replacement}`, `{from}`
/// and `{to}` (the two versions).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleMeta {
    pub title: String,
    pub severity: Severity,
    /// symbol | class | signature | openapi
    pub area: String,
    pub kind: CoarseKind,
    pub message: String,
    pub hint: Option<String>,
    /// The ecosystems the rule applies to (pypi, npm, generic); all when absent.
    pub ecosystems: Option<Vec<crate::model::Ecosystem>>,
    /// Rules whose findings on the same symbol and parameter this rule's findings replace (a
    /// renamed parameter is not also a removed one and an added one).
    #[serde(default)]
    pub supersedes: Vec<String>,
    /// Drop the finding when its name still resolves in that release (through an alias or an
    /// inherited member), since code using the name keeps working.
    pub unless_resolves_in: Option<Side>,
    /// Template of the name that replaces the changed one.
    pub replacement: Option<String>,
    /// Merge consecutive rows that differ only in `?param` into one finding whose `param`
    /// lists them all (`a`, `b`): one reordering is one change, however many pairs it flips.
    #[serde(default)]
    pub merge_params: bool,
}

pub struct Rule {
    pub query: CatalogQuery,
    meta_text: &'static str,
    meta: OnceLock<RuleMeta>,
}

impl Rule {
    pub fn id(&self) -> &'static str {
        self.query.id
    }

    /// The parsed metadata; registered rules are checked by tests, so parsing cannot fail.
    pub fn meta(&self) -> &RuleMeta {
        self.meta.get_or_init(|| {
            toml::from_str(self.meta_text)
                .unwrap_or_else(|e| panic!("src/diff/rules/{}.toml: {e}", self.id()))
        })
    }

    /// A rule about one callable's signature (area `signature`): the report runs these over
    /// the symbols whose signature changed, not over whole releases.
    pub fn is_signature_rule(&self) -> bool {
        self.meta().area == "signature"
    }

    pub fn applies_to(&self, ecosystem: crate::model::Ecosystem) -> bool {
        self.meta()
            .ecosystems
            .as_ref()
            .is_none_or(|e| e.contains(&ecosystem))
    }
}

macro_rules! rules {
    ($($id:ident),* $(,)?) => {
        $(
            pub static $id: Rule = Rule {
                query: CatalogQuery::new(
                    stringify!($id),
                    include_str!(concat!("rules/", stringify!($id), ".rq")),
                ),
                meta_text: include_str!(concat!("rules/", stringify!($id), ".toml")),
                meta: OnceLock::new(),
            };
        )*

        /// Every registered rule, in report order.
        pub fn all() -> &'static [&'static Rule] {
            static ALL: &[&Rule] = &[$(&$id),*];
            ALL
        }

        #[cfg(test)]
        mod per_rule_tests {
            $(
                #[test]
                #[allow(non_snake_case)]
                fn $id() {
                    super::check_rule(&super::$id);
                }
            )*
        }
    };
}

#[allow(non_upper_case_globals)]
mod registered {
    use super::*;
    rules! {
        symbol_removed,
        made_private,
        symbol_added,
        symbol_moved,
        alias_removed,
        kind_changed,
        binding_changed,
        deprecated,
        base_removed,
        base_added,
        inherited_member_added,
        inherited_member_removed,
        parameter_removed,
        required_parameter_added,
        optional_parameter_added,
        parameter_renamed,
        js_parameter_renamed,
        parameter_reordered,
        parameter_kind_stricter,
        parameter_kind_looser,
        parameter_location_changed,
        parameter_became_required,
        parameter_became_optional,
        default_changed,
        variadic_removed,
        variadic_added,
        annotation_changed,
        parameter_type_changed,
        return_type_changed,
        became_async,
        became_sync,
        operation_removed,
        operation_added,
        operation_id_renamed,
        request_property_required_added,
        enum_value_removed,
        enum_value_added,
        response_status_removed,
        property_made_nullable,
        schema_type_changed,
        schema_removed,
        schema_added,
        schema_property_removed,
        schema_property_added,
        security_requirement_added,
    }
}

pub use registered::all;

/// The variables a rule may output, which the templates and the report read.
pub const OUTPUTS: [&str; 10] = [
    "name",
    "type",
    "param",
    "old",
    "new",
    "oldSignature",
    "newSignature",
    "doc",
    "replacement",
    "aliases",
];

/// What every rule must satisfy: the query parses and documents itself like a catalog query,
/// takes the two graphs as inputs, outputs `?name` and only known columns; the metadata parses,
/// its templates use known fields, and its `supersedes` names registered rules.
#[cfg(test)]
fn check_rule(rule: &Rule) {
    crate::queries::check_query(&rule.query);
    let text = rule.query.text;
    assert!(
        text.contains("?baseline") && text.contains("?current"),
        "{}.rq: must read ?baseline and ?current",
        rule.id()
    );
    let select = text
        .lines()
        .find(|l| l.starts_with("SELECT"))
        .unwrap_or_else(|| panic!("{}.rq: no SELECT line", rule.id()));
    // `?x` outside parentheses, and the `AS ?x` of an aggregate.
    let mut columns: Vec<&str> = Vec::new();
    let (mut depth, mut after_as) = (0i32, false);
    for w in select.split_whitespace() {
        let var = w
            .strip_prefix('?')
            .map(|v| v.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '_')));
        if let Some(v) = var
            && (depth == 0 || after_as)
        {
            columns.push(v);
        }
        after_as = w == "AS";
        depth += w.matches('(').count() as i32 - w.matches(')').count() as i32;
    }
    assert!(
        columns.contains(&"name"),
        "{}.rq: must output ?name",
        rule.id()
    );
    for c in &columns {
        assert!(OUTPUTS.contains(c), "{}.rq: unknown output ?{c}", rule.id());
    }
    let meta = rule.meta();
    let fields = [
        "name",
        "kind",
        "param",
        "old",
        "new",
        "replacement",
        "from",
        "to",
    ];
    for t in std::iter::once(&meta.message)
        .chain(&meta.hint)
        .chain(&meta.replacement)
    {
        for part in t.split('{').skip(1) {
            let field = part.split('}').next().unwrap_or("");
            assert!(
                fields.contains(&field),
                "{}.toml: unknown template field {{{field}}}",
                rule.id()
            );
            assert!(
                ["name", "kind", "from", "to"].contains(&field) || columns.contains(&field),
                "{}.toml: {{{field}}} is not an output of the query",
                rule.id()
            );
        }
    }
    for s in &meta.supersedes {
        assert!(
            all().iter().any(|r| r.id() == s),
            "{}.toml: supersedes unknown rule {s}",
            rule.id()
        );
    }
    assert!(
        ["symbol", "class", "signature", "openapi"].contains(&meta.area.as_str()),
        "{}.toml: unknown area {}",
        rule.id(),
        meta.area
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_rule_file_is_registered_under_its_stem_with_both_halves() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/diff/rules");
        let ids: Vec<&str> = super::all().iter().map(|r| r.id()).collect();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            assert!(ext == "rq" || ext == "toml", "{}", path.display());
            let stem = path.file_stem().unwrap().to_str().unwrap();
            assert!(
                ids.contains(&stem),
                "{} is not registered in src/diff/rules.rs",
                path.display()
            );
        }
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "a rule is registered twice");
    }
}
