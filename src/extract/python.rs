//! Python sources (tree-sitter-python) to the public API of a release.
//!
//! Two passes: [`parse_module`] turns one file into a [`ModuleSyntax`] (definitions, imports,
//! bindings, `__all__`) without looking at other files; [`resolve`] then follows imports across
//! modules to decide what users can import and under which names.

mod cython;
mod docstring;
mod fold;
mod protobuf;
mod resolve;
#[doc(hidden)]
pub mod skim;

use std::collections::HashSet;
use std::sync::OnceLock;

use tree_sitter::{Language, Node, Parser, Query, QueryCursor, StreamingIterator};

use crate::extract::requests::{self, CallArg, RequestFact};
use crate::extract::{SourceFile, first_error_line, line_of, text};
use crate::model::{Deprecation, Diagnostic, Param, ParamKind, ReleaseFacts};

pub use resolve::resolve;

/// The tree-sitter queries of `extractors/python/`, by file stem.
pub const QUERY_FILES: &[(&str, &str)] = &[
    (
        "definitions",
        include_str!("../../extractors/python/definitions.scm"),
    ),
    (
        "imports",
        include_str!("../../extractors/python/imports.scm"),
    ),
    (
        "assignments",
        include_str!("../../extractors/python/assignments.scm"),
    ),
    (
        "deprecations",
        include_str!("../../extractors/python/deprecations.scm"),
    ),
    (
        "attributes",
        include_str!("../../extractors/python/attributes.scm"),
    ),
    (
        "requests",
        include_str!("../../extractors/python/requests.scm"),
    ),
];

struct Queries {
    definitions: Query,
    imports: Query,
    assignments: Query,
    deprecations: Query,
    attributes: Query,
    requests: Query,
}

pub fn language() -> Language {
    tree_sitter_python::LANGUAGE.into()
}

/// Compiles every query once per process (constructing a `Query` is expensive).
fn queries() -> &'static Queries {
    static QUERIES: OnceLock<Queries> = OnceLock::new();
    QUERIES.get_or_init(|| {
        let lang = language();
        let compile = |stem: &str| {
            let src = QUERY_FILES.iter().find(|(s, _)| *s == stem).unwrap().1;
            // Guarded by a test that compiles every file; a failure here is a build defect.
            Query::new(&lang, src).unwrap_or_else(|e| panic!("extractors/python/{stem}.scm: {e}"))
        };
        Queries {
            definitions: compile("definitions"),
            imports: compile("imports"),
            assignments: compile("assignments"),
            deprecations: compile("deprecations"),
            attributes: compile("attributes"),
            requests: compile("requests"),
        }
    })
}

/// Extracts the public API of a Python release from its source files.
pub fn extract(files: &[SourceFile]) -> ReleaseFacts {
    extract_with(files, &Default::default())
}

/// [`extract`] with the given re-export limit.
pub fn extract_with(files: &[SourceFile], limits: &crate::extract::ExtractLimits) -> ReleaseFacts {
    let mut diagnostics = Vec::new();
    let mut modules = Vec::new();
    let chosen = choose_module_files(files);
    // Cython sources and the files they include, for lowering `.pyx` modules.
    let cython: std::collections::HashMap<&str, &[u8]> = files
        .iter()
        .filter(|f| crate::extract::is_cython_source(&f.path) || f.path.ends_with(".pxd"))
        .map(|f| (f.path.as_str(), f.text.as_slice()))
        .collect();
    let parsed = crate::extract::parallel_map(&chosen, |(module, file, stub)| {
        let (mut syntax, mut diags, origin) = if file.path.ends_with(".pyx") {
            parse_cython(module, file, &cython)
        } else {
            let (syntax, diags) = parse_module(module, file);
            (syntax, diags, None)
        };
        if let Some(stub) = stub {
            let (stub, mut more) = parse_module(module, stub);
            diags.append(&mut more);
            merge_stub(&mut syntax, stub);
        }
        (syntax, diags, origin)
    });
    modules.extend(namespace_packages(&chosen));
    modules.extend(compiled_modules(files, &chosen));
    let builds = build_reasons(files, &chosen);
    let mut origins = std::collections::HashMap::new();
    for (mut syntax, mut diags, origin) in parsed {
        diagnostics.append(&mut diags);
        syntax.builds = builds.get(syntax.name.as_str()).cloned();
        if let Some(origin) = origin {
            origins.insert(syntax.file.clone(), origin);
        }
        modules.push(syntax);
    }
    let parsed_at = std::time::Instant::now();
    let mut facts = resolve::resolve_with(modules, limits);
    tracing::debug!(
        resolve_s = parsed_at.elapsed().as_secs_f64(),
        modules = chosen.len(),
        "resolved the public API"
    );
    facts.files = chosen.len();
    diagnostics.append(&mut facts.diagnostics);
    facts.diagnostics = diagnostics;
    if !origins.is_empty() {
        relocate(&mut facts, &origins);
    }
    facts
}

/// The diagnostic of a file tree-sitter could not parse whole.
const SYNTAX_ERROR: &str = "syntax error; definitions in the damaged region may be missing";

/// For each line of a lowered Cython module, the file and line it came from.
type Origin = Vec<(String, usize)>;

/// A Cython module read through its lowering ([`cython::lower`]), with the map from each
/// line of the lowered text back to the `.pyx` or included `.pxi` line it came from.
fn parse_cython(
    module: &ModuleName,
    file: &SourceFile,
    cython: &std::collections::HashMap<&str, &[u8]>,
) -> (ModuleSyntax, Vec<Diagnostic>, Option<Origin>) {
    let lowered = cython::lower(&file.path, cython);
    let source = SourceFile {
        path: file.path.clone(),
        text: lowered.text.into_bytes(),
    };
    let (mut syntax, diags) = parse_module(module, &source);
    let mut unread = lowered.unread;
    // What a syntax error damaged (Cython the lowering does not know) cannot prove a "no".
    if let Some(d) = diags.iter().find(|d| d.message == SYNTAX_ERROR) {
        let (file, line) = lowered
            .origin
            .get(d.line.saturating_sub(1))
            .cloned()
            .unwrap_or_else(|| (file.path.clone(), d.line));
        unread.push(format!("{file}:{line} not read as Python"));
    }
    // A `.pxd` of the module declares its classes' C attributes, `public` and `readonly` ones
    // among them, and may declare `cpdef` functions and enums.
    let pxd = format!("{}.pxd", file.path.trim_end_matches(".pyx"));
    if cython.contains_key(pxd.as_str()) {
        unread.push(format!("{pxd} declares what the module's classes hold"));
    }
    if !unread.is_empty() {
        syntax.unread = Some(format!(
            "{} is compiled from Cython, and some of its source binds names refgraph does not \
             read ({})",
            module.dotted,
            unread.join("; ")
        ));
    }
    (syntax, diags, Some(lowered.origin))
}

/// Points every location in a lowered Cython module back at its own file and line.
fn relocate(facts: &mut ReleaseFacts, origins: &std::collections::HashMap<String, Origin>) {
    let moved = |file: &mut String, line: &mut usize| {
        if let Some((f, l)) = origins
            .get(file.as_str())
            .filter(|_| *line > 0)
            .and_then(|o| o.get(*line - 1))
        {
            *file = f.clone();
            *line = *l;
        }
    };
    for s in &mut facts.symbols {
        moved(&mut s.file, &mut s.line);
    }
    for r in &mut facts.relations {
        moved(&mut r.file, &mut r.line);
    }
    for d in &mut facts.diagnostics {
        moved(&mut d.file, &mut d.line);
    }
}

/// Maps files to dotted module names: each module's source file, and its `.pyi` stub when it
/// has both (a module with only a stub reads the stub).
fn choose_module_files(
    files: &[SourceFile],
) -> Vec<(ModuleName, &SourceFile, Option<&SourceFile>)> {
    type Slots<'f> = (
        ModuleName,
        Option<&'f SourceFile>,
        Option<&'f SourceFile>,
        Option<&'f SourceFile>,
    );
    let mut by_module: std::collections::BTreeMap<String, Slots> = Default::default();
    for f in files {
        let cython = f.path.strip_suffix(".pyx").map(|stem| format!("{stem}.py"));
        let Some(m) = module_name_for(cython.as_deref().unwrap_or(&f.path)) else {
            continue;
        };
        let package = m.is_package;
        let entry = by_module
            .entry(m.dotted.clone())
            .or_insert_with(|| (m.clone(), None, None, None));
        // A package's `__init__` shadows a module file of the same name beside its folder
        // (plotly 4 ships a stale `graph_objects.py` next to `graph_objects/__init__.py`):
        // the import system looks for the package first, and so do type checkers.
        if package && !entry.0.is_package {
            *entry = (m, None, None, None);
        } else if !package && entry.0.is_package {
            continue;
        }
        let slot = if f.path.ends_with(".pyi") {
            &mut entry.2
        } else if cython.is_some() {
            &mut entry.3
        } else {
            &mut entry.1
        };
        slot.get_or_insert(f);
    }
    // A Cython `.pyx` is read when the module has no `.py` (a pure-Python fallback of the
    // same module reads more simply).
    by_module
        .into_values()
        .filter_map(
            |(m, source, stub, cython)| match (source.or(cython), stub) {
                (Some(source), stub) => Some((m, source, stub)),
                (None, stub) => Some((m, stub?, None)),
            },
        )
        .collect()
}

/// Extension modules the release ships compiled, with neither source nor stub: they exist,
/// and what they hold is unknown.
fn compiled_modules(
    files: &[SourceFile],
    chosen: &[(ModuleName, &SourceFile, Option<&SourceFile>)],
) -> Vec<ModuleSyntax> {
    sourceless_compiled(files, chosen)
        .map(|(m, f)| ModuleSyntax {
            name: m.dotted,
            file: f.path.clone(),
            compiled: true,
            ..Default::default()
        })
        .collect()
}

/// The compiled extension modules of `files` that no chosen source or stub reads, one per
/// module, sorted by module name, with the file each comes from.
fn sourceless_compiled<'f>(
    files: &'f [SourceFile],
    chosen: &[(ModuleName, &SourceFile, Option<&SourceFile>)],
) -> impl Iterator<Item = (ModuleName, &'f SourceFile)> {
    let known: HashSet<&str> = chosen.iter().map(|(m, _, _)| m.dotted.as_str()).collect();
    let mut out: Vec<(ModuleName, &SourceFile)> = files
        .iter()
        .filter_map(|f| {
            let stem = crate::extract::compiled_module(&f.path)?;
            let m = module_name_for(&format!("{stem}.py"))?;
            (!known.contains(m.dotted.as_str())).then_some((m, f))
        })
        .collect();
    out.sort_by(|a, b| a.0.dotted.cmp(&b.0.dotted));
    out.dedup_by(|a, b| a.0.dotted == b.0.dotted);
    out.into_iter()
}

/// The compiled modules of a release's files that would be read as unknown: neither a `.py`,
/// a `.pyi` nor a `.pyx` of the module is among them. Given as path stems (`h5py/h5f`), the
/// way a Cython source of the module would be named without its extension, each with the
/// compiled file's path.
pub fn sourceless_compiled_modules(files: &[SourceFile]) -> Vec<(String, String)> {
    let chosen = choose_module_files(files);
    sourceless_compiled(files, &chosen)
        .filter_map(|(_, f)| {
            crate::extract::compiled_module(&f.path).map(|stem| (stem.to_string(), f.path.clone()))
        })
        .collect()
}

/// The packages of an unbuilt release (an sdist, a source tree) whose build makes compiled
/// modules that are not among its files, with the reason: a folder holding `.pxd`, C sources
/// or a `meson.build` ([`crate::extract::builds_in_folder`], kept by ingest only for unbuilt
/// releases), and every top-level package when `pyproject.toml` configures maturin.
fn build_reasons(
    files: &[SourceFile],
    chosen: &[(ModuleName, &SourceFile, Option<&SourceFile>)],
) -> std::collections::HashMap<String, String> {
    let packages: HashSet<&str> = chosen
        .iter()
        .filter(|(m, _, _)| m.is_package)
        .map(|(m, _, _)| m.dotted.as_str())
        .collect();
    // A `.pxd` beside a `.pyx` declares the module built from it, which is read as source.
    let sources: HashSet<&str> = chosen.iter().map(|(_, f, _)| f.path.as_str()).collect();
    let mut out = std::collections::HashMap::new();
    for f in files {
        if f.path == "pyproject.toml" && crate::extract::is_maturin_project(&f.text) {
            for top in packages.iter().filter(|p| !p.contains('.')) {
                out.entry(top.to_string()).or_insert_with(|| {
                    format!(
                        "the release is read from its sources, and pyproject.toml builds a \
                         Rust extension module (maturin) into {top}: a submodule not among its \
                         files may be that one"
                    )
                });
            }
        } else if crate::extract::builds_in_folder(&f.path)
            && !f
                .path
                .strip_suffix(".pxd")
                .is_some_and(|stem| sources.contains(format!("{stem}.pyx").as_str()))
            && let Some((folder, _)) = f.path.rsplit_once('/')
        {
            let dotted = folder.replace('/', ".");
            if packages.contains(dotted.as_str()) {
                out.entry(dotted.clone()).or_insert_with(|| {
                    format!(
                        "the release is read from its sources, and {} builds compiled modules \
                         in {dotted}: a submodule not among its files may be one of them",
                        f.path
                    )
                });
            }
        }
    }
    out
}

/// Folders of modules with no `__init__.py` inside a regular package (`flask/sansio/app.py`):
/// implicit namespace packages (PEP 420), importable as `flask.sansio`, with nothing of their
/// own.
fn namespace_packages(
    chosen: &[(ModuleName, &SourceFile, Option<&SourceFile>)],
) -> Vec<ModuleSyntax> {
    let known: HashSet<&str> = chosen.iter().map(|(m, _, _)| m.dotted.as_str()).collect();
    let packages: HashSet<&str> = chosen
        .iter()
        .filter(|(m, _, _)| m.is_package)
        .map(|(m, _, _)| m.dotted.as_str())
        .collect();
    let mut made: std::collections::BTreeSet<&str> = Default::default();
    for (m, _, _) in chosen {
        let mut name = m.dotted.as_str();
        while let Some((parent, _)) = name.rsplit_once('.') {
            if parent
                .rsplit_once('.')
                .is_some_and(|(grand, _)| packages.contains(grand))
                && !known.contains(parent)
            {
                made.insert(parent);
            }
            name = parent;
        }
    }
    // A dotted module name is its path (`module_name_for`): the folder is the name.
    made.into_iter()
        .map(|name| ModuleSyntax {
            name: name.to_string(),
            is_package: true,
            file: format!("{}/", name.replace('.', "/")),
            ..Default::default()
        })
        .collect()
}

/// Completes a module's source with its stub. The source is what runs, so its names,
/// parameters and defaults stand; the stub gives the types of the functions it declares with
/// the same parameters (what type checkers read), and what the source leaves out: docstrings,
/// overloads, and the definitions only the stub has (made at run time, as `attrs` does).
fn merge_stub(source: &mut ModuleSyntax, stub: ModuleSyntax) {
    let bound: HashSet<String> = source.bindings.iter().map(|b| b.name.clone()).collect();
    // A lazy module (lazy_loader's `attach_stub`, a module `__getattr__`) serves at run time
    // what its stub imports: the stub is its table of contents. So does a module that
    // star-imports (orjson: `from .orjson import *`, the compiled core the stub describes).
    let lazy =
        source.attaches_stub || !source.star_imports.is_empty() || source.has_module_getattr();
    if lazy {
        let defined: HashSet<&str> = source.defs.iter().map(|d| d.name.as_str()).collect();
        let from_stub: Vec<Binding> = stub
            .bindings
            .iter()
            .filter(|b| {
                !b.type_only && !bound.contains(&b.name) && !defined.contains(b.name.as_str())
            })
            // What the stub re-exports (PEP 484): declarations, the package's own modules
            // and names, and what its `__all__` lists; not `from typing import Any`.
            .filter(|b| {
                let top = source.name.split('.').next().unwrap_or("");
                let own = |m: &str| in_package(m, top);
                match &b.target {
                    BindingTarget::Value { .. } => true,
                    BindingTarget::FromImport { module, .. } | BindingTarget::Module(module) => {
                        own(module) || stub.all.iter().flatten().any(|n| n == &b.name)
                    }
                    BindingTarget::Expr(_) => stub.all.iter().flatten().any(|n| n == &b.name),
                }
            })
            .cloned()
            .collect();
        source.bindings.extend(from_stub);
        // The stub's lines are not the source's: its star imports come before anything the
        // source binds itself.
        source
            .star_imports
            .extend(stub.star_imports.iter().map(|s| StarImport {
                module: s.module.clone(),
                line: 0,
            }));
        if source.all.is_none() && source.all_refs.is_empty() {
            source.all = stub.all.clone();
            source.all_refs = stub.all_refs.clone();
        }
    }
    source.views.extend(stub_views(source, &stub, lazy));
    for mut d in stub.defs {
        if let Some(mine) = source.defs.iter_mut().find(|m| m.name == d.name) {
            merge_def(mine, d, &stub.file);
        } else if !bound.contains(&d.name) {
            in_file(&mut d, &stub.file);
            source.defs.push(d);
        }
    }
    if source.doc.is_none() {
        source.doc = stub.doc;
    }
}

/// Where a module's stub and its source disagree on the public names (issue 49, item 4): a
/// definition only the stub declares, and a definition or a binding of the package's own
/// names that the stub leaves out. A lazy module serves its stub's names, and a stub with a
/// module `__getattr__` or a star import declares more than it lists: no note for those.
fn stub_views(source: &ModuleSyntax, stub: &ModuleSyntax, lazy: bool) -> Vec<ViewNote> {
    let public = |n: &str| !n.starts_with('_');
    let mut views = Vec::new();
    if !lazy {
        let in_source = |n: &str| {
            source.defs.iter().any(|d| d.name == n) || source.bindings.iter().any(|b| b.name == n)
        };
        views.extend(
            stub.defs
                .iter()
                .filter(|d| public(&d.name) && !in_source(&d.name))
                .map(|d| ViewNote {
                    name: d.name.clone(),
                    kind: ViewKind::StubOnly,
                    at: format!("{}:{}", stub.file, d.line),
                }),
        );
    }
    if stub.has_module_getattr() || !stub.star_imports.is_empty() {
        return views;
    }
    let declared = |n: &str| {
        stub.defs.iter().any(|d| d.name == n)
            || stub.bindings.iter().any(|b| b.name == n && !b.type_only)
    };
    let top = source.name.split('.').next().unwrap_or("");
    let own = |b: &Binding| match &b.target {
        BindingTarget::FromImport { module, .. } | BindingTarget::Module(module) => {
            in_package(module, top)
        }
        BindingTarget::Value { .. } | BindingTarget::Expr(_) => true,
    };
    let from_source = source.defs.iter().map(|d| (&d.name, d.line)).chain(
        source
            .bindings
            .iter()
            .filter(|b| !b.type_only && own(b))
            .map(|b| (&b.name, b.line)),
    );
    let mut seen = HashSet::new();
    for (name, line) in from_source {
        if public(name) && !declared(name) && seen.insert(name) {
            views.push(ViewNote {
                name: name.clone(),
                kind: ViewKind::NotInStub,
                at: format!("{}:{line}", source.file),
            });
        }
    }
    views
}

