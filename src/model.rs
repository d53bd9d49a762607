//! Plain extracted facts: what an extractor knows about one release, before it becomes RDF.

use serde::{Deserialize, Serialize};

/// A package registry refgraph reads, named by its Package URL type. Every release belongs to
/// one, and it decides how names are normalised, how versions are ordered and which extractor
/// reads the release.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Ecosystem {
    /// `pkg:pypi`: Python distributions.
    Pypi,
    /// `pkg:npm`: JavaScript and TypeScript packages.
    Npm,
    /// `pkg:generic`: OpenAPI specs, which have no registry of their own.
    Generic,
}

impl Ecosystem {
    pub const ALL: [Ecosystem; 3] = [Ecosystem::Pypi, Ecosystem::Npm, Ecosystem::Generic];

    /// The Package URL type: `pypi`, `npm`, `generic`.
    pub fn as_str(self) -> &'static str {
        match self {
            Ecosystem::Pypi => "pypi",
            Ecosystem::Npm => "npm",
            Ecosystem::Generic => "generic",
        }
    }

    /// The language its releases are written in, as the text index and code fences name it.
    pub fn language(self) -> &'static str {
        match self {
            Ecosystem::Pypi => "python",
            Ecosystem::Npm => "javascript",
            Ecosystem::Generic => "openapi",
        }
    }
}

impl std::fmt::Display for Ecosystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Ecosystem {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        // A Package URL's type is case-insensitive (`pkg:PyPI/click`).
        Ecosystem::ALL
            .into_iter()
            .find(|e| e.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "refgraph does not read '{s}' packages: use pkg:pypi/NAME, pkg:npm/NAME, or \
                     pkg:generic/NAME for an OpenAPI spec"
                )
            })
    }
}

/// A package identity: ecosystem plus normalised name, printed as a Package URL without version.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PackageId {
    pub ecosystem: Ecosystem,
    /// Name as the Package URL spells it (PyPI names lower-cased with `-`).
    pub name: String,
}

/// A package as someone asked for it: a Package URL, or a bare name whose ecosystem the
/// caller resolves (by default PyPI, or by matching indexed packages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageRef {
    /// `None` for a bare name.
    pub ecosystem: Option<Ecosystem>,
    /// Normalised as [`PackageId::new`] does when the ecosystem is known; as written otherwise.
    pub name: String,
    pub version: Option<String>,
    /// Written as pip pins, `NAME==VERSION`: the version exactly (`click==8.1` is release 8.1,
    /// never the newest 8.1.x a label `8.1` would choose). See [`PackageRef::version_label`].
    pub pinned: bool,
}

impl PackageRef {
    /// The version as a label for [`crate::version::label`]: `==8.1` for a pip pin, so that it
    /// is read as that version exactly; the version as written otherwise.
    pub fn version_label(&self) -> Option<String> {
        self.version.as_ref().map(|v| {
            if self.pinned {
                format!("=={v}")
            } else {
                v.clone()
            }
        })
    }

