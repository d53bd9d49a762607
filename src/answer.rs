//! Answers about indexed releases. [`Engine`] holds what they share (the store, caches,
//! release choice, name resolution and candidates, the text index, read-only SPARQL); the
//! answers are on its services: [`Engine::lookup`] (signatures, version history, listings),
//! [`Engine::usage`], [`Engine::docs`] and `Engine::diff` (in `crate::diff`), each with its own
//! error type. Shared by the MCP tools, the HTTP server and the CLI.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxigraph::model::{Literal, Term};
use oxigraph::sparql::{CancellationToken, QueryResults, QuerySolution, SparqlEvaluator};
use schemars::JsonSchema;
use serde::Serialize;

use crate::lower::{kind_name, name_rows};
use crate::model::{Ecosystem, PackageRef};
use crate::queries;
pub use crate::store::ReleaseInfo;
use crate::store::{Store, StoreError, get_str, iri, term_value};
use crate::version::version_key;

mod docs;
mod lookup;
pub mod usage;
pub use docs::{DocHit, DocPage, DocQuery, DocSearch, DocsError, DocsService};
pub use lookup::{LookupError, LookupService};
pub use usage::{UsageError, UsageService};

/// Why no release could be chosen for an answer: the package or version asked for is not
/// indexed, or the package is not named well enough. Every answer about a release can fail so.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    #[error(
        "no package is indexed yet; add one with `refgraph add pkg:pypi/NAME@VERSION` or `refgraph add pkg:npm/NAME@VERSION`"
    )]
    NothingIndexed,
    #[error("package '{asked}' is not indexed; indexed packages: {}", .indexed.join(", "))]
    UnknownPackage { asked: String, indexed: Vec<String> },
    #[error("package '{asked}' is ambiguous; say which: {}", .matches.join(", "))]
    AmbiguousPackage { asked: String, matches: Vec<String> },
    #[error("no package given and several are indexed; pass package (one of: {})", .indexed.join(", "))]
    PackageNeeded { indexed: Vec<String> },
    #[error("version {asked} of {package} is not indexed; indexed versions: {}", .indexed.join(", "))]
    VersionNotIndexed {
        package: String,
        asked: String,
        indexed: Vec<String>,
    },
    /// A version label (`8.1`, `latest`, `>=2,<3`) that no indexed release matches.
    #[error("version {} of {}: {}; indexed versions: {}", .0.asked, .0.package, .0.why, .0.indexed.join(", "))]
    LabelMatchesNothing(Box<LabelMiss>),
    /// A version that is neither a version, a label nor a range of the package's ecosystem.
    #[error("version of {package}: {why}; indexed versions: {}", .indexed.join(", "))]
    BadVersion {
        package: String,
        why: String,
        indexed: Vec<String>,
    },
    /// The package argument is not a package name or Package URL.
    #[error("invalid argument: {0}")]
    BadPackage(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A label that matched no indexed release: [`ReleaseError::LabelMatchesNothing`].
#[derive(Debug)]
pub struct LabelMiss {
    pub package: String,
    pub asked: String,
    /// Why nothing matched (`no indexed release is 9.*`).
    pub why: String,
    pub indexed: Vec<String>,
}

/// Why a read-only SPARQL query ([`Engine::sparql`]) gave no result.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("invalid SPARQL query: {0}")]
    BadQuery(String),
    #[error("SPARQL updates are refused: this endpoint is read-only")]
    UpdateRefused,
    #[error("the query was stopped after {0:?}; narrow it or add a LIMIT")]
    Timeout(Duration),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<oxigraph::sparql::QueryEvaluationError> for QueryError {
    fn from(e: oxigraph::sparql::QueryEvaluationError) -> Self {
        QueryError::Store(StoreError::Query(e))
    }
}

/// What a caller does with an error: how the MCP server, the HTTP server and the command line
/// report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The package, release or name asked for is not indexed: the caller gets what is (the
    /// indexed versions, close names marked as candidates). Exit code 3, HTTP 404.
    NotFound,
    /// The request itself is wrong or underspecified (a malformed package, cursor or relation;
    /// a package name that several ecosystems share). HTTP 400.
    BadInput,
    /// A SPARQL query was refused (an update, a syntax error) or cut by the timeout.
    QueryRefused,
    /// This process cannot answer that kind of question (no text index is open): a tool error
    /// that says where to ask, not a failure of the server.
    Unavailable,
    /// Storage or the text index failed: not the caller's doing.
    Internal,
}

/// What every answer error tells its reporter, whichever service raised it. An error that
/// wraps another (a lookup that could not choose its release) names it in `wraps`, and the
/// lists come from there.
pub trait Failure: std::error::Error + Send + Sync + 'static {
    fn kind(&self) -> ErrorKind {
        self.wraps().map_or(ErrorKind::Internal, Failure::kind)
    }
    /// The error of another service this one wraps.
    fn wraps(&self) -> Option<&dyn Failure> {
        None
    }
    /// Close names for an unknown one: candidates, never answers.
    fn candidates(&self) -> &[Candidate] {
        self.wraps().map_or(&[], Failure::candidates)
    }
    /// What is indexed instead of what was asked for (versions or packages).
    fn indexed(&self) -> &[String] {
        self.wraps().map_or(&[], Failure::indexed)
    }
    /// The version asked for when it is not indexed.
    fn version_not_indexed(&self) -> Option<&str> {
        self.wraps().and_then(Failure::version_not_indexed)
    }
}

impl Failure for ReleaseError {
    fn kind(&self) -> ErrorKind {
        match self {
            ReleaseError::NothingIndexed
            | ReleaseError::UnknownPackage { .. }
            | ReleaseError::VersionNotIndexed { .. }
            | ReleaseError::LabelMatchesNothing(_) => ErrorKind::NotFound,
            // The request must say which package (one of those listed), or a version that reads.
            ReleaseError::AmbiguousPackage { .. }
            | ReleaseError::PackageNeeded { .. }
            | ReleaseError::BadVersion { .. }
            | ReleaseError::BadPackage(_) => ErrorKind::BadInput,
            ReleaseError::Store(_) => ErrorKind::Internal,
        }
    }
    fn indexed(&self) -> &[String] {
        match self {
            ReleaseError::LabelMatchesNothing(m) => &m.indexed,
            ReleaseError::VersionNotIndexed { indexed, .. }
            | ReleaseError::BadVersion { indexed, .. }
            | ReleaseError::UnknownPackage { indexed, .. }
            | ReleaseError::PackageNeeded { indexed } => indexed,
            ReleaseError::AmbiguousPackage { matches, .. } => matches,
            _ => &[],
        }
    }
    fn version_not_indexed(&self) -> Option<&str> {
        match self {
            ReleaseError::VersionNotIndexed { asked, .. } => Some(asked),
            ReleaseError::LabelMatchesNothing(m) => Some(&m.asked),
            _ => None,
        }
    }
}

impl Failure for QueryError {
    fn kind(&self) -> ErrorKind {
        match self {
            QueryError::BadQuery(_) | QueryError::UpdateRefused | QueryError::Timeout(_) => {
                ErrorKind::QueryRefused
            }
            QueryError::Store(_) => ErrorKind::Internal,
        }
    }
}

impl Failure for StoreError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Internal
    }
}

