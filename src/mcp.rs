//! The MCP server (rmcp): tool handlers over [`Engine`]; the only module that knows MCP.

pub mod clients;
pub mod roots;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::answer::{
    AnswerError, ApiDetail, ApiList, Chosen, DocPage, DocQuery, DocSearch, Engine, ErrorKind,
    Failure, QueryError, VersionCheck,
};
use crate::diff::DiffReport;
use roots::{ProjectOptions, Roots};

/// Arguments of `get_api_detail`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApiDetailArgs {
    /// Public name. Python: dotted import path (`click.Group.command`). npm:
    /// `<specifier>:<export>[.<member>]` (`commander:Command.option`, `express:default`).
    /// OpenAPI: operationId or `METHOD /path`. Inherited members resolve on the subclass. An
    /// unknown or misspelt name returns ranked candidates.
    pub name: String,
    /// Package URL (`pkg:pypi/click`, `pkg:npm/%40aws-sdk/client-s3`) or bare name (`click`);
    /// may be omitted when the name's first component identifies one indexed package.
    pub package: Option<String>,
    /// The release: its version (`8.1.7`) or a label (`8.1` for the newest indexed 8.1.x,
    /// `8`, `latest`, `stable`, a range such as `>=2,<3`, `^4.2`, `~=1.4`); the answer says
    /// which release a label chose. Omitted: the version the client's project pins (lockfile
    /// or manifest in its roots), else the newest indexed release, stated as such. A version
    /// or label no indexed release matches is an error listing the indexed ones.
    pub version: Option<String>,
    /// The project folder whose lockfile or manifest picks the version when `version` is
    /// omitted; by default the client's roots (MCP roots) are read.
    pub root: Option<String>,
}

/// Arguments of `get_usage_path`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UsagePathArgs {
    /// The callable (or class) to reach, named as for get_api_detail: the method's own public
    /// name (`stripe.CustomerService.create`, `openai:Completions.create`), not a call chain.
    pub name: String,
    /// Package URL (`pkg:pypi/stripe`) or bare name.
    pub package: Option<String>,
    /// Version or label (`8.1.7`, `8.1`, `latest`, `>=2,<3`); omitted: the pinned or newest
    /// indexed release, stated as such.
    pub version: Option<String>,
    /// The project folder whose lockfile or manifest picks the version when `version` is
    /// omitted.
    pub root: Option<String>,
    /// How many paths to return, best first (default 3, at most 10).
    pub limit: Option<usize>,
}

/// Arguments of `related`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RelatedArgs {
    /// Public name, as for get_api_detail.
    pub name: String,
    /// Package URL (`pkg:pypi/stripe`) or bare name.
    pub package: Option<String>,
    /// Version or label (`8.1.7`, `8.1`, `latest`, `>=2,<3`); omitted: the pinned or newest
    /// indexed release, stated as such.
    pub version: Option<String>,
    /// The project folder whose lockfile or manifest picks the version when `version` is
    /// omitted.
    pub root: Option<String>,
    /// Only this relation: returns, takes, attribute, held_by, returned_by, taken_by, base,
    /// subclass, requests (the HTTP request the body sends), wraps (the OpenAPI operation of
    /// another indexed package with that endpoint), wrapped_by (the SDK methods requesting an
    /// operation) or same_symbol.
    pub relation: Option<String>,
}

/// What a tool about one symbol asks for: the name and how to choose the release.
struct Target {
    name: String,
    package: Option<String>,
    version: Option<String>,
    root: Option<String>,
}

impl Target {
    fn of(
        name: &str,
        package: &Option<String>,
        version: &Option<String>,
        root: &Option<String>,
    ) -> Target {
        Target {
            name: name.to_string(),
            package: package.clone(),
            version: version.clone(),
            root: root.clone(),
        }
    }
}

/// Arguments of `check_version`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckVersionArgs {
    /// Public name, as for get_api_detail: `click.get_terminal_size`,
    /// `commander:Option.conflicts`, `getPetById`.
    pub name: String,
    /// Package URL (`pkg:pypi/click`) or bare name.
    pub package: Option<String>,
    /// The release you care about (version or label: `8.1.7`, `8.1`, `latest`, `>=2,<3`);
    /// the answer says whether the name exists in it. Omitted: the version the client's
    /// project pins, if it pins one.
    pub version: Option<String>,
    /// The project folder whose lockfile or manifest picks the version when `version` is
    /// omitted; by default the client's roots (MCP roots) are read.
    pub root: Option<String>,
}