    /// Parses `pkg:pypi/click`, `pkg:pypi/click@8.1.7` (version kept), a bare `click`, or a
    /// bare name pinned the way pip writes it, `click==8.1.7`.
    pub fn parse(text: &str) -> Result<PackageRef, String> {
        let Some(rest) = text.strip_prefix("pkg:") else {
            if text.is_empty() || text.contains('/') && !text.starts_with('@') {
                return Err(format!(
                    "'{text}' is not a package: use a Package URL such as pkg:pypi/NAME"
                ));
            }
            // `click==8.1.7` or `click@8.1.7`; a scope's leading `@` (`@aws-sdk/client-s3`)
            // is not a version.
            let (name, version) = match text.split_once("==") {
                Some((n, v)) => (n.trim(), Some(v.trim_start_matches('=').trim().to_string())),
                None => match text.rsplit_once('@') {
                    Some((n, v)) if !n.is_empty() => (n, Some(v.to_string())),
                    _ => (text, None),
                },
            };
            if name.is_empty() {
                return Err(format!("'{text}' names no package: write NAME==VERSION"));
            }
            // `pypi:plotly@4.14.3`: no registry's names hold a colon; say the form meant.
            if let Some((kind, rest)) = name.split_once(':') {
                let rest = match &version {
                    Some(v) => format!("{rest}@{v}"),
                    None => rest.to_string(),
                };
                let kind = kind.to_ascii_lowercase();
                let purl = match kind.as_str() {
                    "pypi" | "npm" | "generic" => format!("pkg:{kind}/{rest}"),
                    _ => format!("pkg:pypi/{rest}"),
                };
                return Err(format!(
                    "'{text}' is not a package name: write a Package URL such as {purl}"
                ));
            }
            if version.as_deref() == Some("") {
                return Err(format!(
                    "'{text}' has an empty version: write NAME@VERSION or NAME==VERSION, or leave \
                     the version out"
                ));
            }
            return Ok(PackageRef {
                ecosystem: None,
                name: name.to_string(),
                version,
                pinned: text.contains("=="),
            });
        };
        let (ecosystem, name_version) = rest.split_once('/').ok_or_else(|| {
            format!("'{text}' is not a Package URL: expected pkg:TYPE/NAME[@VERSION]")
        })?;
        let (name, version) = match name_version.rsplit_once('@') {
            Some((n, v)) if !n.is_empty() => (n, Some(v.to_string())),
            _ => (name_version, None),
        };
        if ecosystem.is_empty() || name.is_empty() || version.as_deref() == Some("") {
            return Err(format!(
                "'{text}' is not a Package URL: expected pkg:TYPE/NAME[@VERSION]"
            ));
        }
        let ecosystem: Ecosystem = ecosystem.parse()?;
        Ok(PackageRef {
            ecosystem: Some(ecosystem),
            name: PackageId::new(ecosystem, name).name,
            version,
            pinned: false,
        })
    }

    /// The package, a bare name taken as a PyPI distribution (a scoped `@scope/name`, which
    /// only npm has, as an npm package).
    pub fn or_pypi(self) -> (PackageId, Option<String>) {
        let ecosystem = self.ecosystem.unwrap_or(if self.name.starts_with('@') {
            Ecosystem::Npm
        } else {
            Ecosystem::Pypi
        });
        (PackageId::new(ecosystem, &self.name), self.version)
    }
}

impl PackageId {
    pub fn new(ecosystem: Ecosystem, name: &str) -> Self {
        let name = match ecosystem {
            Ecosystem::Pypi => normalize_pypi_name(name),
            // A scope's `@` is percent-encoded in a Package URL: pkg:npm/%40aws-sdk/client-s3.
            Ecosystem::Npm => match name.strip_prefix('@') {
                Some(rest) => format!("%40{rest}"),
                None => name.to_string(),
            },
            Ecosystem::Generic => name.to_string(),
        };
        PackageId { ecosystem, name }
    }

    /// `pkg:pypi/click`.
    pub fn purl(&self) -> String {
        format!("pkg:{}/{}", self.ecosystem, self.name)
    }

    /// The name as the registry and users spell it: `@aws-sdk/client-s3`.
    pub fn display_name(&self) -> String {
        match self.name.strip_prefix("%40") {
            Some(rest) => format!("@{rest}"),
            None => self.name.clone(),
        }
    }

    /// `pkg:pypi/click@8.1.7`: the release's IRI and named graph.
    pub fn release_purl(&self, version: &str) -> String {
        format!("{}@{}", self.purl(), version)
    }

    /// Parses a Package URL, `pkg:pypi/click` or `pkg:pypi/click@8.1.7` (version returned).
    /// A bare name is refused: see [`PackageRef`] for input that may be one.
    pub fn parse(text: &str) -> Result<(PackageId, Option<String>), String> {
        let r = PackageRef::parse(text)?;
        let Some(ecosystem) = r.ecosystem else {
            return Err(format!(
                "'{text}' is not a Package URL: expected pkg:TYPE/NAME[@VERSION]"
            ));
        };
        Ok((
            PackageId {
                ecosystem,
                name: r.name,
            },
            r.version,
        ))
    }
}