/// Whether dotted module name `module` is package `top` or one of its submodules.
fn in_package(module: &str, top: &str) -> bool {
    module
        .strip_prefix(top)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// Marks `def` and its members as written in `file`, not in their module's source.
fn in_file(def: &mut Def, file: &str) {
    def.file = Some(file.to_string());
    for m in &mut def.members {
        in_file(m, file);
    }
}

fn merge_def(mine: &mut Def, stub: Def, stub_file: &str) {
    if mine.kind != stub.kind {
        return;
    }
    if mine.doc.is_none() {
        // The stub's docstring describes the source's parameters too.
        if let Some(doc) = &stub.doc {
            docstring::describe(&mut mine.params, doc);
        }
        mine.doc = stub.doc;
    }
    if mine.kind == DefKind::Function {
        let alike = mine.params.len() == stub.params.len()
            && mine
                .params
                .iter()
                .zip(&stub.params)
                .all(|(a, b)| a.name == b.name && a.kind == b.kind);
        if alike {
            // Type checkers read the stub: its types win where it states them.
            for (a, b) in mine.params.iter_mut().zip(stub.params) {
                if b.annotation.is_some() {
                    a.annotation = b.annotation;
                }
            }
            if stub.returns.is_some() {
                mine.returns = stub.returns;
            }
        }
        if mine.overloads.is_empty() && stub.overloads.len() > 1 {
            mine.overloads = stub.overloads;
        }
        return;
    }
    for mut m in stub.members {
        if let Some(own) = mine.members.iter_mut().find(|o| o.name == m.name) {
            merge_def(own, m, stub_file);
        } else if !mine.member_aliases.iter().any(|a| a.name == m.name) {
            in_file(&mut m, stub_file);
            mine.members.push(m);
        }
    }
    for a in stub.attributes {
        if !mine.attributes.iter().any(|o| o.name == a.name) {
            mine.attributes.push(a);
        }
    }
}

/// `from module import *` at `line` (1-based) of the module's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StarImport {
    /// The absolute module name.
    pub module: String,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleName {
    pub dotted: String,
    pub is_package: bool,
}

/// `click/core.py` -> `click.core`; `click/__init__.py` -> package `click`. Files outside
/// importable paths (dist-info, scripts with dashes, test folders) give `None`.
pub fn module_name_for(path: &str) -> Option<ModuleName> {
    let stem = path
        .strip_suffix(".pyi")
        .or_else(|| path.strip_suffix(".py"))?;
    let mut parts: Vec<&str> = stem.split('/').collect();
    let is_package = parts.last() == Some(&"__init__");
    if is_package {
        parts.pop();
    }
    if parts.is_empty() {
        return None;
    }
    let identifier = |p: &&str| {
        !p.is_empty()
            && p.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !p.starts_with(|c: char| c.is_ascii_digit())
    };
    if !parts.iter().all(identifier) {
        return None;
    }
    let is_test = |p: &&str| matches!(*p, "test" | "tests" | "conftest") || p.starts_with("test_");
    if parts.iter().any(is_test) || parts == ["setup"] {
        return None;
    }
    Some(ModuleName {
        dotted: parts.join("."),
        is_package,
    })
}

/// What one file says, before imports are followed.
#[derive(Debug, Clone, Default)]
pub struct ModuleSyntax {
    pub name: String,
    pub is_package: bool,
    pub file: String,
    pub doc: Option<String>,
    pub deprecation: Option<Deprecation>,
    /// The string literals of `__all__` when the module assigns it (`= [...]`, `+=`,
    /// `.extend`, `.append`); what else it adds is in `all_refs`.
    pub all: Option<Vec<String>>,
    /// The parts of `__all__` that are not literals: another module's `__all__`
    /// (`__all__ += core.__all__`), the module's own public names (`[n for n in dir() if ...]`),
    /// or an expression that cannot be read statically.
    pub all_refs: Vec<AllRef>,
    /// Module-level definitions, in source order (first definition of a name wins).
    pub defs: Vec<Def>,
    /// Module-level names bound by import or assignment, in source order.
    pub bindings: Vec<Binding>,
    /// `from M import *`, in source order.
    pub star_imports: Vec<StarImport>,
    /// `lazy_loader.attach_stub(__name__, __file__)`: the module serves, lazily, what its
    /// `.pyi` stub imports and lists in `__all__`.
    pub attaches_stub: bool,
    /// A compiled extension module with no source or stub: nothing of it can be read.
    pub compiled: bool,
    /// Why the package's submodules are not all among the release's files: an unbuilt release
    /// whose build makes compiled modules in it (see [`build_reasons`]).
    pub builds: Option<String>,
    /// Why a Cython module's names cannot all be told: constructs its source uses to bind
    /// Python names that the lowering does not read (see [`cython::Lowered::unread`]).
    pub unread: Option<String>,
    /// The names a module `__getattr__` serves, when its body can be read (`if name ==
    /// "__version__": ...` ending in `raise AttributeError`).
    pub getattr_serves: Option<Vec<String>>,
    /// A module `__getattr__` that serves only the names of a table it imports (`if name not
    /// in available: raise AttributeError`, `available` from another module): the table's
    /// local name. Once every module is read, its strings become `getattr_serves`.
    pub getattr_table: Option<String>,
    /// Module-level names bound to a literal tuple, list or set of strings, or a dict with
    /// string keys (`available = ("WMAP1", ...)`), with those strings: what another module's
    /// `getattr_table` can name. Dunders are left out (`__all__` is `all`).
    pub string_tables: Vec<(String, Vec<String>)>,
    /// A module-level statement writes the namespace at run time (`globals()[...] = ...`,
    /// `globals().update(...)`, a builder handed `globals()`): the names cannot all be told.
    pub writes_globals: bool,
    /// Module-level `obj.name = ...` with a dotted `obj`: when `obj` is one of the release's
    /// modules, the statement binds `name` in it.
    pub attribute_writes: Vec<AttributeWrite>,
    /// Names the module holds only once some code runs, with why (completing "mod.name ..."):
    /// a function's `global` binding that the module does not call itself, or another
    /// module's `mod.name = ...`. They exist once that code has run.
    pub maybe_bound: Vec<(String, String)>,
    /// Module names bound to what a call of a class or function returns, with the callee as
    /// written: `Completion = APIRemovedInV1Proxy(symbol="Completion")`, or a loop over a
    /// constant table that writes `globals()[name] = Proxy(name)`.
    pub instances: Vec<(String, String)>,
    /// Lines (first, last) that run only when an optional dependency is installed, with the
    /// test as written (`is_torch_available()`).
    pub guards: Vec<(usize, usize, String)>,
    /// Names bound only as the variable of a module-level `for` loop (`item`): they exist
    /// when the module has run, and are not its API.
    pub loop_variables: Vec<String>,
    /// Names on which type checkers and the run time disagree (issue 49, item 4): bound only
    /// under `if TYPE_CHECKING:`, declared only by the module's stub, or bound by the source
    /// and missing from its stub; with where each view stands.
    pub views: Vec<ViewNote>,
}

/// A name the type checkers' view and the run time's disagree on.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewNote {
    pub name: String,
    pub kind: ViewKind,
    /// Where the view that has the name sees it: `pkg/mod.py:12`, `pkg/mod.pyi:40`.
    pub at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// Bound only under `if TYPE_CHECKING:`: type checkers see it, the run time does not.
    TypeCheckingOnly,
    /// Declared by the stub, neither defined nor bound by the source.
    StubOnly,
    /// Bound by the source, not declared by its stub: type checkers report it missing.
    NotInStub,
}

impl ViewNote {
    /// The sentence an answer carries: what each view says, and which one the answer gives.
    pub fn text(&self, module: &str) -> String {
        let n = &self.name;
        match self.kind {
            ViewKind::TypeCheckingOnly => format!(
                "type checkers and the run time disagree: {module}.{n} is bound only under \
                 `if TYPE_CHECKING:` ({}), so `from {module} import {n}` passes a type check \
                 and fails when it runs; this answer gives the run time's view",
                self.at
            ),
            ViewKind::StubOnly => format!(
                "type checkers and the source disagree: the stub declares {module}.{n} ({}) \
                 and the source neither defines nor binds it; this answer gives the type \
                 checkers' view (the run time may make the name, as attrs does, or lack it)",
                self.at
            ),
            ViewKind::NotInStub => format!(
                "type checkers and the run time disagree: the source binds {module}.{n} ({}) \
                 and the module's stub does not declare it, so type checkers report it \
                 missing; this answer gives the run time's view",
                self.at
            ),
        }
    }
}

impl ModuleSyntax {
    /// The optional-dependency test that line `line` runs under, the innermost one.
    pub fn guard_at(&self, line: usize) -> Option<&str> {
        self.guards
            .iter()
            .filter(|(a, b, _)| (*a..=*b).contains(&line))
            .min_by_key(|(a, b, _)| b - a)
            .map(|(_, _, c)| c.as_str())
    }
}

/// `base.dialect = dialect = pysqlite.dialect`, read in the module that runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeWrite {
    /// The object written to, as spelled (`base`, `sqltypes.type_api`).
    pub object: String,
    /// The attribute set (`dialect`).
    pub name: String,
    /// A plain name the same statement binds in this module to the same value (`dialect`).
    pub via: Option<String>,
    pub line: usize,
}

impl ModuleSyntax {
    /// `names` are what the module's `__getattr__` serves: each one the module does not bind
    /// otherwise is a run-time value of it, made at the `__getattr__`'s line.
    pub fn serve(&mut self, names: Vec<String>) {
        let bound = self.names_bound();
        let line = self.getattr_line();
        let extra: Vec<Binding> =
            values_bound_at(names.iter().filter(|n| !bound.contains(n.as_str())), line).collect();
        self.bindings.extend(extra);
        self.getattr_serves = Some(names);
    }

    /// The names the module defines or binds so far.
    fn names_bound(&self) -> HashSet<&str> {
        self.defs
            .iter()
            .map(|d| d.name.as_str())
            .chain(self.bindings.iter().map(|b| b.name.as_str()))
            .collect()
    }

    /// The line of the module's `__getattr__` definition (1 when it is assigned).
    fn getattr_line(&self) -> usize {
        self.defs
            .iter()
            .find(|d| d.name == "__getattr__")
            .map_or(1, |d| d.line)
    }