/// Arguments of `diff_versions`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiffArgs {
    /// Package URL (`pkg:pypi/click`) or bare name.
    pub package: String,
    /// The older release's version (`7.1.2`) or label (`7`, `>=7,<8`).
    pub from: String,
    /// The newer release's version (`8.1.7`) or label (`8.1`, `latest`).
    pub to: String,
    /// Only the changes that can break code written against `from`.
    pub breaking_only: Option<bool>,
    /// Page size (default 500, at most 5000).
    pub limit: Option<usize>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Arguments of `list_apis`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListApisArgs {
    /// Package URL (`pkg:pypi/click`) or bare name.
    pub package: String,
    /// Version or label (`8.1.7`, `8.1`, `latest`, `>=2,<3`); omitted: the version the
    /// client's project pins, else the newest indexed release.
    pub version: Option<String>,
    /// The project folder whose lockfile or manifest picks the version when `version` is
    /// omitted; by default the client's roots (MCP roots) are read.
    pub root: Option<String>,
    /// Only this kind: module, class, function, method, classmethod, staticmethod, property,
    /// attribute, interface, operation, schema.
    pub kind: Option<String>,
    /// Only names starting with this prefix, e.g. `click.Group.`; for an OpenAPI spec a path
    /// prefix such as `/pets` or `GET /pets` matches operations by path.
    pub prefix: Option<String>,
    /// OpenAPI: only the operations with this tag.
    pub tag: Option<String>,
    /// Page size (default 100, at most 1000).
    pub limit: Option<usize>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Arguments of `sparql_query`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SparqlArgs {
    /// A SPARQL 1.1 SELECT, ASK, CONSTRUCT or DESCRIBE query. The default graph is the union of
    /// all releases; `GRAPH <pkg:pypi/click@8.1.7> { ... }` selects one. Prefix
    /// `rg: <https://refgraph.dev/ontology#>`. Updates are refused.
    pub query: String,
}

/// Whether a call names its release itself (`version`, or `pkg:...@version`): then no
/// project pin applies.
fn version_asked(package: Option<&str>, version: Option<&str>) -> bool {
    version.is_some_and(|v| !v.trim().is_empty())
        || package
            .and_then(|p| crate::model::PackageRef::parse(p.trim()).ok())
            .is_some_and(|r| r.version.is_some())
}

/// Arguments of `resolve_versions`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ResolveArgs {
    /// A project folder on this machine; omitted: each of the client's roots.
    pub path: Option<String>,
    /// Also the packages only a lockfile lists (dependencies of dependencies).
    pub transitive: Option<bool>,
}

/// What `resolve_versions` found: per project, each dependency's version and its source.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProjectVersions {
    pub projects: Vec<ProjectOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ProjectOut {
    pub root: String,
    /// The manifests and lockfiles read, in order of precedence.
    pub files: Vec<String>,
    /// Files or entries that could not be read.
    pub problems: Vec<String>,
    pub dependencies: Vec<crate::project::Dependency>,
}

/// Arguments of `get_page`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetPageArgs {
    /// A result's `page` (the whole page) or `id` (that chunk's page) from search_docs.
    pub id: String,
}

/// The result of a SPARQL query: SPARQL 1.1 Query Results JSON.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SparqlOutput {
    /// `{"vars": [...]}`
    pub head: serde_json::Value,
    /// `{"bindings": [...]}` for SELECT, CONSTRUCT and DESCRIBE.
    pub results: Option<serde_json::Value>,
    /// For ASK.
    pub boolean: Option<bool>,
    /// True when rows were cut at the row limit.
    pub truncated: Option<bool>,
}

#[derive(Clone)]
pub struct RefgraphServer {
    engine: Arc<Engine>,
    tool_router: ToolRouter<Self>,
    log: Option<Arc<QueryLog>>,
    roots: Arc<Roots>,
}

/// The query log: one JSON line per tool call (tool, arguments, the version answered from,
/// result count, latency), so maintainers see what assistants ask and what found nothing.
pub struct QueryLog {
    file: std::sync::Mutex<std::fs::File>,
}

/// One line of the query log.
#[derive(Debug, Serialize, Deserialize)]
pub struct QueryLogEntry {
    /// RFC 3339.
    pub at: String,
    pub tool: String,
    pub arguments: serde_json::Value,
    /// What followed `[Version: ` in the answer.
    pub version: Option<String>,
    pub results: usize,
    pub is_error: bool,
    /// The answer's note, such as "nothing relevant found".
    pub note: Option<String>,
    pub ms: f64,
}

impl QueryLog {
    /// Appends to `path` (created if missing).
    pub fn open(path: &std::path::Path) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(QueryLog {
            file: std::sync::Mutex::new(file),
        })
    }

    fn record(&self, entry: &QueryLogEntry) {
        use std::io::Write;
        let Ok(mut line) = serde_json::to_string(entry) else {
            return;
        };
        line.push('\n');
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = f.write_all(line.as_bytes()) {
            tracing::warn!("query log write failed: {e}");
        }
    }
}

/// The entry for one answered call: version from the `[Version: X]` line, result count from
/// the structured content's list (`results`, `items`, `changes`, `versions`, SPARQL bindings).
fn log_entry(
    tool: &str,
    arguments: serde_json::Value,
    result: &CallToolResult,
    ms: f64,
) -> QueryLogEntry {
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text().map(|t| t.text.clone()))
        .unwrap_or_default();
    let version = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("[Version: "))
        .and_then(|l| l.strip_suffix(']'))
        .map(str::to_string);
    let sc = result.structured_content.as_ref();
    let results = sc
        .and_then(|v| {
            ["results", "items", "changes", "versions"]
                .iter()
                .find_map(|k| v.get(*k).and_then(|x| x.as_array()).map(Vec::len))
                .or_else(|| v["results"]["bindings"].as_array().map(Vec::len))
        })
        .unwrap_or(usize::from(result.is_error != Some(true) && sc.is_some()));
    QueryLogEntry {
        at: crate::ingest::now_rfc3339(),
        tool: tool.to_string(),
        arguments,
        version,
        results,
        is_error: result.is_error == Some(true),
        note: sc
            .and_then(|v| v.get("note"))
            .and_then(|n| n.as_str())
            .map(str::to_string),
        ms,
    }
}