/// The operations a path item can hold, as OpenAPI spells them.
pub const HTTP_METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// `GET /pets/{}`: method plus path with path-parameter names left out, the identity of an
/// operation across versions. `None` when `name` is not `METHOD /path`.
pub fn endpoint_key(name: &str) -> Option<String> {
    let (method, path) = name.trim().split_once(' ')?;
    let method = method.to_ascii_lowercase();
    let path = path.trim();
    if !HTTP_METHODS.contains(&method.as_str()) || !path.starts_with('/') {
        return None;
    }
    let mut out = format!("{} ", method.to_ascii_uppercase());
    let mut in_param = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_param = true;
                out.push('{');
            }
            '}' if in_param => {
                in_param = false;
                out.push('}');
            }
            _ if in_param => {}
            c => out.push(c),
        }
    }
    Some(out)
}

/// The last component of a qualified name (`a.b.C.m` -> `m`, `mod:C` -> `C`).
pub fn last_component(name: &str) -> &str {
    memchr::memrchr2(b'.', b':', name.as_bytes()).map_or(name, |i| &name[i + 1..])
}

/// The class or module a member's qualified name is under: `a.B.c` -> `a.B`, `mobx:A.b` ->
/// `mobx:A` (empty without a `.`).
pub fn owner_of(qualified_name: &str) -> &str {
    qualified_name.rsplit_once('.').map_or("", |(o, _)| o)
}

/// PEP 503 normalisation: lower case, runs of `-_.` become `-`.
pub fn normalize_pypi_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// Everything extracted from one release.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReleaseFacts {
    pub symbols: Vec<Symbol>,
    pub diagnostics: Vec<Diagnostic>,
    /// Source files read (for progress and statistics).
    pub files: usize,
    /// The HTTP service an OpenAPI document describes.
    pub service: Option<Service>,
    /// HTTP facts of the `operation` symbols, by qualified name.
    pub operations: std::collections::BTreeMap<String, HttpOperation>,
    /// Schema facts of the `schema` symbols and their property children, by qualified name.
    pub schemas: std::collections::BTreeMap<String, SchemaFacts>,
    /// Documentation pages shipped with the release (README, docs folder).
    pub pages: Vec<DocPageFacts>,
    /// Definitions that are not public API (`pkg.core._helper`, `pkg.Client._retry`, a
    /// function left out of `__all__`): what tells "made private" apart from "deleted".
    pub private_names: Vec<String>,
    /// Typed links between symbols of the release (an attribute's class, a callable's return
    /// type), the raw material of usage paths and `related`.
    pub relations: Vec<Relation>,
    /// Paths that reach a public symbol at run time without exporting it (a module's own
    /// imports): `(path, canonical name)`. Answered available; not listed as aliases.
    pub reachable: Vec<(String, String)>,
    /// The names bound in each public module's or class's namespace at run time (underscore
    /// names included) that no symbol, alias or reachable path already answers:
    /// `(module or class, names)`.
    pub bound_names: Vec<(String, Vec<String>)>,
    /// Modules and classes whose members cannot all be told statically, with the reason:
    /// `(qualified name, reason)`. A missing name under them is unknown, not absent.
    pub unknown_members: Vec<(String, String)>,
    /// Names a module holds only once some code runs (a function's `global` binding that the
    /// module does not call itself): `(module, name, reason)`. Asked for, they are unknown.
    pub maybe_bound: Vec<(String, String, String)>,
    /// Names a module binds only when an optional dependency is installed (transformers'
    /// `if not is_torch_available(): raise ... else: from .modeling_auto import AutoModel`):
    /// `(module, name, the test as written)`.
    pub guarded: Vec<(String, String, String)>,
    /// Names a module binds to a stub of a removed API, an instance whose every call raises a
    /// removal error (openai 1.x's `openai.Completion`): `(module, name, what using it does)`.
    /// Bound, but not available.
    pub raises_on_use: Vec<(String, String, String)>,
    /// Names a module binds only at run time to a symbol the source shows elsewhere (module,
    /// names, provenance), found by run-time inspection: reachable, and marked as such.
    pub runtime_bound: Vec<(String, Vec<String>, String)>,
    /// Names on which type checkers and the run time disagree (bound only under `if
    /// TYPE_CHECKING:`, declared only by a stub, missing from a stub): `(module, name, what
    /// each view says and which one answers give)`.
    pub type_views: Vec<(String, String, String)>,
}