/// Any answer error, for the layers that report them: the MCP tools, the HTTP server and the
/// command line map one type, through [`Failure`]. The services return their own
/// ([`ReleaseError`], [`LookupError`], [`UsageError`], [`DocsError`], [`DiffError`],
/// [`QueryError`]), which `?` turns into this; the project pins of the MCP server add theirs.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error(transparent)]
    Release(#[from] ReleaseError),
    #[error(transparent)]
    Lookup(#[from] LookupError),
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error(transparent)]
    Docs(#[from] DocsError),
    /// An error of a service above this layer (the migration report's `DiffError`).
    #[error("{0}")]
    Other(Box<dyn Failure>),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    PinnedNotIndexed(Box<PinnedMissing>),
    #[error("the project roots use different versions of {package}: {}; pass `root` or `version` to choose", .pins.join("; "))]
    PinConflict { package: String, pins: Vec<String> },
    #[error("{package}: {how}, but {problem}; pass `version` to choose a release")]
    PinUnresolved {
        package: String,
        how: String,
        problem: String,
    },
    #[error("invalid argument: {0}")]
    BadArgument(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl Failure for AnswerError {
    fn kind(&self) -> ErrorKind {
        match self {
            AnswerError::PinnedNotIndexed(_) => ErrorKind::NotFound,
            AnswerError::PinConflict { .. }
            | AnswerError::PinUnresolved { .. }
            | AnswerError::BadArgument(_) => ErrorKind::BadInput,
            AnswerError::Internal(_) => ErrorKind::Internal,
            AnswerError::Release(_)
            | AnswerError::Lookup(_)
            | AnswerError::Usage(_)
            | AnswerError::Docs(_)
            | AnswerError::Other(_)
            | AnswerError::Query(_)
            | AnswerError::Store(_) => self.wraps().map_or(ErrorKind::Internal, Failure::kind),
        }
    }
    fn wraps(&self) -> Option<&dyn Failure> {
        Some(match self {
            AnswerError::Release(e) => e,
            AnswerError::Lookup(e) => e,
            AnswerError::Usage(e) => e,
            AnswerError::Docs(e) => e,
            AnswerError::Other(e) => e.as_ref(),
            AnswerError::Query(e) => e,
            AnswerError::Store(e) => e,
            AnswerError::PinnedNotIndexed(_)
            | AnswerError::PinConflict { .. }
            | AnswerError::PinUnresolved { .. }
            | AnswerError::BadArgument(_)
            | AnswerError::Internal(_) => return None,
        })
    }
    fn indexed(&self) -> &[String] {
        match self {
            AnswerError::PinnedNotIndexed(m) => &m.indexed,
            _ => self.wraps().map_or(&[], Failure::indexed),
        }
    }
}

/// A release a project pins that is not indexed (and could not be fetched).
#[derive(Debug)]
pub struct PinnedMissing {
    pub package: String,
    pub version: String,
    pub how: String,
    pub indexed: Vec<String>,
    pub fetch_error: Option<String>,
}

impl std::fmt::Display for PinnedMissing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} ({}) is not indexed",
            self.package, self.version, self.how
        )?;
        if let Some(e) = &self.fetch_error {
            write!(f, " and could not be fetched ({e})")?;
        }
        let indexed = if self.indexed.is_empty() {
            "none".to_string()
        } else {
            self.indexed.join(", ")
        };
        write!(
            f,
            "; indexed versions: {indexed}. Not answering from another version: pass `version` \
             to choose one"
        )
    }
}

fn as_alias(found: Lookup) -> Lookup {
    found
        .into_iter()
        .map(|(s, q, _)| (s, q, "alias".to_string()))
        .collect()
}

fn candidates_text(c: &[Candidate]) -> String {
    if c.is_empty() {
        return String::new();
    }
    let names: Vec<String> = c
        .iter()
        .map(|c| format!("{} ({}, {:.2})", c.qualified_name, c.kind, c.score))
        .collect();
    format!(
        "; close names (candidates, not answers): {}",
        names.join(", ")
    )
}

/// A release chosen for an answer, and how it was chosen.
#[derive(Debug, Clone)]
pub struct Chosen {
    pub release: ReleaseInfo,
    /// `newest indexed` when the caller gave no version; how a label chose the release (`the
    /// newest indexed 8.1.*`); how a project pinned it.
    pub how: Option<String>,
    /// The label asked for (`8.1`, `latest`) when it is not the version itself.
    pub asked: Option<String>,
}

/// The release of `rels` (one package's indexed releases) that `asked` names: the version
/// itself or a label (`8.1`, `latest`, `>=2,<3`, see [`crate::version::label`]). A label says
/// which release it chose; one that matches none is an error listing the indexed versions.
pub(crate) fn release_for(
    purl: &str,
    rels: &[ReleaseInfo],
    asked: &str,
) -> Result<Chosen, ReleaseError> {
    use crate::version::label::{LabelError, resolve};
    let asked = asked.trim();
    let indexed = || rels.iter().map(|r| r.version.clone()).collect::<Vec<_>>();
    let ecosystem = rels.first().map_or(Ecosystem::Pypi, |r| r.ecosystem);
    match resolve(ecosystem, asked, &indexed(), &[], "indexed") {
        Ok(found) => {
            let release = rels
                .iter()
                .find(|r| r.version == found.version)
                .expect("resolve chooses among the versions given")
                .clone();
            Ok(Chosen {
                release,
                asked: found.rule.is_some().then(|| asked.to_string()),
                how: found.rule,
            })
        }
        Err(LabelError::NotListed(..)) => Err(ReleaseError::VersionNotIndexed {
            package: purl.to_string(),
            asked: asked.to_string(),
            indexed: indexed(),
        }),
        Err(LabelError::NoMatch(why)) => {
            Err(ReleaseError::LabelMatchesNothing(Box::new(LabelMiss {
                package: purl.to_string(),
                asked: asked.to_string(),
                why,
                indexed: indexed(),
            })))
        }
        Err(LabelError::Malformed(why)) => Err(ReleaseError::BadVersion {
            package: purl.to_string(),
            why,
            indexed: indexed(),
        }),
    }
}

impl ApiDetail {
    /// The signature to show a reader: Python's `(a, b) -> c` gets the name in front, other
    /// languages' extractors already spell it out (`option(flags: string): this`).
    pub fn display_signature(&self) -> Option<String> {
        let sig = self.signature.as_ref()?;
        if sig.starts_with('(') {
            let short = crate::model::last_component(&self.qualified_name);
            Some(format!("{short}{sig}"))
        } else {
            Some(sig.clone())
        }
    }
}