/// The searches of a query log that found nothing, or nothing relevant, with how often each
/// was asked: what synonyms or doc pages are missing.
pub fn misses(log: &str) -> Vec<(String, Option<String>, usize, String)> {
    let mut out: Vec<(String, Option<String>, usize, String)> = Vec::new();
    for line in log.lines() {
        let Ok(e) = serde_json::from_str::<QueryLogEntry>(line) else {
            continue;
        };
        if e.tool != "search_docs" || (e.results > 0 && !e.is_error) {
            continue;
        }
        // A query that was not even a string is shown as the JSON it was.
        let query = match &e.arguments["query"] {
            serde_json::Value::String(q) => q.clone(),
            other => other.to_string(),
        };
        let package = e.arguments["package"].as_str().map(str::to_string);
        let why = e.note.unwrap_or_else(|| {
            if e.is_error {
                "error".into()
            } else {
                "nothing found".into()
            }
        });
        match out
            .iter_mut()
            .find(|(q, p, _, _)| *q == query && *p == package)
        {
            Some(m) => m.2 += 1,
            None => out.push((query, package, 1, why)),
        }
    }
    out.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    out
}

fn ok_result(version_line: &str, text: String, value: serde_json::Value) -> CallToolResult {
    let mut r = CallToolResult::structured(value);
    r.content = vec![ContentBlock::text(format!(
        "[Version: {version_line}]\n{text}"
    ))];
    r
}

/// Maps domain errors to MCP: bad input is a tool error the caller reads (with candidates or
/// the indexed versions); storage failures are internal errors.
fn error_result(
    version_line: Option<String>,
    e: impl Into<AnswerError>,
) -> Result<CallToolResult, ErrorData> {
    let e: AnswerError = e.into();
    let head = match (&version_line, e.version_not_indexed(), &e) {
        (_, Some(asked), _) => format!("[Version: {asked} (not indexed)]\n"),
        (_, _, AnswerError::PinnedNotIndexed(m)) => {
            format!("[Version: {} ({}; not indexed)]\n", m.version, m.how)
        }
        (Some(v), _, _) => format!("[Version: {v}]\n"),
        (None, _, _) => "[Version: none]\n".to_string(),
    };
    match e.kind() {
        ErrorKind::Internal => Err(ErrorData::internal_error(e.to_string(), None)),
        ErrorKind::QueryRefused => {
            let mut r = CallToolResult::error(vec![ContentBlock::text(format!("{head}{e}"))]);
            r.structured_content = None;
            Ok(r)
        }
        ErrorKind::NotFound | ErrorKind::BadInput | ErrorKind::Unavailable => {
            let candidates = e.candidates();
            let mut text = format!("{head}{e}");
            if !candidates.is_empty() {
                text.push_str("\ncandidates: ");
                text.push_str(&serde_json::to_string(candidates).unwrap_or_default());
            }
            // Error results carry the same facts as structured data for programs.
            let mut r = CallToolResult::error(vec![ContentBlock::text(text)]);
            r.structured_content = Some(serde_json::json!({
                "error": e.to_string(),
                "candidates": candidates,
                "indexed": e.indexed(),
            }));
            Ok(r)
        }
    }
}