#[cfg(test)]
impl ReleaseFacts {
    /// `(subject, name, object)` of every relation of `kind`, sorted: what extractor tests
    /// compare.
    pub fn links(&self, kind: RelationKind) -> Vec<(&str, &str, &str)> {
        let mut out: Vec<(&str, &str, &str)> = self
            .relations
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| {
                (
                    r.subject.as_str(),
                    r.name.as_deref().unwrap_or(""),
                    r.object.as_str(),
                )
            })
            .collect();
        out.sort();
        out
    }
}

impl ReleaseFacts {
    /// `extends` links for the bases of classes that are classes of the same release, by
    /// canonical name or alias (the extractors resolve bases to those), unless the extractor
    /// has linked the pair already (with the source text as evidence).
    pub fn add_base_relations(&mut self) {
        let linked: std::collections::HashSet<(String, String)> = self
            .relations
            .iter()
            .filter(|r| r.kind == RelationKind::Extends)
            .map(|r| (r.subject.clone(), r.object.clone()))
            .collect();
        let classes: std::collections::HashMap<&str, &str> = self
            .symbols
            .iter()
            .filter(|s| matches!(s.kind, SymbolKind::Class | SymbolKind::Interface))
            .flat_map(|s| {
                std::iter::once(s.qualified_name.as_str())
                    .chain(s.aliases.iter().map(String::as_str))
                    .map(move |n| (n, s.qualified_name.as_str()))
            })
            .collect();
        let mut links = Vec::new();
        for s in &self.symbols {
            if !matches!(s.kind, SymbolKind::Class | SymbolKind::Interface) {
                continue;
            }
            for b in &s.bases {
                if let Some(object) = classes.get(b.as_str())
                    && *object != s.qualified_name
                    && !linked.contains(&(s.qualified_name.clone(), object.to_string()))
                {
                    links.push(Relation {
                        subject: s.qualified_name.clone(),
                        kind: RelationKind::Extends,
                        name: None,
                        object: object.to_string(),
                        evidence: format!("base {b}"),
                        file: s.file.clone(),
                        line: s.line,
                    });
                }
            }
        }
        self.relations.extend(links);
        self.relations.sort();
        self.relations.dedup();
    }
}

/// One typed link from a symbol to a class of the same release (or, for `requests`, to an
/// endpoint key), with the source text it rests on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Relation {
    /// Canonical name of the symbol the link starts at: the class owning an attribute, the
    /// callable returning or taking a type.
    pub subject: String,
    pub kind: RelationKind,
    /// The attribute's or parameter's name; `None` for `returns`.
    pub name: Option<String>,
    /// Canonical name of the class the link ends at.
    pub object: String,
    /// The source text that says so: `self.customers = CustomerService(self._requestor)`,
    /// `-> Completions`.
    pub evidence: String,
    pub file: String,
    pub line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelationKind {
    /// Instances of the subject have an attribute holding an instance of the object.
    Attribute,
    /// Calling (or reading, for a property) the subject gives an instance of the object.
    Returns,
    /// The subject takes a parameter of the object's type.
    Parameter,
    /// The subject (a class) derives from the object (a class of the same release).
    Extends,
    /// The subject's body sends an HTTP request; the object is its endpoint key
    /// (`POST /v1/customers/{}`), the name its method and path as written. It links an SDK
    /// method to the OpenAPI operation it wraps.
    Requests,
}

