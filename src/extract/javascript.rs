//! npm packages (JavaScript and TypeScript declarations) to the public API of a release.
//!
//! 1. `package.json` names the public modules: the package entry (`types`/`typings`, the `"."`
//!    export, `main`) and public subpaths of its `exports` map, each spelled as the specifier
//!    users import (`commander`, `lodash/fp`).
//! 2. Files are parsed in waves, starting at those entries and following re-exports and imports
//!    ([`syntax::parse`]). A `.d.ts` beside a `.js` file wins: declarations carry the types.
//! 3. Every export of every public module is followed to its declaration (cycles are cut by
//!    depth); symbols are named `<specifier>:<export>[.<member>]`, canonical through the
//!    declaring module when it is public, else through the package entry, else the shortest.

pub mod syntax;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use crate::extract::{SourceFile, parallel_map};
use crate::model::{Diagnostic, Param, Relation, RelationKind, ReleaseFacts, Symbol, SymbolKind};
use syntax::{Decl, DeclKind, Export, Member, MemberKind, ModuleSyntax, Sig, is_declaration};

/// Whether a release file is read by this extractor.
pub fn reads(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "package.json"
        || is_declaration(path)
        || [".js", ".mjs", ".cjs"].iter().any(|e| path.ends_with(e)) && !path.ends_with(".min.js")
}

/// Keeps the files of one npm package: an npm tarball wraps them in `package/`, which is dropped;
/// nested `node_modules` never count.
pub fn select_files(files: Vec<SourceFile>) -> Vec<SourceFile> {
    let has_root_manifest = files.iter().any(|f| f.path == "package.json");
    let files: Vec<SourceFile> = if has_root_manifest {
        files
    } else {
        // `package/package.json` (or another single wrapper folder).
        let wrapper = files
            .iter()
            .filter_map(|f| f.path.strip_suffix("/package.json"))
            .filter(|p| !p.contains('/'))
            .min()
            .map(str::to_string);
        match wrapper {
            Some(w) => files
                .into_iter()
                .filter_map(|f| {
                    f.path.strip_prefix(&format!("{w}/")).map(|p| SourceFile {
                        path: p.to_string(),
                        text: f.text,
                    })
                })
                .collect(),
            None => files,
        }
    };
    files
        .into_iter()
        .filter(|f| !f.path.split('/').any(|c| c == "node_modules"))
        .collect()
}

/// The public modules of a package: specifier -> file, in a stable order (entry first).
#[derive(Debug, Default)]
struct Layout {
    name: String,
    entry: Option<String>,
    modules: Vec<(String, String)>,
}

/// Which of `exports`' conditions is taken, best first: types when there are declarations.
const CONDITIONS: &[&str] = &["types", "typings", "import", "require", "node", "default"];

fn pick_condition(v: &Value, depth: usize) -> Option<String> {
    if depth > 8 {
        return None;
    }
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => items.iter().find_map(|i| pick_condition(i, depth + 1)),
        Value::Object(map) => CONDITIONS
            .iter()
            .filter_map(|c| map.get(*c))
            .chain(
                map.iter()
                    .filter(|(k, _)| !CONDITIONS.contains(&k.as_str()))
                    .map(|(_, v)| v),
            )
            .find_map(|v| pick_condition(v, depth + 1)),
        _ => None,
    }
}