fn to_value<T: Serialize>(v: &T) -> Result<serde_json::Value, ErrorData> {
    serde_json::to_value(v).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

fn any_object_schema() -> Arc<JsonObject> {
    schema_for_output::<SparqlOutput>()
}

/// A tool's outputSchema, in JSON Schema draft-07 (with its `$schema`): the same constraints as
/// 2020-12 for these types, and clients that check every result against it do so about four
/// times faster (the official Python SDK re-validates the schema itself on each call: 44 ms per
/// `get_api_detail` result against 2020-12, 10 ms against draft-07). Top-level title and
/// description are left out, as rmcp does.
fn schema_for_output<T: schemars::JsonSchema>() -> Arc<JsonObject> {
    let schema = schemars::generate::SchemaSettings::draft07()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut object = match serde_json::to_value(schema) {
        Ok(serde_json::Value::Object(o)) => o,
        _ => JsonObject::new(),
    };
    object.remove("title");
    object.remove("description");
    Arc::new(object)
}

fn detail_text(d: &ApiDetail, release: &str) -> String {
    let mut t = format!("{} ({}) in {release}", d.qualified_name, d.kind);
    if let Some(sig) = d.display_signature() {
        t.push_str(&format!("\nsignature: {sig}"));
    }
    match (&d.source.file, d.source.line) {
        (Some(f), Some(l)) => t.push_str(&format!("\nsource: {f}:{l}")),
        (Some(f), None) => t.push_str(&format!("\nsource: {f}")),
        _ => {}
    }
    if let Some(dep) = &d.deprecation {
        t.push_str(&format!("\ndeprecated{}", dep.describe()));
    }
    if let Some(i) = &d.inherited_from {
        t.push_str(&format!("\ninherited from {i}"));
    }
    if let Some(p) = &d.provenance {
        t.push_str(&format!("\nfrom the run time, not the source: {p}"));
    }
    if let Some(v) = &d.views_differ {
        t.push_str(&format!("\n{v}"));
    }
    t.push('\n');
    t.push_str(&serde_json::to_string(d).unwrap_or_default());
    t
}

fn check_text(c: &VersionCheck) -> String {
    let have: Vec<&str> = c
        .versions
        .iter()
        .filter(|v| v.available == Some(true))
        .map(|v| v.version.as_str())
        .collect();
    let unknown: Vec<&str> = c
        .versions
        .iter()
        .filter(|v| v.available.is_none())
        .map(|v| v.version.as_str())
        .collect();
    let mut t = if have.is_empty() && !unknown.is_empty() {
        format!(
            "{} is in no indexed release of {} that can tell; unknown in: {}",
            c.qualified_name,
            c.package,
            unknown.join(", ")
        )
    } else if have.is_empty() {
        format!(
            "{} is in no indexed release of {}",
            c.qualified_name, c.package
        )
    } else {
        format!(
            "{} of {} is in: {}",
            c.qualified_name,
            c.package,
            have.join(", ")
        )
    };
    if let Some(why) = &c.unknown_reason {
        t.push_str(&format!(
            "\nnot proven absent in the requested release: {why}"
        ));
    }
    if let Some(r) = &c.requires {
        t.push_str(&format!(
            "\nonly with an optional dependency: {} binds it when `{}` is true",
            r.module, r.test
        ));
    }
    if let Some(why) = &c.raises_on_use {
        t.push_str(&format!("\nbound, but not available: {why}"));
    }
    if let Some(p) = &c.provenance {
        t.push_str(&format!("\nfrom the run time, not the source: {p}"));
    }
    if let Some(v) = &c.views_differ {
        t.push_str(&format!("\n{v}"));
    }
    if let Some(v) = &c.introduced_in {
        t.push_str(&format!("\nfirst indexed release with it: {v}"));
    }
    if let Some(v) = &c.removed_in {
        t.push_str(&format!("\nremoved in: {v}"));
    }
    if let Some(r) = &c.replacement {
        t.push_str(&format!("\nreplacement: {r}"));
    }
    t.push('\n');
    t.push_str(&serde_json::to_string(c).unwrap_or_default());
    t
}

#[tool_router]
impl RefgraphServer {
    pub fn new(engine: Arc<Engine>) -> Self {
        RefgraphServer {
            engine,
            tool_router: Self::tool_router(),
            log: None,
            roots: Arc::new(Roots::new(ProjectOptions::default())),
        }
    }

    /// Lets project pins fetch missing releases and registry release lists (`opts`).
    pub fn with_projects(mut self, opts: ProjectOptions) -> Self {
        self.roots = Arc::new(Roots::new(opts));
        self
    }

    /// The release the project pins for the package a call is about (`root`, else the
    /// client's roots), fetched when missing and allowed; `None` when no project pins it.
    async fn pinned(
        &self,
        ctx: &RequestContext<RoleServer>,
        package: Option<&str>,
        name: Option<&str>,
        root: Option<&str>,
    ) -> Result<Option<Chosen>, AnswerError> {
        let explicit = root.map(str::trim).filter(|r| !r.is_empty());
        let dirs = match explicit {
            Some(r) => vec![self.roots.explicit_root(r)?],
            None => self.roots.folders(&ctx.peer).await,
        };
        if dirs.is_empty() {
            return Ok(None);
        }
        let (roots, package, name, strict) = (
            self.roots.clone(),
            package.map(str::to_string),
            name.map(str::to_string),
            explicit.is_some(),
        );
        let pin = on_worker(&self.engine, move |e| {
            roots.pin(e, &dirs, package.as_deref(), name.as_deref(), strict)
        })
        .await??;
        match pin {
            Some(pin) => self.roots.choose_pinned(&self.engine, &pin).await.map(Some),
            None => Ok(None),
        }
    }

    /// The release a call answers from: the version asked, else the project's pin, else the
    /// newest indexed release (each stated in the answer's version line).
    async fn choose_release(
        &self,
        ctx: &RequestContext<RoleServer>,
        package: Option<String>,
        version: Option<String>,
        name: Option<String>,
        root: Option<String>,
    ) -> Result<Chosen, AnswerError> {
        if !version_asked(package.as_deref(), version.as_deref())
            && let Some(c) = self
                .pinned(ctx, package.as_deref(), name.as_deref(), root.as_deref())
                .await?
        {
            return Ok(c);
        }
        on_worker(&self.engine, move |e| {
            e.choose(package.as_deref(), version.as_deref(), name.as_deref())
        })
        .await?
        .map_err(AnswerError::from)
    }

    /// The common shape of the tools about one symbol in one release: choose the release (as
    /// asked, pinned by the project, or newest), answer on a worker thread, and return the
    /// version line, the text and the structured content, or the error with its version line.
    async fn answer_about<T: Serialize + Send + 'static, E: Into<AnswerError> + Send + 'static>(
        &self,
        ctx: &RequestContext<RoleServer>,
        target: Target,
        answer: impl FnOnce(&Engine, &Chosen) -> Result<T, E> + Send + 'static,
        text: impl FnOnce(&T, &str) -> String,
    ) -> Result<CallToolResult, ErrorData> {
        let chosen = match self
            .choose_release(
                ctx,
                target.package,
                target.version,
                Some(target.name),
                target.root,
            )
            .await
        {
            Ok(c) => c,
            Err(e) => return error_result(None, e),
        };
        let out = self
            .blocking(move |e| match answer(e, &chosen) {
                Ok(v) => Ok((chosen, v)),
                Err(err) => Err((chosen.version_line(), err.into())),
            })
            .await?;
        match out {
            Ok((chosen, v)) => Ok(ok_result(
                &chosen.version_line(),
                text(&v, &chosen.release.release),
                to_value(&v)?,
            )),
            Err((line, e)) => error_result(Some(line), e),
        }
    }

    /// Logs every tool call to `log`.
    pub fn with_log(mut self, log: Arc<QueryLog>) -> Self {
        self.log = Some(log);
        self
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Engine) -> T + Send + 'static,
    ) -> Result<T, ErrorData> {
        on_worker(&self.engine, f)
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    /// The exact signature of one API symbol in one indexed release.
    #[tool(
        description = "Exact signature and facts of one API symbol (function, class, method, property, module) in one indexed release: parameters in order with kind, required flag, type and default source text; return annotation; docstring; deprecation; aliases; defining module; source file:line. For an OpenAPI operation (name = operationId or \"METHOD /path\"): path/query/header/cookie parameters plus one `body` parameter, `request_body` with its top-level properties, success `responses`, and `http` (method, path, tags, security). Unknown names return ranked candidates, never a guess.",
        output_schema = schema_for_output::<ApiDetail>(),
        annotations(read_only_hint = true)
    )]
    async fn get_api_detail(
        &self,
        Parameters(a): Parameters<ApiDetailArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let target = Target::of(&a.name, &a.package, &a.version, &a.root);
        self.answer_about(
            &ctx,
            target,
            move |e, c| e.lookup().api_detail(c, &a.name),
            detail_text,
        )
        .await
    }

    /// How to reach a callable from what a user imports.
    #[tool(
        description = "How to reach an API symbol from what a user imports, as ordered steps (import, construct, attribute, call) and a code snippet, best path first: e.g. `from stripe import StripeClient; stripe_client = StripeClient(api_key); stripe_client.customers.create()`. Each step cites the fact it rests on (file:line of the definition or of the statement that gives an attribute its class, such as `self.customers = CustomerService(...)`). Paths follow attribute types, return types and bases recorded in the release; none found is said so, never guessed.",
        output_schema = schema_for_output::<crate::answer::usage::UsagePaths>(),
        annotations(read_only_hint = true)
    )]
    async fn get_usage_path(
        &self,
        Parameters(a): Parameters<UsagePathArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let target = Target::of(&a.name, &a.package, &a.version, &a.root);
        let limit = a.limit.unwrap_or(3).clamp(1, 10);
        self.answer_about(
            &ctx,
            target,
            move |e, c| e.usage().usage_paths(c, &a.name, limit),
            |u, release| u.text(release),
        )
        .await
    }

    /// What a symbol is linked to.
    #[tool(
        description = "What an API symbol is linked to in one indexed release: the classes a callable returns and takes, a class's typed attributes, what holds, returns or takes it, its bases and subclasses, and the other indexed releases that have the same symbol. Each link gives the evidence text and file:line. Filter with `relation`.",
        output_schema = schema_for_output::<crate::answer::usage::Related>(),
        annotations(read_only_hint = true)
    )]
    async fn related(
        &self,
        Parameters(a): Parameters<RelatedArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let target = Target::of(&a.name, &a.package, &a.version, &a.root);
        self.answer_about(
            &ctx,
            target,
            move |e, c| e.usage().related(c, &a.name, a.relation.as_deref()),
            |r, release| r.text(release),
        )
        .await
    }

    /// Whether a name exists in each indexed release of a package.
    #[tool(
        description = "Does this API symbol exist in a given release, and in which indexed releases of the package: availability per version, first release with it, release that removed it, deprecation and replacement. An unknown name is a normal answer with available false everywhere. Available is null (with unknown_reason) where a release cannot tell statically: a compiled module without a stub, a module __getattr__ it cannot read, a namespace written at run time; false is always proven. requires names the optional-dependency test (is_torch_available()) under which the module binds the name. raises_on_use says when a name is bound only to a stub of a removed API whose every call raises (openai 1.x's openai.Completion): it is answered false. provenance is set when the name is known only from importing the module (refgraph add --inspect), with the interpreter and platform. views_differ is set when type checkers and the run time disagree on the name (bound only under `if TYPE_CHECKING:`, declared only by a .pyi stub, or missing from it), saying which view the answer gives.",
        output_schema = schema_for_output::<VersionCheck>(),
        annotations(read_only_hint = true)
    )]
    async fn check_version(
        &self,
        Parameters(mut a): Parameters<CheckVersionArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut pinned_line = None;
        if !version_asked(a.package.as_deref(), a.version.as_deref()) {
            match self
                .pinned(&ctx, a.package.as_deref(), Some(&a.name), a.root.as_deref())
                .await
            {
                Ok(Some(c)) => {
                    pinned_line = Some(c.version_line());
                    a.package = Some(c.release.package.clone());
                    a.version = Some(c.release.version.clone());
                }
                Ok(None) => {}
                Err(e) => return error_result(None, e),
            }
        }
        let out = self
            .blocking(move |e| {
                e.lookup()
                    .check_version(a.package.as_deref(), &a.name, a.version.as_deref())
            })
            .await?;
        match out {
            Ok(c) => {
                let first = match (&c.requested_version, c.versions.first(), c.versions.last()) {
                    (Some(_), _, _) if pinned_line.is_some() => pinned_line.unwrap_or_default(),
                    (Some(v), _, _) => c.chosen_by.clone().unwrap_or_else(|| v.clone()),
                    (None, Some(a), Some(b)) if a.version != b.version => {
                        format!("{}..{} (all indexed)", a.version, b.version)
                    }
                    (None, Some(a), _) => format!("{} (all indexed)", a.version),
                    _ => "none".into(),
                };
                Ok(ok_result(&first, check_text(&c), to_value(&c)?))
            }
            Err(e) => error_result(None, e),
        }
    }

    /// What changed between two indexed releases of a package.
    #[tool(
        description = "Migration report between two indexed releases of one package: symbols removed, added, moved, deprecated, probably renamed (with confidence); parameters removed, added, reordered, renamed, made keyword-only, new defaults and types; sync/async; OpenAPI operations, request properties, enum values, responses, security. Each change has a coarse kind (added/removed/changed/deprecated/renamed), the rule id that found it, severity (breaking/possibly-breaking/not-breaking), detail, hint, old and new signature; summary counts; paged with cursor. A removed or added class is listed without its members. Both versions must be indexed. The prompt migration_guide turns the report into rewriting instructions.",
        output_schema = schema_for_output::<DiffReport>(),
        annotations(read_only_hint = true)
    )]
    async fn diff_versions(
        &self,
        Parameters(a): Parameters<DiffArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let out = self
            .blocking(move |e| {
                e.diff().diff_versions(
                    &a.package,
                    &a.from,
                    &a.to,
                    a.breaking_only.unwrap_or(false),
                    a.limit.unwrap_or(500),
                    a.cursor.as_deref(),
                )
            })
            .await?;
        match out {
            Ok(d) => {
                let text = d.to_text();
                let mut line = format!("{} -> {}", d.from, d.to);
                for c in &d.chosen_by {
                    line.push_str("; ");
                    line.push_str(c);
                }
                Ok(ok_result(&line, text, to_value(&d)?))
            }
            Err(e) => error_result(None, e),
        }
    }

    /// The public symbols of a release.
    #[tool(
        description = "List the public API symbols of one indexed release, filtered by kind and name prefix (for an OpenAPI spec also by `tag`, and a prefix starting with `/` matches operation paths), paged with cursor.",
        output_schema = schema_for_output::<ApiList>(),
        annotations(read_only_hint = true)
    )]
    async fn list_apis(
        &self,
        Parameters(a): Parameters<ListApisArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let chosen = match self
            .choose_release(
                &ctx,
                Some(a.package.clone()),
                a.version.clone(),
                None,
                a.root.clone(),
            )
            .await
        {
            Ok(c) => c,
            Err(e) => return error_result(None, e),
        };
        let out = self
            .blocking(
                move |e| -> Result<(Chosen, ApiList), (Option<String>, AnswerError)> {
                    let l = e
                        .lookup()
                        .list_filtered(
                            &chosen,
                            a.kind.as_deref(),
                            a.prefix.as_deref(),
                            a.tag.as_deref(),
                            a.limit.unwrap_or(100),
                            a.cursor.as_deref(),
                        )
                        .map_err(|err| (Some(chosen.version_line()), err.into()))?;
                    Ok((chosen, l))
                },
            )
            .await?;
        match out {
            Ok((chosen, l)) => {
                let mut text = format!(
                    "{} of {} symbols in {}",
                    l.items.len(),
                    l.total,
                    chosen.release.release
                );
                for i in &l.items {
                    text.push_str(&format!("\n{} ({})", i.qualified_name, i.kind));
                }
                Ok(ok_result(&chosen.version_line(), text, to_value(&l)?))
            }
            Err((v, e)) => error_result(v, e),
        }
    }

    /// Concept search over docs and docstrings, each hit linked to graph entities.
    #[tool(
        description = "Search the documentation of indexed releases by meaning and by identifier: doc page sections and every symbol's docstring, ranked by BM25, sentence vectors and name matches fused. Each result has title, section path, snippet, source, package and version, content_type, score and the graph `entities` it is about (call get_api_detail on their qualified_name for exact signatures). Returns no results rather than noise when nothing is relevant: then `note` says why and `closest` holds the nearest chunks, which are not answers.",
        output_schema = schema_for_output::<DocSearch>(),
        annotations(read_only_hint = true)
    )]
    async fn search_docs(
        &self,
        Parameters(q): Parameters<DocQuery>,
    ) -> Result<CallToolResult, ErrorData> {
        let out = self.blocking(move |e| e.docs().search_docs(&q)).await?;
        match out {
            Ok((s, line)) => {
                let asked = match &s.searched_as {
                    Some(english) => format!("{:?} (searched as {english:?})", s.query),
                    None => format!("{:?}", s.query),
                };
                let mut text = match &s.note {
                    Some(n) => format!("{} results for {asked}; {n}", s.results.len()),
                    None => format!("{} results for {asked}", s.results.len()),
                };
                if !s.closest.is_empty() {
                    text.push_str("\nclosest, not answers:");
                }
                for (i, h) in s.results.iter().chain(&s.closest).enumerate() {
                    let names: Vec<&str> = h
                        .entities
                        .iter()
                        .map(|e| e.qualified_name.as_str())
                        .collect();
                    text.push_str(&format!(
                        "\n{}. {} [{} {}] ({}) {}\n   {}",
                        i + 1,
                        h.title,
                        h.package,
                        h.version,
                        h.content_type,
                        names.join(", "),
                        h.snippet
                    ));
                }
                Ok(ok_result(&line, text, to_value(&s)?))
            }
            Err(e) => error_result(None, e),
        }
    }

    /// A whole doc page (or a symbol's documentation) as Markdown.
    #[tool(
        description = "The whole page a search_docs result came from, as Markdown, with its release, source and the entities it links to. Takes a result's `page` or `id`.",
        output_schema = schema_for_output::<DocPage>(),
        annotations(read_only_hint = true)
    )]
    async fn get_page(
        &self,
        Parameters(a): Parameters<GetPageArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let out = self.blocking(move |e| e.docs().get_page(&a.id)).await?;
        match out {
            Ok(p) => Ok(ok_result(
                &p.version.clone(),
                format!("# {}\n{}\n\n{}", p.title, p.source_url, p.markdown),
                to_value(&p)?,
            )),
            Err(e) => error_result(None, e),
        }
    }

    /// The versions the client's projects use.
    #[tool(
        description = "Which release of each dependency the project uses, and why: reads the manifests and lockfiles (requirements*.txt, pyproject.toml, poetry.lock, uv.lock, Pipfile(.lock), package.json, package-lock.json, yarn.lock, pnpm-lock.yaml) of `path` or of each of the client's roots; lockfile pins first, then exact manifest pins, then the newest release a range admits. Says which are indexed. These are the versions get_api_detail, check_version and list_apis answer for when called without `version`.",
        output_schema = schema_for_output::<ProjectVersions>(),
        annotations(read_only_hint = true)
    )]
    async fn resolve_versions(
        &self,
        Parameters(a): Parameters<ResolveArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        match self
            .project_versions(&ctx, a.path, a.transitive.unwrap_or(false))
            .await
        {
            Ok(p) => Ok(ok_result(
                "per dependency, from the project's files",
                project_text(&p),
                to_value(&p)?,
            )),
            Err(e) => error_result(None, e),
        }
    }

    /// Read-only SPARQL over every indexed release.
    #[tool(
        description = "Run a read-only SPARQL 1.1 query over the knowledge graph (one named graph per release, IRI = Package URL such as <pkg:pypi/click@8.1.7>; vocabulary prefix rg: <https://refgraph.dev/ontology#>; default graph = union of all releases). Returns SPARQL results JSON. Updates are refused; queries are cut at a time limit and a row limit.",
        output_schema = any_object_schema(),
        annotations(read_only_hint = true)
    )]
    async fn sparql_query(
        &self,
        Parameters(a): Parameters<SparqlArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        // The time limit is kept here, not left to the evaluator (see `QueryLimits::answer_by`).
        let limits = self.engine.limits;
        let work = self.blocking(move |e| e.sparql(&a.query));
        let out = match tokio::time::timeout(limits.answer_by(), work).await {
            Ok(out) => out?,
            Err(_) => Err(QueryError::Timeout(limits.timeout)),
        };
        match out {
            Ok(v) => {
                let n = v["results"]["bindings"].as_array().map(Vec::len);
                let text = match n {
                    Some(n) => format!("{n} rows\n{v}"),
                    None => v.to_string(),
                };
                Ok(ok_result("all indexed releases", text, v))
            }
            Err(e) => error_result(Some("all indexed releases".into()), e),
        }
    }
}