    /// A module-level `__getattr__` (PEP 562), defined or assigned (`__getattr__ =
    /// _make_getattr(__name__)`), whose served names cannot be read from its body: the module
    /// can serve names its source does not bind.
    pub fn has_module_getattr(&self) -> bool {
        let defined = self
            .defs
            .iter()
            .any(|d| d.name == "__getattr__" && d.kind == DefKind::Function);
        let assigned = self.bindings.iter().any(|b| b.name == "__getattr__");
        (defined || assigned) && self.getattr_serves.is_none()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllRef {
    /// `mod.__all__`, the dotted expression as written (`core`, `_core.numeric`).
    Module(String),
    /// The public names bound in the module (a comprehension over `dir()` or `globals()`).
    Namespace,
    /// Something computed at run time: the names cannot be told statically.
    Dynamic,
}

#[derive(Debug, Clone)]
pub struct Binding {
    pub name: String,
    pub target: BindingTarget,
    pub line: usize,
    /// Bound under `if TYPE_CHECKING:`: it names types for annotations, and does not exist
    /// when the module runs, so it exports nothing.
    pub type_only: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BindingTarget {
    /// `import a.b as c` (c -> a.b), `import a.b` (a -> a).
    Module(String),
    /// `from m import x [as y]`: x in module m (or submodule m.x).
    FromImport { module: String, name: String },
    /// `Y = X` or `Y = mod.X`: a dotted expression in this module's namespace.
    Expr(String),
    /// `Y = <any other value>` (`DEFAULT = 30`, `T = TypeVar("T")`), or `Y: int` in a stub:
    /// a variable of the module, with its annotation when it has one.
    Value { annotation: Option<String> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefKind {
    Class,
    Function,
}

#[derive(Debug, Clone)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    pub line: usize,
    /// The file `line` is in when it is not the module's source: a definition (or a class
    /// member) only the module's stub has.
    pub file: Option<String>,
    pub params: Vec<Param>,
    pub returns: Option<String>,
    pub is_async: bool,
    pub doc: Option<String>,
    pub decorators: Vec<String>,
    /// Base class expressions as source text (keyword arguments such as metaclass= left out).
    pub bases: Vec<String>,
    pub deprecation: Option<Deprecation>,
    /// Overload signatures (`@overload` stubs before the implementation).
    pub overloads: Vec<Vec<Param>>,
    /// Class body: methods and nested classes (all names, private ones included).
    pub members: Vec<Def>,
    /// Class body assignments that bind a callable: `alias = name`, `x = property(f)`,
    /// `visit_Add = _make_binop("+")`.
    pub member_aliases: Vec<MemberAlias>,
    /// What a factory function returns when it is a function of its own: `def f(...): ...`
    /// followed by `return f`, the only return of the body.
    pub returned: Option<Box<Def>>,
    /// Names a class body `del`etes, with the statement's line: bindings before it are gone.
    pub deleted: Vec<(String, usize)>,
    /// Class body annotated fields `name: T [= default]`, for synthesised constructors.
    pub fields: Vec<Field>,
    /// Public instance attributes with a stated or constructed type: annotated class-level
    /// fields of a class, `self.x = ...` statements of an `__init__`.
    pub attributes: Vec<AttrFact>,
    /// HTTP requests a function's body sends with a literal path.
    pub requests: Vec<RequestFact>,
    /// `class C(Base, metaclass=Meta)` (or `with_metaclass(Meta, ...)`): `Meta` as written.
    pub metaclass: Option<String>,
    /// Every name a class body binds by assignment (`RED = 1`, `a = b = x`), any kind of value.
    pub class_names: Vec<String>,
    /// For a class that looks like a metaclass (a base `type` or `...Meta...`): what its
    /// methods set on the classes it makes.
    pub class_writes: Option<ClassWrites>,
    /// A `__call__` whose body raises before it does anything else: the exception as written
    /// (`APIRemovedInV1(symbol=self._symbol)`). Read for `__call__` only.
    pub raises: Option<String>,
}

/// What a metaclass's methods write on other objects: `klass.opts = ...` (a name), and
/// whether some write cannot be read (`setattr(klass, name, v)`, `attrs[key] = v`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClassWrites {
    pub names: Vec<String>,
    pub dynamic: bool,
}

/// Reads the writes of a metaclass's body (see [`ClassWrites`]): in each method, writes on its
/// first parameter (the class, in `__init__(cls, ...)`; the metaclass, in `__new__(mcs, ...)`)
/// or on what `...__new__(...)` returned, and `__new__`'s namespace (`attrs["x"] = v`). A
/// metaclass `__getattr__` can serve any name.
fn class_writes(body: Node, src: &[u8]) -> ClassWrites {
    let mut out = ClassWrites::default();
    let mut c = body.walk();
    let methods: Vec<Node> = body
        .named_children(&mut c)
        .map(|n| match n.kind() {
            "decorated_definition" => n.child_by_field_name("definition").unwrap_or(n),
            _ => n,
        })
        .filter(|n| n.kind() == "function_definition")
        .collect();
    for method in methods {
        let name = method.child_by_field_name("name").map(|n| text(n, src));
        if matches!(name, Some("__getattr__" | "__getattribute__")) {
            out.dynamic = true;
        }
        let params: Vec<String> = method
            .child_by_field_name("parameters")
            .map(|p| parse_params(p, src).into_iter().map(|p| p.name).collect())
            .unwrap_or_default();
        let mut receivers: Vec<String> = params.first().cloned().into_iter().collect();
        let namespace = (name == Some("__new__"))
            .then(|| params.get(3).cloned())
            .flatten();
        let Some(body) = method.child_by_field_name("body") else {
            continue;
        };
        let mut stack = vec![body];
        let mut nodes = Vec::new();
        while let Some(node) = stack.pop() {
            if matches!(
                node.kind(),
                "function_definition" | "class_definition" | "lambda"
            ) {
                continue;
            }
            nodes.push(node);
            let mut c = node.walk();
            stack.extend(node.named_children(&mut c));
        }
        nodes.sort_by_key(|n| n.start_byte());
        for node in nodes {
            match node.kind() {
                "assignment" | "augmented_assignment" => {
                    let Some(left) = node.child_by_field_name("left") else {
                        continue;
                    };
                    let object = left.child_by_field_name("object").map(|o| text(o, src));
                    match left.kind() {
                        // `cls = super().__new__(mcs, name, bases, attrs)`: the class made.
                        "identifier"
                            if node
                                .child_by_field_name("right")
                                .is_some_and(|r| text(r, src).contains("__new__(")) =>
                        {
                            receivers.push(text(left, src).to_string());
                        }
                        "attribute" if object.is_some_and(|o| receivers.iter().any(|r| r == o)) => {
                            if let Some(a) = left.child_by_field_name("attribute") {
                                out.names.push(text(a, src).to_string());
                            }
                        }
                        "subscript"
                            if left
                                .child_by_field_name("value")
                                .is_some_and(|v| Some(text(v, src)) == namespace.as_deref()) =>
                        {
                            let key = left.child_by_field_name("subscript");
                            match key.and_then(|k| string_literal_value(text(k, src))) {
                                Some(k) => out.names.push(k),
                                None => out.dynamic = true,
                            }
                        }
                        _ => {}
                    }
                }
                "call"
                    if node
                        .child_by_field_name("function")
                        .is_some_and(|f| text(f, src) == "setattr") =>
                {
                    let mut c = node.walk();
                    let args: Vec<Node> = node
                        .child_by_field_name("arguments")
                        .map(|a| a.named_children(&mut c).collect())
                        .unwrap_or_default();
                    let on_class = args
                        .first()
                        .is_some_and(|o| receivers.iter().any(|r| r == text(*o, src)));
                    if on_class {
                        match args
                            .get(1)
                            .and_then(|n| string_literal_value(text(*n, src)))
                        {
                            Some(n) => out.names.push(n),
                            None => out.dynamic = true,
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// A class-body assignment binding a callable under a name (each target of `a = b = x`).
#[derive(Debug, Clone, PartialEq)]
pub struct MemberAlias {
    pub name: String,
    pub value: AliasValue,
    /// The assignment's line: a later binding of the same name replaces an earlier one.
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AliasValue {
    /// `alias = name`.
    Name(String),
    /// `x = staticmethod(f)`, `classmethod(f)`, `property(fget, ..., doc="...")`: the wrapper,
    /// `f` when it is a plain name, and the `doc=` string.
    Wrapped {
        wrapper: &'static str,
        target: Option<String>,
        doc: Option<String>,
    },
    /// `x = factory(...)`: the function that `factory` (of this class or module) returns.
    Made(String),
}

/// An attribute whose type the source states: `customers: CustomerService` in a class body,
/// `self.customers = CustomerService(self)` or `self.timeout: float = t` in `__init__`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrFact {
    pub name: String,
    pub annotation: Option<String>,
    /// The callee when the value is a call (`CustomerService`), a class to construct.
    pub constructed: Option<String>,
    pub line: usize,
    /// The statement, whitespace collapsed.
    pub evidence: String,
}

#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub annotation: String,
    pub default: Option<String>,
}

impl Def {
    /// A function of that name with nothing known about it yet.
    pub fn function(name: &str) -> Def {
        Def {
            name: name.to_string(),
            kind: DefKind::Function,
            line: 0,
            file: None,
            params: vec![],
            returns: None,
            is_async: false,
            doc: None,
            decorators: vec![],
            bases: vec![],
            deprecation: None,
            overloads: vec![],
            members: vec![],
            member_aliases: vec![],
            returned: None,
            deleted: vec![],
            fields: vec![],
            attributes: vec![],
            requests: vec![],
            metaclass: None,
            class_names: vec![],
            class_writes: None,
            raises: None,
        }
    }

    pub fn has_decorator(&self, names: &[&str]) -> bool {
        self.decorators.iter().any(|d| {
            let head = d.split('(').next().unwrap_or(d);
            let last = head.rsplit('.').next().unwrap_or(head);
            names.contains(&last)
        })
    }
}

/// Parses one module file. Syntax errors become diagnostics; whatever parsed is kept.
pub fn parse_module(module: &ModuleName, file: &SourceFile) -> (ModuleSyntax, Vec<Diagnostic>) {
    parse_file(module, file, true)
}

/// [`parse_module`] without blanking any function body ([`skim`]): what skimming must agree
/// with, for the tests that hold it to that on real releases.
#[doc(hidden)]
pub fn parse_module_whole(
    module: &ModuleName,
    file: &SourceFile,
) -> (ModuleSyntax, Vec<Diagnostic>) {
    parse_file(module, file, false)
}

fn parse_file(
    module: &ModuleName,
    file: &SourceFile,
    skimming: bool,
) -> (ModuleSyntax, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut syntax = ModuleSyntax {
        name: module.dotted.clone(),
        is_package: module.is_package,
        file: file.path.clone(),
        ..Default::default()
    };
    let whole = file.text.as_slice();
    if std::str::from_utf8(whole).is_err() {
        diags.push(Diagnostic {
            file: file.path.clone(),
            line: 1,
            message: "file is not valid UTF-8; skipped".into(),
        });
        return (syntax, diags);
    }
    let Some((skimmed, tree)) = parse_tree(file, skimming) else {
        diags.push(Diagnostic {
            file: file.path.clone(),
            line: 1,
            message: "parser gave up on this file; skipped".into(),
        });
        return (syntax, diags);
    };
    let src = skimmed.as_deref().unwrap_or(whole);
    let root = tree.root_node();
    if root.has_error() {
        let line = first_error_line(root).unwrap_or(1);
        diags.push(Diagnostic {
            file: file.path.clone(),
            line,
            message: SYNTAX_ERROR.into(),
        });
    }
    syntax.doc = docstring_of_block(root, src);
    if let Some(doc) = &syntax.doc {
        syntax.deprecation = docstring_deprecation(doc);
    }
    let q = queries();
    // Only the module body, class bodies and the blocks of module-level `if`/`try`/`with` can
    // hold API; the queries run on those nodes alone and never walk into function bodies.
    let mut scope = Scope {
        src,
        defs: Vec::new(),
        statements: Vec::new(),
        deletions: Vec::new(),
        type_checking: Vec::new(),
        type_checking_else: Vec::new(),
        guards: Vec::new(),
        loops: Vec::new(),
    };
    scope.walk(root);
    syntax.guards = scope
        .guards
        .iter()
        .map(|(r, c)| (*r.start(), *r.end(), c.clone()))
        .collect();
    collect_defs(&q.definitions, &scope.defs, src, &mut syntax);
    collect_imports(&q.imports, &scope.statements, src, &mut syntax);
    // Constants over literal tables, read with what the definitions and imports bind.
    let folder = fold::Folder::new(&scope.statements, src, &syntax);
    collect_assignments(&q.assignments, &scope.statements, src, &folder, &mut syntax);
    // Before the deletions: `del item` after the loop unbinds it.
    bind_loop_variables(&scope, &folder, &mut syntax);
    collect_deletions(&scope.deletions, src, &mut syntax);
    collect_lazy_attach(&scope.statements, src, &mut syntax);
    if contains(whole, b"global ") {
        collect_global_bindings(root, &scope.statements, src, &mut syntax);
    }
    // A module protoc generated: what its descriptor makes the builder bind.
    let generated = contains(whole, b"AddSerializedFile(")
        .then(|| protobuf_module(&scope.statements, src, &mut syntax))
        .flatten();
    // Module-level loops over a constant table that bind names through `globals()[...]`.
    let loops = if contains(whole, b"globals()[") || folder.has_namespace_alias() {
        globals_loops(root, &folder, &mut syntax)
    } else {
        Vec::new()
    };
    let in_loop = |at: usize| loops.iter().any(|r| r.contains(&at));
    // Module-level statements, or a function that writes the module's globals when called.
    syntax.writes_globals = scope.statements.iter().any(|stmt| {
        let t = text(*stmt, src);
        (folder.writes_namespace(*stmt) || t.contains("sys.modules[__name__]"))
            && !in_loop(stmt.start_byte())
            && !generated
                .as_ref()
                .is_some_and(|read| read.contains(&stmt.start_byte()))
    }) || [
        &b"globals().update("[..],
        b"globals().setdefault(",
        b"locals()[",
    ]
    .iter()
    .any(|w| contains(whole, w))
        || whole
            .windows(b"globals()[".len())
            .enumerate()
            .any(|(at, w)| w == b"globals()[" && !in_loop(at));
    match scope
        .defs
        .iter()
        .find(|d| {
            d.kind() == "function_definition"
                && enclosing_def(**d).is_none()
                && d.child_by_field_name("name")
                    .is_some_and(|n| text(n, src) == "__getattr__")
        })
        .and_then(|d| getattr_served(*d, &scope.statements, src))
    {
        Some(Served::Names(served)) => syntax.serve(served),
        Some(Served::Imported(table)) => syntax.getattr_table = Some(table),
        None => {}
    }
    syntax.string_tables = string_tables(&scope.statements, src);
    if !scope.type_checking.is_empty() {
        type_checking_view(&mut syntax, &scope, src);
    }
    bind_served_metadata(&mut syntax);
    // Deprecation warnings sit inside function bodies; skip the walk when none can be there.
    if contains(whole, b"warn(") && contains(whole, b"Warning") {
        collect_deprecation_warnings(&q.deprecations, root, src, &mut syntax);
    }
    (syntax, diags)
}

/// What `if TYPE_CHECKING:` blocks bind: names for type checkers only, unless a lazy module
/// serves them at run time (an `else:` branch, a module `__getattr__`, a module replaced in
/// `sys.modules`); the package's own names bound for type checkers only are noted
/// ([`ViewKind::TypeCheckingOnly`]).
fn type_checking_view(syntax: &mut ModuleSyntax, scope: &Scope<'_>, src: &[u8]) {
    let typing = |line: usize| scope.type_checking.iter().any(|r| r.contains(&line));
    // A lazy module names its exports for type checkers under `if TYPE_CHECKING:` and
    // serves them at run time from an `else:` branch (transformers' `_LazyModule`) or from
    // a module `__getattr__` (pydantic 2, scipy): there the names exist when the module
    // runs, and a run-time binding of the same name stands before them.
    // Under a module `__getattr__` only the package's own names are promoted: an import
    // of `typing.Iterator` for annotations is not something it serves.
    let getattr = syntax.has_module_getattr();
    let top = syntax.name.split('.').next().unwrap_or("").to_string();
    let own = |t: &BindingTarget| match t {
        BindingTarget::FromImport { module, .. } | BindingTarget::Module(module) => {
            in_package(module, &top)
        }
        _ => true,
    };
    let with_else = |line: usize| scope.type_checking_else.iter().any(|r| r.contains(&line));
    let runtime: HashSet<String> = syntax
        .bindings
        .iter()
        .filter(|b| !typing(b.line))
        .map(|b| b.name.clone())
        .chain(
            syntax
                .defs
                .iter()
                .filter(|d| !typing(d.line))
                .map(|d| d.name.clone()),
        )
        .collect();
    let served = |n: &str| {
        syntax
            .getattr_serves
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == n))
    };
    // `sys.modules[__name__] = _LazyModule(...)` (transformers): what users reach is the
    // lazy module, which serves the names listed for type checkers; the module's own
    // imports are gone, so a name it both imports and lists (`is_torch_available`) is
    // the listed one.
    let replaced = scope
        .statements
        .iter()
        .any(|stmt| squeezed(text(*stmt, src)).starts_with("sys.modules[__name__]="));
    for b in &mut syntax.bindings {
        let lazy = with_else(b.line) || getattr && own(&b.target);
        b.type_only = typing(b.line)
            && ((!replaced && runtime.contains(&b.name)) || !(lazy || served(&b.name)));
    }
    // The package's own names bound for type checkers only: `from pkg.mod import Name`
    // type-checks and fails when it runs. (Whether the run time binds the name some
    // other way, a star import, is told once imports are followed.)
    let file = syntax.file.clone();
    let typing_only = syntax
        .bindings
        .iter()
        .filter(|b| b.type_only && own(&b.target))
        .map(|b| (&b.name, b.line))
        .chain(
            syntax
                .defs
                .iter()
                .filter(|d| typing(d.line))
                .map(|d| (&d.name, d.line)),
        )
        .filter(|(n, _)| !n.starts_with('_') && !runtime.contains(*n))
        .map(|(n, line)| ViewNote {
            name: n.clone(),
            kind: ViewKind::TypeCheckingOnly,
            at: format!("{file}:{line}"),
        })
        .collect::<Vec<_>>();
    syntax.views.extend(typing_only);
    if replaced {
        syntax.bindings.retain(|b| typing(b.line));
    }
    // Classes and functions defined for type checkers only do not exist at run time.
    syntax.defs.retain(|d| !typing(d.line));
}

/// The syntax tree of `file`, with the text it was parsed from when that is not the file's
/// own: function bodies no fact comes from are blanked first ([`skim`]; stubs have none to
/// blank). A skimmed file that does not parse clean is parsed whole, so that a syntax error
/// is reported where the file has it.
fn parse_tree(file: &SourceFile, skimming: bool) -> Option<(Option<Vec<u8>>, tree_sitter::Tree)> {
    let mut parser = Parser::new();
    parser
        .set_language(&language())
        .expect("tree-sitter-python grammar matches the tree-sitter version");
    let skimmed = (skimming && !file.path.ends_with(".pyi"))
        .then(|| skim::skim(&file.text))
        .flatten()
        .and_then(|text| {
            let tree = parser.parse(&text, None)?;
            (!tree.root_node().has_error()).then_some((Some(text), tree))
        });
    skimmed.or_else(|| Some((None, parser.parse(&file.text, None)?)))
}

/// A module `__getattr__` that serves the package's metadata lists what it serves in
/// `__all__` (attrs: `__version__`, `__author__`, ... read from the installed metadata):
/// a dunder `__all__` names and nothing binds is served there. (A `__getattr__` read
/// whole, `getattr_serves`, already says what it serves; other unbound names of `__all__`
/// may be submodules or stale, and stay unknown.)
fn bind_served_metadata(syntax: &mut ModuleSyntax) {
    if syntax.has_module_getattr()
        && let Some(all) = &syntax.all
    {
        let bound = syntax.names_bound();
        let line = syntax.getattr_line();
        let dunders = all
            .iter()
            .filter(|n| n.len() > 4 && n.starts_with("__") && n.ends_with("__"))
            .filter(|n| !bound.contains(n.as_str()));
        let served: Vec<Binding> = values_bound_at(dunders, line).collect();
        syntax.bindings.extend(served);
    }
}

/// Run-time values of the module named `names`, bound at `line` (by a `__getattr__`).
fn values_bound_at<'a>(
    names: impl Iterator<Item = &'a String>,
    line: usize,
) -> impl Iterator<Item = Binding> {
    names.map(move |n| Binding {
        name: n.clone(),
        target: BindingTarget::Value { annotation: None },
        line,
        type_only: false,
    })
}

/// The definitions and simple statements in scopes that can hold API.
struct Scope<'t> {
    src: &'t [u8],
    defs: Vec<Node<'t>>,
    statements: Vec<Node<'t>>,
    /// `del` statements (of class bodies and of the module).
    deletions: Vec<Node<'t>>,
    /// The lines of `if TYPE_CHECKING:` blocks.
    type_checking: Vec<std::ops::RangeInclusive<usize>>,
    /// The module-level ones that have an `else:` (the run-time way to the same names).
    type_checking_else: Vec<std::ops::RangeInclusive<usize>>,
    /// Blocks that run only when an optional dependency is there, with the test.
    guards: Vec<(std::ops::RangeInclusive<usize>, String)>,
    /// Module-level `for` loops: their variables stay bound in the module after the loop.
    loops: Vec<Node<'t>>,
}

impl<'t> Scope<'t> {
    fn walk(&mut self, block: Node<'t>) {
        let mut cursor = block.walk();
        for child in block.named_children(&mut cursor) {
            if matches!(child.kind(), "try_statement" | "if_statement") {
                self.guard(child);
            }
            match child.kind() {
                // A branch only Python 2 takes (`if PY2:`) binds nothing today, and a script's
                // `if __name__ == "__main__":` nothing on import: walk the other branches.
                "if_statement" | "elif_clause"
                    if child.child_by_field_name("condition").is_some_and(|c| {
                        let c = text(c, self.src);
                        python2_only(c) || runs_as_script(c)
                    }) =>
                {
                    let mut c = child.walk();
                    let rest: Vec<Node<'t>> = child
                        .children_by_field_name("alternative", &mut c)
                        .collect();
                    for alternative in rest {
                        self.walk(alternative);
                    }
                }
                "delete_statement" => self.deletions.push(child),
                "if_statement"
                    if child.child_by_field_name("condition").is_some_and(|c| {
                        let c = text(c, self.src);
                        c.rsplit('.').next() == Some("TYPE_CHECKING")
                    }) =>
                {
                    if let Some(block) = child.child_by_field_name("consequence") {
                        let range = line_of(block)..=block.end_position().row + 1;
                        // Only a module-level block with an `else:` is a lazy module's list.
                        if child.child_by_field_name("alternative").is_some()
                            && enclosing_def(child).is_none()
                        {
                            self.type_checking_else.push(range.clone());
                        }
                        self.type_checking.push(range);
                    }
                    self.walk(child);
                }
                "decorated_definition" => {
                    if let Some(def) = child.child_by_field_name("definition") {
                        self.definition(def);
                    }
                }
                "class_definition" | "function_definition" => self.definition(child),
                "expression_statement" | "import_statement" | "import_from_statement" => {
                    self.statements.push(child)
                }
                "for_statement" => {
                    if enclosing_def(child).is_none() {
                        self.loops.push(child);
                    }
                    self.walk(child);
                }
                // A loop's body binds its names at module level as any branch does
                // (transformers imports `is_tokenizers_available` inside a `for`).
                "if_statement" | "try_statement" | "with_statement" | "while_statement"
                | "elif_clause" | "else_clause" | "except_clause" | "finally_clause" | "block" => {
                    self.walk(child)
                }
                _ => {}
            }
        }
    }

    /// Records the block of `node` that runs only when an optional dependency is installed,
    /// the way transformers and its kin test it:
    /// `try: if not is_torch_available(): raise ... except ...: ... else: <block>` or
    /// `if is_torch_available(): <block>`.
    fn guard(&mut self, node: Node<'t>) {
        let optional = |c: &str| c.contains("_available(");
        let (cond, block) = match node.kind() {
            "if_statement" => {
                let Some(c) = node.child_by_field_name("condition") else {
                    return;
                };
                (c, node.child_by_field_name("consequence"))
            }
            _ => {
                let Some(body) = node.child_by_field_name("body") else {
                    return;
                };
                let first = body.named_child(0).filter(|s| s.kind() == "if_statement");
                let raises = first
                    .and_then(|f| f.child_by_field_name("consequence"))
                    .and_then(|c| c.named_child(0))
                    .is_some_and(|r| r.kind() == "raise_statement");
                let Some(c) = first
                    .filter(|_| raises)
                    .and_then(|f| f.child_by_field_name("condition"))
                    .filter(|c| c.kind() == "not_operator")
                    .and_then(|c| c.child_by_field_name("argument"))
                else {
                    return;
                };
                let mut w = node.walk();
                let otherwise = node
                    .named_children(&mut w)
                    .find(|n| n.kind() == "else_clause");
                (c, otherwise)
            }
        };
        // `not (a() and b())`: the test is what is inside the parentheses.
        let mut cond = cond;
        while cond.kind() == "parenthesized_expression"
            && let Some(inner) = cond.named_child(0)
        {
            cond = inner;
        }
        let cond = text(cond, self.src);
        if let Some(block) = block
            && optional(cond)
        {
            let cond = collapse_ws(cond);
            self.guards
                .push((line_of(block)..=block.end_position().row + 1, cond));
        }
    }

    fn definition(&mut self, def: Node<'t>) {
        self.defs.push(def);
        if def.kind() == "class_definition"
            && let Some(body) = def.child_by_field_name("body")
        {
            self.walk(body);
        }
    }
}

/// `__name__ == "__main__"`, either way round, either quotes.
fn runs_as_script(condition: &str) -> bool {
    let c = squeezed(condition).replace('\'', "\"");
    c == "__name__==\"__main__\"" || c == "\"__main__\"==__name__"
}

/// A condition without its whitespace, for comparing with the spellings above and below.
fn squeezed(condition: &str) -> String {
    condition.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether an `if` condition holds on Python 2 only: `PY2`, `six.PY2`, `not PY3`,
/// `sys.version_info < (3,)`, `sys.version_info[0] == 2`, `sys.version_info.major < 3`.
fn python2_only(condition: &str) -> bool {
    let c = squeezed(condition);
    let dotted = |s: &str, flags: &[&str]| {
        s.chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.')
            && flags.contains(&s.rsplit('.').next().unwrap_or(s))
    };
    if dotted(&c, &["PY2", "_PY2", "IS_PY2", "PYTHON2"]) {
        return true;
    }
    if let Some(rest) = c.strip_prefix("not")
        && dotted(rest, &["PY3", "_PY3", "IS_PY3", "PYTHON3"])
    {
        return true;
    }
    c.strip_prefix("sys.version_info").is_some_and(|rest| {
        matches!(
            rest,
            "<(3,)"
                | "<(3,0)"
                | "<(3,0,0)"
                | "[0]<3"
                | "[0]==2"
                | "[0]<=2"
                | ".major<3"
                | ".major==2"
                | ".major<=2"
                | "[:1]==(2,)"
        )
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The nearest enclosing class or function definition of `node` (not `node` itself).
fn enclosing_def(node: Node) -> Option<Node> {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if matches!(n.kind(), "class_definition" | "function_definition") {
            return Some(n);
        }
        cur = n.parent();
    }
    None
}

/// Path of class names from the module down to `node`'s container, or `None` when some
/// container is a function (the definition is local, not API).
fn class_path(node: Node, src: &[u8]) -> Option<Vec<String>> {
    let mut path = Vec::new();
    let mut cur = enclosing_def(node);
    while let Some(n) = cur {
        if n.kind() == "function_definition" {
            return None;
        }
        path.push(text(n.child_by_field_name("name")?, src).to_string());
        cur = enclosing_def(n);
    }
    path.reverse();
    Some(path)
}

fn collect_defs(query: &Query, nodes: &[Node], src: &[u8], syntax: &mut ModuleSyntax) {
    let mut cursor = QueryCursor::new();
    cursor.set_max_start_depth(Some(0));
    for node in nodes {
        collect_def(query, &mut cursor, *node, src, syntax);
    }
    for d in &mut syntax.defs {
        fold_overloads(d);
    }
    fold_overloads_list(&mut syntax.defs);
}

fn collect_def(
    query: &Query,
    cursor: &mut QueryCursor,
    root: Node,
    src: &[u8],
    syntax: &mut ModuleSyntax,
) {
    let mut matches = cursor.matches(query, root, src);
    let names = query.capture_names();
    while let Some(m) = matches.next() {
        let mut def_node = None;
        let mut params = None;
        let mut returns = None;
        let mut bases = None;
        let mut body = None;
        for c in m.captures() {
            match names[c.index as usize] {
                "definition.class" | "definition.function" => def_node = Some(c.node),
                "params" => params = Some(c.node),
                "returns" => returns = Some(c.node),
                "bases" => bases = Some(c.node),
                "body" => body = Some(c.node),
                _ => {}
            }
        }
        let Some(node) = def_node else { continue };
        let Some(path) = class_path(node, src) else {
            continue;
        };
        let def = build_def(node, params, returns, bases, body, src);
        insert_def(&mut syntax.defs, &path, def);
    }
}

fn insert_def(defs: &mut Vec<Def>, path: &[String], def: Def) {
    match path.split_first() {
        None => defs.push(def),
        Some((head, rest)) => {
            // The last class of that name is the one in scope at this point of the file.
            if let Some(parent) = defs
                .iter_mut()
                .rev()
                .find(|d| d.kind == DefKind::Class && &d.name == head)
            {
                insert_def(&mut parent.members, rest, def);
            }
        }
    }
}

/// Merges `@overload` stubs into the implementation that follows them, and property setters
/// into their getter; recursively for class members.
fn fold_overloads(def: &mut Def) {
    for m in &mut def.members {
        fold_overloads(m);
    }
    fold_overloads_list(&mut def.members);
}

fn fold_overloads_list(defs: &mut Vec<Def>) {
    let mut out: Vec<Def> = Vec::with_capacity(defs.len());
    let mut pending: Vec<(String, Vec<Param>, Def)> = Vec::new();
    for d in defs.drain(..) {
        if d.kind == DefKind::Function && d.has_decorator(&["overload"]) {
            pending.push((d.name.clone(), d.params.clone(), d));
            continue;
        }
        // `@x.setter` / `@x.deleter`: part of the property `x` already seen.
        if d.kind == DefKind::Function
            && d.decorators.iter().any(|dec| {
                dec == &format!("{}.setter", d.name) || dec == &format!("{}.deleter", d.name)
            })
            && out.iter().any(|o| o.name == d.name)
        {
            continue;
        }
        let mut d = d;
        if d.kind == DefKind::Function {
            let mine: Vec<Vec<Param>> = pending
                .iter()
                .filter(|(n, _, _)| *n == d.name)
                .map(|(_, p, _)| p.clone())
                .collect();
            if !mine.is_empty() {
                pending.retain(|(n, _, _)| *n != d.name);
                d.overloads = mine;
            }
        }
        out.push(d);
    }
    // Overloads without an implementation (stubs): the first one stands for the function.
    let mut seen: Vec<String> = Vec::new();
    for (name, _, stub) in pending {
        if seen.contains(&name) || out.iter().any(|o| o.name == name) {
            if let Some(first) = out.iter_mut().find(|o| o.name == name) {
                first.overloads.push(stub.params);
            }
            continue;
        }
        seen.push(name);
        let mut first = stub;
        first.overloads.push(first.params.clone());
        out.push(first);
    }
    *defs = out;
}

/// The exception a body raises before anything else (after its docstring), as written.
fn raises_first(body: Node, src: &[u8]) -> Option<String> {
    let mut c = body.walk();
    let first = body
        .named_children(&mut c)
        .filter(|s| s.kind() != "comment")
        .find(|s| {
            !(s.kind() == "expression_statement"
                && s.named_child(0).is_some_and(|n| n.kind() == "string"))
        })?;
    (first.kind() == "raise_statement")
        .then(|| first.named_child(0))
        .flatten()
        .map(|e| collapse_ws(text(e, src)))
}

fn build_def(
    node: Node,
    params: Option<Node>,
    returns: Option<Node>,
    bases: Option<Node>,
    body: Option<Node>,
    src: &[u8],
) -> Def {
    let name = node
        .child_by_field_name("name")
        .map(|n| text(n, src).to_string())
        .unwrap_or_default();
    let kind = if node.kind() == "class_definition" {
        DefKind::Class
    } else {
        DefKind::Function
    };
    let mut decorators = Vec::new();
    let mut line = line_of(node);
    if let Some(parent) = node.parent()
        && parent.kind() == "decorated_definition"
    {
        let mut cursor = parent.walk();
        for child in parent.named_children(&mut cursor) {
            if child.kind() == "decorator" {
                let t = text(child, src).trim_start_matches('@').trim();
                decorators.push(collapse_ws(t));
            }
        }
        line = line_of(parent);
    }
    // `async def`: the first token of the function definition.
    let is_async = kind == DefKind::Function && node.child(0).is_some_and(|c| c.kind() == "async");
    let doc = body.and_then(|b| docstring_of_block(b, src));
    let mut deprecation = decorator_deprecation(&decorators);
    if deprecation.is_none() {
        deprecation = doc.as_deref().and_then(docstring_deprecation);
    }
    let mut def = Def {
        name,
        kind,
        line,
        file: None,
        params: params.map(|p| parse_params(p, src)).unwrap_or_default(),
        returns: returns.map(|r| collapse_ws(text(r, src))),
        is_async,
        doc,
        decorators,
        bases: Vec::new(),
        deprecation,
        overloads: Vec::new(),
        members: Vec::new(),
        member_aliases: Vec::new(),
        returned: None,
        deleted: Vec::new(),
        fields: Vec::new(),
        attributes: Vec::new(),
        requests: Vec::new(),
        metaclass: None,
        class_names: Vec::new(),
        class_writes: None,
        raises: None,
    };
    if let Some(doc) = &def.doc {
        docstring::describe(&mut def.params, doc);
    }
    if kind == DefKind::Function
        && let Some(b) = body
    {
        def.requests = body_requests(b, src);
        def.returned = returned_def(b, src).map(Box::new);
    }
    if def.name == "__init__"
        && let (Some(b), Some(p)) = (body, params)
    {
        def.attributes = init_attributes(node, p, b, src);
    }
    if def.name == "__call__" {
        def.raises = body.and_then(|b| raises_first(b, src));
    }
    if let Some(b) = bases {
        let mut cursor = b.walk();
        for arg in b.named_children(&mut cursor) {
            if arg.kind() == "keyword_argument"
                && arg
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, src) == "metaclass")
            {
                def.metaclass = arg
                    .child_by_field_name("value")
                    .map(|v| collapse_ws(text(v, src)));
            }
            if matches!(
                arg.kind(),
                "keyword_argument" | "comment" | "dictionary_splat" | "list_splat"
            ) {
                continue;
            }
            // six/future style `with_metaclass(Meta, Base1, Base2)`: the bases are the rest.
            if arg.kind() == "call"
                && arg
                    .child_by_field_name("function")
                    .is_some_and(|f| text(f, src).rsplit('.').next() == Some("with_metaclass"))
            {
                if let Some(args) = arg.child_by_field_name("arguments") {
                    let mut c = args.walk();
                    def.metaclass = args
                        .named_children(&mut c)
                        .find(|a| a.kind() != "comment")
                        .map(|a| collapse_ws(text(a, src)));
                    let mut c = args.walk();
                    def.bases.extend(
                        args.named_children(&mut c)
                            .filter(|a| a.kind() != "comment")
                            .skip(1)
                            .map(|a| collapse_ws(text(a, src))),
                    );
                }
                continue;
            }
            def.bases.push(collapse_ws(text(arg, src)));
        }
        let metaclass_like = def.bases.iter().any(|b| {
            let last = b.rsplit('.').next().unwrap_or(b);
            last == "type" || last.contains("Meta")
        });
        if metaclass_like && let Some(body) = body {
            def.class_writes = Some(class_writes(body, src));
        }
    }
    def
}

/// A factory's product: the function defined in `body` whose name the body's only `return`
/// gives (`def visitor(self, node): ...` then `return visitor`).
fn returned_def(body: Node, src: &[u8]) -> Option<Def> {
    let mut cursor = body.walk();
    let statements: Vec<Node> = body.named_children(&mut cursor).collect();
    // Cheap test first: most bodies define no function.
    if !statements
        .iter()
        .any(|s| matches!(s.kind(), "function_definition" | "decorated_definition"))
    {
        return None;
    }
    let mut returns = Vec::new();
    returns_of(body, &mut returns);
    let [ret] = returns[..] else {
        return None;
    };
    if ret.parent() != Some(body) {
        return None;
    }
    let mut value = ret.named_child(0)?;
    // `return t.cast(F, f)`: `cast` returns its second argument unchanged.
    if value.kind() == "call"
        && value
            .child_by_field_name("function")
            .is_some_and(|f| text(f, src).rsplit('.').next() == Some("cast"))
        && let Some(args) = value.child_by_field_name("arguments")
        && args.named_child_count() == 2
    {
        value = args.named_child(1)?;
    }
    if value.kind() != "identifier" {
        return None;
    }
    let name = text(value, src);
    let def = statements
        .iter()
        .filter(|s| s.start_byte() < ret.start_byte())
        .filter_map(|s| match s.kind() {
            "decorated_definition" => s.child_by_field_name("definition"),
            _ => Some(*s),
        })
        .filter(|d| d.kind() == "function_definition")
        .rfind(|d| {
            d.child_by_field_name("name")
                .is_some_and(|n| text(n, src) == name)
        })?;
    Some(build_def(
        def,
        def.child_by_field_name("parameters"),
        def.child_by_field_name("return_type"),
        None,
        def.child_by_field_name("body"),
        src,
    ))
}

/// The `return` statements of a function body, not counting those of functions, lambdas or
/// classes nested in it.
fn returns_of<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "return_statement" => out.push(child),
            "function_definition" | "class_definition" | "lambda" => {}
            _ => returns_of(child, out),
        }
    }
}

/// What a class-body assignment's value binds, when it is a callable the class then has:
/// a name, a `staticmethod`/`classmethod`/`property` wrapper, or a call of a factory.
fn alias_value(value: Node, src: &[u8]) -> Option<AliasValue> {
    match value.kind() {
        "identifier" => Some(AliasValue::Name(text(value, src).to_string())),
        "call" => {
            let func = value.child_by_field_name("function")?;
            if func.kind() != "identifier" {
                return None;
            }
            let func = text(func, src);
            let wrapper = match func {
                "staticmethod" => "staticmethod",
                "classmethod" => "classmethod",
                "property" => "property",
                _ => return Some(AliasValue::Made(func.to_string())),
            };
            let args = value.child_by_field_name("arguments")?;
            let mut target = None;
            let mut doc = None;
            let mut cursor = args.walk();
            for (i, arg) in args
                .named_children(&mut cursor)
                .filter(|a| a.kind() != "comment")
                .enumerate()
            {
                if i == 0 && arg.kind() == "identifier" {
                    target = Some(text(arg, src).to_string());
                } else if arg.kind() == "keyword_argument" {
                    let key = arg.child_by_field_name("name").map(|n| text(n, src));
                    let Some(v) = arg.child_by_field_name("value") else {
                        continue;
                    };
                    match key {
                        Some("fget") if v.kind() == "identifier" => {
                            target = Some(text(v, src).to_string());
                        }
                        Some("doc") if v.kind() == "string" => {
                            doc = docstring_value(text(v, src)).map(|d| cleandoc(&d));
                        }
                        _ => {}
                    }
                }
            }
            Some(AliasValue::Wrapped {
                wrapper,
                target,
                doc,
            })
        }
        _ => None,
    }
}

/// The targets and final value of `a = b = value` (tree-sitter nests the later targets as the
/// right-hand side).
fn chained<'t>(
    first: &str,
    value: Option<Node<'t>>,
    src: &[u8],
) -> (Vec<String>, Option<Node<'t>>) {
    let mut names = vec![first.to_string()];
    let mut value = value;
    while let Some(v) = value
        && v.kind() == "assignment"
    {
        let Some(left) = v.child_by_field_name("left") else {
            break;
        };
        // `(b) = x`: black wraps long chains of targets in parentheses.
        let mut left = left;
        while matches!(left.kind(), "parenthesized_expression" | "tuple_pattern")
            && left.named_child_count() == 1
            // `(b,) = x` unpacks a sequence instead.
            && !text(left, src).trim_end_matches(')').trim_end().ends_with(',')
            && let Some(inner) = left.named_child(0)
        {
            left = inner;
        }
        if left.kind() == "identifier" {
            names.push(text(left, src).to_string());
        }
        value = v.child_by_field_name("right");
    }
    (names, value)
}

/// The public attributes an `__init__` sets on its receiver, each with its annotation or the
/// class it constructs. Assignments in nested functions and lambdas are not the receiver's.
fn init_attributes(init: Node, params: Node, body: Node, src: &[u8]) -> Vec<AttrFact> {
    let mut cursor = params.walk();
    let Some(receiver) = params
        .named_children(&mut cursor)
        .find(|p| p.kind() == "identifier")
        .map(|p| text(p, src))
    else {
        return vec![];
    };
    let query = &queries().attributes;
    let names = query.capture_names();
    let mut qc = QueryCursor::new();
    let mut matches = qc.matches(query, body, src);
    let mut out: Vec<AttrFact> = Vec::new();
    while let Some(m) = matches.next() {
        let (mut stmt, mut object, mut name, mut ty, mut value) = (None, None, None, None, None);
        for c in m.captures() {
            match names[c.index as usize] {
                "attribute" => stmt = Some(c.node),
                "receiver" => object = Some(text(c.node, src)),
                "name" => name = Some(text(c.node, src)),
                "type" => ty = Some(c.node),
                "value" => value = Some(c.node),
                _ => {}
            }
        }
        let (Some(stmt), Some(name)) = (stmt, name) else {
            continue;
        };
        if object != Some(receiver)
            || name.starts_with('_')
            || enclosing_scope(stmt).map(|n| n.id()) != Some(init.id())
        {
            continue;
        }
        let constructed = value
            .filter(|v| v.kind() == "call")
            .and_then(|v| v.child_by_field_name("function"))
            .filter(|f| matches!(f.kind(), "identifier" | "attribute"))
            .map(|f| text(f, src).to_string());
        let annotation = ty.map(|t| collapse_ws(text(t, src)));
        if annotation.is_none() && constructed.is_none() {
            continue;
        }
        let evidence = evidence_of(stmt, src);
        // The first statement that sets a name states its type; later ones reassign it.
        if out.iter().any(|a| a.name == name) {
            continue;
        }
        out.push(AttrFact {
            name: name.to_string(),
            annotation,
            constructed,
            line: line_of(stmt),
            evidence,
        });
    }
    out
}

/// The HTTP requests a function body sends with a literal path (nested functions included:
/// their calls are the function's doing).
fn body_requests(body: Node, src: &[u8]) -> Vec<RequestFact> {
    if !requests::may_hold_path(&src[body.byte_range()]) {
        return vec![];
    }
    let query = &queries().requests;
    let names = query.capture_names();
    let mut qc = QueryCursor::new();
    let mut matches = qc.matches(query, body, src);
    let mut out: Vec<RequestFact> = Vec::new();
    while let Some(m) = matches.next() {
        let (mut call, mut callee, mut arguments) = (None, None, None);
        for c in m.captures() {
            match names[c.index as usize] {
                "call" => call = Some(c.node),
                "callee" => callee = Some(text(c.node, src)),
                "arguments" => arguments = Some(c.node),
                _ => {}
            }
        }
        let (Some(call), Some(callee), Some(arguments)) = (call, callee, arguments) else {
            continue;
        };
        let mut cursor = arguments.walk();
        let args: Vec<CallArg> = arguments
            .named_children(&mut cursor)
            .filter(|a| a.kind() != "comment")
            .map(|a| match a.kind() {
                "keyword_argument" => CallArg {
                    keyword: a
                        .child_by_field_name("name")
                        .map(|n| text(n, src).to_string()),
                    text: a
                        .child_by_field_name("value")
                        .and_then(|v| string_template(v, src)),
                },
                _ => CallArg {
                    keyword: None,
                    text: string_template(a, src),
                },
            })
            .collect();
        if let Some((method, path)) = requests::request_of(callee, &args) {
            out.push(RequestFact {
                method,
                path,
                line: line_of(call),
                evidence: evidence_of(call, src),
            });
        }
    }
    out
}

/// The text of a string literal with its format fields as `{...}`: a plain or f-string,
/// `"...".format(...)`, `"..." % x`, `"..." + x` (the rest a parameter). `None` otherwise.
fn string_template(node: Node, src: &[u8]) -> Option<String> {
    match node.kind() {
        "string" => {
            let t = text(node, src);
            let body = t.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") {
                3
            } else {
                1
            };
            (body.len() >= 2 * quote).then(|| body[quote..body.len() - quote].to_string())
        }
        "call" => {
            let f = node.child_by_field_name("function")?;
            (f.kind() == "attribute"
                && f.child_by_field_name("attribute").map(|a| text(a, src)) == Some("format"))
            .then(|| f.child_by_field_name("object"))
            .flatten()
            .and_then(|o| string_template(o, src))
        }
        "binary_operator" => {
            let left = string_template(node.child_by_field_name("left")?, src)?;
            match node.child_by_field_name("operator").map(|o| text(o, src)) {
                Some("%") => Some(left),
                Some("+") => Some(format!("{left}{{}}")),
                _ => None,
            }
        }
        "parenthesized_expression" => string_template(node.named_child(0)?, src),
        _ => None,
    }
}

/// A statement as evidence: whitespace collapsed, at most 160 characters.
fn evidence_of(stmt: Node, src: &[u8]) -> String {
    crate::extract::clip_evidence(collapse_ws(text(stmt, src)))
}

/// The nearest enclosing function or lambda of `node`: the scope its names belong to.
fn enclosing_scope(node: Node) -> Option<Node> {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if matches!(
            n.kind(),
            "function_definition" | "lambda" | "class_definition"
        ) {
            return Some(n);
        }
        cur = n.parent();
    }
    None
}

fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut ws = false;
    for c in s.chars() {
        if c.is_whitespace() {
            ws = true;
        } else {
            if ws
                && !out.is_empty()
                && !out.ends_with(['(', '[', '{'])
                && !matches!(c, ')' | ']' | '}' | ',')
            {
                out.push(' ');
            }
            ws = false;
            out.push(c);
        }
    }
    out
}

/// Parameters in declaration order with their exact kinds.
pub fn parse_params(node: Node, src: &[u8]) -> Vec<Param> {
    let mut out: Vec<Param> = Vec::new();
    let mut keyword_only = false;
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        let kind = if keyword_only {
            ParamKind::KeywordOnly
        } else {
            ParamKind::PositionalOrKeyword
        };
        let param = |name: Node, kind, annotation: Option<Node>, default: Option<Node>| Param {
            name: text(name, src).to_string(),
            kind,
            annotation: annotation.map(|a| collapse_ws(text(a, src))),
            default: default.map(|d| text(d, src).to_string()),
            ..Default::default()
        };
        match child.kind() {
            "identifier" => out.push(param(child, kind, None, None)),
            "default_parameter" | "typed_default_parameter" => {
                let (Some(n), Some(v)) = (
                    child.child_by_field_name("name"),
                    child.child_by_field_name("value"),
                ) else {
                    continue;
                };
                out.push(param(n, kind, child.child_by_field_name("type"), Some(v)));
            }
            "typed_parameter" => {
                let ty = child.child_by_field_name("type");
                let Some(inner) = child.named_child(0) else {
                    continue;
                };
                match inner.kind() {
                    "identifier" => out.push(param(inner, kind, ty, None)),
                    "list_splat_pattern" => {
                        keyword_only = true;
                        if let Some(n) = inner.named_child(0) {
                            out.push(param(n, ParamKind::VarPositional, ty, None));
                        }
                    }
                    "dictionary_splat_pattern" => {
                        if let Some(n) = inner.named_child(0) {
                            out.push(param(n, ParamKind::VarKeyword, ty, None));
                        }
                    }
                    _ => {}
                }
            }
            "list_splat_pattern" => {
                keyword_only = true;
                if let Some(n) = child.named_child(0) {
                    out.push(param(n, ParamKind::VarPositional, None, None));
                }
            }
            "dictionary_splat_pattern" => {
                if let Some(n) = child.named_child(0) {
                    out.push(param(n, ParamKind::VarKeyword, None, None));
                }
            }
            "keyword_separator" => keyword_only = true,
            "positional_separator" => {
                for p in &mut out {
                    if p.kind == ParamKind::PositionalOrKeyword {
                        p.kind = ParamKind::PositionalOnly;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The docstring of a module or definition body: its first statement, when a string literal.
fn docstring_of_block(block: Node, src: &[u8]) -> Option<String> {
    let mut cursor = block.walk();
    let first = block
        .named_children(&mut cursor)
        .find(|n| n.kind() != "comment")?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let lit = first.named_child(0)?;
    let raw = match lit.kind() {
        "string" => docstring_value(text(lit, src))?,
        "concatenated_string" => {
            let mut c = lit.walk();
            lit.named_children(&mut c)
                .filter_map(|s| docstring_value(text(s, src)))
                .collect::<String>()
        }
        _ => return None,
    };
    let doc = cleandoc(&raw);
    (!doc.is_empty()).then_some(doc)
}

/// The value of a Python string literal, escapes left as written.
pub fn string_literal_value(lit: &str) -> Option<String> {
    let body = lit.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if body.len() >= 2 * q.len() && body.starts_with(q) && body.ends_with(q) {
            return Some(body[q.len()..body.len() - q.len()].to_string());
        }
    }
    None
}

/// The text a docstring literal holds, as Python reads it: escapes (`\n`, `\\`, `\x41`,
/// a backslash ending a line) resolved unless the literal is raw (`r"""..."""`). `\N{name}`
/// and unknown escapes stay as written.
pub fn docstring_value(lit: &str) -> Option<String> {
    let body = string_literal_value(lit)?;
    let prefix: String = lit
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    if prefix.contains(['r', 'R']) {
        return Some(body);
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = chars.peek() else {
            out.push(c);
            break;
        };
        // A backslash ending a line joins it to the next (`\r\n` endings too).
        if e == '\r' {
            chars.next();
            chars.next_if_eq(&'\n');
            continue;
        }
        let simple = match e {
            '\n' => Some(None),
            '\\' => Some(Some('\\')),
            '\'' => Some(Some('\'')),
            '"' => Some(Some('"')),
            'a' => Some(Some('\u{7}')),
            'b' => Some(Some('\u{8}')),
            'f' => Some(Some('\u{c}')),
            'n' => Some(Some('\n')),
            'r' => Some(Some('\r')),
            't' => Some(Some('\t')),
            'v' => Some(Some('\u{b}')),
            _ => None,
        };
        if let Some(ch) = simple {
            chars.next();
            out.extend(ch);
            continue;
        }
        let (radix, len) = match e {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 3),
            _ => (0, 0),
        };
        if radix == 0 {
            out.push(c);
            continue;
        }
        let mut look = chars.clone();
        if radix == 16 {
            look.next();
        }
        let digits: String = std::iter::from_fn(|| look.next_if(|d| d.is_digit(radix)))
            .take(len)
            .collect();
        let complete = if radix == 8 {
            !digits.is_empty()
        } else {
            digits.len() == len
        };
        match u32::from_str_radix(&digits, radix)
            .ok()
            .and_then(char::from_u32)
        {
            Some(ch) if complete => {
                out.push(ch);
                chars = look;
            }
            _ => out.push(c),
        }
    }
    Some(out)
}

/// `inspect.cleandoc`: strip the common indentation of lines after the first, and blank edges.
pub fn cleandoc(doc: &str) -> String {
    let lines: Vec<&str> = doc.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            out.push(l.trim().to_string());
        } else {
            out.push(
                l.get(indent..)
                    .unwrap_or(l.trim_start())
                    .trim_end()
                    .to_string(),
            );
        }
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

fn decorator_deprecation(decorators: &[String]) -> Option<Deprecation> {
    for d in decorators {
        let head = d.split('(').next().unwrap_or(d);
        if head.rsplit('.').next() == Some("deprecated") {
            let message = d
                .split_once('(')
                .and_then(|(_, args)| first_string_literal(args));
            return Some(Deprecation {
                replacement: message.as_deref().and_then(replacement_in),
                message,
                since: None,
                source: "decorator".into(),
            });
        }
    }
    None
}

/// `.. deprecated:: 1.2 message` in a docstring.
fn docstring_deprecation(doc: &str) -> Option<Deprecation> {
    let idx = doc.find(".. deprecated::")?;
    let rest = &doc[idx + ".. deprecated::".len()..];
    let mut lines = rest.lines();
    let first = lines.next().unwrap_or("").trim();
    let (since, tail) = match first.split_once(char::is_whitespace) {
        Some((v, t)) => (v.to_string(), t.trim().to_string()),
        None => (first.to_string(), String::new()),
    };
    let mut message = tail;
    for l in lines {
        if l.trim().is_empty() {
            break;
        }
        if !message.is_empty() {
            message.push(' ');
        }
        message.push_str(l.trim());
    }
    Some(Deprecation {
        since: (!since.is_empty()).then_some(since),
        replacement: replacement_in(&message),
        message: (!message.is_empty()).then_some(message),
        source: "docstring".into(),
    })
}

/// The first string literal in an argument list's source text.
fn first_string_literal(args: &str) -> Option<String> {
    let start = args.find(['"', '\''])?;
    let quote = args[start..].chars().next()?;
    let triple: String = std::iter::repeat_n(quote, 3).collect();
    let body = &args[start..];
    let (open, close) = if body.starts_with(&triple) {
        (3, triple.as_str())
    } else {
        (1, &body[..1])
    };
    let end = body[open..].find(close)?;
    Some(body[open..open + end].to_string())
}

/// A dotted name that a deprecation message points to: "use X instead", "replaced by X".
pub fn replacement_in(message: &str) -> Option<String> {
    let lower = message.to_lowercase();
    for key in [
        "use ",
        "replaced by ",
        "in favor of ",
        "in favour of ",
        "instead of this, ",
    ] {
        if let Some(pos) = lower.find(key) {
            let after = &message[pos + key.len()..];
            let token: String = after
                .trim_start_matches(['`', '\'', '"', ':', ' '])
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.'))
                .collect();
            let token = token.trim_end_matches('.').to_string();
            let looks_like_code = token.contains(['.', '_'])
                || token.chars().any(|c| c.is_uppercase())
                || after.trim_start().starts_with(['`', '\'', '"']);
            if !token.is_empty() && looks_like_code {
                return Some(token);
            }
        }
    }
    None
}

/// Whether an import or assignment is at module level (possibly inside `if`/`try`/`with`).
fn at_module_level(node: Node) -> bool {
    enclosing_def(node).is_none()
}

fn absolute_module(current: &str, is_package: bool, relative: &str) -> Option<String> {
    let dots = relative.chars().take_while(|c| *c == '.').count();
    let rest = &relative[dots..];
    if dots == 0 {
        return Some(rest.to_string());
    }
    let mut parts: Vec<&str> = current.split('.').collect();
    // In a plain module, one dot means its package; in a package, the package itself.
    let up = if is_package { dots - 1 } else { dots };
    if up > parts.len() {
        return None;
    }
    parts.truncate(parts.len() - up);
    if !rest.is_empty() {
        parts.push(rest);
    }
    Some(parts.join("."))
}

fn collect_imports(query: &Query, nodes: &[Node], src: &[u8], syntax: &mut ModuleSyntax) {
    let mut cursor = QueryCursor::new();
    cursor.set_max_start_depth(Some(0));
    for root in nodes {
        collect_import(query, &mut cursor, *root, src, syntax);
    }
}

fn collect_import(
    query: &Query,
    cursor: &mut QueryCursor,
    root: Node,
    src: &[u8],
    syntax: &mut ModuleSyntax,
) {
    let mut matches = cursor.matches(query, root, src);
    while let Some(m) = matches.next() {
        let Some(c) = m.captures().first() else {
            continue;
        };
        let node = c.node;
        if !at_module_level(node) {
            continue;
        }
        import_bindings(node, src, syntax);
    }
}

/// The bindings one `import` or `from ... import` statement makes in `syntax`'s module.
fn import_bindings(node: Node, src: &[u8], syntax: &mut ModuleSyntax) {
    let line = line_of(node);
    match node.kind() {
        "import_statement" => {
            let mut w = node.walk();
            for n in node.children_by_field_name("name", &mut w) {
                let (dotted, alias) = match n.kind() {
                    "aliased_import" => (
                        n.child_by_field_name("name").map(|x| text(x, src)),
                        n.child_by_field_name("alias").map(|x| text(x, src)),
                    ),
                    _ => (Some(text(n, src)), None),
                };
                let Some(dotted) = dotted else { continue };
                let (name, target) = match alias {
                    Some(a) => (a.to_string(), dotted.to_string()),
                    None => {
                        let head = dotted.split('.').next().unwrap_or(dotted);
                        (head.to_string(), head.to_string())
                    }
                };
                syntax.bindings.push(Binding {
                    name,
                    target: BindingTarget::Module(target),
                    line,
                    type_only: false,
                });
            }
        }
        "import_from_statement" => {
            let Some(module_node) = node.child_by_field_name("module_name") else {
                return;
            };
            let Some(module) =
                absolute_module(&syntax.name, syntax.is_package, text(module_node, src))
            else {
                return;
            };
            let mut w = node.walk();
            if node
                .named_children(&mut w)
                .any(|n| n.kind() == "wildcard_import")
            {
                let line = line_of(node);
                syntax.star_imports.push(StarImport { module, line });
                return;
            }
            let mut w = node.walk();
            for n in node.children_by_field_name("name", &mut w) {
                let (name, alias) = match n.kind() {
                    "aliased_import" => (
                        n.child_by_field_name("name").map(|x| text(x, src)),
                        n.child_by_field_name("alias").map(|x| text(x, src)),
                    ),
                    _ => (Some(text(n, src)), None),
                };
                let Some(name) = name else { continue };
                syntax.bindings.push(Binding {
                    name: alias.unwrap_or(name).to_string(),
                    target: BindingTarget::FromImport {
                        module: module.clone(),
                        name: name.to_string(),
                    },
                    line,
                    type_only: false,
                });
            }
        }
        _ => {}
    }
}

/// String elements of a list/tuple literal (`["a", "b"]`); `None` when not a literal.
/// What an expression assigned to (or added to) `__all__` contributes.
#[derive(Default)]
struct AllParts {
    names: Vec<String>,
    refs: Vec<AllRef>,
    /// The expression reads `__all__` itself (`__all__ = __all__ + [...]`).
    keeps_own: bool,
}

impl AllParts {
    fn read(&mut self, node: Node, src: &[u8]) {
        match node.kind() {
            "string" => match string_literal_value(text(node, src)) {
                Some(s) => self.names.push(s),
                None => self.refs.push(AllRef::Dynamic),
            },
            "comment" => {}
            "argument_list"
            | "list"
            | "tuple"
            | "set"
            | "parenthesized_expression"
            | "list_splat"
            | "expression_list" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.read(child, src);
                }
            }
            "binary_operator"
                if node
                    .child_by_field_name("operator")
                    .is_some_and(|o| text(o, src) == "+") =>
            {
                for field in ["left", "right"] {
                    if let Some(side) = node.child_by_field_name(field) {
                        self.read(side, src);
                    }
                }
            }
            "identifier" if text(node, src) == "__all__" => self.keeps_own = true,
            "attribute"
                if node
                    .child_by_field_name("attribute")
                    .is_some_and(|a| text(a, src) == "__all__") =>
            {
                let object = node.child_by_field_name("object").map(|o| text(o, src));
                match object {
                    Some(o)
                        if o.chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '.') =>
                    {
                        self.refs.push(AllRef::Module(o.to_string()))
                    }
                    _ => self.refs.push(AllRef::Dynamic),
                }
            }
            // `list(x)`, `sorted(x)`: the names of x.
            "call"
                if node.child_by_field_name("function").is_some_and(|f| {
                    matches!(text(f, src), "list" | "tuple" | "sorted" | "set")
                }) =>
            {
                match node.child_by_field_name("arguments") {
                    Some(args) => self.read(args, src),
                    None => self.refs.push(AllRef::Dynamic),
                }
            }
            "list_comprehension" | "generator_expression" | "set_comprehension"
                if ["dir()", "globals()"]
                    .iter()
                    .any(|d| text(node, src).contains(d)) =>
            {
                self.refs.push(AllRef::Namespace)
            }
            _ => self.refs.push(AllRef::Dynamic),
        }
    }
}