/// `./lib/index.js` -> `lib/index.js`, normalised.
fn clean(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

fn strip_js_ext(path: &str) -> &str {
    for e in [".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs", ".ts"] {
        if let Some(b) = path.strip_suffix(e) {
            return b;
        }
    }
    path
}

/// The file that describes module `base` (a path without or with a JS extension): its
/// declaration file when there is one, else the JavaScript.
fn module_file(path: &str, files: &HashSet<&str>, declarations: bool) -> Option<String> {
    let path = clean(path)?;
    let base = strip_js_ext(&path);
    let decl_ext: &[&str] = if path.ends_with(".mjs") {
        &[".d.mts", ".d.ts"]
    } else if path.ends_with(".cjs") {
        &[".d.cts", ".d.ts"]
    } else {
        &[".d.ts", ".d.mts", ".d.cts"]
    };
    let mut candidates: Vec<String> = Vec::new();
    if declarations {
        if is_declaration(&path) {
            candidates.push(path.clone());
        }
        candidates.extend(decl_ext.iter().map(|e| format!("{base}{e}")));
        candidates.push(format!("{path}/index.d.ts"));
    }
    candidates.push(path.clone());
    candidates.extend([".js", ".mjs", ".cjs"].iter().map(|e| format!("{base}{e}")));
    candidates.push(format!("{path}/index.js"));
    candidates
        .into_iter()
        .find(|c| files.contains(c.as_str()) && reads(c) && c != "package.json")
}

fn layout(manifest: &Value, files: &HashSet<&str>, diags: &mut Vec<Diagnostic>) -> Layout {
    let name = manifest
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let declarations = files.iter().any(|f| is_declaration(f));
    let mut out = Layout {
        name: name.clone(),
        ..Default::default()
    };
    let exports = manifest.get("exports");
    // The `"."` export: the map itself when it holds conditions rather than subpaths.
    let dot = match exports {
        Some(Value::Object(m)) if m.keys().any(|k| k.starts_with('.')) => m.get(".").cloned(),
        Some(v @ (Value::String(_) | Value::Object(_) | Value::Array(_))) => Some(v.clone()),
        _ => None,
    };
    let mut entry_candidates: Vec<String> = Vec::new();
    for key in ["types", "typings"] {
        if let Some(s) = manifest.get(key).and_then(Value::as_str) {
            entry_candidates.push(s.to_string());
        }
    }
    if let Some(d) = &dot {
        entry_candidates.extend(pick_condition(d, 0));
    }
    for key in ["main", "module"] {
        if let Some(s) = manifest.get(key).and_then(Value::as_str) {
            entry_candidates.push(s.to_string());
        }
    }
    entry_candidates.push("index".into());
    out.entry = entry_candidates
        .iter()
        .find_map(|c| module_file(c, files, declarations));
    if let Some(e) = &out.entry {
        out.modules.push((name.clone(), e.clone()));
    }
    let Some(Value::Object(map)) = exports else {
        if exports.is_some_and(|e| !e.is_string() && !e.is_null()) {
            diags.push(Diagnostic {
                file: "package.json".into(),
                line: 1,
                message: "\"exports\" is neither a path nor an object; only the entry is public"
                    .into(),
            });
        }
        return out;
    };
    let mut subpaths: Vec<(String, String)> = Vec::new();
    for (key, target) in map {
        if key == "." || !key.starts_with("./") {
            if !key.starts_with('.') && map.keys().any(|k| k.starts_with('.')) {
                diags.push(Diagnostic {
                    file: "package.json".into(),
                    line: 1,
                    message: format!(
                        "\"exports\" mixes subpaths and the condition '{key}'; the condition is ignored"
                    ),
                });
            }
            continue;
        }
        if key.ends_with("package.json") {
            continue;
        }
        if key.contains('*') {
            if key == "./*" {
                wildcard_modules(&name, files, declarations, &mut subpaths);
            }
            continue;
        }
        let Some(target) = pick_condition(target, 0) else {
            continue;
        };
        let Some(file) = module_file(&target, files, declarations) else {
            diags.push(Diagnostic {
                file: "package.json".into(),
                line: 1,
                message: format!(
                    "export \"{key}\" points to {target}, which is not in the package"
                ),
            });
            continue;
        };
        let spec = format!(
            "{name}/{}",
            key.trim_start_matches("./").trim_end_matches('/')
        );
        subpaths.push((spec.trim_end_matches("/index").to_string(), file));
    }
    subpaths.sort();
    for (spec, file) in subpaths {
        if !out.modules.iter().any(|(s, f)| *s == spec || *f == file) {
            out.modules.push((spec, file));
        }
    }
    out
}

/// `"./*"`: every shipped module is public, named by its path.
fn wildcard_modules(
    name: &str,
    files: &HashSet<&str>,
    declarations: bool,
    out: &mut Vec<(String, String)>,
) {
    let mut paths: Vec<&str> = files
        .iter()
        .copied()
        .filter(|f| {
            if declarations {
                f.ends_with(".d.ts")
            } else {
                f.ends_with(".js") || f.ends_with(".mjs") || f.ends_with(".cjs")
            }
        })
        .filter(|f| {
            let parts: Vec<&str> = f.split('/').collect();
            let file = parts.last().copied().unwrap_or("");
            let hidden_dir = parts[..parts.len() - 1]
                .iter()
                .any(|d| d.starts_with('_') || d.starts_with('.'));
            let top_skipped = parts.len() > 1 && ["src", "shims", "bin"].contains(&parts[0]);
            !(file.starts_with('_') || file.ends_with(".test.d.ts") || hidden_dir || top_skipped)
        })
        .collect();
    paths.sort();
    for p in paths {
        let spec = format!("{name}/{}", strip_js_ext(p));
        let spec = spec.strip_suffix("/index").unwrap_or(&spec).to_string();
        out.push((spec, p.to_string()));
    }
}

/// Resolves an import specifier written in `from_file` to a file of this package.
fn resolve_spec(
    from_file: &str,
    spec: &str,
    layout: &Layout,
    files: &HashSet<&str>,
) -> Option<String> {
    let declarations = is_declaration(from_file);
    if spec.starts_with('.') {
        let dir = from_file.rsplit_once('/').map_or("", |(d, _)| d);
        return module_file(&format!("{dir}/{spec}"), files, declarations);
    }
    if spec == layout.name {
        return layout.entry.clone();
    }
    let sub = spec.strip_prefix(&format!("{}/", layout.name))?;
    layout
        .modules
        .iter()
        .find(|(s, _)| s == spec)
        .map(|(_, f)| f.clone())
        .or_else(|| module_file(sub, files, declarations))
}

/// Extracts the public API of an npm release.
pub fn extract(files: &[SourceFile]) -> ReleaseFacts {
    extract_with(files, &Default::default())
}

/// [`extract`] with the given re-export limit.
pub fn extract_with(files: &[SourceFile], limits: &crate::extract::ExtractLimits) -> ReleaseFacts {
    let mut facts = ReleaseFacts::default();
    let by_path: HashMap<&str, &SourceFile> = files.iter().map(|f| (f.path.as_str(), f)).collect();
    let names: HashSet<&str> = by_path.keys().copied().collect();
    let Some(manifest_file) = by_path.get("package.json") else {
        facts.diagnostics.push(Diagnostic {
            file: "package.json".into(),
            line: 1,
            message: "no package.json at the package root".into(),
        });
        return facts;
    };
    let manifest: Value = match serde_json::from_slice(&manifest_file.text) {
        Ok(v) => v,
        Err(e) => {
            facts.diagnostics.push(Diagnostic {
                file: "package.json".into(),
                line: e.line(),
                message: format!("package.json is not valid JSON: {e}"),
            });
            return facts;
        }
    };
    let layout = layout(&manifest, &names, &mut facts.diagnostics);
    if layout.name.is_empty() {
        facts.diagnostics.push(Diagnostic {
            file: "package.json".into(),
            line: 1,
            message: "package.json has no \"name\"".into(),
        });
        return facts;
    }
    // Parse in waves: the public modules, then whatever they re-export or import.
    let mut parsed: HashMap<String, ModuleSyntax> = HashMap::new();
    let mut wave: Vec<String> = layout.modules.iter().map(|(_, f)| f.clone()).collect();
    wave.sort();
    wave.dedup();
    while !wave.is_empty() {
        let results = parallel_map(&wave, |path| {
            let text = &by_path[path.as_str()].text;
            syntax::parse(path, text)
        });
        let mut next: Vec<String> = Vec::new();
        for m in results {
            let specs = m
                .exports
                .iter()
                .filter_map(|(_, e)| match e {
                    Export::From { from, .. } | Export::Namespace { from } => Some(from),
                    _ => None,
                })
                .chain(m.stars.iter())
                .chain(m.imports.values().map(|i| &i.from));
            for s in specs {
                if let Some(f) = resolve_spec(&m.path, s, &layout, &names)
                    && !parsed.contains_key(&f)
                    && !wave.contains(&f)
                {
                    next.push(f);
                }
            }
            parsed.insert(m.path.clone(), m);
        }
        next.sort();
        next.dedup();
        wave = next;
    }
    facts.files = parsed.len();
    for m in parsed.values_mut() {
        facts.diagnostics.append(&mut m.diagnostics);
    }
    facts
        .diagnostics
        .sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    let resolver = Resolver {
        parsed: &parsed,
        layout: &layout,
        files: &names,
        tables: RefCell::default(),
        building: RefCell::default(),
        max_depth: limits.max_reexport_depth,
        cut: RefCell::default(),
    };
    let (mut symbols, locals, declared) = resolver.symbols();
    // Before the symbols move to their JavaScript: the declarations are the evidence.
    facts.relations = resolver.relations(&symbols, &declared);
    resolver.canonical_bases(&mut symbols, &declared);
    if let Some(file) = resolver.cut.borrow().as_ref() {
        facts.diagnostics.push(Diagnostic {
            file: file.clone(),
            line: 1,
            message: format!(
                "re-exports chain more than {} modules deep here; the names behind it are left \
                 out; if the package is genuine, raise --max-reexport-depth",
                limits.max_reexport_depth
            ),
        });
    }
    let located = locate_in_javascript(&mut symbols, &locals, &by_path);
    // The requests of the bodies: in the JavaScript beside a declaration, or in the module.
    for s in &symbols {
        if !matches!(
            s.kind,
            SymbolKind::Function | SymbolKind::Method | SymbolKind::Staticmethod
        ) {
            continue;
        }
        let (Some(module), Some((local, member))) = (
            located.get(&s.file).or_else(|| parsed.get(&s.file)),
            locals.get(&s.qualified_name),
        ) else {
            continue;
        };
        let Some(decl) = module.decls.get(local) else {
            continue;
        };
        let sigs: Vec<&syntax::Sig> = match member {
            None => decl.sigs.iter().collect(),
            Some(m) => decl
                .members
                .iter()
                .filter(|x| &x.name == m)
                .flat_map(|x| &x.sigs)
                .collect(),
        };
        facts.relations.extend(
            sigs.iter()
                .flat_map(|sig| &sig.requests)
                .filter_map(|r| r.relation(&s.qualified_name, &s.file)),
        );
    }
    facts.symbols = symbols;
    facts
}

struct Resolver<'a> {
    parsed: &'a HashMap<String, ModuleSyntax>,
    layout: &'a Layout,
    files: &'a HashSet<&'a str>,
    /// Every module's resolved export table, built once: SDKs re-export thousands of names
    /// through hundreds of `export *` lines, so resolving name by name is quadratic.
    tables: RefCell<HashMap<String, Rc<ExportTable>>>,
    building: RefCell<HashSet<String>>,
    /// How many modules deep re-exports are followed; `cut` is the first module not read.
    max_depth: usize,
    cut: RefCell<Option<String>>,
}