impl RefgraphServer {
    /// Each project (`path`, else the client's roots) with every dependency resolved.
    async fn project_versions(
        &self,
        ctx: &RequestContext<RoleServer>,
        path: Option<String>,
        transitive: bool,
    ) -> Result<ProjectVersions, AnswerError> {
        let dirs = match path.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            Some(p) => vec![self.roots.explicit_root(p)?],
            None => self.roots.folders(&ctx.peer).await,
        };
        if dirs.is_empty() {
            return Err(AnswerError::BadArgument(
                "the client shares no file:// roots; pass `path`, a project folder on this machine"
                    .into(),
            ));
        }
        let roots = self.roots.clone();
        on_worker(
            &self.engine,
            move |e| -> Result<Vec<ProjectOut>, AnswerError> {
                let mut projects = Vec::new();
                for dir in dirs {
                    let project = roots.project(&dir).map_err(AnswerError::BadArgument)?;
                    let resolved = project.resolve_all(transitive, &mut |p| roots.available(e, p));
                    let mut dependencies = Vec::new();
                    for r in resolved {
                        let versions = e.indexed_versions(&r.package)?;
                        dependencies.push(crate::project::Dependency::new(r, versions));
                    }
                    projects.push(ProjectOut {
                        root: dir.display().to_string(),
                        files: project.files.clone(),
                        problems: project.problems.clone(),
                        dependencies,
                    });
                }
                Ok(projects)
            },
        )
        .await?
        .map(|projects| ProjectVersions { projects })
    }
}