/// lazy_loader (scikit-image, networkx, ...): `__getattr__, __dir__, __all__ =
/// lazy.attach(__name__, submodules=[...], submod_attrs={"mod": ["name", ...]})` binds each
/// submodule and each listed name of a submodule, and lists them all in `__all__`;
/// `lazy.attach_stub(__name__, __file__)` takes the same from the module's `.pyi` stub.
fn collect_lazy_attach<'t>(statements: &[Node<'t>], src: &[u8], syntax: &mut ModuleSyntax) {
    // Arguments may name a module-level literal (`submodules = [...]`).
    let literal = |n| module_literal(n, statements, src);
    for stmt in statements {
        let Some(call) = stmt
            .named_child(0)
            .filter(|a| a.kind() == "assignment")
            .filter(|a| {
                a.child_by_field_name("left")
                    .is_some_and(|l| text(l, src).contains("__getattr__"))
            })
            .and_then(|a| a.child_by_field_name("right"))
            .filter(|r| r.kind() == "call")
        else {
            continue;
        };
        let Some(form) = lazy_form(call, src) else {
            continue;
        };
        let Some(args) = call.child_by_field_name("arguments") else {
            continue;
        };
        match form {
            LazyForm::AttachStub => {
                syntax.attaches_stub = true;
                continue;
            }
            LazyForm::RelativeImport => {
                relative_import(args, line_of(*stmt), &literal, src, syntax);
                continue;
            }
            LazyForm::Attach => {}
        }
        let [submodules, attrs] = table_arguments(args, src, ["submodules", "submod_attrs"]);
        let line = line_of(*stmt);
        let mut names = Vec::new();
        if let Some(list) = submodules.and_then(literal) {
            let mut parts = AllParts::default();
            parts.read(list, src);
            for s in parts.names {
                syntax.bindings.push(Binding {
                    name: s.clone(),
                    target: BindingTarget::Module(format!("{}.{s}", syntax.name)),
                    line,
                    type_only: false,
                });
                names.push(s);
            }
        }
        if let Some(dict) = attrs.and_then(literal).filter(|d| d.kind() == "dictionary") {
            let mut cursor = dict.walk();
            for pair in dict.named_children(&mut cursor) {
                let (Some(k), Some(v)) = (
                    pair.child_by_field_name("key"),
                    pair.child_by_field_name("value"),
                ) else {
                    continue;
                };
                let Some(module) = string_literal_value(text(k, src)) else {
                    continue;
                };
                let mut parts = AllParts::default();
                parts.read(v, src);
                for n in parts.names {
                    syntax.bindings.push(Binding {
                        name: n.clone(),
                        target: BindingTarget::FromImport {
                            module: format!("{}.{module}", syntax.name),
                            name: n.clone(),
                        },
                        line,
                        type_only: false,
                    });
                    names.push(n);
                }
            }
        }
        syntax.all.get_or_insert_with(Vec::new).extend(names);
    }
}