/// Symbol -> (local declaration name, member name): where to look for it in the JavaScript.
type Locals = HashMap<String, (String, Option<String>)>;

/// (declaring file, local name) -> canonical public name, for every public declaration.
type Declared = HashMap<(String, String), String>;

/// Export name -> (declaring file, local name).
type ExportTable = BTreeMap<String, (String, String)>;

/// One public name of a declaration.
#[derive(Debug, Clone)]
struct Alias {
    spec: String,
    name: String,
    is_entry: bool,
}

impl Resolver<'_> {
    fn module(&self, file: &str) -> Option<&ModuleSyntax> {
        self.parsed.get(file)
    }

    fn resolve_from(&self, file: &str, spec: &str) -> Option<String> {
        resolve_spec(file, spec, self.layout, self.files)
    }

    /// Export `name` of `file` -> the file and local name of its declaration.
    fn resolve_export(&self, file: &str, name: &str, depth: usize) -> Option<(String, String)> {
        self.table(file, depth).get(name).cloned()
    }

    /// Everything `file` exports, resolved to declarations; `export *` adds what the module
    /// does not export itself, never `default`. A module met again while its own table is
    /// being built (a re-export cycle) contributes nothing on that path.
    fn table(&self, file: &str, depth: usize) -> Rc<ExportTable> {
        if let Some(t) = self.tables.borrow().get(file) {
            return t.clone();
        }
        let Some(m) = self.module(file) else {
            return Rc::default();
        };
        if depth > self.max_depth {
            self.cut
                .borrow_mut()
                .get_or_insert_with(|| file.to_string());
            return Rc::default();
        }
        if !self.building.borrow_mut().insert(file.to_string()) {
            return Rc::default();
        }
        let mut table = ExportTable::new();
        for (name, e) in &m.exports {
            let target = match e {
                Export::Namespace { .. } => None,
                Export::From { from, name } => self
                    .resolve_from(file, from)
                    .and_then(|f| self.resolve_export(&f, name, depth + 1)),
                Export::Local(local) => self.resolve_local(file, local, depth),
                Export::Member { local, name } => m
                    .imports
                    .get(local)
                    .filter(|im| im.name == "*" || im.name == "module.exports")
                    .and_then(|im| self.resolve_from(file, &im.from))
                    .and_then(|f| self.resolve_export(&f, name, depth + 1)),
            };
            if let Some(t) = target {
                table.insert(name.clone(), t);
            }
        }
        for s in &m.stars {
            let Some(f) = self.resolve_from(file, s) else {
                continue;
            };
            for (n, t) in self.table(&f, depth + 1).iter() {
                if n != "default" && m.export(n).is_none() && !table.contains_key(n) {
                    table.insert(n.clone(), t.clone());
                }
            }
        }
        self.building.borrow_mut().remove(file);
        let table = Rc::new(table);
        self.tables
            .borrow_mut()
            .insert(file.to_string(), table.clone());
        table
    }

    fn resolve_local(&self, file: &str, local: &str, depth: usize) -> Option<(String, String)> {
        let m = self.module(file)?;
        // `const x = require("./x")` is both a variable and an import: the import says more.
        let Some(im) = m.imports.get(local) else {
            return m
                .decls
                .contains_key(local)
                .then(|| (file.to_string(), local.to_string()));
        };
        let name = match im.name.as_str() {
            // A namespace object is not one declaration.
            "*" => return None,
            "module.exports" => "default",
            n => n,
        };
        let f = self.resolve_from(file, &im.from)?;
        self.resolve_export(&f, name, depth + 1)
    }

    /// The public symbols, where each is declared (to find it in the JavaScript), and the
    /// canonical name of each public declaration.
    fn symbols(&self) -> (Vec<Symbol>, Locals, Declared) {
        let mut locals = Locals::new();
        let mut declared = Declared::new();
        let mut targets: BTreeMap<(String, String), Vec<Alias>> = BTreeMap::new();
        let entry = self.layout.entry.as_deref();
        for (spec, file) in &self.layout.modules {
            for (n, t) in self.table(file, 0).iter() {
                targets.entry(t.clone()).or_default().push(Alias {
                    spec: spec.clone(),
                    name: n.clone(),
                    is_entry: Some(file.as_str()) == entry,
                });
            }
        }
        let own_spec: HashMap<&str, &str> = self
            .layout
            .modules
            .iter()
            .map(|(s, f)| (f.as_str(), s.as_str()))
            .collect();
        let mut out: Vec<Symbol> = Vec::new();
        let mut taken: HashSet<String> = HashSet::new();
        // Classes and interfaces (their index in `out`), for the members of private bases.
        let mut classes: Vec<(usize, &Decl, &str)> = Vec::new();
        for ((file, local), aliases) in &targets {
            let Some(decl) = self.module(file).and_then(|m| m.decls.get(local)) else {
                continue;
            };
            let mut names: Vec<String> = aliases
                .iter()
                .map(|a| format!("{}:{}", a.spec, a.name))
                .collect();
            names.sort();
            names.dedup();
            let canonical = own_spec
                .get(file.as_str())
                .filter(|own| aliases.iter().any(|a| a.spec == **own && a.name == *local))
                .map(|own| format!("{own}:{local}"))
                .unwrap_or_else(|| {
                    let best = aliases
                        .iter()
                        .min_by(|a, b| {
                            (
                                !a.is_entry,
                                a.name == "default",
                                a.spec.len() + a.name.len(),
                                format!("{}.{}", a.spec, a.name),
                            )
                                .cmp(&(
                                    !b.is_entry,
                                    b.name == "default",
                                    b.spec.len() + b.name.len(),
                                    format!("{}.{}", b.spec, b.name),
                                ))
                        })
                        .expect("a target has at least one alias");
                    format!("{}:{}", best.spec, best.name)
                });
            if !taken.insert(canonical.clone()) {
                continue;
            }
            declared.insert((file.clone(), local.clone()), canonical.clone());
            let display = if local.contains('.') || local == "default" {
                canonical.rsplit(':').next().unwrap_or(local).to_string()
            } else {
                local.clone()
            };
            let others: Vec<String> = names.iter().filter(|n| **n != canonical).cloned().collect();
            let parent = canonical.rsplit_once(':').map(|(s, _)| s.to_string());
            let first = out.len();
            self.push_decl(&mut out, decl, &canonical, &display, others, parent, file);
            // Where the implementation is: the JavaScript beside a declaration file.
            for s in &mut out[first..] {
                let member = s.qualified_name.strip_prefix(&format!("{canonical}."));
                locals.insert(
                    s.qualified_name.clone(),
                    (local.clone(), member.map(str::to_string)),
                );
            }
            if matches!(decl.kind, DeclKind::Class | DeclKind::Interface) {
                classes.push((first, decl, file));
            }
        }
        // Once every public declaration has its canonical name.
        for (class, decl, file) in classes {
            self.inherit_from_private_bases(&mut out, &mut locals, class, decl, file, &declared);
        }
        for (spec, file) in &self.layout.modules {
            out.push(Symbol {
                qualified_name: spec.clone(),
                defined_in: file.clone(),
                kind: SymbolKind::Module,
                file: file.clone(),
                line: 1,
                ..Default::default()
            });
        }
        out.sort_by(|a, b| a.qualified_name.cmp(&b.qualified_name));
        (out, locals, declared)
    }

    /// The public class or interface a type annotation of `file` names, when it names exactly
    /// one instance of one: `Customers`, `API.Completions` (through `import * as API`),
    /// `Customers | undefined`. Generics, arrays, functions and object types name none.
    fn class_named(
        &self,
        file: &str,
        text: &str,
        declared: &Declared,
        classes: &HashSet<&str>,
    ) -> Option<String> {
        let parts: Vec<&str> = split_top_level(text, '|')
            .into_iter()
            .map(str::trim)
            .filter(|p| !matches!(*p, "undefined" | "null" | ""))
            .collect();
        let [t] = parts.as_slice() else {
            return None;
        };
        if !t
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'))
        {
            return None;
        }
        let target = self.type_target(file, t)?;
        declared
            .get(&target)
            .filter(|c| classes.contains(c.as_str()))
            .cloned()
    }

    /// The declaration a type name of `file` refers to: `Customers`, `Base<T>` (as `Base`),
    /// or `API.Completions` through `import * as API` (or `const API = require(...)`).
    fn type_target(&self, file: &str, name: &str) -> Option<(String, String)> {
        let name = name.split('<').next().unwrap_or(name).trim();
        match name.split_once('.') {
            None => self.resolve_local(file, name, 0),
            Some((ns, member)) if !member.contains('.') => {
                let im = self.module(file)?.imports.get(ns)?;
                if !matches!(im.name.as_str(), "*" | "module.exports") {
                    return None;
                }
                let f = self.resolve_from(file, &im.from)?;
                self.resolve_export(&f, member, 0)
            }
            Some(_) => None,
        }
    }

    /// Members a class gets from bases no public name reaches (`class Client extends
    /// BaseClient`, `BaseClient` not exported): nothing else would ever show them, so they are
    /// listed on the class, declared where the base declares them (`inherited_from` is
    /// `file:Base`, the base having no public name). The public bases of such a base join the
    /// class's own, by their canonical names, so lookups go on to them.
    fn inherit_from_private_bases(
        &self,
        out: &mut Vec<Symbol>,
        locals: &mut Locals,
        class: usize,
        decl: &Decl,
        file: &str,
        declared: &Declared,
    ) {
        let canonical = out[class].qualified_name.clone();
        let aliases = out[class].aliases.clone();
        let mut have: HashSet<&str> = decl.members.iter().map(|m| m.name.as_str()).collect();
        // (the file naming the base, the base as written, reached through a private base)
        let mut queue: Vec<(String, String, bool)> = decl
            .bases
            .iter()
            .map(|b| (file.to_string(), b.clone(), false))
            .collect();
        let mut seen: HashSet<(String, String)> = HashSet::new();
        let mut more_bases = Vec::new();
        let mut next = 0;
        while next < queue.len() && seen.len() < 16 {
            let (from, written, via_private) = queue[next].clone();
            next += 1;
            let Some(target) = self.type_target(&from, &written) else {
                continue;
            };
            if let Some(public) = declared.get(&target) {
                if via_private {
                    more_bases.push(public.clone());
                }
                continue;
            }
            if !seen.insert(target.clone()) {
                continue;
            }
            let Some(base) = self.module(&target.0).and_then(|m| m.decls.get(&target.1)) else {
                continue;
            };
            if !matches!(base.kind, DeclKind::Class | DeclKind::Interface) {
                continue;
            }
            for m in &base.members {
                if matches!(m.kind, MemberKind::Constructor | MemberKind::Call)
                    || !have.insert(m.name.as_str())
                {
                    continue;
                }
                let mut member = member_symbol(m, &canonical, &aliases, &target.0);
                member.inherited_from = Some(format!("{}:{}", target.0, target.1));
                // Its implementation is the base's, in the JavaScript beside the base.
                locals.insert(
                    member.qualified_name.clone(),
                    (target.1.clone(), Some(m.name.clone())),
                );
                out.push(member);
            }
            queue.extend(
                base.bases
                    .iter()
                    .map(|b| (target.0.clone(), b.clone(), true)),
            );
        }
        for b in more_bases {
            if !out[class].bases.contains(&b) {
                out[class].bases.push(b);
            }
        }
    }

    /// Each base a class or interface names in this package, by its canonical name
    /// (`extends Core.APIClient<Opts>` -> `sdk/core:APIClient`), as Python's bases are stored:
    /// lookups, the diff's base and inherited-member rules and the relations then agree on one
    /// name whatever alias or namespace the source went through. A base from outside the
    /// package (`Error`, `EventEmitter`) or of another shape stays as written.
    fn canonical_bases(&self, symbols: &mut [Symbol], declared: &Declared) {
        for s in symbols
            .iter_mut()
            .filter(|s| matches!(s.kind, SymbolKind::Class | SymbolKind::Interface))
        {
            let mut bases: Vec<String> = Vec::with_capacity(s.bases.len());
            for written in &s.bases {
                let base = self
                    .type_target(&s.defined_in, written)
                    .and_then(|t| declared.get(&t))
                    .cloned()
                    .unwrap_or_else(|| written.clone());
                // `class X implements X` (a class merged with its interface) is no base.
                if base != s.qualified_name && !bases.contains(&base) {
                    bases.push(base);
                }
            }
            s.bases = bases;
        }
    }

    /// Typed links between the public symbols: properties holding a class instance, methods
    /// and functions returning one, bases. Types are resolved in the declaring file.
    fn relations(&self, symbols: &[Symbol], declared: &Declared) -> Vec<Relation> {
        let classes: HashSet<&str> = symbols
            .iter()
            .filter(|s| matches!(s.kind, SymbolKind::Class | SymbolKind::Interface))
            .map(|s| s.qualified_name.as_str())
            .collect();
        let mut out = Vec::new();
        for s in symbols {
            let member = s
                .qualified_name
                .rsplit_once('.')
                .map(|(_, m)| m.to_string());
            let parent = s.parent.as_deref().filter(|p| classes.contains(p));
            let link =
                |kind, subject: &str, name: Option<String>, object: String, evidence| Relation {
                    subject: subject.to_string(),
                    kind,
                    name,
                    object,
                    evidence,
                    file: s.defined_in.clone(),
                    line: s.line,
                };
            match s.kind {
                SymbolKind::Property => {
                    if let (Some(p), Some(t), Some(m)) = (parent, &s.returns, &member)
                        && let Some(o) = self.class_named(&s.defined_in, t, declared, &classes)
                    {
                        out.push(link(
                            RelationKind::Attribute,
                            p,
                            Some(m.clone()),
                            o,
                            format!("{m}: {t}"),
                        ));
                    }
                }
                SymbolKind::Method | SymbolKind::Staticmethod | SymbolKind::Function => {
                    if let Some(t) = &s.returns
                        && let Some(o) = self.class_named(&s.defined_in, t, declared, &classes)
                    {
                        out.push(link(
                            RelationKind::Returns,
                            &s.qualified_name,
                            None,
                            o,
                            format!(": {t}"),
                        ));
                    }
                }
                _ => {}
            }
            // A callable's parameters; a class's are its constructor's (`new Client(opts:
            // Options)` takes `Options`).
            if matches!(
                s.kind,
                SymbolKind::Method
                    | SymbolKind::Staticmethod
                    | SymbolKind::Function
                    | SymbolKind::Class
            ) {
                for p in &s.params {
                    if let Some(t) = &p.annotation
                        && let Some(o) = self.class_named(&s.defined_in, t, declared, &classes)
                    {
                        out.push(link(
                            RelationKind::Parameter,
                            &s.qualified_name,
                            Some(p.name.clone()),
                            o,
                            format!("{}: {t}", p.name),
                        ));
                    }
                }
            }
            if matches!(s.kind, SymbolKind::Class | SymbolKind::Interface) {
                for b in &s.bases {
                    let name = b.split('<').next().unwrap_or(b).trim();
                    if let Some(o) = self.class_named(&s.defined_in, name, declared, &classes)
                        && o != s.qualified_name
                    {
                        out.push(link(
                            RelationKind::Extends,
                            &s.qualified_name,
                            None,
                            o,
                            format!("extends {b}"),
                        ));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The construct signatures a class is built with: its own, else its base class's (followed
    /// through this package's files), or those of a declared value it extends
    /// (`declare const X_base: { new (input: I): X }`, as tsc writes for every AWS SDK command).
    /// Empty: no constructor anywhere, so `new X()`; `None`: the base is outside the package or
    /// of another shape, so the signature is unknown (never a made-up `()`).
    fn constructor(&self, file: &str, decl: &Decl, depth: usize) -> Option<Vec<Sig>> {
        if depth > 0 && decl.kind == DeclKind::Variable {
            let sigs = self.value_signatures(file, decl, MemberKind::Constructor);
            return (!sigs.is_empty()).then_some(sigs);
        }
        if let Some(c) = decl
            .members
            .iter()
            .find(|m| m.kind == MemberKind::Constructor)
        {
            return Some(c.sigs.clone());
        }
        if depth > 0 && decl.kind != DeclKind::Class {
            return None;
        }
        let Some(base) = decl.bases.first() else {
            return Some(vec![]);
        };
        if depth > 8 || decl.kind != DeclKind::Class {
            return None;
        }
        // `extends Base<T>` names `Base`; `extends ns.Base` goes through the namespace import.
        let (f, local) = self.type_target(file, base)?;
        let base_decl = self.module(&f)?.decls.get(&local)?;
        self.constructor(&f, base_decl, depth + 1)
    }

    /// The signatures of `kind` (call or construct) a declared value has: those of its object
    /// type (`declare const parse: { (text: string): T }`), else those of the type it names.
    fn value_signatures(&self, file: &str, decl: &Decl, kind: MemberKind) -> Vec<Sig> {
        let own: Vec<Sig> = decl
            .members
            .iter()
            .filter(|m| m.kind == kind)
            .flat_map(|m| m.sigs.iter().cloned())
            .collect();
        match &decl.type_text {
            Some(t) if own.is_empty() && decl.kind == DeclKind::Variable => {
                self.type_signatures(file, t, kind, 0)
            }
            _ => own,
        }
    }

    /// The call (or construct) signatures of a declared type, in TypeScript's order: an
    /// interface's own, then those of the interfaces it extends; the parts of an intersection
    /// one after the other; a type alias of a function type (call signatures only). Types from
    /// outside the package contribute nothing.
    fn type_signatures(
        &self,
        file: &str,
        type_text: &str,
        kind: MemberKind,
        depth: usize,
    ) -> Vec<Sig> {
        if depth > 8 {
            return vec![];
        }
        let mut out = Vec::new();
        for part in split_top_level(type_text, '&') {
            let Some(name) = plain_type_name(part) else {
                continue;
            };
            let Some((f, local)) = self.resolve_local(file, name, 0) else {
                continue;
            };
            let Some(decl) = self.module(&f).and_then(|m| m.decls.get(&local)) else {
                continue;
            };
            match decl.kind {
                DeclKind::Interface => {
                    for m in decl.members.iter().filter(|m| m.kind == kind) {
                        out.extend(m.sigs.iter().cloned());
                    }
                    for b in &decl.bases {
                        out.extend(self.type_signatures(&f, b, kind, depth + 1));
                    }
                }
                // A function type has call signatures only; its text names no type to follow.
                DeclKind::TypeAlias if !decl.sigs.is_empty() && kind == MemberKind::Call => {
                    out.extend(decl.sigs.iter().cloned())
                }
                DeclKind::TypeAlias => {
                    if let Some(t) = &decl.type_text {
                        out.extend(self.type_signatures(&f, t, kind, depth + 1));
                    }
                }
                _ => {}
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn push_decl(
        &self,
        out: &mut Vec<Symbol>,
        decl: &Decl,
        canonical: &str,
        display: &str,
        aliases: Vec<String>,
        parent: Option<String>,
        file: &str,
    ) {
        let base = Symbol {
            qualified_name: canonical.to_string(),
            aliases: aliases.clone(),
            defined_in: file.to_string(),
            doc: decl.doc.text.clone(),
            deprecation: decl.doc.deprecation(),
            bases: decl.bases.clone(),
            parent,
            file: file.to_string(),
            line: decl.line,
            is_async: decl.is_async,
            ..Default::default()
        };
        match decl.kind {
            DeclKind::Function => {
                let mut s = callable(base, &decl.sigs, display, "");
                s.kind = SymbolKind::Function;
                if s.deprecation.is_none()
                    && !decl.sigs.is_empty()
                    && decl.sigs.iter().all(|g| g.doc.deprecated.is_some())
                {
                    s.deprecation = decl.sigs[0].doc.deprecation();
                }
                out.push(s);
            }
            DeclKind::Class | DeclKind::Interface => {
                let is_class = decl.kind == DeclKind::Class;
                let mut s = match self.constructor(file, decl, 0) {
                    Some(sigs) if is_class && !sigs.is_empty() => {
                        callable(base, &sigs, display, "new ")
                    }
                    Some(_) if is_class => Symbol {
                        has_signature: true,
                        signature_text: Some(format!("new {display}()")),
                        ..base
                    },
                    // Inherited from a base this package does not declare: unknown, not `()`.
                    _ => base,
                };
                s.kind = if is_class {
                    SymbolKind::Class
                } else {
                    SymbolKind::Interface
                };
                out.push(s);
                for m in &decl.members {
                    if matches!(m.kind, MemberKind::Constructor | MemberKind::Call) {
                        continue;
                    }
                    out.push(member_symbol(m, canonical, &aliases, file));
                }
            }
            DeclKind::TypeAlias | DeclKind::Enum | DeclKind::Variable | DeclKind::Namespace => {
                // `declare const computed: IComputedFactory`, an interface with call
                // signatures: the value is called like a function.
                let sigs = self.value_signatures(file, decl, MemberKind::Call);
                if !sigs.is_empty() {
                    let mut s = callable(base, &sigs, display, "");
                    s.kind = SymbolKind::Function;
                    if decl.kind == DeclKind::Variable {
                        s.value_type = decl.type_text.clone();
                    }
                    out.push(s);
                    return;
                }
                let kind = match decl.kind {
                    DeclKind::TypeAlias => SymbolKind::Interface,
                    DeclKind::Enum => SymbolKind::Class,
                    DeclKind::Namespace => SymbolKind::Module,
                    _ => SymbolKind::Attribute,
                };
                out.push(Symbol {
                    kind,
                    returns: decl.type_text.clone(),
                    value_type: (decl.kind == DeclKind::Variable)
                        .then(|| decl.type_text.clone())
                        .flatten(),
                    ..base
                });
            }
        }
    }
}

/// The name a type's text is, generic arguments left out (`AxiosStatic`; `Promise<T>` gives
/// `Promise`); None for any other type (`{ a: string }`, `A | B`, `typeof x`).
pub(crate) fn plain_type_name(text: &str) -> Option<&str> {
    let name = text.split('<').next().unwrap_or(text).trim();
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$'))
    .then_some(name)
}

/// The `.js` (`.mjs`, `.cjs`) file a declaration file describes: `dist/a.d.ts` -> `dist/a.js`.
fn javascript_beside(declaration: &str, files: &HashMap<&str, &SourceFile>) -> Option<String> {
    let (base, exts): (&str, &[&str]) = if let Some(b) = declaration.strip_suffix(".d.ts") {
        (b, &[".js", ".cjs", ".mjs"])
    } else if let Some(b) = declaration.strip_suffix(".d.mts") {
        (b, &[".mjs"])
    } else if let Some(b) = declaration.strip_suffix(".d.cts") {
        (b, &[".cjs"])
    } else {
        return None;
    };
    exts.iter()
        .map(|e| format!("{base}{e}"))
        .find(|p| files.contains_key(p.as_str()))
}

/// Where both a `.d.ts` and the `.js` beside it describe a symbol, the declaration gave the
/// signature and the JavaScript gives the source location (`defined_in` keeps the `.d.ts`).
/// Returns the JavaScript modules it parsed, by path.
fn locate_in_javascript(
    symbols: &mut [Symbol],
    locals: &Locals,
    files: &HashMap<&str, &SourceFile>,
) -> HashMap<String, ModuleSyntax> {
    let mut pairs: Vec<(String, String)> = symbols
        .iter()
        .filter(|s| is_declaration(&s.file))
        .filter_map(|s| javascript_beside(&s.file, files).map(|j| (s.file.clone(), j)))
        .collect();
    pairs.sort();
    pairs.dedup();
    let parsed = parallel_map(&pairs, |(_, js)| {
        syntax::parse(js, &files[js.as_str()].text)
    });
    let by_decl: HashMap<&str, &ModuleSyntax> = pairs
        .iter()
        .map(|(d, _)| d.as_str())
        .zip(parsed.iter())
        .collect();
    for s in symbols.iter_mut() {
        let (Some(js), Some((local, member))) =
            (by_decl.get(s.file.as_str()), locals.get(&s.qualified_name))
        else {
            continue;
        };
        let Some(decl) = js.decls.get(local) else {
            continue;
        };
        let line = match member {
            None => Some(decl.line),
            Some(m) => decl.members.iter().find(|x| x.name == *m).map(|x| x.line),
        };
        if let Some(line) = line {
            s.file = js.path.clone();
            s.line = line;
        }
    }
    parsed.into_iter().map(|m| (m.path.clone(), m)).collect()
}

/// `A & B<C & D> & E` -> `A`, `B<C & D>`, `E`.
fn split_top_level(text: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(text[start..i].trim());
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(text[start..].trim());
    out
}

/// The symbol of member `m` of the class `canonical` (also known as `aliases`), declared in
/// `file`.
fn member_symbol(m: &Member, canonical: &str, aliases: &[String], file: &str) -> Symbol {
    let member = Symbol {
        qualified_name: format!("{canonical}.{}", m.name),
        aliases: aliases.iter().map(|a| format!("{a}.{}", m.name)).collect(),
        defined_in: file.to_string(),
        doc: m.doc.text.clone(),
        deprecation: m.doc.deprecation(),
        parent: Some(canonical.to_string()),
        file: file.to_string(),
        line: m.line,
        returns: m
            .type_text
            .clone()
            .filter(|_| m.kind == MemberKind::Property),
        ..Default::default()
    };
    let mut member = if m.kind == MemberKind::Method {
        callable(member, &m.sigs, &m.name, "")
    } else {
        member
    };
    member.kind = match (m.kind, m.is_static) {
        (MemberKind::Method, false) => SymbolKind::Method,
        (MemberKind::Method, true) => SymbolKind::Staticmethod,
        _ => SymbolKind::Property,
    };
    member
}

/// A function-like symbol from its signatures: the last one is the most general (TypeScript's
/// convention for overloads, and a JavaScript implementation follows its overloads).
fn callable(base: Symbol, sigs: &[Sig], name: &str, prefix: &str) -> Symbol {
    let Some(last) = sigs.last() else {
        return base;
    };
    let mut text = format!("{prefix}{name}({})", last.params_text);
    if let Some(r) = &last.returns
        && prefix.is_empty()
    {
        text.push_str(": ");
        text.push_str(r);
    }
    let overloads: Vec<Vec<Param>> = if sigs.len() > 1 {
        sigs.iter().map(|s| s.params.clone()).collect()
    } else {
        vec![]
    };
    Symbol {
        params: last.params.clone(),
        has_signature: true,
        returns: last.returns.clone(),
        signature_text: Some(text),
        overloads,
        doc: base
            .doc
            .clone()
            .or_else(|| sigs.iter().find_map(|s| s.doc.text.clone())),
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: path.into(),
            text: text.as_bytes().to_vec(),
        }
    }

    fn names(facts: &ReleaseFacts) -> Vec<(&str, &str)> {
        facts
            .symbols
            .iter()
            .map(|s| (s.qualified_name.as_str(), s.kind.as_str()))
            .collect()
    }

    #[test]
    fn entry_reexports_and_subpaths() {
        let files = vec![
            f(
                "package/package.json",
                r#"{"name": "@acme/kit", "types": "dist/index.d.ts", "main": "dist/index.js",
                    "exports": {".": {"types": "./dist/index.d.ts", "default": "./dist/index.js"},
                                "./fp": "./dist/fp/index.js", "./package.json": "./package.json"}}"#,
            ),
            f(
                "package/dist/index.d.ts",
                "export * from './client';\nexport { helper as util } from './util';\nexport default class Kit {}\n",
            ),
            f(
                "package/dist/client.d.ts",
                "export declare class Client {\n  constructor(url: string, opts?: object);\n  send(cmd: Command, ...rest: any[]): Promise<void>;\n}\nexport interface Command { name: string }\n",
            ),
            f(
                "package/dist/util.d.ts",
                "export declare function helper(a: number): number;\n",
            ),
            f(
                "package/dist/fp/index.d.ts",
                "export { helper as map } from '../util';\n",
            ),
            f("package/dist/fp/index.js", "exports.map = 1;\n"),
            f(
                "package/node_modules/dep/index.d.ts",
                "export declare const x: 1;\n",
            ),
        ];
        let files = select_files(files);
        let facts = extract(&files);
        assert!(facts.diagnostics.is_empty(), "{:?}", facts.diagnostics);
        assert_eq!(
            names(&facts),
            vec![
                ("@acme/kit", "module"),
                ("@acme/kit/fp", "module"),
                ("@acme/kit:Client", "class"),
                ("@acme/kit:Client.send", "method"),
                ("@acme/kit:Command", "interface"),
                ("@acme/kit:Command.name", "property"),
                ("@acme/kit:default", "class"),
                ("@acme/kit:util", "function"),
            ]
        );
        let client = &facts.symbols[2];
        assert_eq!(
            client.signature().as_deref(),
            Some("new Client(url: string, opts?: object)")
        );
        assert_eq!(client.file, "dist/client.d.ts");
        let send = &facts.symbols[3];
        assert_eq!(send.params[1].kind, crate::model::ParamKind::Rest);
        let util = &facts.symbols[7];
        assert_eq!(util.aliases, vec!["@acme/kit/fp:map"]);
    }

    #[test]
    fn classes_extending_a_declared_value_take_its_construct_signatures() {
        // The shape tsc emits for every AWS SDK v3 command, import types with type arguments
        // included (tree-sitter-typescript alone fails on them).
        let files = vec![
            f("package.json", r#"{"name": "sdk", "types": "index.d.ts"}"#),
            f(
                "index.d.ts",
                "import { Input } from './types';\n\
                 declare const StopCommand_base: {\n\
                 \x20   new (input: Input): import(\"@smithy/smithy-client\").CommandImpl<Input, keyof import('./types').Output>;\n\
                 \x20   new (__0_0: Input): import(\"@smithy/smithy-client\").CommandImpl<Input, Input>;\n\
                 \x20   getEndpointParameterInstructions(): import(\"@smithy/middleware-endpoint\").EndpointParameterInstructions;\n\
                 };\n\
                 export declare class StopCommand extends StopCommand_base {\n\
                 \x20   protected static __types: { api: { input: Input } };\n\
                 }\n\
                 interface ClockConstructor { new (hour: number, minute?: number): Clock }\n\
                 interface Clock { tick(): void }\n\
                 declare const ClockBase: ClockConstructor;\n\
                 export declare class Wall extends ClockBase {}\n\
                 declare const Opaque: any;\n\
                 export declare class Unknown extends Opaque {}\n\
                 export declare const parse: { (text: string, strict?: boolean): Input };\n\
                 export interface Ec2 { describe(input: Input): Promise<Output> }\n\
                 export declare class Ec2 extends Wall implements Ec2 { describe(): void }\n\
                 export interface Ec2 { describe(input: Input, more: number): Promise<Output> }\n",
            ),
            f(
                "types.d.ts",
                "export interface Input { id: string }\nexport interface Output { ok: boolean }\n",
            ),
        ];
        let facts = extract(&select_files(files));
        assert!(facts.diagnostics.is_empty(), "{:?}", facts.diagnostics);
        let sig = |name: &str| {
            let s = facts
                .symbols
                .iter()
                .find(|s| s.qualified_name == name)
                .unwrap_or_else(|| panic!("{name} missing: {:?}", names(&facts)));
            (s.signature(), s.overloads.len(), s.kind.as_str())
        };
        // The last construct signature is the one TypeScript's checker reports.
        assert_eq!(
            sig("sdk:StopCommand"),
            (
                Some("new StopCommand(__0_0: Input)".to_string()),
                2,
                "class"
            )
        );
        assert_eq!(
            sig("sdk:Wall"),
            (
                Some("new Wall(hour: number, minute?: number)".to_string()),
                0,
                "class"
            )
        );
        // A base of unknown shape gives no signature, never a made-up `new Unknown()`.
        assert_eq!(sig("sdk:Unknown"), (None, 0, "class"));
        // An interface and a class of one name merge into the class (the AWS SDK's
        // aggregated clients), with the interface's methods.
        assert_eq!(
            sig("sdk:Ec2"),
            (
                Some("new Ec2(hour: number, minute?: number)".to_string()),
                0,
                "class"
            )
        );
        // A member both declare is one symbol with every signature.
        assert_eq!(
            facts
                .symbols
                .iter()
                .filter(|s| s.qualified_name == "sdk:Ec2.describe")
                .count(),
            1
        );
        assert_eq!(sig("sdk:Ec2.describe").1, 3);
        assert_eq!(
            sig("sdk:parse"),
            (
                Some("parse(text: string, strict?: boolean): Input".to_string()),
                0,
                "function"
            )
        );
    }

    #[test]
    fn a_class_takes_what_its_constructor_takes() {
        let files = vec![
            f("package.json", r#"{"name": "sdk", "types": "index.d.ts"}"#),
            f(
                "index.d.ts",
                "export interface Options { timeout: number }\n\
                 export declare class Client { constructor(url: string, opts?: Options); send(o: Options): void }\n\
                 export declare class Plain { constructor(n: number) }\n",
            ),
        ];
        let facts = extract(&select_files(files));
        let takes = facts.links(RelationKind::Parameter);
        assert_eq!(
            takes,
            [
                ("sdk:Client", "opts", "sdk:Options"),
                ("sdk:Client.send", "o", "sdk:Options"),
            ]
        );
    }

    #[test]
    fn requests_come_from_the_javascript_beside_the_declarations() {
        let files = vec![
            f(
                "package.json",
                r#"{"name": "sdk", "main": "index.js", "types": "index.d.ts"}"#,
            ),
            f(
                "index.d.ts",
                "export declare class Files {\n  retrieve(fileId: string): Promise<string>;\n  \
                 list(): Promise<string[]>;\n}\nexport declare function ping(): Promise<void>;\n",
            ),
            f(
                "index.js",
                "class Files {\n  retrieve(fileId) {\n    return this._client.get(`/files/${fileId}`, {});\n  }\n  \
                 list() {\n    return this._client.getAPIList('/files', Page);\n  }\n}\n\
                 function ping() {\n  return request({ method: 'HEAD', path: '/ping' });\n}\n\
                 module.exports = { Files, ping };\n",
            ),
        ];
        let facts = extract(&files);
        let got: Vec<(&str, &str, &str, usize)> = facts
            .relations
            .iter()
            .filter(|r| r.kind == crate::model::RelationKind::Requests)
            .map(|r| {
                (
                    r.subject.as_str(),
                    r.object.as_str(),
                    r.file.as_str(),
                    r.line,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("sdk:Files.list", "GET /files", "index.js", 6),
                ("sdk:Files.retrieve", "GET /files/{}", "index.js", 3),
                ("sdk:ping", "HEAD /ping", "index.js", 10),
            ]
        );
    }

    #[test]
    fn plain_commonjs_package() {
        let files = vec![
            f(
                "package.json",
                r#"{"name": "plain", "main": "lib/index.js"}"#,
            ),
            f(
                "lib/index.js",
                "const { Widget } = require('./widget');\nfunction make(kind, size = 1) { return new Widget(kind); }\nmodule.exports = { make, Widget };\n",
            ),
            f(
                "lib/widget.js",
                "class Widget { constructor(kind) {} draw(ctx, ...layers) {} }\nexports.Widget = Widget;\n",
            ),
        ];
        let facts = extract(&files);
        assert_eq!(
            names(&facts),
            vec![
                ("plain", "module"),
                ("plain:Widget", "class"),
                ("plain:Widget.draw", "method"),
                ("plain:make", "function"),
            ]
        );
        assert_eq!(
            facts.symbols[3].signature().as_deref(),
            Some("make(kind, size = 1)")
        );
        assert_eq!(facts.symbols[1].file, "lib/widget.js");
    }

    #[test]
    fn required_modules_export_their_module_exports() {
        let files = vec![
            f("package.json", r#"{"name": "sv", "main": "index.js"}"#),
            f(
                "index.js",
                "const parse = require('./functions/parse')\nconst SemVer = require('./classes/semver')\nmodule.exports = { parse, SemVer, valid: require('./functions/valid') }\n",
            ),
            f(
                "functions/parse.js",
                "const parse = (version, options, throwErrors = false) => {}\nmodule.exports = parse\n",
            ),
            f(
                "functions/valid.js",
                "module.exports = function valid(v, opts) {}\n",
            ),
            f(
                "classes/semver.js",
                "class SemVer { constructor(version, options) {} compare(other) {} }\nmodule.exports = SemVer\n",
            ),
        ];
        let facts = extract(&files);
        assert_eq!(
            names(&facts),
            vec![
                ("sv", "module"),
                ("sv:SemVer", "class"),
                ("sv:SemVer.compare", "method"),
                ("sv:parse", "function"),
                ("sv:valid", "function"),
            ],
        );
        assert_eq!(
            facts.symbols[3].signature().as_deref(),
            Some("parse(version, options, throwErrors = false)")
        );
    }

    #[test]
    fn cycles_and_broken_manifests_do_not_hang() {
        let files = vec![
            f("package.json", r#"{"name": "loop", "types": "a.d.ts"}"#),
            f(
                "a.d.ts",
                "export * from './b';\nexport declare const a: 1;\n",
            ),
            f(
                "b.d.ts",
                "export * from './a';\nexport { nothing } from './a';\n",
            ),
        ];
        let facts = extract(&files);
        assert_eq!(
            names(&facts),
            vec![("loop", "module"), ("loop:a", "attribute")]
        );
        let facts = extract(&[f("package.json", "{ not json")]);
        assert!(facts.symbols.is_empty());
        assert!(facts.diagnostics[0].message.contains("not valid JSON"));
        let facts = extract(&[
            f(
                "package.json",
                r#"{"name": "x", "main": "i.js", "exports": 42}"#,
            ),
            f("i.js", "exports.y = function (q) {};\n"),
        ]);
        assert!(
            facts.diagnostics[0].message.contains("\"exports\""),
            "{:?}",
            facts.diagnostics
        );
        assert_eq!(names(&facts), vec![("x", "module"), ("x:y", "function")]);
    }
}