fn project_text(p: &ProjectVersions) -> String {
    let mut text = String::new();
    for proj in &p.projects {
        text.push_str(&format!(
            "{} (read {})\n",
            proj.root,
            if proj.files.is_empty() {
                "nothing".to_string()
            } else {
                proj.files.join(", ")
            }
        ));
        for d in &proj.dependencies {
            let r = &d.resolution;
            text.push_str(&format!(
                "  {} {} ({}) {}\n",
                r.package,
                r.version.as_deref().unwrap_or("?"),
                r.how,
                d.state()
            ));
        }
        for problem in &proj.problems {
            text.push_str(&format!("  problem: {problem}\n"));
        }
    }
    text
}

/// Runs `f` on a blocking thread: store reads and ingests never stall the async runtime.
pub(crate) async fn on_worker<T: Send + 'static>(
    engine: &Arc<Engine>,
    f: impl FnOnce(&Engine) -> T + Send + 'static,
) -> Result<T, AnswerError> {
    let engine = engine.clone();
    tokio::task::spawn_blocking(move || f(&engine))
        .await
        .map_err(|e| AnswerError::Internal(format!("worker failed: {e}")))
}

/// Doc pages are MCP resources: `refgraph://page/<percent-encoded page id>`.
const PAGE_URI: &str = "refgraph://page/";