/// The lazy-loading calls whose tables are read: lazy_loader's `attach` and `attach_stub`,
/// plotly's `relative_import`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LazyForm {
    Attach,
    AttachStub,
    RelativeImport,
}

/// Which lazy-loading call `call` is, by the function's last name.
fn lazy_form(call: Node, src: &[u8]) -> Option<LazyForm> {
    if call.kind() != "call" {
        return None;
    }
    let function = text(call.child_by_field_name("function")?, src);
    match function.rsplit('.').next().unwrap_or(function) {
        "attach" => Some(LazyForm::Attach),
        "attach_stub" => Some(LazyForm::AttachStub),
        "relative_import" => Some(LazyForm::RelativeImport),
        _ => None,
    }
}

/// plotly's `__all__, __getattr__, __dir__ = relative_import(__name__, [".bar"],
/// ["._bar.Bar", "..graph_objs.Scatter"])`: the module serves each listed submodule and each
/// listed class under its last name, imported with `importlib.import_module(path,
/// __name__)` (so a leading dot is the module itself), and lists them all in `__all__`.
fn relative_import<'t>(
    args: Node<'t>,
    line: usize,
    literal: &dyn Fn(Node<'t>) -> Option<Node<'t>>,
    src: &[u8],
    syntax: &mut ModuleSyntax,
) {
    let [modules, classes] = table_arguments(args, src, ["rel_modules", "rel_classes"]);
    let strings = |n: Option<Node<'t>>| {
        let mut parts = AllParts::default();
        if let Some(list) = n.and_then(literal) {
            parts.read(list, src);
        }
        parts.names
    };
    let mut names = Vec::new();
    for path in strings(modules) {
        let Some(module) = absolute_module(&syntax.name, true, &path) else {
            continue;
        };
        let name = module.rsplit('.').next().unwrap_or(&module).to_string();
        syntax.bindings.push(Binding {
            name: name.clone(),
            target: BindingTarget::Module(module),
            line,
            type_only: false,
        });
        names.push(name);
    }
    for path in strings(classes) {
        let Some((from, name)) = path.rsplit_once('.') else {
            continue;
        };
        let Some(module) = absolute_module(&syntax.name, true, from) else {
            continue;
        };
        syntax.bindings.push(Binding {
            name: name.to_string(),
            target: BindingTarget::FromImport {
                module,
                name: name.to_string(),
            },
            line,
            type_only: false,
        });
        names.push(name.to_string());
    }
    syntax.all.get_or_insert_with(Vec::new).extend(names);
}

/// The two tables a lazy-loading call takes after `__name__`: its second and third positional
/// arguments, or the keyword arguments `keywords` names.
fn table_arguments<'t>(args: Node<'t>, src: &[u8], keywords: [&str; 2]) -> [Option<Node<'t>>; 2] {
    let mut out = [None, None];
    let mut positional: usize = 0;
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => {
                let (Some(k), Some(v)) = (
                    arg.child_by_field_name("name"),
                    arg.child_by_field_name("value"),
                ) else {
                    continue;
                };
                if let Some(i) = keywords.iter().position(|w| *w == text(k, src)) {
                    out[i] = Some(v);
                }
            }
            "comment" => {}
            _ => {
                if let Some(slot) = positional.checked_sub(1).and_then(|i| out.get_mut(i)) {
                    *slot = Some(arg);
                }
                positional += 1;
            }
        }
    }
    out
}