impl RelationKind {
    pub const ALL: [RelationKind; 5] = [
        RelationKind::Attribute,
        RelationKind::Returns,
        RelationKind::Parameter,
        RelationKind::Extends,
        RelationKind::Requests,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::Attribute => "attribute",
            RelationKind::Returns => "returns",
            RelationKind::Parameter => "parameter",
            RelationKind::Extends => "extends",
            RelationKind::Requests => "requests",
        }
    }

    pub fn parse(s: &str) -> Option<RelationKind> {
        RelationKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A documentation page, converted to Markdown and cut into sections.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DocPageFacts {
    /// Path inside the release or the ingested folder (`README.md`, `docs/guide/upload.html`).
    pub path: String,
    /// Where readers find it: a URL when a base URL was given, else `path`.
    pub source_url: String,
    pub title: String,
    /// RFC 3339, when known.
    pub last_updated: Option<String>,
    pub sections: Vec<DocSectionFacts>,
}

/// One section of a page: the unit of concept search.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DocSectionFacts {
    /// Headings from the page title down to this section.
    pub path: Vec<String>,
    pub markdown: String,
    /// concept, api_reference, code_example or tutorial.
    pub content_type: &'static str,
    /// Identifiers named in code spans, code blocks and headings, resolved at lowering.
    pub identifiers: Vec<Mention>,
}

/// An identifier a doc section names, and which symbols it may name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Mention {
    pub name: String,
    pub reach: Reach,
}

/// Which symbols a mention may name, from how the page writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reach {
    /// Any symbol: a qualified name (`client.upload_file`), or a name in prose or a code span.
    Any,
    /// Only a symbol outside any class: a bare word in a code block (`name` in
    /// `def hello(count, name):` is a variable, not `Tuple.name`).
    TopLevel,
    /// Only a member of a class: a code block's `.description(...)` after an expression.
    Member,
}

/// What an OpenAPI document says about the service as a whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Service {
    pub title: String,
    /// `info.version`: the API's own version, which may differ from the release's.
    pub api_version: String,
    /// The `openapi` field as written (`3.0.1`, `3.1.0`).
    pub openapi: String,
    pub servers: Vec<String>,
    /// The document's own words on its tags (`tags[].description`): `(tag, description)`, for
    /// the tags that have one.
    pub tags: Vec<(String, String)>,
}