fn page_uri(page: &str) -> String {
    let mut out = String::from(PAGE_URI);
    for b in page.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn page_of_uri(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix(PAGE_URI)?.as_bytes();
    let mut out = Vec::with_capacity(rest.len());
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == b'%' {
            let hex = std::str::from_utf8(rest.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(rest[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The prompt that turns a migration report into rewriting instructions.
const MIGRATION_GUIDE: &str = "migration_guide";

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RefgraphServer {
    async fn list_resources(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        let pages = self
            .blocking(|e| e.text_index_handle().map(|i| i.doc_pages()))
            .await?;
        let pages = match pages {
            None => Vec::new(),
            Some(p) => p.map_err(|e| ErrorData::internal_error(e.to_string(), None))?,
        };
        let resources = pages
            .into_iter()
            .map(|c| {
                rmcp::model::Resource::new(page_uri(&c.page), c.page_title.clone())
                    .with_description(format!("{} {}: {}", c.package, c.version, c.source_url))
                    .with_mime_type("text/markdown")
            })
            .collect();
        Ok(rmcp::model::ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        let uri = request.uri.clone();
        let Some(id) = page_of_uri(&uri) else {
            return Err(ErrorData::resource_not_found(
                format!("not a refgraph page URI: {uri} (expected {PAGE_URI}...)"),
                None,
            ));
        };
        let page = self.blocking(move |e| e.docs().get_page(&id)).await?;
        match page {
            Ok(p) => {
                let text = format!(
                    "[Version: {}]\n# {}\nsource: {}\n\n{}",
                    p.version, p.title, p.source_url, p.markdown
                );
                let contents = rmcp::model::ResourceContents::TextResourceContents {
                    uri,
                    mime_type: Some("text/markdown".into()),
                    text,
                    meta: None,
                };
                Ok(rmcp::model::ReadResourceResponse::Complete(
                    rmcp::model::ReadResourceResult::new(vec![contents]),
                ))
            }
            Err(e) => Err(ErrorData::resource_not_found(e.to_string(), None)),
        }
    }

    async fn on_roots_list_changed(
        &self,
        _context: rmcp::service::NotificationContext<rmcp::RoleServer>,
    ) {
        self.roots.invalidate().await;
    }

    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let started = std::time::Instant::now();
        let logged = self.log.as_ref().map(|_| {
            (
                request.name.to_string(),
                serde_json::Value::Object(request.arguments.clone().unwrap_or_default()),
            )
        });
        let tcc = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let response = self.tool_router.call(tcc).await;
        if let (Some(log), Some((tool, args))) = (&self.log, logged) {
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            match &response {
                Ok(rmcp::model::CallToolResponse::Complete(result)) => {
                    log.record(&log_entry(&tool, args, result, ms))
                }
                // A protocol-level failure (unknown tool, bad arguments, internal error) is a
                // call that found nothing too: the maintainer reading the log must see it.
                Err(e) => log.record(&QueryLogEntry {
                    at: crate::ingest::now_rfc3339(),
                    tool,
                    arguments: args,
                    version: None,
                    results: 0,
                    is_error: true,
                    note: Some(e.message.to_string()),
                    ms,
                }),
                Ok(_) => {}
            }
        }
        response
    }

    async fn list_prompts(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, ErrorData> {
        let arg = |name: &str, description: &str| {
            let mut a = rmcp::model::PromptArgument::new(name);
            a.description = Some(description.into());
            a.required = Some(true);
            a
        };
        Ok(rmcp::model::ListPromptsResult::with_all_items(vec![
            rmcp::model::Prompt::new(
                MIGRATION_GUIDE,
                Some(
                    "Instructions for rewriting code from one indexed release of a package to \
                     another, built from the migration report: every breaking change with what \
                     to do and the old and new signatures.",
                ),
                Some(vec![
                    arg("package", "Package URL (pkg:pypi/pydantic) or bare name"),
                    arg("from", "The version the code is written against"),
                    arg("to", "The version to move to"),
                ]),
            ),
        ]))
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        if request.name != MIGRATION_GUIDE {
            return Err(ErrorData::invalid_params(
                format!(
                    "no prompt is called '{}'; prompts: {MIGRATION_GUIDE}",
                    request.name
                ),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let get = |k: &str| {
            args.get(k)
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!("{MIGRATION_GUIDE} needs the argument '{k}'"),
                        None,
                    )
                })
        };
        let (package, from, to) = (get("package")?, get("from")?, get("to")?);
        let report = self
            .blocking(move |e| {
                e.diff()
                    .diff_versions(&package, &from, &to, false, 5000, None)
            })
            .await?
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let text = report.to_migration_guide(200);
        Ok(
            rmcp::model::GetPromptResult::new(vec![rmcp::model::PromptMessage::new_text(
                rmcp::model::Role::User,
                text,
            )])
            .with_description(format!(
                "Migrating {} from {} to {}",
                report.package, report.from, report.to
            ))
            .into(),
        )
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
            .with_server_info(Implementation::new("refgraph", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "refgraph answers API questions exactly, from facts extracted from indexed releases. \
                 Every answer starts with [Version: X] naming the release it came from. Use \
                 get_api_detail for a signature, check_version to know whether a name exists in a \
                 release, get_usage_path to learn how to reach a method from the package's entry \
                 (client construction and attribute chain), related for the types a symbol \
                 takes, returns and holds, search_docs when you know what you want to do but not the name, list_apis \
                 to browse, sparql_query for anything else. Doc pages are also resources \
                 (refgraph://page/...).",
            )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn page_uris_round_trip() {
        let id = "pkg:npm/%40acme/storage@2.0.0#doc:docs/a b.md:3";
        let uri = super::page_uri(id);
        assert!(
            uri.starts_with(super::PAGE_URI)
                && !uri[super::PAGE_URI.len()..].contains(['/', '#', ' '])
        );
        assert_eq!(super::page_of_uri(&uri).as_deref(), Some(id));
        assert_eq!(super::page_of_uri("refgraph://page/%zz"), None);
        assert_eq!(super::page_of_uri("https://x"), None);
    }
}

#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("MCP session could not start: {0}")]
    Start(String),
    #[error("MCP session ended abnormally: {0}")]
    Run(String),
}

/// Serves MCP on stdin/stdout until the client disconnects. Logs go to stderr; with `log`,
/// every tool call is appended to the query log.
pub async fn serve_stdio(
    engine: Arc<Engine>,
    log: Option<Arc<QueryLog>>,
    projects: ProjectOptions,
) -> Result<(), McpError> {
    use rmcp::ServiceExt;
    engine.warm_in_background();
    let mut server = RefgraphServer::new(engine).with_projects(projects);
    if let Some(log) = log {
        server = server.with_log(log);
    }
    let server = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Start(e.to_string()))?;
    server
        .waiting()
        .await
        .map_err(|e| McpError::Run(e.to_string()))?;
    Ok(())
}