/// `node` itself, or the value of the module-level assignment an identifier names (the last
/// one): `submodules = [...]` passed as `submodules`.
fn module_literal<'t>(node: Node<'t>, statements: &[Node<'t>], src: &[u8]) -> Option<Node<'t>> {
    if node.kind() != "identifier" {
        return Some(node);
    }
    let name = text(node, src);
    statements.iter().rev().find_map(|stmt| {
        let a = stmt.named_child(0).filter(|a| a.kind() == "assignment")?;
        (text(a.child_by_field_name("left")?, src) == name)
            .then(|| a.child_by_field_name("right"))
            .flatten()
    })
}

/// Reads a module protoc generated (see [`protobuf`]): `D = ...AddSerializedFile(b'...')`, `G
/// = globals()` and protobuf builder calls handed `D` and `G`. Adds the classes and names the
/// builder binds, at the descriptor's line, and returns the statements read (by start byte),
/// whose `globals()` is then accounted for. `None`, leaving the module as it was, when the
/// pattern or the descriptor's bytes do not read.
fn protobuf_module(
    statements: &[Node],
    src: &[u8],
    syntax: &mut ModuleSyntax,
) -> Option<Vec<usize>> {
    fn assignment<'t, 's>(stmt: Node<'t>, src: &'s [u8]) -> Option<(&'s str, Node<'t>)> {
        let a = stmt.named_child(0).filter(|a| a.kind() == "assignment")?;
        let left = a
            .child_by_field_name("left")
            .filter(|l| l.kind() == "identifier")?;
        Some((text(left, src), a.child_by_field_name("right")?))
    }
    let mut descriptor = None;
    let mut namespace = None;
    let mut read = Vec::new();
    for stmt in statements {
        let Some((name, right)) = assignment(*stmt, src) else {
            continue;
        };
        if right.kind() != "call" {
            continue;
        }
        let callee = text(right.child_by_field_name("function")?, src);
        if callee.ends_with(".AddSerializedFile") && descriptor.is_none() {
            let arg = right.child_by_field_name("arguments")?.named_child(0)?;
            let bytes = protobuf::bytes_literal(text(arg, src))?;
            descriptor = Some((name, bytes, line_of(*stmt)));
            read.push(stmt.start_byte());
        } else if callee == "globals" {
            namespace = Some(name);
            read.push(stmt.start_byte());
        }
    }
    let (descriptor, bytes, line) = descriptor?;
    let namespace = namespace?;
    let mut calls = protobuf::Calls::default();
    for stmt in statements {
        let Some(call) = stmt.named_child(0).filter(|c| c.kind() == "call") else {
            continue;
        };
        let callee = text(call.child_by_field_name("function")?, src);
        let args = call.child_by_field_name("arguments")?;
        let mut c = args.walk();
        let args: Vec<&str> = args.named_children(&mut c).map(|a| text(a, src)).collect();
        if args.first() != Some(&descriptor) || args.last() != Some(&namespace) {
            continue;
        }
        let flag = match callee.rsplit('.').next() {
            Some("BuildMessageAndEnumDescriptors") => &mut calls.descriptors,
            Some("BuildTopDescriptorsAndMessages") => &mut calls.top,
            Some("BuildServices") => &mut calls.services,
            _ => continue,
        };
        *flag = true;
        read.push(stmt.start_byte());
    }
    let generated = protobuf::read(&bytes, calls)?;
    fn class(m: &protobuf::Message, line: usize) -> Def {
        let mut d = Def::function(&m.name);
        d.kind = DefKind::Class;
        d.line = line;
        d.bases = vec!["google.protobuf.message.Message".into()];
        d.members = m.nested.iter().map(|n| class(n, line)).collect();
        d.class_names = m.names.clone();
        d
    }
    for m in &generated.messages {
        syntax.defs.push(class(m, line));
    }
    for name in &generated.services {
        let mut d = Def::function(name);
        d.kind = DefKind::Class;
        d.line = line;
        d.bases = vec!["google.protobuf.service.Service".into()];
        syntax.defs.push(d);
    }
    for name in generated.values.iter().chain(&generated.private) {
        syntax.bindings.push(Binding {
            name: name.clone(),
            target: BindingTarget::Value { annotation: None },
            line,
            type_only: false,
        });
    }
    Some(read)
}

/// The names a module `__getattr__(name)` serves, when its body is a run of `if name ==
/// "x"`, `if name in ("a", "b")` or `if name in TABLE` (a literal of the module) branches
/// ending in `raise AttributeError`: marshmallow's deprecated `__version__`, a lazy table.
/// `None` when the body does anything else: then what it serves cannot be told.
fn getattr_served(def: Node, statements: &[Node], src: &[u8]) -> Option<Served> {
    let param = def.child_by_field_name("parameters")?.named_child(0)?;
    let param = match param.kind() {
        "identifier" => text(param, src),
        _ => text(param.named_child(0)?, src),
    };
    let body = def.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let stmts: Vec<Node> = body
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect();
    let (last, rest) = stmts.split_last()?;
    if last.kind() == "return_statement" {
        return guarded_getattr(param, &stmts, statements, src);
    }
    if last.kind() != "raise_statement" || !text(*last, src).contains("AttributeError") {
        return None;
    }
    let mut served = Vec::new();
    for stmt in rest {
        match stmt.kind() {
            // The docstring, imports of what a branch needs.
            "expression_statement" if stmt.named_child(0).is_some_and(|c| c.kind() == "string") => {
            }
            "import_statement" | "import_from_statement" => {}
            "if_statement" => {
                let mut c = stmt.walk();
                let alternatives: Vec<Node> =
                    stmt.children_by_field_name("alternative", &mut c).collect();
                for branch in std::iter::once(*stmt).chain(alternatives) {
                    if branch.kind() == "else_clause" {
                        return None;
                    }
                    let names = served_by(
                        branch.child_by_field_name("condition")?,
                        param,
                        statements,
                        src,
                    )?;
                    // A branch that returns serves its names; one that raises (a removed
                    // name's message) serves none; one that falls through cannot be read.
                    let body = branch.child_by_field_name("consequence")?;
                    let mut b = body.walk();
                    let last = body
                        .named_children(&mut b)
                        .filter(|n| n.kind() != "comment")
                        .last()?;
                    match last.kind() {
                        "return_statement" => served.extend(names),
                        "raise_statement" => {}
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
    }
    Some(Served::Names(served))
}

/// A module-level `for` loop leaves its variables bound in the module (astropy.modeling.models
/// `item`), once it has run at least once: a value at the loop's line when it loops over a
/// constant that is not empty, else a name the module holds only if it does. A name bound
/// otherwise too is left to that binding. Either way the name is not API
/// (`loop_variables`).
fn bind_loop_variables(scope: &Scope, folder: &fold::Folder, syntax: &mut ModuleSyntax) {
    let (loops, src) = (&scope.loops, scope.src);
    if loops.is_empty() {
        return;
    }
    // `del x` inside a block (the loop's own body, a branch) may or may not have run.
    let mut deleted_inside = Vec::new();
    for d in scope.deletions.iter().filter(|d| {
        enclosing_def(**d).is_none() && d.parent().is_some_and(|p| p.kind() != "module")
    }) {
        deleted_names(*d, src, &mut deleted_inside);
    }
    let mut bound: HashSet<String> = syntax
        .names_bound()
        .into_iter()
        .chain(syntax.maybe_bound.iter().map(|(n, _)| n.as_str()))
        .map(String::from)
        .collect();
    for lp in loops {
        let Some(left) = lp.child_by_field_name("left") else {
            continue;
        };
        let mut names = Vec::new();
        pattern_variables(left, src, &mut names);
        let runs = lp
            .child_by_field_name("right")
            .is_some_and(|r| folder.non_empty(r));
        for name in names {
            if !bound.insert(name.to_string()) {
                continue;
            }
            if runs && !deleted_inside.iter().any(|d| d == name) {
                let made: Vec<Binding> =
                    values_bound_at(std::iter::once(&name.to_string()), line_of(*lp)).collect();
                syntax.bindings.extend(made);
                syntax.loop_variables.push(name.to_string());
            } else {
                let why = match runs {
                    true => format!(
                        "is the variable of the `for` loop at line {}, which a `del` inside a \
                         block may unbind",
                        line_of(*lp)
                    ),
                    false => format!(
                        "is the variable of the `for` loop at line {}, bound once the loop has \
                         run at least once",
                        line_of(*lp)
                    ),
                };
                syntax.maybe_bound.push((name.to_string(), why));
            }
        }
    }
}

/// Reads the module-level `for` loops over a constant table that bind names with
/// `globals()[KEY] = ...` ([`fold::Folder::globals_loop`]: astropy's projection aliases),
/// binding each name not already bound as a value at the loop's line. Returns the byte
/// ranges of the loops read, whose `globals()` is then accounted for.
fn globals_loops(
    root: Node,
    folder: &fold::Folder,
    syntax: &mut ModuleSyntax,
) -> Vec<std::ops::Range<usize>> {
    let mut read = Vec::new();
    let mut c = root.walk();
    for stmt in root.named_children(&mut c) {
        let Some((names, callee)) = folder.globals_loop(stmt) else {
            continue;
        };
        if let Some(callee) = callee {
            syntax
                .instances
                .extend(names.iter().map(|n| (n.clone(), callee.clone())));
        }
        let bound = syntax.names_bound();
        let mut fresh: Vec<&String> = names
            .iter()
            .filter(|n| !bound.contains(n.as_str()))
            .collect();
        fresh.dedup();
        let made: Vec<Binding> = values_bound_at(fresh.into_iter(), line_of(stmt)).collect();
        syntax.bindings.extend(made);
        read.push(stmt.byte_range());
    }
    read
}

/// Module-level `NAME = <literal table of strings>` (see [`ModuleSyntax::string_tables`]);
/// the last assignment of a name wins.
fn string_tables(statements: &[Node], src: &[u8]) -> Vec<(String, Vec<String>)> {
    let mut tables: Vec<(String, Vec<String>)> = Vec::new();
    for stmt in statements {
        let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment") else {
            continue;
        };
        let (Some(left), Some(right)) = (
            a.child_by_field_name("left")
                .filter(|l| l.kind() == "identifier"),
            a.child_by_field_name("right").filter(|r| {
                matches!(r.kind(), "tuple" | "list" | "set" | "dictionary")
                    && r.named_child_count() > 0
            }),
        ) else {
            continue;
        };
        let name = text(left, src);
        // `__all__` is kept as `all` already; other dunders are not tables.
        if name.starts_with("__") && name.ends_with("__") {
            continue;
        }
        tables.retain(|(n, _)| n != name);
        if let Some(names) = table_names(right, src) {
            tables.push((name.to_string(), names));
        }
    }
    tables
}

/// What a module `__getattr__` serves, when its body can be read.
#[derive(Debug, PartialEq)]
enum Served {
    Names(Vec<String>),
    /// The names of a table the module imports (`from .realizations import available`),
    /// read once every module is: see [`ModuleSyntax::getattr_table`].
    Imported(String),
}

/// A `__getattr__(name)` that first refuses every name outside a table, `if name not in
/// available: raise AttributeError(...)`, then computes and returns the value, raising
/// nothing else itself (astropy's cosmology realizations, read from data files on first
/// use): it serves the table's names. `None` when the body does anything else.
fn guarded_getattr(param: &str, stmts: &[Node], statements: &[Node], src: &[u8]) -> Option<Served> {
    // Before the guard: the docstring, imports, and perhaps the table itself (attrs: `meta =
    // {"__version__": "version", ...}`).
    let mut rest = stmts.iter().skip_while(|s| {
        matches!(s.kind(), "import_statement" | "import_from_statement")
            || s.kind() == "expression_statement"
                && s.named_child(0)
                    .is_some_and(|c| matches!(c.kind(), "string" | "assignment"))
    });
    let locals: Vec<Node> = stmts
        .iter()
        .take_while(|s| s.kind() != "if_statement")
        .copied()
        .collect();
    let guard = rest.next().filter(|g| g.kind() == "if_statement")?;
    if guard.child_by_field_name("alternative").is_some() {
        return None;
    }
    let refusal = {
        let body = guard.child_by_field_name("consequence")?;
        let mut c = body.walk();
        body.named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .last()?
    };
    if refusal.kind() != "raise_statement" || !text(refusal, src).contains("AttributeError") {
        return None;
    }
    let (op, right) = test_of(guard.child_by_field_name("condition")?, param, src)?;
    if op != "not in" {
        return None;
    }
    fn raises(n: Node) -> bool {
        let mut c = n.walk();
        n.kind() == "raise_statement" || n.named_children(&mut c).any(raises)
    }
    if rest.any(|s| raises(*s)) {
        return None;
    }
    match module_literal(right, &locals, src).or_else(|| module_literal(right, statements, src)) {
        Some(table) => table_names(table, src).map(Served::Names),
        None => Some(Served::Imported(text(right, src).to_string())),
    }
}

/// The strings of a literal table: a tuple, list or set of them, or a dict's keys.
fn table_names(table: Node, src: &[u8]) -> Option<Vec<String>> {
    let mut parts = AllParts::default();
    if table.kind() == "dictionary" {
        let mut c = table.walk();
        for pair in table.named_children(&mut c) {
            parts.read(pair.child_by_field_name("key")?, src);
        }
    } else {
        parts.read(table, src);
    }
    parts.refs.is_empty().then_some(parts.names)
}

/// `param OP x`, a comparison of `param` with one other operand: the operator (its words
/// joined by one space: `not in`) and `x`.
fn test_of<'t>(cond: Node<'t>, param: &str, src: &[u8]) -> Option<(String, Node<'t>)> {
    if cond.kind() != "comparison_operator" || cond.named_child_count() != 2 {
        return None;
    }
    let (left, right) = (cond.named_child(0)?, cond.named_child(1)?);
    if text(left, src) != param {
        return None;
    }
    let op = std::str::from_utf8(&src[left.end_byte()..right.start_byte()]).ok()?;
    Some((op.split_whitespace().collect::<Vec<_>>().join(" "), right))
}

/// The names a condition on `param` lets through: `param == "x"`, `param in (...)`, `param in
/// TABLE`, joined by `or`.
fn served_by(cond: Node, param: &str, statements: &[Node], src: &[u8]) -> Option<Vec<String>> {
    match cond.kind() {
        "parenthesized_expression" => served_by(cond.named_child(0)?, param, statements, src),
        "boolean_operator" if text(cond, src).contains(" or ") => {
            let mut out = served_by(cond.child_by_field_name("left")?, param, statements, src)?;
            out.extend(served_by(
                cond.child_by_field_name("right")?,
                param,
                statements,
                src,
            )?);
            Some(out)
        }
        "comparison_operator" => {
            let (op, right) = test_of(cond, param, src)?;
            match (op.as_str(), right.kind()) {
                ("==", "string") => Some(vec![string_literal_value(text(right, src))?]),
                ("in", _) => table_names(module_literal(right, statements, src)?, src),
                _ => None,
            }
        }
        _ => None,
    }
}

fn collect_assignments(
    query: &Query,
    nodes: &[Node],
    src: &[u8],
    folder: &fold::Folder,
    syntax: &mut ModuleSyntax,
) {
    let mut cursor = QueryCursor::new();
    cursor.set_max_start_depth(Some(0));
    for root in nodes {
        collect_assignment(query, &mut cursor, folder, *root, src, syntax);
    }
}

fn collect_assignment(
    query: &Query,
    cursor: &mut QueryCursor,
    folder: &fold::Folder,
    root: Node,
    src: &[u8],
    syntax: &mut ModuleSyntax,
) {
    let mut matches = cursor.matches(query, root, src);
    let names = query.capture_names();
    while let Some(m) = matches.next() {
        let mut stmt = None;
        let mut name = None;
        let mut value = None;
        let mut ty = None;
        let mut object = None;
        let mut pattern = "";
        let mut targets = None;
        for c in m.captures() {
            match names[c.index as usize] {
                p @ ("assignment"
                | "assignment.augmented"
                | "assignment.call"
                | "assignment.attribute"
                | "assignment.unpack") => {
                    stmt = Some(c.node);
                    pattern = p;
                }
                "name" => name = Some(text(c.node, src)),
                "targets" => targets = Some(c.node),
                "object" => object = Some(c.node),
                "value" => value = Some(c.node),
                "type" => ty = Some(c.node),
                _ => {}
            }
        }
        if let (Some(stmt), Some(targets)) = (stmt, targets) {
            bind_unpacked(targets, value, stmt, src, syntax);
            continue;
        }
        let (Some(stmt), Some(name)) = (stmt, name) else {
            continue;
        };
        let container = enclosing_def(stmt);
        if let Some(cls) = container {
            if cls.kind() != "class_definition" || pattern != "assignment" {
                continue;
            }
            let Some(path) = class_path(stmt, src) else {
                continue;
            };
            let Some(def) = find_class_mut(&mut syntax.defs, &path) else {
                continue;
            };
            // `x: int` alone declares a field for instances; only a value binds the name.
            if value.is_some() {
                def.class_names.extend(chained(name, value, src).0);
            }
            if ty.is_some()
                && let Some(wrapped @ AliasValue::Wrapped { .. }) =
                    value.and_then(|v| alias_value(v, src))
            {
                // `default: Callable[[Any], Any] = staticmethod(_default)`: a method.
                def.member_aliases.push(MemberAlias {
                    name: name.to_string(),
                    value: wrapped,
                    line: line_of(stmt),
                });
            } else if let Some(t) = ty {
                if !name.starts_with('_') {
                    def.attributes.push(AttrFact {
                        name: name.to_string(),
                        annotation: Some(collapse_ws(text(t, src))),
                        constructed: None,
                        line: line_of(stmt),
                        evidence: evidence_of(stmt, src),
                    });
                }
                def.fields.push(Field {
                    name: name.to_string(),
                    annotation: collapse_ws(text(t, src)),
                    default: value.map(|v| text(v, src).to_string()),
                });
            } else {
                let (targets, value) = chained(name, value, src);
                if let Some(v) = value.and_then(|v| alias_value(v, src)) {
                    def.member_aliases
                        .extend(targets.into_iter().map(|name| MemberAlias {
                            name,
                            value: v.clone(),
                            line: line_of(stmt),
                        }));
                }
            }
            continue;
        }
        if pattern == "assignment.attribute" {
            // `base.dialect = dialect = x`: the plain names after the first target are bound
            // here, and `dialect` is set on the module `base` names.
            let (mut targets, value) = chained(name, value, src);
            targets.remove(0);
            let via = targets.first().cloned();
            bind_targets(targets, None, value, stmt, src, syntax);
            if let Some(object) = object.map(|o| text(o, src))
                && object
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            {
                syntax.attribute_writes.push(AttributeWrite {
                    object: object.to_string(),
                    name: name.to_string(),
                    via,
                    line: line_of(stmt),
                });
            }
            continue;
        }
        if name == "__all__" {
            let Some(v) = value else {
                continue;
            };
            let mut parts = AllParts::default();
            // A constant the module computes from its tables (astropy's projections), else
            // the literals and references it is made of.
            match folder.fold(v).and_then(fold::Lit::strings) {
                Some(names) => parts.names = names,
                None => parts.read(v, src),
            }
            if pattern == "assignment" && !parts.keeps_own {
                syntax.all = Some(parts.names);
                syntax.all_refs = parts.refs;
            } else {
                syntax.all.get_or_insert_with(Vec::new).extend(parts.names);
                syntax.all_refs.extend(parts.refs);
            }
            continue;
        }
        if pattern == "assignment"
            && let Some(v) = value
            && let Some(def) = namedtuple_class(name, v, src)
        {
            if !syntax.defs.iter().any(|d| d.name == def.name) {
                syntax.defs.push(def);
            }
            continue;
        }
        if pattern != "assignment" {
            continue;
        }
        let (targets, value) = chained(name, value, src);
        bind_targets(targets, ty, value, stmt, src, syntax);
    }
}

/// `A, B = ...` binds every plain name of the pattern: in a class body, class attributes; in
/// the module, variables. An unpacked `__all__` is computed at run time (its names unknown,
/// never absent); an unpacked `__getattr__` makes a lazy module whose names are unknown.
/// The lazy-loading calls [`collect_lazy_attach`] knows are left to it: it reads what they
/// serve.
fn bind_unpacked(
    targets: Node,
    value: Option<Node>,
    stmt: Node,
    src: &[u8],
    syntax: &mut ModuleSyntax,
) {
    if value.is_some_and(|v| lazy_form(v, src).is_some()) {
        return;
    }
    let mut names = Vec::new();
    pattern_variables(targets, src, &mut names);
    match enclosing_def(stmt) {
        Some(cls) if cls.kind() == "class_definition" => {
            if let Some(path) = class_path(stmt, src)
                && let Some(def) = find_class_mut(&mut syntax.defs, &path)
            {
                def.class_names.extend(names.into_iter().map(String::from));
            }
        }
        Some(_) => {}
        None => {
            for name in names {
                if name == "__all__" {
                    syntax.all_refs.push(AllRef::Dynamic);
                    continue;
                }
                syntax.bindings.push(Binding {
                    name: name.to_string(),
                    target: BindingTarget::Value { annotation: None },
                    line: line_of(stmt),
                    type_only: false,
                });
            }
        }
    }
}

/// The plain names a target pattern binds: `a, (b, *c)` gives `a`, `b`, `c`.
fn pattern_variables<'s>(pattern: Node, src: &'s [u8], out: &mut Vec<&'s str>) {
    match pattern.kind() {
        "identifier" => out.push(text(pattern, src)),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "parenthesized_expression"
        | "list_splat_pattern" => {
            let mut c = pattern.walk();
            for p in pattern.named_children(&mut c) {
                pattern_variables(p, src, out);
            }
        }
        _ => {}
    }
}

/// Binds each of `targets` (the plain names of one assignment) to what `value` is: a dotted
/// expression in the module's namespace, or a variable.
fn bind_targets(
    targets: Vec<String>,
    ty: Option<Node>,
    value: Option<Node>,
    stmt: Node,
    src: &[u8],
    syntax: &mut ModuleSyntax,
) {
    let dotted = |v: Node| {
        matches!(v.kind(), "identifier" | "attribute")
            && text(v, src)
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    };
    let target = match value {
        Some(v) if dotted(v) => BindingTarget::Expr(text(v, src).to_string()),
        // `tt_solve_power = TTestPower().solve_power`, `DEFAULT = 30`: a variable.
        Some(_) => BindingTarget::Value {
            annotation: ty.map(|t| collapse_ws(text(t, src))),
        },
        // `X: int` binds nothing when a module runs; a stub declares its variables so.
        None if ty.is_some() && syntax.file.ends_with(".pyi") => BindingTarget::Value {
            annotation: ty.map(|t| collapse_ws(text(t, src))),
        },
        None => return,
    };
    if let Some(callee) = value.and_then(|v| callee_of(v, src)) {
        syntax
            .instances
            .extend(targets.iter().map(|t| (t.clone(), callee.clone())));
    }
    syntax
        .bindings
        .extend(targets.into_iter().map(|name| Binding {
            name,
            target: target.clone(),
            line: line_of(stmt),
            type_only: false,
        }));
}

/// The dotted function or class a call expression calls (`Proxy(...)`, `mod.Proxy(...)`).
fn callee_of(value: Node, src: &[u8]) -> Option<String> {
    let f = (value.kind() == "call")
        .then(|| value.child_by_field_name("function"))
        .flatten()?;
    let t = text(f, src);
    t.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        .then(|| t.to_string())
}

/// `global token` in a function, then `token = ...` or `from .dynamic import token` in it:
/// calling the function binds the module name. When the module itself calls the function
/// (SQLAlchemy's `__go(locals())`), the name is bound on import: assignments bind a variable,
/// imports keep their target, and an assigned `__all__` is computed at run time. Otherwise
/// (PLY's `lex()`) the name exists only once someone calls the function: it is neither
/// bound nor absent, and goes to `maybe_bound`.
fn collect_global_bindings(root: Node, statements: &[Node], src: &[u8], syntax: &mut ModuleSyntax) {
    let mut stack = vec![root];
    let mut found = Vec::new();
    while let Some(node) = stack.pop() {
        if node.kind() == "global_statement"
            && let Some(function) =
                enclosing_def(node).filter(|d| d.kind() == "function_definition")
        {
            let mut c = node.walk();
            let names: Vec<String> = node
                .named_children(&mut c)
                .filter(|n| n.kind() == "identifier")
                .map(|n| text(n, src).to_string())
                .collect();
            found.push((function, names));
        }
        let mut c = node.walk();
        stack.extend(node.named_children(&mut c));
    }
    let mut reads = Vec::new();
    for (function, names) in found {
        let Some(body) = function.child_by_field_name("body") else {
            continue;
        };
        let mut local = ModuleSyntax {
            name: syntax.name.clone(),
            is_package: syntax.is_package,
            ..Default::default()
        };
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            match node.kind() {
                // A nested function has a scope of its own.
                "function_definition" | "class_definition" | "lambda" => continue,
                "import_statement" | "import_from_statement" => {
                    import_bindings(node, src, &mut local);
                    continue;
                }
                "assignment" | "augmented_assignment" => {
                    if let Some(left) = node.child_by_field_name("left") {
                        let mut targets = vec![left];
                        if matches!(left.kind(), "pattern_list" | "tuple_pattern") {
                            let mut c = left.walk();
                            targets = left.named_children(&mut c).collect();
                        }
                        for t in targets.into_iter().filter(|t| t.kind() == "identifier") {
                            local.bindings.push(Binding {
                                name: text(t, src).to_string(),
                                target: BindingTarget::Value { annotation: None },
                                line: line_of(node),
                                type_only: false,
                            });
                        }
                    }
                }
                _ => {}
            }
            let mut c = node.walk();
            stack.extend(node.named_children(&mut c));
        }
        local.bindings.sort_by_key(|b| b.line);
        let fname = function
            .child_by_field_name("name")
            .map(|n| text(n, src))
            .unwrap_or_default();
        // Only a module-level function can be what a module-level `f(...)` calls.
        let called = enclosing_def(function).is_none()
            && statements
                .iter()
                .any(|stmt| squeezed(text(*stmt, src)).starts_with(&format!("{fname}(")));
        reads.push((called, fname, names, local.bindings));
    }
    // A function the module calls binds on import: its bindings stand before the others.
    reads.sort_by_key(|(called, ..)| !called);
    let mut seen = HashSet::new();
    for (called, fname, names, bindings) in reads {
        let later = |name: &str| {
            format!(
                "is bound by `global {name}` in {fname}() when that function runs, and the \
                 module does not call it itself"
            )
        };
        for b in bindings {
            if !names.contains(&b.name) || !seen.insert(b.name.clone()) {
                continue;
            }
            if !called {
                let why = later(&b.name);
                syntax.maybe_bound.push((b.name, why));
            } else if b.name == "__all__" {
                syntax.all_refs.push(AllRef::Dynamic);
            } else {
                syntax.bindings.push(b);
            }
        }
        // Declared global, bound in a way not read here (`for x in`, `with ... as x`, `def`).
        for n in names {
            if seen.insert(n.clone()) {
                let why = format!(
                    "may be bound by {fname}(), which declares `global {n}` and binds it in a \
                     way not read statically"
                );
                syntax.maybe_bound.push((n, why));
            }
        }
    }
}

/// `del a, b` in class bodies and at the top level of the module (not under `if`/`try`):
/// what was bound before the statement is gone (a binding after it stands).
/// The plain names a `del` statement deletes (`del a, (b, c)`; not `del a[0]` or `del a.x`).
fn deleted_names(node: Node, src: &[u8], out: &mut Vec<String>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "identifier" => out.push(text(child, src).to_string()),
            "expression_list" | "tuple" | "parenthesized_expression" => {
                deleted_names(child, src, out)
            }
            _ => {}
        }
    }
}

fn collect_deletions(statements: &[Node], src: &[u8], syntax: &mut ModuleSyntax) {
    for stmt in statements {
        let Some(scope) = enclosing_def(*stmt) else {
            // Only an unconditional one: `if sys.platform != "win32": del X` may not run.
            if stmt.parent().is_none_or(|p| p.kind() != "module") {
                continue;
            }
            let mut deleted = Vec::new();
            deleted_names(*stmt, src, &mut deleted);
            let line = line_of(*stmt);
            for name in deleted {
                syntax.defs.retain(|d| d.name != name || d.line > line);
                syntax.bindings.retain(|b| b.name != name || b.line > line);
            }
            continue;
        };
        if scope.kind() != "class_definition" {
            continue;
        }
        let Some(path) = class_path(*stmt, src) else {
            continue;
        };
        let Some(def) = find_class_mut(&mut syntax.defs, &path) else {
            continue;
        };
        let mut deleted = Vec::new();
        deleted_names(*stmt, src, &mut deleted);
        let line = line_of(*stmt);
        def.deleted.extend(deleted.into_iter().map(|n| (n, line)));
    }
}

/// `X = namedtuple("X", ["a", "b"])` / `NamedTuple("X", [("a", int)])`: a class whose
/// constructor takes the fields (with `defaults=` applying to the last ones).
fn namedtuple_class(name: &str, value: Node, src: &[u8]) -> Option<Def> {
    if value.kind() != "call" {
        return None;
    }
    let func = text(value.child_by_field_name("function")?, src);
    let func = func.rsplit('.').next().unwrap_or(func);
    if func != "namedtuple" && func != "NamedTuple" {
        return None;
    }
    let args = value.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let positional: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|a| !matches!(a.kind(), "comment" | "keyword_argument"))
        .collect();
    let fields_node = *positional.get(1)?;
    let mut fields: Vec<(String, Option<String>)> = Vec::new();
    match fields_node.kind() {
        "string" => {
            let v = string_literal_value(text(fields_node, src))?;
            fields.extend(
                v.split([',', ' '])
                    .filter(|f| !f.is_empty())
                    .map(|f| (f.to_string(), None)),
            );
        }
        "list" | "tuple" => {
            let mut c = fields_node.walk();
            for item in fields_node.named_children(&mut c) {
                match item.kind() {
                    "string" => fields.push((string_literal_value(text(item, src))?, None)),
                    "tuple" | "parenthesized_expression" => {
                        let field = item.named_child(0)?;
                        let ty = item.named_child(1).map(|t| collapse_ws(text(t, src)));
                        fields.push((string_literal_value(text(field, src))?, ty));
                    }
                    "comment" => {}
                    _ => return None,
                }
            }
        }
        _ => return None,
    }
    let mut params: Vec<Param> = fields
        .into_iter()
        .map(|(n, ty)| Param {
            name: n,
            kind: ParamKind::PositionalOrKeyword,
            annotation: ty,
            default: None,
            ..Default::default()
        })
        .collect();
    // `defaults=(1, 2)` applies to the last fields.
    let mut c = args.walk();
    for kw in args
        .named_children(&mut c)
        .filter(|a| a.kind() == "keyword_argument")
    {
        let is_defaults = kw
            .child_by_field_name("name")
            .is_some_and(|n| text(n, src) == "defaults");
        let Some(v) = kw.child_by_field_name("value") else {
            continue;
        };
        if is_defaults && matches!(v.kind(), "tuple" | "list") {
            let mut vc = v.walk();
            let defaults: Vec<String> = v
                .named_children(&mut vc)
                .filter(|d| d.kind() != "comment")
                .map(|d| text(d, src).to_string())
                .collect();
            let start = params.len().saturating_sub(defaults.len());
            for (p, d) in params[start..].iter_mut().zip(defaults) {
                p.default = Some(d);
            }
        }
    }
    let mut init_params = vec![Param {
        name: "_cls".into(),
        kind: ParamKind::PositionalOrKeyword,
        annotation: None,
        default: None,
        ..Default::default()
    }];
    init_params.extend(params);
    let line = line_of(value);
    let init = Def {
        line,
        params: init_params,
        ..Def::function("__new__")
    };
    Some(Def {
        kind: DefKind::Class,
        line,
        members: vec![init],
        ..Def::function(name)
    })
}