/// One HTTP operation: what a client sends and what comes back.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HttpOperation {
    /// Upper case: `GET`.
    pub method: String,
    /// As written in the document: `/pets/{petId}`.
    pub path: String,
    pub operation_id: Option<String>,
    pub summary: Option<String>,
    pub tags: Vec<String>,
    /// Security requirements: one entry per alternative, `scheme[scope,...]` joined by ` + `;
    /// an empty string is the explicit "no authentication" alternative.
    pub security: Vec<String>,
    /// The same alternatives as credentials (`apiKey in header X-Api-Key [scope]`), for
    /// comparing releases whatever the schemes are called.
    pub security_keys: Vec<String>,
    pub servers: Vec<String>,
    /// Extra facts of the parameters (`Symbol.params` holds name, kind, required, type).
    pub param_details: Vec<HttpParamDetail>,
    pub request_body: Option<RequestBody>,
    pub responses: Vec<HttpResponse>,
    /// `x-sunset`: the date after which the operation goes away.
    pub sunset: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HttpParamDetail {
    pub name: String,
    pub kind: ParamKind,
    pub style: Option<String>,
    pub explode: Option<bool>,
    pub deprecated: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RequestBody {
    pub required: bool,
    pub media_types: Vec<String>,
    /// Component name of the body schema when it is a `$ref` to one.
    pub schema: Option<String>,
    /// Top-level properties of the body schema (allOf parts merged); `None` when the schema is
    /// not a plain object (an array, oneOf/anyOf, free form).
    pub properties: Option<Vec<BodyProperty>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BodyProperty {
    pub name: String,
    pub required: bool,
    pub type_: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HttpResponse {
    /// `200`, `2XX`, `default`.
    pub status: String,
    pub description: Option<String>,
    pub media_types: Vec<String>,
    /// Component name of the response schema, or its rendered type (`array<Pet>`).
    pub schema: Option<String>,
    pub headers: Vec<String>,
}

/// Facts of a component schema or of one of its properties.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SchemaFacts {
    /// Rendered type: `string`, `integer`, `array<Pet>`, `Pet`, `oneOf<A|B>`.
    pub type_: Option<String>,
    pub format: Option<String>,
    /// For a property: listed in its schema's `required`.
    pub required: bool,
    pub nullable: bool,
    pub read_only: bool,
    pub write_only: bool,
    /// `enum` values as JSON text.
    pub enum_values: Vec<String>,
    /// `minLength=1`, `maximum=100`, `pattern=^[a-z]+$`...
    pub constraints: Vec<String>,
    /// The schema refers to itself, directly or through other schemas.
    pub recursive: bool,
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    #[default]
    Module,
    Class,
    Function,
    Method,
    Classmethod,
    Staticmethod,
    Property,
    Attribute,
    /// A TypeScript interface (or type with members).
    Interface,
    /// An OpenAPI operation.
    Operation,
    /// An OpenAPI component schema.
    Schema,
}

impl SymbolKind {
    pub const ALL: [SymbolKind; 11] = [
        SymbolKind::Module,
        SymbolKind::Class,
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Classmethod,
        SymbolKind::Staticmethod,
        SymbolKind::Property,
        SymbolKind::Attribute,
        SymbolKind::Interface,
        SymbolKind::Operation,
        SymbolKind::Schema,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Module => "module",
            SymbolKind::Class => "class",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Classmethod => "classmethod",
            SymbolKind::Staticmethod => "staticmethod",
            SymbolKind::Property => "property",
            SymbolKind::Attribute => "attribute",
            SymbolKind::Interface => "interface",
            SymbolKind::Operation => "operation",
            SymbolKind::Schema => "schema",
        }
    }

    pub fn parse(s: &str) -> Option<SymbolKind> {
        SymbolKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Members of a class whose first parameter is the receiver.
    pub fn is_member(self) -> bool {
        matches!(
            self,
            SymbolKind::Method
                | SymbolKind::Classmethod
                | SymbolKind::Staticmethod
                | SymbolKind::Property
        )
    }
}

/// One public API symbol of a release.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Symbol {
    /// Canonical public path: the shortest dotted path users import it by.
    pub qualified_name: String,
    /// Every other public path.
    pub aliases: Vec<String>,
    /// Where it is defined (`click.core.Group`), which may be private.
    pub defined_in: String,
    pub kind: SymbolKind,
    /// Parameters in declaration order; for classes, the constructor's; receivers left out.
    pub params: Vec<Param>,
    /// Whether `params` is known (a class whose constructor is inherited from outside has none).
    pub has_signature: bool,
    pub returns: Option<String>,
    pub is_async: bool,
    pub doc: Option<String>,
    pub decorators: Vec<String>,
    pub bases: Vec<String>,
    pub overloads: Vec<Vec<Param>>,
    pub deprecation: Option<Deprecation>,
    /// Defining class of an inherited member (`click.core.MultiCommand`).
    pub inherited_from: Option<String>,
    /// Canonical name of the containing class or module.
    pub parent: Option<String>,
    /// File relative to the release root, `/`-separated.
    pub file: String,
    /// 1-based line of the definition.
    pub line: usize,
    /// The signature as the language spells it, when the extractor renders it itself
    /// (`parse(argv?: string[]): this`); Python signatures are rendered from `params`.
    pub signature_text: Option<String>,
    /// A variable's declared type as written (`declare const axios: AxiosStatic` gives
    /// `AxiosStatic`), kept when the value is also callable: its members are the type's. Read
    /// at ingest (code examples reach members through it); not stored.
    #[serde(skip)]
    pub value_type: Option<String>,
    /// Where a fact came from when it is not the source: `runtime: bound when the module is
    /// imported on CPython 3.11.7 (linux-x86_64)` for a name only run-time inspection found.
    pub provenance: Option<String>,
}

impl Symbol {
    /// `(a, b=1, *args, c, **kw) -> int`, Python style, unless the extractor gave its own text.
    pub fn signature(&self) -> Option<String> {
        if !self.has_signature {
            return None;
        }
        if let Some(s) = &self.signature_text {
            return Some(s.clone());
        }
        let mut out = render_params(&self.params);
        if let Some(r) = &self.returns {
            out.push_str(" -> ");
            out.push_str(r);
        }
        Some(out)
    }
}

pub fn render_params(params: &[Param]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut slash_pending = false;
    let mut star_done = false;
    for p in params {
        if slash_pending && p.kind != ParamKind::PositionalOnly {
            parts.push("/".into());
            slash_pending = false;
        }
        let mut s = String::new();
        match p.kind {
            ParamKind::PositionalOnly => slash_pending = true,
            ParamKind::VarPositional => {
                s.push('*');
                star_done = true;
            }
            ParamKind::VarKeyword => s.push_str("**"),
            ParamKind::KeywordOnly if !star_done => {
                parts.push("*".into());
                star_done = true;
            }
            _ => {}
        }
        if p.kind == ParamKind::Rest {
            s.push_str("...");
        }
        s.push_str(&p.name);
        if p.optional {
            s.push('?');
        }
        if let Some(t) = &p.annotation {
            s.push_str(": ");
            s.push_str(t);
        }
        if let Some(d) = &p.default {
            s.push_str(if p.annotation.is_some() { " = " } else { "=" });
            s.push_str(d);
        }
        parts.push(s);
    }
    if slash_pending {
        parts.push("/".into());
    }
    format!("({})", parts.join(", "))
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    // Python, as `inspect.Parameter.kind`.
    PositionalOnly,
    #[default]
    PositionalOrKeyword,
    VarPositional,
    KeywordOnly,
    VarKeyword,
    // JavaScript and TypeScript.
    Positional,
    Rest,
    // OpenAPI: where the parameter goes.
    Path,
    Query,
    Header,
    Cookie,
    Body,
}

impl ParamKind {
    pub const ALL: [ParamKind; 12] = [
        ParamKind::PositionalOnly,
        ParamKind::PositionalOrKeyword,
        ParamKind::VarPositional,
        ParamKind::KeywordOnly,
        ParamKind::VarKeyword,
        ParamKind::Positional,
        ParamKind::Rest,
        ParamKind::Path,
        ParamKind::Query,
        ParamKind::Header,
        ParamKind::Cookie,
        ParamKind::Body,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ParamKind::PositionalOnly => "positional_only",
            ParamKind::PositionalOrKeyword => "positional_or_keyword",
            ParamKind::VarPositional => "var_positional",
            ParamKind::KeywordOnly => "keyword_only",
            ParamKind::VarKeyword => "var_keyword",
            ParamKind::Positional => "positional",
            ParamKind::Rest => "rest",
            ParamKind::Path => "path",
            ParamKind::Query => "query",
            ParamKind::Header => "header",
            ParamKind::Cookie => "cookie",
            ParamKind::Body => "body",
        }
    }

    pub fn parse(s: &str) -> Option<ParamKind> {
        ParamKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    /// Annotation as source text.
    pub annotation: Option<String>,
    /// Default as source text, verbatim.
    pub default: Option<String>,
    /// Optional without a default: TypeScript `x?`, an OpenAPI parameter not marked required.
    pub optional: bool,
    pub description: Option<String>,
}

impl Param {
    pub fn required(&self) -> bool {
        !self.optional
            && self.default.is_none()
            && !matches!(
                self.kind,
                ParamKind::VarPositional | ParamKind::VarKeyword | ParamKind::Rest
            )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Deprecation {
    pub since: Option<String>,
    pub message: Option<String>,
    /// A name the message points to ("use X instead").
    pub replacement: Option<String>,
    /// What said so: `decorator`, `warning`, `docstring`.
    pub source: String,
}

/// A problem in the input that did not stop the release from being ingested.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Line 0: the file names the place itself (an OpenAPI spec pointer).
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purls_parse_and_normalise() {
        let (p, v) = PackageId::parse("pkg:pypi/Typing_Extensions@4.12.2").unwrap();
        assert_eq!(p.purl(), "pkg:pypi/typing-extensions");
        assert_eq!(v.as_deref(), Some("4.12.2"));
        let (p, v) = PackageId::parse("pkg:npm/%40aws-sdk/client-s3@3.1.0").unwrap();
        assert_eq!(p.name, "%40aws-sdk/client-s3");
        assert_eq!(p.display_name(), "@aws-sdk/client-s3");
        let (p, _) = PackageId::parse("pkg:npm/@aws-sdk/client-s3@3.1.0").unwrap();
        assert_eq!(p.purl(), "pkg:npm/%40aws-sdk/client-s3");
        assert_eq!(v.as_deref(), Some("3.1.0"));
        assert!(PackageId::parse("pkg:pypi").is_err());
        assert!(PackageId::parse("pkg:pypi/x@").is_err());
        assert!(PackageId::parse("click").is_err());
        let bare = PackageRef::parse("click").unwrap();
        assert_eq!(bare.ecosystem, None);
        assert_eq!(bare.or_pypi().0.purl(), "pkg:pypi/click");
        let bare = PackageRef::parse("Click@8.1.7").unwrap();
        assert_eq!(bare.version.as_deref(), Some("8.1.7"));
        assert_eq!(bare.or_pypi().0.purl(), "pkg:pypi/click");
        let scoped = PackageRef::parse("@aws-sdk/client-s3").unwrap();
        assert_eq!(
            (scoped.name.as_str(), scoped.version),
            ("@aws-sdk/client-s3", None)
        );
        let err = PackageId::parse("pkg:maven/org.x/y@1").unwrap_err();
        assert!(err.contains("does not read 'maven'"), "{err}");
        assert_eq!(
            PackageId::parse("pkg:PyPI/Click").unwrap().0.purl(),
            "pkg:pypi/click"
        );
        assert!(PackageRef::parse("click@").is_err());
        // pip's pin, as `refgraph add` and the MCP tools take it.
        for pinned in ["h5py==3.11.0", "h5py === 3.11.0"] {
            let (id, v) = PackageRef::parse(pinned).unwrap().or_pypi();
            assert_eq!(
                (id.purl().as_str(), v.as_deref()),
                ("pkg:pypi/h5py", Some("3.11.0"))
            );
        }
        assert!(PackageRef::parse("h5py==").is_err());
        // A registry written as a prefix gets the Package URL it meant.
        let err = PackageRef::parse("pypi:plotly@4.14.3").unwrap_err();
        assert!(err.contains("pkg:pypi/plotly@4.14.3"), "{err}");
        let err = PackageRef::parse("npm:ky").unwrap_err();
        assert!(err.contains("pkg:npm/ky"), "{err}");
        assert!(PackageRef::parse("==3.11.0").is_err());
        let (scoped, v) = PackageRef::parse("@aws-sdk/client-s3@3.1.0")
            .unwrap()
            .or_pypi();
        assert_eq!(
            (scoped.purl().as_str(), v.as_deref()),
            ("pkg:npm/%40aws-sdk/client-s3", Some("3.1.0"))
        );
    }

    #[test]
    fn signatures_render_like_inspect() {
        let p = |name: &str, kind, default: Option<&str>| Param {
            name: name.into(),
            kind,
            annotation: None,
            default: default.map(str::to_string),
            ..Default::default()
        };
        let params = vec![
            p("a", ParamKind::PositionalOnly, None),
            p("b", ParamKind::PositionalOrKeyword, Some("1")),
            p("c", ParamKind::KeywordOnly, None),
            p("kw", ParamKind::VarKeyword, None),
        ];
        assert_eq!(render_params(&params), "(a, /, b=1, *, c, **kw)");
    }
}