impl Chosen {
    /// `8.1.7 (newest indexed)`: what follows `[Version: ` in every answer.
    /// A label says what was asked and what answered: `8.1.7 (asked 8.1 -> 8.1.7: the newest
    /// indexed 8.1.*)`.
    pub fn version_line(&self) -> String {
        let v = &self.release.version;
        match (&self.asked, &self.how) {
            (Some(a), Some(h)) => format!("{v} (asked {a} -> {v}: {h})"),
            (Some(a), None) => format!("{v} (asked {a} -> {v})"),
            (None, Some(h)) => format!("{v} ({h})"),
            (None, None) => v.clone(),
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct Candidate {
    pub qualified_name: String,
    pub kind: String,
    /// Similarity in [0, 1]; higher is closer.
    pub score: f64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ParamOut {
    pub name: String,
    /// Python: positional_only | positional_or_keyword | var_positional | keyword_only |
    /// var_keyword. JavaScript/TypeScript: positional | rest. OpenAPI: path | query | header |
    /// cookie | body.
    pub kind: String,
    /// False for defaulted, optional (`x?`) and variadic parameters.
    pub required: bool,
    /// Annotation as source text.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Default as source text; absent when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// What the documentation says of it (JSDoc `@param`, an OpenAPI parameter's
    /// `description`); absent when it says nothing. A Python parameter's words stay in the
    /// docstring, which is the `description` of the symbol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SourceOut {
    /// File relative to the release root.
    pub file: Option<String>,
    pub line: Option<i64>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DeprecationOut {
    /// What said so: decorator, warning (warnings.warn with DeprecationWarning), docstring or
    /// jsdoc (a `@deprecated` tag).
    pub signal: String,
    pub since: Option<String>,
    pub message: Option<String>,
    pub replacement: Option<String>,
}

impl DeprecationOut {
    /// What follows the word "deprecated" in a text answer: ` since 2.0: use X instead`.
    pub fn describe(&self) -> String {
        let since = self
            .since
            .as_deref()
            .map(|s| format!(" since {s}"))
            .unwrap_or_default();
        let message = self
            .message
            .as_deref()
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        format!("{since}{message}")
    }
}

/// Everything about one symbol in one release.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ApiDetail {
    pub package: String,
    pub version: String,
    pub qualified_name: String,
    /// module | class | function | method | classmethod | staticmethod | property | attribute
    pub kind: String,
    pub signature: Option<String>,
    /// Parameters in declaration order; for a class, its constructor's; self/cls left out.
    pub params: Vec<ParamOut>,
    pub returns: Option<String>,
    pub description: Option<String>,
    pub deprecated: bool,
    pub deprecation: Option<DeprecationOut>,
    /// Every other public path of the symbol.
    pub aliases: Vec<String>,
    /// Where it is defined (may be a private module).
    pub defined_in: Option<String>,
    /// Defining class of an inherited member.
    pub inherited_from: Option<String>,
    /// Set when the symbol is known from run-time inspection, not from the source: the
    /// interpreter and platform it was imported on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<String>,
    /// Set when type checkers and the run time disagree on the name (declared only by the
    /// module's stub, or missing from it): what each says, and which view the answer gives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub views_differ: Option<String>,
    pub is_async: bool,
    pub decorators: Vec<String>,
    pub bases: Vec<String>,
    /// `@overload` signatures.
    pub overloads: Vec<String>,
    pub source: SourceOut,
    /// OpenAPI operations: method, path, tags, security.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpOut>,
    /// OpenAPI operations: the request body (also the `body` parameter).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<RequestBodyOut>,
    /// OpenAPI operations: the success responses (2XX; `default` when there is none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responses: Option<Vec<ResponseOut>>,
    /// OpenAPI schemas and schema properties: type, format, flags, constraints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<SchemaOut>,
}

/// What an OpenAPI operation is on the wire.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct HttpOut {
    pub method: String,
    pub path: String,
    /// `GET /pets/{}`: the identity of the operation across releases.
    pub endpoint_key: Option<String>,
    pub operation_id: Option<String>,
    pub tags: Vec<String>,
    /// Alternative security requirements (`scheme[scopes] + scheme`); "" means none needed.
    pub security: Vec<String>,
    pub servers: Vec<String>,
    pub sunset: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BodyPropertyOut {
    pub name: String,
    pub required: bool,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RequestBodyOut {
    pub required: bool,
    pub media_types: Vec<String>,
    /// The body schema: a component name or a short type.
    pub schema: Option<String>,
    /// Top-level properties of the body schema (allOf merged); null when it is not a plain
    /// object (array, oneOf/anyOf, free form).
    pub properties: Option<Vec<BodyPropertyOut>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ResponseOut {
    /// `200`, `2XX` or `default`.
    pub status: String,
    pub description: Option<String>,
    pub media_types: Vec<String>,
    pub schema: Option<String>,
    pub headers: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct SchemaOut {
    #[serde(rename = "type")]
    pub type_: Option<String>,
    pub format: Option<String>,
    /// For a property: listed in its schema's `required`.
    pub required: bool,
    pub nullable: bool,
    pub read_only: bool,
    pub write_only: bool,
    /// Allowed values as JSON text.
    pub enum_values: Vec<String>,
    /// `maxLength=64`, `minimum=0`...
    pub constraints: Vec<String>,
    pub recursive: bool,
}

/// The OpenAPI parts of a detail.
#[derive(Default)]
struct HttpParts {
    http: Option<HttpOut>,
    request_body: Option<RequestBodyOut>,
    responses: Option<Vec<ResponseOut>>,
    schema: Option<SchemaOut>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VersionEntry {
    pub version: String,
    /// `null` when the release cannot tell (see `VersionCheck::unknown_reason`).
    pub available: Option<bool>,
    pub deprecated: bool,
    /// The signature differs from the previous release that has the symbol.
    pub signature_changed: bool,
    pub signature: Option<String>,
}

impl VersionEntry {
    /// A release's entry for a name that is no symbol there: present, absent or unknown.
    fn without_symbol(version: &str, available: Option<bool>) -> Self {
        VersionEntry {
            version: version.to_string(),
            available,
            deprecated: false,
            signature_changed: false,
            signature: None,
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VersionCheck {
    /// The canonical name when found, else the name asked.
    pub qualified_name: String,
    pub package: String,
    /// The release asked for, as indexed: a label's choice (`8.1.7` for `8.1`).
    pub requested_version: Option<String>,
    /// Set when the version asked was a label (`8.1`, `latest`, `>=2,<3`): what was asked and
    /// which release answered (`8.1.7 (asked 8.1 -> 8.1.7: the newest indexed 8.1.*)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen_by: Option<String>,
    /// `null` both when no version was asked and when the requested release cannot tell;
    /// `unknown_reason` then says why.
    pub available_in_requested: Option<bool>,
    /// Why a release cannot tell whether the name exists (a compiled module without a stub, a
    /// module `__getattr__`, a namespace written at run time): the name is not proven absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_reason: Option<String>,
    /// In the requested release, the name is bound only when an optional dependency is
    /// installed: the test its module makes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires: Option<Requirement>,
    /// In the requested release (the newest indexed one when none is asked), the name (or a
    /// name it is under) is bound at run time only to a stub of a removed API, whose every
    /// call raises: what using it does. It is answered absent there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raises_on_use: Option<String>,
    /// Set when, in the requested release (the newest when none is asked), the name is known
    /// only from importing its module in refgraph's sandbox, not from the source: the
    /// interpreter and platform it was bound on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<String>,
    /// Set when, in the requested release (the newest when none is asked), type checkers and
    /// the run time disagree on the name (bound only under `if TYPE_CHECKING:`, declared only
    /// by the module's stub, or missing from it): what each says, and which view the answer
    /// gives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub views_differ: Option<String>,
    /// Every indexed release of the package, oldest first.
    pub versions: Vec<VersionEntry>,
    /// First indexed release that has it (it may be older than every indexed release).
    pub introduced_in: Option<String>,
    /// First indexed release after the last one that has it.
    pub removed_in: Option<String>,
    pub deprecated_in: Option<String>,
    pub replacement: Option<String>,
}

/// A module's test for an optional dependency (`is_torch_available()` in
/// `transformers.models.auto`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Requirement {
    /// The test as the source writes it.
    pub test: String,
    /// The module that makes the test and binds the name when it passes.
    pub module: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListItem {
    /// The symbol's IRI.
    pub id: String,
    pub qualified_name: String,
    pub kind: String,
    pub summary: Option<String>,
    pub deprecated: bool,
    pub aliases: Vec<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ApiList {
    pub package: String,
    pub version: String,
    pub total: usize,
    pub items: Vec<ListItem>,
    /// Pass as `cursor` to get the next page.
    pub next_cursor: Option<String>,
}

/// Limits on user SPARQL queries.
#[derive(Debug, Clone, Copy)]
pub struct QueryLimits {
    pub timeout: Duration,
    pub max_rows: usize,
}

impl Default for QueryLimits {
    fn default() -> Self {
        QueryLimits {
            timeout: Duration::from_secs(10),
            max_rows: 10_000,
        }
    }
}

impl QueryLimits {
    /// When a server answers a client whose query has not finished: the time limit, plus 0.2 s
    /// for a query stopping on time to report its own cut. The limit is a promise kept by the
    /// servers (HTTP `/sparql`, the MCP `sparql_query` tool), not left to the evaluator:
    /// oxigraph checks its cancellation token only as it reads the store, and an aggregate
    /// over a cartesian product runs on for seconds after the token is cancelled (it gathers
    /// one error per remaining row). Queries are read-only, so answering first loses nothing.
    pub fn answer_by(&self) -> Duration {
        self.timeout + Duration::from_millis(200)
    }
}

/// A byte range of [`NameTable::text`] or [`NameTable::keys`].
type Span = (u32, u32);

/// One public name: byte ranges of its name, canonical name and kind in the table's text.
struct NameEntry {
    name: Span,
    qname: Span,
    kind: Span,
}

/// A release's names, kept as the stored table's text plus offsets (one string per release,
/// not three per name: a store of 100 releases keeps many tables), in runs of entries with the
/// same lower-cased last component: the ranker compares the asked name with each run's last
/// component once, and looks at the names of the runs that come close only.
#[derive(Default)]
struct NameTable {
    text: Box<str>,
    entries: Vec<NameEntry>,
    /// The lower-cased last component of each run, one after another.
    keys: Box<str>,
    /// The runs: (last component's span in `keys`, run start, run end in `entries`).
    groups: Vec<(Span, u32, u32)>,
}

impl NameTable {
    /// One pass over the table, no sorting or hashing: a release's table loads on the path of
    /// a not-found answer. Ingest writes the lines ordered by lower-cased last component, so a
    /// run is a whole group; a table written before that (unordered) gives shorter runs, which
    /// rank the same, only slower.
    fn parse(text: String) -> NameTable {
        let mut entries = Vec::new();
        let mut keys = String::new();
        let mut groups: Vec<(Span, u32, u32)> = Vec::new();
        let mut run_last: &str = "";
        let span = |f: &str| {
            let from = f.as_ptr() as usize - text.as_ptr() as usize;
            (from as u32, (from + f.len()) as u32)
        };
        for (name, qname, kind) in name_rows(&text) {
            let last = crate::model::last_component(name);
            if groups.is_empty() || !same_lowercase(last, run_last) {
                let k0 = keys.len();
                push_lowercase(&mut keys, last);
                let i = entries.len() as u32;
                groups.push(((k0 as u32, keys.len() as u32), i, i));
                run_last = last;
            }
            entries.push(NameEntry {
                name: span(name),
                qname: span(qname),
                kind: span(kind),
            });
            if let Some(g) = groups.last_mut() {
                g.2 = entries.len() as u32;
            }
        }
        NameTable {
            keys: keys.into_boxed_str(),
            text: text.into_boxed_str(),
            entries,
            groups,
        }
    }

    fn str(&self, s: Span) -> &str {
        &self.text[s.0 as usize..s.1 as usize]
    }

    fn key(&self, s: Span) -> &str {
        &self.keys[s.0 as usize..s.1 as usize]
    }

    /// Close names, ranked: same last component, suffix matches, then string similarity.
    fn candidates(&self, name: &str) -> Vec<Candidate> {
        let asked = name.trim();
        let asked_lower = asked.to_lowercase();
        let asked_last = crate::model::last_component(&asked_lower);
        let mut best: BTreeMap<String, Candidate> = BTreeMap::new();
        let suffix = format!(".{asked_lower}");
        let asked_container = asked_lower.rsplit_once('.').map(|(c, _)| c);
        let counts = char_counts(asked_last);
        let mut lower = String::new();
        for &(last, start, end) in &self.groups {
            let key = self.key(last);
            // Most last components are nowhere near: a bound from the characters they share
            // skips them without the full measure (which allocates).
            if counts
                .as_ref()
                .is_some_and(|c| jaro_winkler_bound(asked_last, c, key) < 0.75 - 1e-9)
            {
                continue;
            }
            // The last component decides most of the score; the whole name only refines it.
            let last_sim = strsim::jaro_winkler(asked_last, key);
            if last_sim < 0.75 {
                continue;
            }
            for e in &self.entries[start as usize..end as usize] {
                lower.clear();
                push_lowercase(&mut lower, self.str(e.name));
                let lower = lower.as_str();
                let qname = self.str(e.qname);
                let mut score = strsim::jaro_winkler(&asked_lower, lower) * 0.8;
                if lower.ends_with(&suffix) {
                    score = score.max(0.95);
                }
                // The same last component, or a near miss of it inside a matching container.
                let container_ok = asked_container.is_none_or(|c| lower.contains(c));
                score = score.max(last_sim * if container_ok { 0.9 } else { 0.7 });
                if score < 0.75 {
                    continue;
                }
                let c = Candidate {
                    qualified_name: qname.to_string(),
                    kind: self.str(e.kind).to_string(),
                    score: (score * 100.0).round() / 100.0,
                };
                match best.get(qname) {
                    Some(old) if old.score >= c.score => {}
                    _ => {
                        best.insert(qname.to_string(), c);
                    }
                }
            }
        }
        let mut out: Vec<Candidate> = best.into_values().collect();
        out.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.qualified_name.len().cmp(&b.qualified_name.len()))
                .then_with(|| a.qualified_name.cmp(&b.qualified_name))
        });
        out.truncate(10);
        out
    }
}

/// How often each character occurs in `s`, for [`jaro_winkler_bound`]; `None` unless `s` is
/// ASCII, not empty and short enough for the counts to fit.
fn char_counts(s: &str) -> Option<[u8; 128]> {
    if s.is_empty() || !s.is_ascii() || s.len() > usize::from(u8::MAX) {
        return None;
    }
    let mut counts = [0u8; 128];
    for b in s.bytes() {
        counts[usize::from(b)] += 1;
    }
    Some(counts)
}

/// An upper bound of `strsim::jaro_winkler(asked, key)`, `counts` being `asked`'s
/// [`char_counts`]. A Jaro match pairs two equal characters, so there are at most as many
/// matches as characters the two share; the bound takes that many, no transposition, and
/// the real common prefix for Winkler's boost (both terms only raise the measure).
fn jaro_winkler_bound(asked: &str, counts: &[u8; 128], key: &str) -> f64 {
    if !key.is_ascii() {
        return 1.0;
    }
    let mut left = *counts;
    let mut shared = 0usize;
    for b in key.bytes() {
        let c = &mut left[usize::from(b)];
        if *c > 0 {
            *c -= 1;
            shared += 1;
        }
    }
    if shared == 0 {
        return 0.0;
    }
    let m = shared as f64;
    let jaro = (m / asked.len() as f64 + m / key.len() as f64 + 1.0) / 3.0;
    if jaro <= 0.7 {
        return jaro;
    }
    let prefix = asked
        .bytes()
        .take(4)
        .zip(key.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    jaro + 0.1 * prefix as f64 * (1.0 - jaro)
}

/// Whether `a` and `b` are equal once lower-cased.
fn same_lowercase(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        a.eq_ignore_ascii_case(b)
    } else {
        a.chars()
            .flat_map(char::to_lowercase)
            .eq(b.chars().flat_map(char::to_lowercase))
    }
}

/// Appends `s` lower-cased, without allocating for ASCII.
fn push_lowercase(out: &mut String, s: &str) {
    let from = out.len();
    if s.is_ascii() {
        out.push_str(s);
        out[from..].make_ascii_lowercase();
    } else {
        out.extend(s.chars().flat_map(char::to_lowercase));
    }
}

/// Symbols a name denotes in one release: (symbol IRI, canonical name, "canonical"/"alias").
type Lookup = Vec<(String, String, String)>;

/// (store generation, release -> derived table), bounded: a store of 100 releases would
/// otherwise keep every release's table once each was asked about.
pub(crate) type ReleaseCache<V> = (u64, lru::LruCache<String, Arc<V>>);

/// How many releases' name tables stay loaded (about 4 MB each for Django's 8,000 symbols).
const NAME_TABLES: usize = 16;
/// How many releases' usage graphs stay loaded.
const USAGE_GRAPHS: usize = 8;

fn release_cache<V>(capacity: usize) -> lru::LruCache<String, Arc<V>> {
    lru::LruCache::new(std::num::NonZeroUsize::new(capacity).expect("nonzero"))
}

/// Name lookups kept per engine (a few MB at most).
const LOOKUP_CACHE: usize = 20_000;

/// (store generation, (release, name) -> hits).
type LookupCache = (u64, lru::LruCache<(String, String), Lookup>);

/// Answers questions about the releases in a store.
pub struct Engine {
    store: Store,
    pub limits: QueryLimits,
    /// Name tables of the releases asked about most recently, valid for one store generation.
    names: Mutex<ReleaseCache<NameTable>>,
    /// The indexed releases, valid for one store generation. Only this process writes to its
    /// store (RocksDB admits one writer), so the generation sees every change.
    releases: Mutex<Option<(u64, Arc<Vec<ReleaseInfo>>)>>,
    /// Recent name lookups (release, name) -> hits, valid for one store generation: a
    /// migration report resolves hundreds of names under the same parents.
    lookups: Mutex<LookupCache>,
    /// Per-release usage graphs (relations between classes), valid for one store generation.
    usage: Mutex<ReleaseCache<usage::UsageGraph>>,
    /// The text index for concept search, when this process opened one.
    index: Option<Arc<crate::index::TextIndex>>,
    synonyms: crate::index::synonyms::Synonyms,
}

/// An OpenAPI path prefix (`/pets` or `GET /pets`) against an operation's `METHOD /path` aliases.
fn path_prefix_matches<'a>(prefix: &str, mut names: impl Iterator<Item = &'a String>) -> bool {
    names.any(|a| {
        a.starts_with(prefix)
            || prefix.starts_with('/')
                && a.split_once(' ')
                    .is_some_and(|(_, path)| path.starts_with(prefix))
    })
}

fn lit(s: &str) -> Term {
    Literal::new_simple_literal(s).into()
}

fn get_int(s: &QuerySolution, var: &str) -> Option<i64> {
    get_str(s, var).and_then(|v| v.parse().ok())
}

pub(crate) fn get_bool(s: &QuerySolution, var: &str) -> bool {
    get_str(s, var).is_some_and(|v| v == "true" || v == "1")
}

/// Whether a symbol is a Python class (its members follow `object` and `type`).
fn is_python_class(symbol: &str, facts: &BTreeMap<String, Vec<String>>) -> bool {
    symbol.starts_with("pkg:pypi/")
        && facts
            .get(oxigraph::model::vocab::rdf::TYPE.as_str())
            .is_some_and(|types| types.iter().any(|t| kind_name(t) == "class"))
}

/// One row of `queries/releases.rq` as a release; `None` when a required field is missing.
fn release_info(r: &QuerySolution, ecosystem: Ecosystem) -> Option<ReleaseInfo> {
    let facts_version = get_int(r, "facts").unwrap_or(0);
    Some(ReleaseInfo {
        stale: facts_version != crate::lower::facts_version(ecosystem),
        facts_version,
        package: get_str(r, "package")?,
        ecosystem,
        name: get_str(r, "name")?,
        version: get_str(r, "version")?,
        release: get_str(r, "release")?,
        symbols: get_int(r, "symbols").unwrap_or(0),
        ingested_at: get_str(r, "ingested").unwrap_or_default(),
        source: get_str(r, "source").unwrap_or_default(),
        docs_added_at: get_str(r, "docs_added"),
    })
}

impl Engine {
    pub fn new(store: Store) -> Self {
        Engine {
            store,
            limits: QueryLimits::default(),
            names: Mutex::new((0, release_cache(NAME_TABLES))),
            usage: Mutex::new((0, release_cache(USAGE_GRAPHS))),
            releases: Mutex::new(None),
            lookups: Mutex::new((
                0,
                lru::LruCache::new(std::num::NonZeroUsize::new(LOOKUP_CACHE).expect("non-zero")),
            )),
            index: None,
            synonyms: Default::default(),
        }
    }

    /// With a text index for `search_docs` and `get_page`, and per-package synonym tables in
    /// `synonyms_dir`.
    pub fn with_index(
        mut self,
        index: Arc<crate::index::TextIndex>,
        synonyms_dir: Option<std::path::PathBuf>,
    ) -> Self {
        self.index = Some(index);
        self.synonyms = crate::index::synonyms::Synonyms::new(synonyms_dir);
        self
    }

    pub fn text_index_handle(&self) -> Option<Arc<crate::index::TextIndex>> {
        self.index.clone()
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Signatures and facts of named symbols, their history across releases, listings.
    pub fn lookup(&self) -> LookupService<'_> {
        LookupService { e: self }
    }

    /// How to reach a symbol from what a user imports; what a symbol is linked to.
    pub fn usage(&self) -> UsageService<'_> {
        UsageService { e: self }
    }

    /// Concept search over the text index; the pages it holds.
    pub fn docs(&self) -> DocsService<'_> {
        DocsService { e: self }
    }

    /// Loads the name table of the newest release of each package, so the first unknown name
    /// is answered as fast as the next one (a server calls this in the background at start).
    pub fn warm(&self) -> Result<(), StoreError> {
        // The newest release of each package, which calls without a version ask about; the
        // others load on first use (a few MB each: a store of 100 releases would hold them all).
        let releases = self.releases()?;
        let mut newest: HashMap<&str, &ReleaseInfo> = HashMap::new();
        for r in &releases {
            let e = newest.entry(r.package.as_str()).or_insert(r);
            if version_key(r.ecosystem, &r.version) > version_key(e.ecosystem, &e.version) {
                *e = r;
            }
        }
        for r in newest.values() {
            self.names_of(&r.release)?;
        }
        Ok(())
    }

    /// [`Engine::warm`] on a thread of its own, as both servers do at start.
    pub fn warm_in_background(self: &Arc<Self>) {
        let engine = self.clone();
        std::thread::spawn(move || {
            if let Err(e) = engine.warm() {
                tracing::warn!("could not preload name tables: {e}");
            }
        });
    }

    pub fn releases(&self) -> Result<Vec<ReleaseInfo>, StoreError> {
        let generation = self.store.generation();
        if let Some((g, r)) = self.releases.lock().expect("cache lock").as_ref()
            && *g == generation
        {
            return Ok(r.as_ref().clone());
        }
        let fresh = self.load_releases()?;
        *self.releases.lock().expect("cache lock") = Some((generation, Arc::new(fresh.clone())));
        Ok(fresh)
    }

    fn load_releases(&self) -> Result<Vec<ReleaseInfo>, StoreError> {
        let rows = self.store.select(&queries::releases, &[])?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let Some(ecosystem) = get_str(r, "ecosystem") else {
                continue;
            };
            // A package type this refgraph does not know was written by another version: say
            // so rather than answer as if those releases were not there.
            let Ok(ecosystem) = ecosystem.parse::<Ecosystem>() else {
                return Err(StoreError::Unreadable(format!(
                    "release {} is of package type '{ecosystem}'",
                    get_str(r, "release").unwrap_or_default()
                )));
            };
            out.extend(release_info(r, ecosystem));
        }
        out.sort_by(|a, b| {
            a.package.cmp(&b.package).then_with(|| {
                version_key(a.ecosystem, &a.version).cmp(&version_key(b.ecosystem, &b.version))
            })
        });
        Ok(out)
    }

    /// The indexed versions of the package `purl` (`pkg:pypi/click`), oldest first; none when
    /// it is not indexed.
    pub fn indexed_versions(&self, purl: &str) -> Result<Vec<String>, StoreError> {
        Ok(self
            .releases()?
            .into_iter()
            .filter(|r| r.package == purl)
            .map(|r| r.version)
            .collect())
    }

    /// The releases of one package, oldest first. `package` is a Package URL (with or without
    /// version) or a bare name (with or without `@VERSION`) that matches exactly one indexed
    /// package.
    pub fn package_releases(
        &self,
        package: &str,
    ) -> Result<(String, Vec<ReleaseInfo>, Option<String>), ReleaseError> {
        let all = self.releases()?;
        if all.is_empty() {
            return Err(ReleaseError::NothingIndexed);
        }
        let asked = PackageRef::parse(package.trim()).map_err(ReleaseError::BadPackage)?;
        let version = asked.version_label();
        let mut purls: Vec<String> = all.iter().map(|r| r.package.clone()).collect();
        purls.dedup();
        let matches: Vec<String> = match asked.ecosystem {
            None => {
                let want = crate::model::normalize_pypi_name(&asked.name);
                purls
                    .iter()
                    .filter(|p| {
                        let name = p.split_once('/').map(|x| x.1).unwrap_or(p);
                        name == asked.name
                            || name.replace("%40", "@") == asked.name
                            || crate::model::normalize_pypi_name(name) == want
                    })
                    .cloned()
                    .collect()
            }
            Some(_) => {
                let purl = asked.or_pypi().0.purl();
                purls.iter().filter(|p| **p == purl).cloned().collect()
            }
        };
        match matches.len() {
            0 => Err(ReleaseError::UnknownPackage {
                asked: package.to_string(),
                indexed: purls,
            }),
            1 => {
                let purl = matches[0].clone();
                let rels = all.into_iter().filter(|r| r.package == purl).collect();
                Ok((purl, rels, version))
            }
            _ => Err(ReleaseError::AmbiguousPackage {
                asked: package.to_string(),
                matches,
            }),
        }
    }

    /// Chooses the release to answer from; never substitutes another version.
    pub fn choose(
        &self,
        package: Option<&str>,
        version: Option<&str>,
        name_hint: Option<&str>,
    ) -> Result<Chosen, ReleaseError> {
        let package = match package {
            Some(p) if !p.trim().is_empty() => p.to_string(),
            _ => self.infer_package(name_hint)?,
        };
        let (purl, rels, purl_version) = self.package_releases(&package)?;
        let version = version
            .filter(|v| !v.trim().is_empty())
            .map(str::to_string)
            .or(purl_version);
        match version {
            Some(v) => release_for(&purl, &rels, &v),
            None => Ok(Chosen {
                release: rels.last().expect("a package has releases").clone(),
                how: Some("newest indexed".into()),
                asked: None,
            }),
        }
    }

    /// The release of `package` whose version is `version` itself (PEP 440 or semver equal:
    /// `2.0` is `2.0.0`), read as no label: a project's pin `2.0` is release 2.0, never the
    /// newest 2.0.x.
    pub fn choose_exact(&self, package: &str, version: &str) -> Result<Chosen, ReleaseError> {
        let (purl, rels, _) = self.package_releases(package)?;
        let want = version.trim();
        let key = |r: &ReleaseInfo, v: &str| version_key(r.ecosystem, v);
        rels.iter()
            .find(|r| r.version == want)
            .or_else(|| rels.iter().find(|r| key(r, &r.version) == key(r, want)))
            .map(|r| Chosen {
                release: r.clone(),
                how: None,
                asked: None,
            })
            .ok_or_else(|| ReleaseError::VersionNotIndexed {
                package: purl,
                asked: want.to_string(),
                indexed: rels.iter().map(|r| r.version.clone()).collect(),
            })
    }

    /// Without a package: the only one indexed, or the one whose import root starts the name.
    fn infer_package(&self, name: Option<&str>) -> Result<String, ReleaseError> {
        let all = self.releases()?;
        let mut purls: Vec<String> = all.iter().map(|r| r.package.clone()).collect();
        purls.dedup();
        if purls.len() == 1 {
            return Ok(purls.remove(0));
        }
        if purls.is_empty() {
            return Err(ReleaseError::NothingIndexed);
        }
        // `spec:Export.member` names its module; a Python name starts with its import root.
        let root = name.map(|n| match n.split_once(':') {
            Some((spec, _)) => spec,
            None => n.split('.').next().unwrap_or(n),
        });
        if let Some(root) = root {
            let mut hits = Vec::new();
            for p in &purls {
                let newest = all.iter().rfind(|r| &r.package == p).expect("has releases");
                if !self.resolve_name(&newest.release, root)?.is_empty() {
                    hits.push(p.clone());
                }
            }
            if hits.len() == 1 {
                return Ok(hits.remove(0));
            }
        }
        Err(ReleaseError::PackageNeeded { indexed: purls })
    }

    /// Symbols named `name` in a release: (symbol IRI, canonical, via). Besides stored names,
    /// `Alias.member` resolves when `Alias` names a class whose own path has `member`.
    pub(crate) fn resolve_name(&self, release: &str, name: &str) -> Result<Lookup, StoreError> {
        let (hits, _) = self.lookup_depth(release, name, 0)?;
        if hits.is_empty()
            && let Some(key) = crate::model::endpoint_key(name)
        {
            return self.lookup_endpoint(release, &key);
        }
        Ok(hits)
    }

    /// Operations whose endpoint key (`GET /pets/{}`) is `key`, as aliases.
    fn lookup_endpoint(&self, release: &str, key: &str) -> Result<Lookup, StoreError> {
        let rows = self.store.select(
            &queries::symbol_by_endpoint,
            &[("release", iri(release)), ("key", lit(key))],
        )?;
        Ok(rows
            .iter()
            .filter_map(|r| Some((get_str(r, "symbol")?, get_str(r, "qname")?, "alias".into())))
            .collect())
    }

    /// The lookup of `name` `depth` steps into a walk, and whether the walk reached the depth
    /// limit somewhere (such a result may have stopped short and is not cached).
    fn lookup_depth(
        &self,
        release: &str,
        name: &str,
        depth: usize,
    ) -> Result<(Lookup, bool), StoreError> {
        let generation = self.store.generation();
        let key = (release.to_string(), name.to_string());
        {
            let mut cache = self.lookups.lock().expect("lookup cache lock");
            if cache.0 != generation {
                cache.1.clear();
                cache.0 = generation;
            }
            if let Some(hits) = cache.1.get(&key) {
                return Ok((hits.clone(), false));
            }
        }
        let (hits, capped) = self.lookup_uncached(release, name, depth)?;
        if !capped {
            self.lookups
                .lock()
                .expect("lookup cache lock")
                .1
                .put(key, hits.clone());
        }
        Ok((hits, capped))
    }

    fn lookup_uncached(
        &self,
        release: &str,
        name: &str,
        depth: usize,
    ) -> Result<(Lookup, bool), StoreError> {
        let hits = self.lookup_stored(release, name)?;
        if !hits.is_empty() {
            return Ok((hits, false));
        }
        if depth > 8 {
            return Ok((hits, true));
        }
        let Some((parent, last)) = name.rsplit_once('.') else {
            return Ok((hits, false));
        };
        let (parents, mut capped) = self.lookup_depth(release, parent, depth + 1)?;
        for (_, parent_q, _) in &parents {
            if parent_q != parent {
                let found = self.lookup_stored(release, &format!("{parent_q}.{last}"))?;
                if !found.is_empty() {
                    return Ok((as_alias(found), capped));
                }
            }
        }
        // Inherited members: `Sub.member` is the member of an ancestor that has it. Python's
        // rg:base lists every ancestor, so one step over them is the whole walk; JavaScript
        // lists the direct bases (by canonical name when the package exports them, else as
        // written, then looked up in the subclass's module first), so a base's member is then
        // looked up through its bases.
        let javascript = parent.contains(':');
        let mut through_bases = Vec::new();
        for (parent_iri, _, _) in &parents {
            let facts = self.store.describe(release, parent_iri)?;
            let fact = |p: oxigraph::model::NamedNodeRef<'static>| {
                facts
                    .iter()
                    .filter(move |(q, _)| q == p.as_str())
                    .map(|(_, v)| term_value(v))
            };
            // In method resolution order when there is more than one base.
            let bases: Vec<String> = match fact(crate::vocab::rg::BASE_ORDER).next() {
                Some(order) => order.lines().map(str::to_string).collect(),
                None => fact(crate::vocab::rg::BASE).collect(),
            };
            for base in bases {
                let mut names = vec![format!("{base}.{last}")];
                if !base.contains(':')
                    && let Some((spec, _)) = parent.split_once(':')
                {
                    names.insert(0, format!("{spec}:{base}.{last}"));
                }
                for name in &names {
                    let found = self.lookup_stored(release, name)?;
                    if !found.is_empty() {
                        return Ok((as_alias(found), capped));
                    }
                }
                if javascript {
                    through_bases.extend(names);
                }
            }
        }
        for name in through_bases {
            let (found, c) = self.lookup_depth(release, &name, depth + 1)?;
            capped |= c;
            if !found.is_empty() {
                return Ok((as_alias(found), capped));
            }
        }
        Ok((hits, capped))
    }

    /// The symbols a name denotes by canonical name or by alias, read by direct index scans
    /// (this runs for every prefix a lookup walks, where parsing a query each time cost more
    /// than the scan): (symbol IRI, canonical name, "canonical" or "alias"), canonical
    /// first, then by name.
    fn lookup_stored(&self, release: &str, name: &str) -> Result<Lookup, StoreError> {
        use crate::vocab::rg;
        let qname = rg::QUALIFIED_NAME.as_str();
        let mut out = Vec::new();
        for (via, predicate) in [
            ("canonical", qname),
            ("alias", rg::ALIAS.as_str()),
            ("alias", rg::REACHABLE_AS.as_str()),
        ] {
            let mut found: Lookup = self
                .store
                .subjects_with(release, predicate, name, qname)?
                .into_iter()
                .flat_map(|(symbol, names)| {
                    names
                        .into_iter()
                        .map(move |n| (symbol.clone(), term_value(&n), via.to_string()))
                })
                .collect();
            found.sort_by(|x, y| x.1.cmp(&y.1));
            out.extend(found);
        }
        Ok(out)
    }

    fn names_of(&self, release: &str) -> Result<Arc<NameTable>, StoreError> {
        let generation = self.store.generation();
        {
            let mut cache = self.names.lock().expect("cache lock");
            if cache.0 != generation {
                cache.1.clear();
                cache.0 = generation;
            }
            if let Some(n) = cache.1.get(release) {
                return Ok(n.clone());
            }
        }
        let started = std::time::Instant::now();
        let table = self
            .store
            .text_of(release, release, crate::vocab::rg::NAME_TABLE.as_str())?
            .unwrap_or_default();
        let read = started.elapsed();
        let names = Arc::new(NameTable::parse(table));
        tracing::debug!(
            "name table of {release}: read in {read:?}, parsed in {:?}",
            started.elapsed() - read
        );
        let mut cache = self.names.lock().expect("cache lock");
        if cache.0 == generation {
            cache.1.put(release.to_string(), names.clone());
        }
        Ok(names)
    }

    /// Close names to `name` in `release`, ranked (see `NameTable::candidates`).
    pub fn candidates(&self, release: &str, name: &str) -> Result<Vec<Candidate>, StoreError> {
        Ok(self.names_of(release)?.candidates(name))
    }

    /// The direct facts of a symbol (or of its parent class): property IRI -> values.
    fn facts_of(
        &self,
        release: &str,
        symbol: &str,
    ) -> Result<BTreeMap<String, Vec<String>>, StoreError> {
        let mut facts: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (p, o) in self.store.describe(release, symbol)? {
            facts.entry(p).or_default().push(term_value(&o));
        }
        Ok(facts)
    }

    /// Runs a read-only SPARQL query (default graph = union of all releases) and returns
    /// SPARQL 1.1 Query Results JSON; CONSTRUCT/DESCRIBE give subject/predicate/object rows.
    pub fn sparql(&self, text: &str) -> Result<serde_json::Value, QueryError> {
        let token = CancellationToken::new();
        let prepared = match SparqlEvaluator::new()
            .with_cancellation_token(token.clone())
            .parse_query(text)
        {
            Ok(q) => q,
            Err(e) => {
                if SparqlEvaluator::new().parse_update(text).is_ok() {
                    return Err(QueryError::UpdateRefused);
                }
                return Err(QueryError::BadQuery(e.to_string()));
            }
        };
        let limits = self.limits;
        let results = self
            .store
            .evaluate_user_query(prepared, token, limits.timeout)?;
        match results {
            QueryResults::Boolean(b) => Ok(serde_json::json!({"head": {}, "boolean": b})),
            QueryResults::Solutions(solutions) => {
                let vars: Vec<String> = solutions
                    .variables()
                    .iter()
                    .map(|v| v.as_str().to_string())
                    .collect();
                let (rows, truncated) = take_rows(solutions, limits, |s| {
                    let obj: serde_json::Map<String, serde_json::Value> = s
                        .iter()
                        .map(|(v, t)| (v.as_str().to_string(), term_json(t)))
                        .collect();
                    serde_json::Value::Object(obj)
                })?;
                Ok(serde_json::json!({
                    "head": {"vars": vars},
                    "results": {"bindings": rows},
                    "truncated": truncated,
                }))
            }
            QueryResults::Graph(triples) => {
                let (rows, truncated) = take_rows(triples, limits, |t| {
                    serde_json::json!({
                        "subject": term_json(&t.subject.into()),
                        "predicate": term_json(&t.predicate.into()),
                        "object": term_json(&t.object),
                    })
                })?;
                Ok(serde_json::json!({
                    "head": {"vars": ["subject", "predicate", "object"]},
                    "results": {"bindings": rows},
                    "truncated": truncated,
                }))
            }
        }
    }
}

/// Up to `limits.max_rows` rows of a result stream, and whether more were cut; a cancelled
/// evaluation (the timeout fired) is reported as such.
fn take_rows<T>(
    items: impl Iterator<Item = Result<T, oxigraph::sparql::QueryEvaluationError>>,
    limits: QueryLimits,
    mut row: impl FnMut(T) -> serde_json::Value,
) -> Result<(Vec<serde_json::Value>, bool), QueryError> {
    let mut rows = Vec::new();
    for item in items {
        let item = item.map_err(|e| match e {
            oxigraph::sparql::QueryEvaluationError::Cancelled => {
                QueryError::Timeout(limits.timeout)
            }
            e => e.into(),
        })?;
        if rows.len() == limits.max_rows {
            return Ok((rows, true));
        }
        rows.push(row(item));
    }
    Ok((rows, false))
}

fn term_json(t: &Term) -> serde_json::Value {
    match t {
        Term::NamedNode(n) => serde_json::json!({"type": "uri", "value": n.as_str()}),
        Term::BlankNode(b) => serde_json::json!({"type": "bnode", "value": b.as_str()}),
        Term::Literal(l) => {
            let mut o = serde_json::json!({"type": "literal", "value": l.value()});
            if let Some(lang) = l.language() {
                o["xml:lang"] = lang.into();
            } else if l.datatype() != oxigraph::model::vocab::xsd::STRING {
                o["datatype"] = l.datatype().as_str().into();
            }
            o
        }
        #[allow(unreachable_patterns)]
        _ => serde_json::json!({"type": "literal", "value": t.to_string()}),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        AnswerError, Candidate, DocsError, ErrorKind, Failure, LookupError, NameTable, QueryError,
        ReleaseError, UsageError,
    };

    #[test]
    fn every_service_error_reports_its_kind_and_lists_through_the_umbrella() {
        let not_indexed = ReleaseError::VersionNotIndexed {
            package: "pkg:pypi/click".into(),
            asked: "9.0".into(),
            indexed: vec!["8.1.7".into()],
        };
        // Nested in a lookup, then in the umbrella: the same facts reach the reporter.
        let e: AnswerError = LookupError::from(not_indexed).into();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(e.version_not_indexed(), Some("9.0"));
        assert_eq!(e.indexed(), ["8.1.7".to_string()]);
        assert!(
            e.to_string()
                .starts_with("version 9.0 of pkg:pypi/click is not indexed")
        );
        let candidate = Candidate {
            qualified_name: "click.echo".into(),
            kind: "function".into(),
            score: 0.9,
        };
        let e: AnswerError = UsageError::Lookup(LookupError::NotFound {
            name: "click.ecko".into(),
            release: "pkg:pypi/click@8.1.7".into(),
            candidates: vec![candidate.clone()],
        })
        .into();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(e.candidates(), [candidate]);
        assert_eq!(e.version_not_indexed(), None);
        let e: AnswerError = DocsError::NoTextIndex.into();
        assert_eq!(e.kind(), ErrorKind::Unavailable);
        let e: AnswerError = DocsError::Store(crate::store::StoreError::ReadOnly).into();
        assert_eq!(e.kind(), ErrorKind::Internal);
        let e: AnswerError = QueryError::UpdateRefused.into();
        assert_eq!(e.kind(), ErrorKind::QueryRefused);
        let e: AnswerError = ReleaseError::PackageNeeded {
            indexed: vec!["pkg:pypi/a".into(), "pkg:npm/a".into()],
        }
        .into();
        assert_eq!((e.kind(), e.indexed().len()), (ErrorKind::BadInput, 2));
    }

    #[test]
    fn name_tables_keep_offsets_into_one_text() {
        let t = NameTable::parse(
            "pkg.alias\tpkg.core.Thing\tclass\npkg.core.Thing\t\tclass\n\
             broken line\npkg.x.thing\tpkg.x.thing\tfunction\npkg.Ünïcode\t\tclass\n\
             pkg:ÜNÏCODE\t\tclass\tmore\npkg.Thing\tpkg.Thing\tclass\n"
                .to_string(),
        );
        let rows: Vec<(&str, &str, &str)> = t
            .entries
            .iter()
            .map(|e| (t.str(e.name), t.str(e.qname), t.str(e.kind)))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("pkg.alias", "pkg.core.Thing", "class"),
                ("pkg.core.Thing", "pkg.core.Thing", "class"),
                ("pkg.x.thing", "pkg.x.thing", "function"),
                ("pkg.Ünïcode", "pkg.Ünïcode", "class"),
                ("pkg:ÜNÏCODE", "pkg:ÜNÏCODE", "class"),
                ("pkg.Thing", "pkg.Thing", "class"),
            ]
        );
        // Runs of the same lower-cased last component, in the table's order: ingest orders
        // the lines so that a run is a whole group; a name out of order starts a run of its own.
        let groups: Vec<(&str, u32, u32)> = t
            .groups
            .iter()
            .map(|&(key, a, b)| (t.key(key), a, b))
            .collect();
        assert_eq!(
            groups,
            vec![
                ("alias", 0, 1),
                ("thing", 1, 3),
                ("ünïcode", 3, 5),
                ("thing", 5, 6)
            ]
        );
    }

    #[test]
    fn stored_name_tables_are_ordered_by_last_component() {
        let symbol = |q: &str, aliases: &[&str]| crate::model::Symbol {
            qualified_name: q.to_string(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            ..Default::default()
        };
        let facts = crate::model::ReleaseFacts {
            symbols: vec![
                symbol("pkg.core.Zeta", &["pkg.Zeta"]),
                symbol("pkg.core.alpha", &[]),
                symbol("pkg.util.ALPHA", &[]),
                symbol("pkg.core.Thing.zeta", &[]),
            ],
            ..Default::default()
        };
        let t = NameTable::parse(crate::lower::name_table(&facts));
        let groups: Vec<(&str, Vec<&str>)> = t
            .groups
            .iter()
            .map(|&(key, a, b)| {
                let names = t.entries[a as usize..b as usize]
                    .iter()
                    .map(|e| t.str(e.name))
                    .collect();
                (t.key(key), names)
            })
            .collect();
        assert_eq!(
            groups,
            vec![
                ("alpha", vec!["pkg.core.alpha", "pkg.util.ALPHA"]),
                (
                    "zeta",
                    vec!["pkg.core.Zeta", "pkg.Zeta", "pkg.core.Thing.zeta"]
                ),
            ]
        );
    }

    #[test]
    fn the_jaro_winkler_bound_never_falls_below_the_measure() {
        let words = [
            "get",
            "aget_user",
            "aget_userx",
            "get_user",
            "filter",
            "filterx",
            "QuerySet",
            "queryset",
            "query_set",
            "x",
            "xx",
            "aaaa",
            "a",
            "ab",
            "ba",
            "abc",
            "cba",
            "dwayne",
            "duane",
            "martha",
            "marhta",
            "get_changelist_formset",
            "formset",
            "",
            "é",
            "sign",
            "signal",
            "sigint",
            "post_load",
            "validates_schema",
            "pre_load",
            "conflicts",
        ];
        let mut pruned = 0;
        for a in words {
            let Some(counts) = super::char_counts(a) else {
                assert!(a.is_empty() || !a.is_ascii());
                continue;
            };
            for b in words {
                let bound = super::jaro_winkler_bound(a, &counts, b);
                let real = strsim::jaro_winkler(a, b);
                assert!(bound + 1e-12 >= real, "{a} / {b}: bound {bound} < {real}");
                pruned += usize::from(bound < 0.75);
            }
        }
        // And it does skip names: most of these pairs are far apart.
        assert!(pruned > 500, "{pruned} pairs pruned");
        // Random short words over a small alphabet, where matches and transpositions abound.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut word = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let len = (seed >> 60) as usize;
            (0..len)
                .map(|i| b"abc_dE"[((seed >> (i * 3 + 5)) % 6) as usize] as char)
                .collect::<String>()
        };
        for _ in 0..20_000 {
            let (a, b) = (word(), word());
            if let Some(counts) = super::char_counts(&a) {
                let bound = super::jaro_winkler_bound(&a, &counts, &b);
                let real = strsim::jaro_winkler(&a, &b);
                assert!(bound + 1e-12 >= real, "{a} / {b}: bound {bound} < {real}");
            }
        }
    }
}