fn find_class_mut<'a>(defs: &'a mut [Def], path: &[String]) -> Option<&'a mut Def> {
    let (head, rest) = path.split_first()?;
    let d = defs
        .iter_mut()
        .rev()
        .find(|d| d.kind == DefKind::Class && &d.name == head)?;
    if rest.is_empty() {
        Some(d)
    } else {
        find_class_mut(&mut d.members, rest)
    }
}

fn collect_deprecation_warnings(query: &Query, root: Node, src: &[u8], syntax: &mut ModuleSyntax) {
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, src);
    let names = query.capture_names();
    while let Some(m) = matches.next() {
        let Some(call) = m
            .captures()
            .iter()
            .find(|c| names[c.index as usize] == "deprecation.warning")
            .map(|c| c.node)
        else {
            continue;
        };
        // `category=` must be the keyword when a keyword is used.
        if let Some(k) = m
            .captures()
            .iter()
            .find(|c| names[c.index as usize] == "keyword")
            && text(k.node, src) != "category"
        {
            continue;
        }
        let message = call
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
            .and_then(|a| match a.kind() {
                "string" => string_literal_value(text(a, src)),
                "concatenated_string" => Some(text(a, src).to_string()),
                _ => None,
            })
            .map(|s: String| collapse_ws(&s));
        let dep = Deprecation {
            replacement: message.as_deref().and_then(replacement_in),
            message,
            since: None,
            source: "warning".into(),
        };
        // A warning only some calls raise (`if proxies: warn(...)`, in an `except`) deprecates
        // an argument or a way of calling, not the callable or module itself.
        if is_conditional(call) {
            continue;
        }
        // The innermost function the call sits in; `__init__` deprecates its class.
        let Some(func) = enclosing_def(call) else {
            syntax.deprecation.get_or_insert(dep);
            continue;
        };
        if func.kind() != "function_definition" {
            continue;
        }
        let Some(mut path) = class_path(func, src) else {
            continue;
        };
        let Some(fname) = func
            .child_by_field_name("name")
            .map(|n| text(n, src).to_string())
        else {
            continue;
        };
        if fname == "__init__" && !path.is_empty() {
            if let Some(cls) = find_class_mut(&mut syntax.defs, &path) {
                cls.deprecation.get_or_insert(dep);
            }
            continue;
        }
        path.push(fname);
        if let Some(d) = find_def_mut(&mut syntax.defs, &path) {
            d.deprecation.get_or_insert(dep);
        }
    }
}

/// Whether `node` runs only on some paths through its function (or module): under an `if`,
/// `elif`, `else`, `except`, `case`, a conditional expression or a short-circuit operand, in a
/// loop or comprehension (it runs once per item, perhaps never), or in a lambda (it runs when
/// the lambda is called, if ever).
///
/// The price: a warning guarded to fire once (`if not _warned: warn(...)`) deprecates every
/// call, yet is read as conditional. A false "deprecated" on a callable that is not is the
/// worse mistake, so such a warning is dropped rather than guessed at.
fn is_conditional(node: Node) -> bool {
    let mut cur = node.parent();
    while let Some(n) = cur {
        match n.kind() {
            "function_definition" | "class_definition" => return false,
            "if_statement"
            | "elif_clause"
            | "else_clause"
            | "except_clause"
            | "case_clause"
            | "conditional_expression"
            | "boolean_operator"
            | "for_statement"
            | "while_statement"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
            | "lambda" => return true,
            _ => {}
        }
        cur = n.parent();
    }
    false
}

fn find_def_mut<'a>(defs: &'a mut [Def], path: &[String]) -> Option<&'a mut Def> {
    let (head, rest) = path.split_first()?;
    let d = defs.iter_mut().find(|d| &d.name == head)?;
    if rest.is_empty() {
        Some(d)
    } else {
        find_def_mut(&mut d.members, rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docstrings_read_as_python_reads_them() {
        // As in rich: `Defaults to "\\n".` is one backslash and an n once Python reads it.
        let lit = r#""""Defaults to "\\n". A\tB \x41\101 \u00e9 \N{DASH} \q""""#;
        assert_eq!(
            docstring_value(lit).as_deref(),
            Some("Defaults to \"\\n\". A\tB AA \u{e9} \\N{DASH} \\q")
        );
        assert_eq!(
            docstring_value(r"r'''keep \n'''").as_deref(),
            Some(r"keep \n")
        );
        assert_eq!(
            docstring_value("'''one \\\ntwo'''").as_deref(),
            Some("one two")
        );
        assert_eq!(
            docstring_value("'''one \\\r\ntwo'''").as_deref(),
            Some("one two")
        );
    }

    #[test]
    fn every_query_file_compiles_against_the_grammar() {
        let lang = language();
        for (stem, src) in QUERY_FILES {
            Query::new(&lang, src).unwrap_or_else(|e| panic!("{stem}.scm: {e}"));
        }
        // And every .scm on disk is registered.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/extractors/python");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            // The run-time probe (inspect_probe.py) lives here too; it is no query.
            if path.extension().is_none_or(|e| e != "scm") {
                continue;
            }
            let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
            assert!(
                QUERY_FILES.iter().any(|(s, _)| *s == stem),
                "{} is not registered in QUERY_FILES",
                path.display()
            );
        }
    }

    /// `src` as the module `pkg.mod`, file `pkg/mod.py`.
    fn module_file(src: &str) -> (ModuleName, SourceFile) {
        let name = ModuleName {
            dotted: "pkg.mod".into(),
            is_package: false,
        };
        let file = SourceFile {
            path: "pkg/mod.py".into(),
            text: src.as_bytes().to_vec(),
        };
        (name, file)
    }

    fn module(src: &str) -> ModuleSyntax {
        let (name, file) = module_file(src);
        parse_module(&name, &file).0
    }

    #[test]
    fn a_skimmed_module_says_what_the_whole_one_says() {
        // A blanked function last in a guarded block: the block still ends on its last line.
        let src = "from pkg.utils import is_torch_available\n\nif is_torch_available():\n    import torch\n\n    def convert(x: int) -> int:\n        \"\"\"Convert.\"\"\"\n        y = x * 2\n        if y:\n            return y\n        return 0\n\n\nclass Model:\n    def __init__(self, size: int):\n        self.size = size\n\n    def forward(self, x):\n        return torch.relu(x)\n";
        assert!(skim::skim(src.as_bytes()).is_some());
        let (name, file) = module_file(src);
        let whole = parse_module_whole(&name, &file);
        assert_eq!(
            format!("{:?}", parse_module(&name, &file)),
            format!("{whole:?}")
        );
        assert_eq!(whole.0.guards[0].1, 11);
        // A file the tokenizer cannot follow (here a bracket never closed) is parsed whole,
        // and its syntax error reported.
        let (_, broken) =
            module_file("def f():\n    x = (1,\n    return x\n\ndef g():\n    return 1\n");
        assert_eq!(parse_module(&name, &broken).1.len(), 1);
    }

    #[test]
    fn metadata_a_module_getattr_serves_is_bound_where_all_lists_it() {
        // As attrs 23: `__all__` lists the metadata dunders its `__getattr__` reads from the
        // installed package's metadata.
        let m = module(
            "from ._make import define\n\n__all__ = [\"__version__\", \"__author__\", \"define\", \"converters\"]\n\n\ndef __getattr__(name):\n    meta = {\"__version__\": \"version\", \"__author__\": \"author\"}\n    if name not in meta:\n        raise AttributeError(name)\n    from importlib.metadata import metadata\n    return metadata(\"attrs\")[meta[name]]\n",
        );
        let served: Vec<(&str, usize)> = m
            .bindings
            .iter()
            .filter(|b| matches!(b.target, BindingTarget::Value { .. }))
            .map(|b| (b.name.as_str(), b.line))
            .collect();
        // A submodule `__all__` lists (`converters`) is not taken for a served value.
        assert_eq!(served, [("__version__", 6), ("__author__", 6)]);
        // Without a module `__getattr__`, an unbound dunder of `__all__` stays unbound.
        let plain = module("__all__ = [\"__version__\"]\n");
        assert!(plain.bindings.is_empty());
    }

    #[test]
    fn parameter_kinds_follow_python() {
        let m =
            module("def f(a, b: int = 1, /, c=2, *args: str, d, e='x', **kw) -> None:\n    pass\n");
        let f = &m.defs[0];
        let got: Vec<(&str, &str, Option<&str>)> = f
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.kind.as_str(), p.default.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a", "positional_only", None),
                ("b", "positional_only", Some("1")),
                ("c", "positional_or_keyword", Some("2")),
                ("args", "var_positional", None),
                ("d", "keyword_only", None),
                ("e", "keyword_only", Some("'x'")),
                ("kw", "var_keyword", None),
            ]
        );
        assert_eq!(f.params[1].annotation.as_deref(), Some("int"));
        assert_eq!(f.returns.as_deref(), Some("None"));
        let m = module("def g(*, key): ...\n");
        assert_eq!(m.defs[0].params[0].kind, ParamKind::KeywordOnly);
    }

    #[test]
    fn relative_imports_resolve_against_the_package() {
        assert_eq!(absolute_module("a.b", false, ".c").as_deref(), Some("a.c"));
        assert_eq!(absolute_module("a.b", true, ".c").as_deref(), Some("a.b.c"));
        assert_eq!(absolute_module("a.b", false, "..").as_deref(), Some(""));
        assert_eq!(absolute_module("a", true, "."), Some("a".into()));
        assert_eq!(absolute_module("a", false, "..."), None);
    }

    #[test]
    fn deprecations_are_found_in_all_three_places() {
        let m = module(
            r#"
import warnings
class C:
    def old(self):
        warnings.warn("old() is deprecated; use `C.new` instead", DeprecationWarning, stacklevel=2)
    @deprecated("Use C.newer instead")
    def older(self): ...
    def oldest(self):
        """Do it.

        .. deprecated:: 1.2
           Use :meth:`new`.
        """
    def __init__(self, proxies=None, proxy=None):
        # httpx.Client: one argument is deprecated, not the class.
        if proxies:
            warnings.warn("The 'proxies' argument is now deprecated.", DeprecationWarning)
    def fetch(self, x):
        try:
            return x.read()
        except AttributeError:
            warnings.warn("passing a path is deprecated", DeprecationWarning)
    def later(self, x):
        # Runs when the callback is called, if ever.
        if x:
            cb = lambda: warnings.warn("x is deprecated", DeprecationWarning)
        return lambda: warnings.warn("y is deprecated", DeprecationWarning)
    def each(self, **kwargs):
        for key in kwargs.keys() & {"old"}:
            warnings.warn(f"{key} is deprecated", DeprecationWarning)
        [warnings.warn("z", DeprecationWarning) for k in kwargs if k == "z"]
        while kwargs.pop("w", None):
            warnings.warn("w is deprecated", DeprecationWarning)
"#,
        );
        let c = &m.defs[0];
        let by = |n: &str| c.members.iter().find(|d| d.name == n).unwrap();
        assert_eq!(
            c.deprecation, None,
            "a deprecated argument is not a deprecated class"
        );
        assert_eq!(by("fetch").deprecation, None);
        assert_eq!(
            by("later").deprecation,
            None,
            "a lambda may never be called"
        );
        assert_eq!(by("each").deprecation, None, "a loop may run for no item");
        let d = by("old").deprecation.clone().unwrap();
        assert_eq!(d.replacement.as_deref(), Some("C.new"));
        assert_eq!(d.source, "warning");
        assert_eq!(
            by("older")
                .deprecation
                .clone()
                .unwrap()
                .replacement
                .as_deref(),
            Some("C.newer")
        );
        assert_eq!(
            by("oldest").deprecation.clone().unwrap().since.as_deref(),
            Some("1.2")
        );
    }

    #[test]
    fn syntax_errors_are_diagnostics_and_the_rest_is_kept() {
        let name = ModuleName {
            dotted: "m".into(),
            is_package: false,
        };
        let file = SourceFile {
            path: "m.py".into(),
            text: b"def ok(a):\n    pass\n\ndef bad(a:\n    pass\n\ndef later(b=1):\n    pass\n"
                .to_vec(),
        };
        let (syntax, diags) = parse_module(&name, &file);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(syntax.defs.iter().any(|d| d.name == "ok"));
    }

    #[test]
    fn functional_namedtuples_are_classes_with_their_fields() {
        let m = module(
            "R = namedtuple('R', ['data', 'errors'])\nP = namedtuple('P', 'x y', defaults=(0,))\n",
        );
        let r = m.defs.iter().find(|d| d.name == "R").unwrap();
        assert_eq!(r.kind, DefKind::Class);
        let names: Vec<&str> = r.members[0]
            .params
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, vec!["_cls", "data", "errors"]);
        let p = m.defs.iter().find(|d| d.name == "P").unwrap();
        assert_eq!(p.members[0].params[2].default.as_deref(), Some("0"));
    }

    #[test]
    fn requests_are_read_from_literal_paths_only() {
        let m = module(concat!(
            "class S:\n",
            "    def a(self, c):\n",
            "        return self._request(\n            'delete',\n",
            "            '/v1/customers/{customer}'.format(customer=c),\n        )\n",
            "    async def b(self, file_id):\n",
            "        def inner():\n            return self._get(f'/files/{file_id}/content')\n",
            "        return await inner()\n",
            "    def c(self, i):\n        self.r.request(method='POST', uri='/x/%s' % i)\n",
            "    def d(self):\n        return self._request('post', self.class_url())\n",
            "    def e(self, k):\n        return self.cache.get(k, '/default')\n",
        ));
        type Requests<'a> = Vec<(&'a str, &'a str, usize)>;
        let got: Vec<(&str, Requests)> = m.defs[0]
            .members
            .iter()
            .map(|d| {
                (
                    d.name.as_str(),
                    d.requests
                        .iter()
                        .map(|r| (r.method.as_str(), r.path.as_str(), r.line))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("a", vec![("DELETE", "/v1/customers/{customer}", 3)]),
                ("b", vec![("GET", "/files/{file_id}/content", 9)]),
                ("c", vec![("POST", "/x/{}", 12)]),
                ("d", vec![]),
                ("e", vec![]),
            ]
        );
        assert_eq!(
            m.defs[0].members[2].requests[0].evidence,
            "self.r.request(method='POST', uri='/x/%s' % i)"
        );
    }

    #[test]
    fn six_style_metaclass_bases_are_unwrapped() {
        let m = module("class S(with_metaclass(Meta, Base, Other)):\n    pass\n");
        assert_eq!(m.defs[0].bases, vec!["Base", "Other"]);
    }

    #[test]
    fn overloads_fold_into_the_implementation() {
        let m = module(
            "from typing import overload\n@overload\ndef f(x: int) -> int: ...\n@overload\ndef f(x: str) -> str: ...\ndef f(x):\n    return x\n",
        );
        assert_eq!(m.defs.len(), 1);
        assert_eq!(m.defs[0].overloads.len(), 2);
        assert_eq!(m.defs[0].params[0].annotation, None);
    }

    #[test]
    fn all_arithmetic_is_read_as_parts() {
        let m = module(
            "from . import core\n__all__ = ['A'] + core.__all__\n__all__ += _x.y.__all__\n\
             __all__.extend(sorted(['B', *more.__all__]))\n__all__.append('C')\n\
             __all__ = __all__ + [n for n in dir() if not n.startswith('_')]\n\
             __all__ += get_names()\n",
        );
        assert_eq!(m.all.unwrap(), vec!["A", "B", "C"]);
        assert_eq!(
            m.all_refs,
            vec![
                AllRef::Module("core".into()),
                AllRef::Module("_x.y".into()),
                AllRef::Module("more".into()),
                AllRef::Namespace,
                AllRef::Dynamic,
            ]
        );
        // A plain assignment starts over.
        let m = module("__all__ = x.__all__\n__all__ = ['only']\n");
        assert_eq!((m.all.unwrap(), m.all_refs), (vec!["only".into()], vec![]));
    }

    #[test]
    fn all_and_aliases_are_read() {
        let m = module(
            "__all__ = ['A', \"b\"]\n__all__ += ('c',)\n__all__.extend(['d'])\nX = A\nimport os.path\nfrom . import sib as s\n",
        );
        assert_eq!(m.all.unwrap(), vec!["A", "b", "c", "d"]);
        let bindings: Vec<(&str, &BindingTarget)> = m
            .bindings
            .iter()
            .map(|b| (b.name.as_str(), &b.target))
            .collect();
        assert!(bindings.contains(&("X", &BindingTarget::Expr("A".into()))));
        assert!(bindings.contains(&("os", &BindingTarget::Module("os".into()))));
        assert!(bindings.contains(&(
            "s",
            &BindingTarget::FromImport {
                module: "pkg".into(),
                name: "sib".into()
            }
        )));
    }

    #[test]
    fn a_package_shadows_a_module_file_of_the_same_name() {
        let file = |path: &str, text: &str| SourceFile {
            path: path.into(),
            text: text.as_bytes().to_vec(),
        };
        // The stale module file comes first in the archive; the import system takes the
        // package either way.
        for files in [
            vec![
                file("pkg/objs.py", "OLD = 1\n"),
                file("pkg/objs/__init__.py", "NEW = 1\n"),
            ],
            vec![
                file("pkg/objs/__init__.py", "NEW = 1\n"),
                file("pkg/objs.py", "OLD = 1\n"),
            ],
        ] {
            let chosen = choose_module_files(&files);
            let objs: Vec<_> = chosen
                .iter()
                .filter(|(m, _, _)| m.dotted == "pkg.objs")
                .collect();
            assert_eq!(objs.len(), 1);
            assert!(objs[0].0.is_package);
            assert_eq!(objs[0].1.path, "pkg/objs/__init__.py");
        }
    }

    #[test]
    fn module_names_come_from_paths() {
        let m = module_name_for("click/__init__.py").unwrap();
        assert_eq!((m.dotted.as_str(), m.is_package), ("click", true));
        assert_eq!(
            module_name_for("click/core.pyi").unwrap().dotted,
            "click.core"
        );
        assert!(module_name_for("click-8.1.7.dist-info/RECORD").is_none());
        assert!(module_name_for("pkg/tests/test_x.py").is_none());
        assert!(module_name_for("my-script.py").is_none());
    }
}
