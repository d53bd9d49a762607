//! Public API resolution: which definitions users can import, under which dotted paths.
//!
//! Follows `from x import y`, `import x as y`, `Y = X`, `from x import *` and `__all__` across
//! modules (cycles included), then builds class members through the C3 method resolution order
//! so that members inherited from private bases appear on the public class.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

use super::{AliasValue, AllRef, BindingTarget, Def, DefKind, MemberAlias, ModuleSyntax, ViewKind};
use crate::model::{Param, ParamKind, Relation, RelationKind, ReleaseFacts, Symbol, SymbolKind};

/// Per public module: every name it binds, and what each public or declared one resolves to.
type Resolved = (BTreeSet<String>, BTreeMap<String, Option<Target>>);

/// A public module as a symbol of its release.
fn module_symbol(m: &ModuleSyntax) -> Symbol {
    Symbol {
        qualified_name: m.name.clone(),
        aliases: vec![],
        defined_in: m.name.clone(),
        kind: SymbolKind::Module,
        params: vec![],
        has_signature: false,
        returns: None,
        is_async: false,
        doc: m.doc.clone(),
        decorators: vec![],
        bases: vec![],
        overloads: vec![],
        deprecation: m.deprecation.clone(),
        inherited_from: None,
        parent: m.name.rsplit_once('.').map(|(p, _)| p.to_string()),
        file: m.file.clone(),
        line: 1,
        signature_text: None,
        value_type: None,
        provenance: None,
    }
}

/// Canonical public name of each public top-level definition, with its other public paths.
type Canon = HashMap<(usize, String), (String, Vec<String>)>;

/// What a name in a module's namespace refers to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Target {
    /// A definition: module index and the path of names inside it (`["Client", "get"]`).
    Def(usize, Vec<String>),
    Module(usize),
    External(String),
    /// A variable of a module: module index and name (`DEFAULT = 30`).
    Value(usize, String),
}

struct Resolver<'a> {
    modules: &'a [ModuleSyntax],
    by_name: HashMap<&'a str, usize>,
    /// Names each module exports to `from m import *`, computed in import-graph order.
    star_exports: Vec<BTreeSet<String>>,
    /// Each module's `__all__` with the other modules' `__all__` it adds folded in; `None`
    /// when the module has none.
    all: Vec<Option<BTreeSet<String>>>,
    /// `__all__` also holds names it cannot spell out (its own public names from `dir()`, or
    /// a run-time expression): the module's public namespace is exported beside it.
    all_open: Vec<bool>,
    /// Per package, the submodules its import closure binds as its attributes.
    children: Vec<BTreeSet<String>>,
    /// Steps an alias chain may take; `cut` is the first (module file, name) cut short.
    max_chain: usize,
    cut: std::cell::RefCell<Option<(String, String)>>,
}

/// [`resolve_with`] with the default limits.
pub fn resolve(modules: Vec<ModuleSyntax>) -> ReleaseFacts {
    resolve_with(modules, &Default::default())
}

/// The public API of `modules`; alias chains (`A = B`, `from x import A`...) are followed
/// for at most `limits.max_reexport_depth` steps per name.
pub fn resolve_with(
    modules: Vec<ModuleSyntax>,
    limits: &crate::extract::ExtractLimits,
) -> ReleaseFacts {
    let mut modules = modules;
    // Before the writes add bindings: a module another one writes to does not import it.
    let children = children_of(&modules);
    apply_attribute_writes(&mut modules);
    apply_getattr_tables(&mut modules);
    let by_name = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.as_str(), i))
        .collect();
    let mut r = Resolver {
        modules: &modules,
        by_name,
        star_exports: vec![BTreeSet::new(); modules.len()],
        all: vec![None; modules.len()],
        all_open: vec![false; modules.len()],
        children,
        max_chain: limits.max_reexport_depth,
        cut: Default::default(),
    };
    r.compute_all();
    r.compute_star_exports();
    let mut facts = ReleaseFacts::default();
    r.build(&mut facts);
    if let Some((module, name)) = r.cut.borrow().as_ref() {
        facts.diagnostics.push(crate::model::Diagnostic {
            file: module.clone(),
            line: 1,
            message: format!(
                "'{name}' is re-exported through more than {} imports or aliases; names this deep \
                 are left out; if the package is genuine, raise --max-reexport-depth",
                limits.max_reexport_depth
            ),
        });
    }
    facts
}

/// `base.dialect = dialect = x` in module `i` binds `dialect` in the module `base` names, to
/// what `i` binds (a name `i` does not bind is bound all the same, to nothing readable). The
/// name exists as soon as the target can be imported when `i` is a package above it (its
/// `__init__` runs first); otherwise only once `i` has run, which is not proven. `Foo.x = v`
/// on a class of `i` itself adds `x` to the class.
fn apply_attribute_writes(modules: &mut [ModuleSyntax]) {
    let by_name: HashMap<String, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.clone(), i))
        .collect();
    let mut added = Vec::new();
    let mut later = Vec::new();
    let mut class_names = Vec::new();
    for (i, m) in modules.iter().enumerate() {
        for w in &m.attribute_writes {
            let mut parts = w.object.split('.');
            let head = parts.next().unwrap_or_default();
            let binding = m.bindings.iter().find(|b| b.name == head && !b.type_only);
            if binding.is_none()
                && !w.object.contains('.')
                && m.defs
                    .iter()
                    .any(|d| d.name == head && d.kind == DefKind::Class)
            {
                class_names.push((i, head.to_string(), w.name.clone()));
                continue;
            }
            let base = match binding {
                Some(b) => match &b.target {
                    BindingTarget::Module(t) => Some(t.clone()),
                    BindingTarget::FromImport { module, name } => Some(format!("{module}.{name}")),
                    _ => None,
                },
                // `from . import base` is not needed for `base` to name the submodule once
                // it has been imported.
                None => m.is_package.then(|| format!("{}.{head}", m.name)),
            };
            let Some(mut target) = base else { continue };
            for p in parts {
                target = format!("{target}.{p}");
            }
            let Some(&j) = by_name.get(&target) else {
                continue;
            };
            if j == i {
                continue;
            }
            if !target.starts_with(&format!("{}.", m.name)) {
                later.push((
                    j,
                    w.name.clone(),
                    format!(
                        "is set by {} (`{}.{} = ...`) when that module runs",
                        m.name, w.object, w.name
                    ),
                ));
                continue;
            }
            added.push((
                j,
                super::Binding {
                    name: w.name.clone(),
                    target: BindingTarget::FromImport {
                        module: m.name.clone(),
                        name: w.via.clone().unwrap_or_else(|| w.name.clone()),
                    },
                    line: w.line,
                    type_only: false,
                },
            ));
        }
    }
    for (j, b) in added {
        modules[j].bindings.push(b);
    }
    for (j, name, why) in later {
        modules[j].maybe_bound.push((name, why));
    }
    for (i, class, name) in class_names {
        if let Some(d) = modules[i].defs.iter_mut().find(|d| d.name == class) {
            d.class_names.push(name);
        }
    }
}

/// A module `__getattr__` that refuses every name outside a table it imports
/// (`getattr_table`) serves that table's strings, when the module it comes from binds it to a
/// literal (`astropy.cosmology` serves `realizations.available`, `Planck18` among them).
/// Imports are followed through re-exports; a table that is not a literal leaves the
/// `__getattr__` unread.
fn apply_getattr_tables(modules: &mut [ModuleSyntax]) {
    let by_name: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.as_str(), i))
        .collect();
    let table = |i: usize, local: &str| {
        let (mut i, mut name) = (i, local.to_string());
        // A table re-exported a few times over is still read; a cycle is not followed.
        for _ in 0..8 {
            let m = &modules[i];
            if let Some((_, names)) = m.string_tables.iter().find(|(n, _)| *n == name) {
                return Some(names.clone());
            }
            let b = m
                .bindings
                .iter()
                .rev()
                .find(|b| b.name == name && !b.type_only)?;
            let BindingTarget::FromImport { module, name: n } = &b.target else {
                return None;
            };
            i = *by_name.get(module.as_str())?;
            name = n.clone();
        }
        None
    };
    let found: Vec<(usize, Vec<String>)> = modules
        .iter()
        .enumerate()
        .filter(|(_, m)| m.getattr_serves.is_none())
        .filter_map(|(i, m)| Some((i, table(i, m.getattr_table.as_deref()?)?)))
        .collect();
    for (i, names) in found {
        modules[i].serve(names);
    }
}

/// Per package, the submodules bound as its attributes once it is imported: importing a
/// module binds it in its package, so every submodule that the package's import closure
/// loads is there (`pkg/lomb/__init__.py` does `from .core import x`, and `core` does `from
/// .impl import y`: `impl` is an attribute of `pkg.lomb`).
fn children_of(modules: &[ModuleSyntax]) -> Vec<BTreeSet<String>> {
    let by_name: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.as_str(), i))
        .collect();
    // What each module's own imports load, as module indices; importing `a.b.c` runs `a`
    // and `a.b` first.
    let direct: Vec<Vec<usize>> = modules
        .iter()
        .map(|m| {
            let mut names: Vec<String> = m.star_imports.iter().map(|s| s.module.clone()).collect();
            for b in m.bindings.iter().filter(|b| !b.type_only) {
                match &b.target {
                    BindingTarget::Module(t) => names.push(t.clone()),
                    BindingTarget::FromImport { module, name } => {
                        names.push(format!("{module}.{name}"));
                    }
                    _ => {}
                }
            }
            let mut out = BTreeSet::new();
            for n in &names {
                let mut name = n.as_str();
                loop {
                    if let Some(&j) = by_name.get(name) {
                        out.insert(j);
                    }
                    match name.rsplit_once('.') {
                        Some((parent, _)) => name = parent,
                        None => break,
                    }
                }
            }
            out.into_iter().collect()
        })
        .collect();
    let mut children = vec![BTreeSet::new(); modules.len()];
    let mut seen = vec![usize::MAX; modules.len()];
    for (i, m) in modules.iter().enumerate() {
        if !m.is_package {
            continue;
        }
        seen[i] = i;
        let mut queue = vec![i];
        while let Some(x) = queue.pop() {
            for &j in &direct[x] {
                if seen[j] == i {
                    continue;
                }
                seen[j] = i;
                queue.push(j);
                if let Some((parent, child)) = modules[j].name.rsplit_once('.')
                    && parent == m.name
                {
                    children[i].insert(child.to_string());
                }
            }
        }
    }
    children
}

fn is_public_name(n: &str) -> bool {
    !n.starts_with('_')
}

fn is_public_path(p: &str) -> bool {
    p.split('.').all(is_public_name)
}

/// A class's constructor signature along its MRO ([`Resolver::constructor`]).
#[derive(Default)]
struct Constructor {
    params: Vec<Param>,
    /// False when it comes from outside the release (the signature is unknown).
    has_signature: bool,
    overloads: Vec<Vec<Param>>,
    /// The module and line of the `__init__` or `__new__` it was read from (none for
    /// synthesised dataclass fields or the default `()`).
    written_in: Option<(usize, usize)>,
}

impl<'a> Resolver<'a> {
    fn module(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    fn find_def(&self, module: usize, path: &[String]) -> Option<&'a Def> {
        let (head, rest) = path.split_first()?;
        let mut d = self.modules[module].defs.iter().find(|d| &d.name == head)?;
        for p in rest {
            d = d.members.iter().find(|m| &m.name == p)?;
        }
        Some(d)
    }

    /// Star-export sets need a fixpoint where modules star-import each other: process the import
    /// graph's strongly connected components in dependency order, iterating inside each one.
    fn compute_star_exports(&mut self) {
        let mut graph = DiGraph::<usize, ()>::new();
        let nodes: Vec<_> = (0..self.modules.len()).map(|i| graph.add_node(i)).collect();
        for (i, m) in self.modules.iter().enumerate() {
            for s in &m.star_imports {
                if let Some(j) = self.module(&s.module) {
                    graph.add_edge(nodes[i], nodes[j], ());
                }
            }
        }
        // tarjan_scc yields components in reverse topological order: dependencies first.
        for scc in tarjan_scc(&graph) {
            loop {
                let mut changed = false;
                for n in &scc {
                    let i = graph[*n];
                    let names = self.own_star_names(i);
                    if names != self.star_exports[i] {
                        self.star_exports[i] = names;
                        changed = true;
                    }
                }
                if !changed || scc.len() == 1 {
                    break;
                }
            }
        }
    }

    /// What using variable `name` of module `i` does when it is an instance of a class of the
    /// release whose `__call__` raises a removal error before anything else (openai 1.x's
    /// `Completion = APIRemovedInV1Proxy(symbol="Completion")`): completes "mod.name ...".
    /// An exception that does not say the API was removed (`NotImplementedError`, an error
    /// the API raises by design) is not such a stub.
    fn raises_on_use(&self, i: usize, name: &str) -> Option<String> {
        let (_, callee) = self.modules[i].instances.iter().rfind(|(n, _)| n == name)?;
        let Target::Def(j, path) = self.resolve_expr(i, callee, &mut HashSet::new())? else {
            return None;
        };
        let class = self.find_def(j, &path)?;
        let raised = class
            .members
            .iter()
            .rfind(|m| m.name == "__call__")?
            .raises
            .as_ref()?;
        let removal = ["remov", "no longer", "deprecat", "obsolete", "discontinu"];
        let says = |t: &str| {
            let t = t.to_lowercase();
            removal.iter().any(|w| t.contains(w))
        };
        says(raised).then(|| {
            format!(
                "is an instance of {}.{}, a stub whose every call raises {raised}: the API was \
                 removed",
                self.modules[j].name,
                path.join(".")
            )
        })
    }

    /// Why the names of module `i` cannot all be told from the release, if so.
    fn unknown_reason(&self, i: usize) -> Option<String> {
        self.unknown_reason_in(i, &mut vec![i])
    }

    fn unknown_reason_in(&self, i: usize, visiting: &mut Vec<usize>) -> Option<String> {
        let m = &self.modules[i];
        if m.compiled {
            return Some(format!(
                "{} is a compiled extension module ({}) and the release has no stub for it",
                m.name, m.file
            ));
        }
        if let Some(reason) = m.builds.as_ref().or(m.unread.as_ref()) {
            return Some(reason.clone());
        }
        if m.has_module_getattr() && !m.attaches_stub {
            return Some(format!(
                "{} defines a module __getattr__, which can serve more names at run time",
                m.name
            ));
        }
        if m.all_refs.contains(&AllRef::Dynamic) {
            return Some(format!("{}'s __all__ is computed at run time", m.name));
        }
        if m.writes_globals {
            return Some(format!(
                "{} writes its own namespace at run time (globals(), sys.modules)",
                m.name
            ));
        }
        for s in m.star_imports.iter().map(|s| &s.module) {
            match self.module(s) {
                None => {
                    return Some(format!(
                        "{} star-imports {s}, which is not among the release's sources",
                        m.name
                    ));
                }
                Some(j) if self.modules[j].compiled => {
                    return Some(format!(
                        "{} star-imports the compiled module {s}, which has no stub",
                        m.name
                    ));
                }
                // A closed `__all__` is exactly what `import *` takes, whatever else the
                // module does; otherwise what it cannot tell passes on to the importer.
                Some(j)
                    if (self.all[j].is_none() || self.all_open[j]) && !visiting.contains(&j) =>
                {
                    visiting.push(j);
                    if self.unknown_reason_in(j, visiting).is_some() {
                        return Some(format!(
                            "{} star-imports {s}, whose names cannot all be told",
                            m.name
                        ));
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Folds `__all__ += other.__all__` (any depth, cycles cut) into each module's `__all__`.
    fn compute_all(&mut self) {
        for i in 0..self.modules.len() {
            let mut open = false;
            self.all[i] = self.all_of(i, &mut vec![i], &mut open);
            self.all_open[i] = open;
        }
    }

    fn all_of(
        &self,
        i: usize,
        visiting: &mut Vec<usize>,
        open: &mut bool,
    ) -> Option<BTreeSet<String>> {
        let m = &self.modules[i];
        if m.all.is_none() && m.all_refs.is_empty() {
            return None;
        }
        let mut names: BTreeSet<String> = m.all.iter().flatten().cloned().collect();
        for part in &m.all_refs {
            match part {
                AllRef::Module(expr) => {
                    let target = self.resolve_expr(i, expr, &mut HashSet::new());
                    let Some(Target::Module(j)) = target else {
                        *open = true;
                        continue;
                    };
                    if visiting.contains(&j) {
                        continue;
                    }
                    visiting.push(j);
                    match self.all_of(j, visiting, open) {
                        Some(theirs) => names.extend(theirs),
                        // `other.__all__` of a module without one fails at run time.
                        None => *open = true,
                    }
                    visiting.pop();
                }
                AllRef::Namespace | AllRef::Dynamic => *open = true,
            }
        }
        Some(names)
    }

    fn own_star_names(&self, i: usize) -> BTreeSet<String> {
        let m = &self.modules[i];
        if let Some(all) = &self.all[i]
            && !self.all_open[i]
        {
            return all.clone();
        }
        let mut names: BTreeSet<String> = m
            .defs
            .iter()
            .map(|d| d.name.clone())
            .chain(
                m.bindings
                    .iter()
                    .filter(|b| !b.type_only)
                    .map(|b| b.name.clone()),
            )
            .filter(|n| is_public_name(n))
            .collect();
        for s in &m.star_imports {
            if let Some(j) = self.module(&s.module) {
                names.extend(self.star_exports[j].iter().cloned());
            }
        }
        names.extend(self.all[i].iter().flatten().cloned());
        names.extend(
            self.imported_children(i)
                .iter()
                .filter(|n| is_public_name(n))
                .cloned(),
        );
        names
    }

    /// The submodules bound as attributes of package `i` once it is imported: importing a
    /// module binds it in its package, so every submodule that `i`'s import closure loads
    /// (`from .core import x` in `pkg/lombscargle/__init__.py`, which does `from
    /// .implementations import y`) is there.
    fn imported_children(&self, i: usize) -> &BTreeSet<String> {
        &self.children[i]
    }

    /// Every name bound in a module, in no particular order.
    fn namespace(&self, i: usize) -> BTreeSet<String> {
        let mut names = self.own_star_names_all(i);
        for s in &self.modules[i].star_imports {
            if let Some(j) = self.module(&s.module) {
                names.extend(self.star_exports[j].iter().cloned());
            }
        }
        names
    }

    fn own_star_names_all(&self, i: usize) -> BTreeSet<String> {
        let m = &self.modules[i];
        m.defs
            .iter()
            .map(|d| d.name.clone())
            .chain(
                m.bindings
                    .iter()
                    .filter(|b| !b.type_only)
                    .map(|b| b.name.clone()),
            )
            .chain(self.imported_children(i).iter().cloned())
            .collect()
    }

    /// Resolves `name` as seen in module `i`.
    fn resolve_name(
        &self,
        i: usize,
        name: &str,
        seen: &mut HashSet<(usize, String)>,
    ) -> Option<Target> {
        if seen.len() > self.max_chain {
            self.cut
                .borrow_mut()
                .get_or_insert_with(|| (self.modules[i].file.clone(), name.to_string()));
            return None;
        }
        if !seen.insert((i, name.to_string())) {
            return None;
        }
        let m = &self.modules[i];
        if m.compiled {
            // Whatever a compiled module holds is outside what the release lets us read.
            return Some(Target::External(format!("{}.{name}", m.name)));
        }
        // Star imports bind in statement order: the last one that exports the name wins, and
        // it wins over a definition or binding above it (two subpackages that each bind a
        // submodule `clusters`: the package's `clusters` is the later one's).
        let star = |after: Option<usize>, seen: &mut HashSet<(usize, String)>| {
            m.star_imports
                .iter()
                .rev()
                .filter(|s| after.is_none_or(|a| s.line > a))
                .filter_map(|s| self.module(&s.module))
                .filter(|&j| self.star_exports[j].contains(name))
                .find_map(|j| self.resolve_name(j, name, seen))
        };
        let def = m.defs.iter().find(|d| d.name == name);
        // The binding that exists when the module runs stands before one made for type
        // checkers only.
        let binding = m
            .bindings
            .iter()
            .filter(|b| b.name == name)
            .min_by_key(|b| b.type_only);
        let own = def
            .map(|d| d.line)
            .into_iter()
            .chain(binding.filter(|b| !b.type_only).map(|b| b.line))
            .max();
        if let Some(after) = own
            && let Some(t) = star(Some(after), seen)
        {
            return Some(t);
        }
        if def.is_some() {
            return Some(Target::Def(i, vec![name.to_string()]));
        }
        if let Some(b) = binding {
            let t = match &b.target {
                BindingTarget::Module(target) => Some(match self.module(target) {
                    Some(j) => Target::Module(j),
                    None => Target::External(target.clone()),
                }),
                BindingTarget::FromImport { module, name } => match self.module(module) {
                    Some(j) => self
                        .resolve_name(j, name, seen)
                        .or_else(|| self.module(&format!("{module}.{name}")).map(Target::Module)),
                    None => match self.module(&format!("{module}.{name}")) {
                        Some(j) => Some(Target::Module(j)),
                        None => Some(Target::External(format!("{module}.{name}"))),
                    },
                },
                // `TITLE = __doc__`, `x = y.z` through a value: bound all the same, to
                // something only the run time knows.
                BindingTarget::Expr(expr) => self
                    .resolve_expr(i, expr, seen)
                    .or_else(|| Some(Target::Value(i, name.to_string()))),
                BindingTarget::Value { .. } => Some(Target::Value(i, name.to_string())),
            };
            if t.is_some() {
                return t;
            }
        }
        if let Some(t) = star(None, seen) {
            return Some(t);
        }
        // A submodule is an attribute of its package once imported.
        if m.is_package {
            return self
                .module(&format!("{}.{name}", m.name))
                .map(Target::Module);
        }
        None
    }

    /// Resolves a dotted expression (`Base`, `models.Base`, `Generic[T]`) in module `i`.
    fn resolve_expr(
        &self,
        i: usize,
        expr: &str,
        seen: &mut HashSet<(usize, String)>,
    ) -> Option<Target> {
        let expr = expr.split('[').next().unwrap_or(expr).trim();
        let mut parts = expr.split('.');
        let head = parts.next()?;
        let mut t = self.resolve_name(i, head, seen)?;
        for p in parts {
            t = match t {
                Target::Module(j) => self
                    .resolve_name(j, p, seen)
                    .or_else(|| Some(Target::External(format!("{}.{p}", self.modules[j].name))))?,
                Target::Def(j, mut path) => {
                    let mut path2 = path.clone();
                    path2.push(p.to_string());
                    self.find_def(j, &path2)?;
                    path.push(p.to_string());
                    Target::Def(j, path)
                }
                Target::External(e) => Target::External(format!("{e}.{p}")),
                // What a variable holds is known at run time only.
                Target::Value(..) => return None,
            };
        }
        Some(t)
    }

    fn def_path(&self, module: usize, path: &[String]) -> String {
        format!("{}.{}", self.modules[module].name, path.join("."))
    }

    /// The run-time names of public module `i` beyond its exports: paths that reach a public
    /// symbol or module through its imports, the table of every other name it binds, why its
    /// names cannot all be known, the names an optional dependency's test guards, and the
    /// names bound only once some code runs.
    fn record_run_time_names(
        &self,
        facts: &mut ReleaseFacts,
        i: usize,
        (namespace, targets): &Resolved,
        canon: &Canon,
        variable_paths: &HashSet<&String>,
    ) {
        let m = &self.modules[i];
        // Names a lookup finds (symbols, their aliases, reachable paths) need no table.
        let mut found: HashSet<&String> = HashSet::new();
        for n in namespace.iter().filter(|n| is_public_name(n)) {
            let path = format!("{}.{n}", m.name);
            let target = match targets[n].clone() {
                Some(Target::Def(j, p)) if p.len() == 1 => canon.get(&(j, p[0].clone())),
                Some(Target::Module(j)) if is_public_path(&self.modules[j].name) => {
                    if self.modules[j].name != path {
                        facts.reachable.push((path, self.modules[j].name.clone()));
                    }
                    found.insert(n);
                    continue;
                }
                _ => None,
            };
            if let Some((c, aliases)) = target {
                if *c != path && !aliases.contains(&path) {
                    facts.reachable.push((path, c.clone()));
                }
                found.insert(n);
            } else if variable_paths.contains(&path) {
                found.insert(n);
            }
        }
        // Every other name, `__version__` and `_helper` included: they exist when it runs.
        let table: Vec<String> = namespace
            .iter()
            .filter(|n| !found.contains(n))
            .cloned()
            .collect();
        if !table.is_empty() {
            facts.bound_names.push((m.name.clone(), table));
        }
        if let Some(reason) = self.unknown_reason(i) {
            facts.unknown_members.push((m.name.clone(), reason));
        }
        for v in &m.views {
            let submodule = self.module(&format!("{}.{}", m.name, v.name)).is_some();
            let said = match v.kind {
                // A star import or a later statement may bind it when the module runs.
                ViewKind::TypeCheckingOnly => !namespace.contains(&v.name) && !submodule,
                // A submodule is an attribute type checkers find through the package.
                ViewKind::NotInStub => !submodule,
                ViewKind::StubOnly => true,
            };
            if said {
                facts
                    .type_views
                    .push((m.name.clone(), v.name.clone(), v.text(&m.name)));
            }
        }
        for n in targets.keys() {
            let binding = m
                .bindings
                .iter()
                .filter(|b| &b.name == n)
                .min_by_key(|b| b.type_only)
                .map(|b| b.line)
                .or_else(|| m.defs.iter().find(|d| &d.name == n).map(|d| d.line));
            if let Some(test) = binding.and_then(|line| m.guard_at(line)) {
                facts
                    .guarded
                    .push((m.name.clone(), n.clone(), test.to_string()));
            }
        }
        for (n, target) in targets {
            if let Some(Target::Value(j, v)) = target
                && let Some(why) = self.raises_on_use(*j, v)
            {
                facts.raises_on_use.push((
                    m.name.clone(),
                    n.clone(),
                    format!("{}.{n} {why}", m.name),
                ));
            }
        }
        for (name, why) in &m.maybe_bound {
            if !namespace.contains(name) {
                facts.maybe_bound.push((
                    m.name.clone(),
                    name.clone(),
                    format!("{}.{name} {why}", m.name),
                ));
            }
        }
    }

    fn build(&mut self, facts: &mut ReleaseFacts) {
        // 1. Public paths of every top-level definition.
        let mut public: BTreeMap<(usize, String), BTreeSet<String>> = BTreeMap::new();
        let mut variables: BTreeMap<(usize, String), BTreeSet<String>> = BTreeMap::new();
        let mut externals: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        // Per public module: every name it binds, and what each public or declared one is.
        let mut resolved: BTreeMap<usize, Resolved> = BTreeMap::new();
        for (i, m) in self.modules.iter().enumerate() {
            if !is_public_path(&m.name) {
                continue;
            }
            facts.symbols.push(module_symbol(m));
            // Each name the module binds or declares, resolved once: the exports here, the
            // reachable paths in step 3.
            let namespace = self.namespace(i);
            let declared: BTreeSet<String> = self.all[i].iter().flatten().cloned().collect();
            let targets: BTreeMap<String, Option<Target>> = namespace
                .iter()
                .filter(|n| is_public_name(n))
                .chain(&declared)
                .map(|n| (n.clone(), self.resolve_name(i, n, &mut HashSet::new())))
                .collect();
            let mut names = declared.clone();
            if m.is_package || self.all[i].is_none() || self.all_open[i] {
                names.extend(namespace.iter().filter(|n| is_public_name(n)).cloned());
            }
            for n in names {
                let public_path = format!("{}.{n}", m.name);
                let (j, path) = match targets[&n].clone() {
                    Some(Target::Def(j, p)) => (j, p),
                    // Variables and names of other packages are API when `__all__` says so.
                    // Variables are public by the rule for definitions below.
                    Some(Target::Value(j, v))
                        if (declared.contains(&n) || m.is_package || j == i)
                            && !self.modules[j].loop_variables.contains(&v) =>
                    {
                        variables.entry((j, v)).or_default().insert(public_path);
                        continue;
                    }
                    // A package's import from its own compiled module is its API too.
                    Some(Target::External(e))
                        if declared.contains(&n)
                            || m.is_package && e.split('.').next() == m.name.split('.').next() =>
                    {
                        externals.entry(e).or_default().insert(public_path);
                        continue;
                    }
                    _ => continue,
                };
                if path.len() != 1 {
                    continue;
                }
                // Plain modules without __all__ export only what they define themselves.
                if !m.is_package && !declared.contains(&n) && j != i {
                    continue;
                }
                public
                    .entry((j, path[0].clone()))
                    .or_default()
                    .insert(format!("{}.{n}", m.name));
            }
            resolved.insert(i, (namespace, targets));
        }
        // 2. Canonical names: the shortest public path, preferring one that ends in the own name.
        let mut canon: Canon = HashMap::new();
        for ((j, name), paths) in &public {
            let mut sorted: Vec<&String> = paths.iter().collect();
            sorted.sort_by_key(|p| {
                (
                    p.matches('.').count(),
                    !p.ends_with(&format!(".{name}")),
                    p.len(),
                    (*p).clone(),
                )
            });
            let c = sorted[0].clone();
            let aliases = sorted[1..].iter().map(|s| (*s).clone()).collect();
            canon.insert((*j, name.clone()), (c, aliases));
        }
        // 3. Paths that reach a public symbol or module at run time without exporting it: a
        // module's own imports (`rich.align.Segment`), and chains through them.
        let variable_paths: HashSet<&String> = variables
            .values()
            .chain(externals.values())
            .flatten()
            .collect();
        for (i, resolved) in &resolved {
            self.record_run_time_names(facts, *i, resolved, &canon, &variable_paths);
        }
        // 4. Symbols for classes and functions, then class members.
        let mut keys: Vec<&(usize, String)> = canon.keys().collect();
        keys.sort();
        for key in keys {
            let (j, name) = key;
            let (q, aliases) = &canon[key];
            let Some(def) = self.find_def(*j, std::slice::from_ref(name)) else {
                continue;
            };
            let file = &self.modules[*j].file;
            match def.kind {
                DefKind::Function => {
                    self.signature_relations(*j, def, q, file, &canon, &mut facts.relations);
                    facts.symbols.push(function_symbol(
                        def,
                        q.clone(),
                        aliases.clone(),
                        self.def_path(*j, std::slice::from_ref(name)),
                        SymbolKind::Function,
                        None,
                        parent_of(q),
                        file,
                    ));
                }
                DefKind::Class => {
                    self.class_symbols(*j, name, q, aliases, &canon, facts);
                }
            }
        }
        // 5. Variables and other packages' names that `__all__` lists: attributes of their
        // module, defined where the assignment is (or in the other package).
        for ((j, v), paths) in variables {
            let m = &self.modules[j];
            let b = m.bindings.iter().find(|b| b.name == v);
            let annotation = b.and_then(|b| match &b.target {
                BindingTarget::Value { annotation } => annotation.clone(),
                _ => None,
            });
            let line = b.map(|b| b.line).unwrap_or(1);
            facts.symbols.push(variable_symbol(
                paths,
                format!("{}.{v}", m.name),
                annotation,
                None,
                &m.file,
                line,
            ));
        }
        for (e, paths) in externals {
            let q = paths.iter().next().cloned().unwrap_or_default();
            let i = self
                .module(parent_of(&q).as_deref().unwrap_or(""))
                .unwrap_or(0);
            let m = &self.modules[i];
            let line = m
                .bindings
                .iter()
                .find(|b| Some(b.name.as_str()) == q.rsplit('.').next())
                .map(|b| b.line)
                .unwrap_or(1);
            let package = e.split('.').next().unwrap_or(&e);
            let doc = if q.split('.').next() == Some(package) {
                // `from ._core import X` where `_core` is compiled and has no stub.
                format!("Defined in `{e}`, which the release ships compiled, without a stub.")
            } else {
                format!("Re-exported from `{e}`, of package `{package}`.")
            };
            facts
                .symbols
                .push(variable_symbol(paths, e, None, Some(doc), &m.file, line));
        }
        // 6. Top-level definitions that are not public, by defining path (class members are
        // added by class_symbols): "made private" is told apart from "deleted".
        for (i, m) in self.modules.iter().enumerate() {
            for d in &m.defs {
                if !canon.contains_key(&(i, d.name.clone())) {
                    facts
                        .private_names
                        .push(self.def_path(i, std::slice::from_ref(&d.name)));
                }
            }
        }
        facts.private_names.sort();
        facts.private_names.dedup();
        facts.relations.sort();
        facts.relations.dedup();
        for s in &mut facts.symbols {
            s.aliases.sort();
            s.aliases.dedup();
        }
        facts
            .symbols
            .sort_by(|a, b| a.qualified_name.cmp(&b.qualified_name));
    }

    /// The C3 linearisation of a class, as resolved targets (external bases included as such).
    fn mro(&self, class: &Target, depth: usize) -> Vec<Target> {
        let Target::Def(j, path) = class else {
            return vec![class.clone()];
        };
        let Some(def) = self.find_def(*j, path) else {
            return vec![class.clone()];
        };
        if depth > 32 {
            return vec![class.clone()];
        }
        let bases: Vec<Target> = def
            .bases
            .iter()
            .filter(|b| !matches!(b.as_str(), "object"))
            .map(|b| {
                let mut seen = HashSet::new();
                match self.resolve_expr(*j, b, &mut seen) {
                    Some(t @ Target::Def(..)) if &t != class => t,
                    Some(Target::External(e)) => Target::External(e),
                    _ => Target::External(b.split('[').next().unwrap_or(b).to_string()),
                }
            })
            .collect();
        let mut seqs: Vec<Vec<Target>> = bases.iter().map(|b| self.mro(b, depth + 1)).collect();
        seqs.push(bases.clone());
        let mut out = vec![class.clone()];
        loop {
            seqs.retain(|s| !s.is_empty());
            if seqs.is_empty() {
                return out;
            }
            let head = seqs
                .iter()
                .map(|s| &s[0])
                .find(|h| !seqs.iter().any(|s| s[1..].contains(h)));
            let Some(head) = head.cloned() else {
                // Inconsistent hierarchy (Python would refuse it): fall back to depth-first order.
                for s in seqs {
                    for t in s {
                        if !out.contains(&t) {
                            out.push(t);
                        }
                    }
                }
                return out;
            };
            out.push(head.clone());
            for s in &mut seqs {
                if s[0] == head {
                    s.remove(0);
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn class_symbols(
        &self,
        j: usize,
        name: &str,
        q: &str,
        aliases: &[String],
        canon: &Canon,
        facts: &mut ReleaseFacts,
    ) {
        let path = vec![name.to_string()];
        let def = self.find_def(j, &path).expect("resolved class exists");
        let file = &self.modules[j].file;
        let this = Target::Def(j, path.clone());
        let mro = self.mro(&this, 0);
        let ctor = self.constructor(&mro);
        // A class takes what its constructor takes (`Client(timeout: Timeout)`): annotations
        // read where the `__init__` or `__new__` that gives the signature is written.
        if let Some((k, line)) = ctor.written_in {
            let file = &self.modules[k].file;
            self.param_relations(k, &ctor.params, line, q, file, canon, &mut facts.relations);
        }
        let mut class = function_symbol(
            def,
            q.to_string(),
            aliases.to_vec(),
            self.def_path(j, &path),
            SymbolKind::Class,
            None,
            parent_of(q),
            file,
        );
        class.params = ctor.params;
        // The class's docstring often documents its constructor's parameters (click.Option).
        if let Some(doc) = &class.doc {
            super::docstring::describe(&mut class.params, doc);
        }
        class.has_signature = ctor.has_signature;
        class.overloads = ctor.overloads;
        class.returns = None;
        class.bases = mro
            .iter()
            .skip(1)
            .filter_map(|t| match t {
                Target::Def(k, p) if p.len() == 1 => Some(
                    canon
                        .get(&(*k, p[0].clone()))
                        .map(|(c, _)| c.clone())
                        .unwrap_or_else(|| self.def_path(*k, p)),
                ),
                Target::External(e) => Some(e.clone()),
                _ => None,
            })
            .collect();
        if def.bases.is_empty() {
            class.bases.clear();
        }
        facts.symbols.push(class);
        self.attribute_relations(&mro, &this, q, canon, &mut facts.relations);
        let (names, unknown) = self.class_namespace(&mro);
        if !names.is_empty() {
            facts
                .bound_names
                .push((q.to_string(), names.into_iter().collect()));
        }
        if let Some(reason) = unknown {
            facts
                .unknown_members
                .push((q.to_string(), format!("{q}: {reason}")));
        }

        let mut seen: HashSet<String> = HashSet::new();
        for owner in &mro {
            let Target::Def(k, opath) = owner else {
                continue;
            };
            let Some(odef) = self.find_def(*k, opath) else {
                continue;
            };
            let owner_public = if opath.len() == 1 && owner != &this {
                canon.get(&(*k, opath[0].clone())).map(|(c, _)| c.clone())
            } else {
                None
            };
            let made: Vec<(usize, Def)> = odef
                .member_aliases
                .iter()
                .filter_map(|a| Some((a.line, self.alias_def(*k, odef, a)?)))
                .collect();
            // Python keeps a name's last binding: `def f` then `f = staticmethod(f)` is the
            // static method.
            let mut last_line: HashMap<&str, usize> = HashMap::new();
            let bindings = odef
                .members
                .iter()
                .filter(|m| m.kind == DefKind::Function)
                .map(|m| (m.line, m))
                .chain(made.iter().map(|(line, d)| (*line, d)));
            for (line, m) in bindings.clone() {
                let l = last_line.entry(&m.name).or_default();
                *l = (*l).max(line);
            }
            let members = bindings
                .filter(|(line, m)| {
                    last_line.get(m.name.as_str()) == Some(line)
                        && !odef
                            .deleted
                            .iter()
                            .any(|(name, at)| name == &m.name && at > line)
                })
                .map(|(_, m)| (m.name.clone(), m));
            for (mname, m) in members {
                // A private method the class defines itself (dunders are protocol, not private).
                if !is_public_name(&mname)
                    && owner == &this
                    && !(mname.starts_with("__") && mname.ends_with("__"))
                {
                    facts.private_names.push(format!("{q}.{mname}"));
                }
                if !is_public_name(&mname) || !seen.insert(mname.clone()) {
                    continue;
                }
                if owner_public.is_some() {
                    // Not stored again on the subclass: `Sub.member` resolves through the
                    // class's ancestors (rg:base, in MRO order) when it is looked up.
                    continue;
                }
                let kind = member_kind(m);
                let mut sym = function_symbol(
                    m,
                    format!("{q}.{mname}"),
                    // `ClassAlias.member` paths are derived from the class's aliases on lookup.
                    vec![],
                    format!("{}.{mname}", self.def_path(*k, opath)),
                    kind,
                    (owner != &this).then(|| self.def_path(*k, opath)),
                    Some(q.to_string()),
                    &self.modules[*k].file,
                );
                self.signature_relations(
                    *k,
                    m,
                    &sym.qualified_name,
                    &self.modules[*k].file,
                    canon,
                    &mut facts.relations,
                );
                mangle(
                    &mut sym.params,
                    opath.last().map(String::as_str).unwrap_or(""),
                );
                for o in &mut sym.overloads {
                    mangle(o, opath.last().map(String::as_str).unwrap_or(""));
                }
                if kind == SymbolKind::Property || m.has_decorator(&["wraps"]) {
                    // A property has no call signature; `@functools.wraps(g)` makes the
                    // signature `g`'s, which the source does not show.
                    sym.params.clear();
                    sym.overloads.clear();
                    sym.has_signature = false;
                } else if kind != SymbolKind::Staticmethod {
                    drop_receiver(&mut sym.params);
                    for o in &mut sym.overloads {
                        drop_receiver(o);
                    }
                }
                facts.symbols.push(sym);
            }
        }
    }

    /// Every name a class holds through its MRO that is not a public method (private methods,
    /// nested classes, class-body assignments, and the few public names of the standard bases
    /// it may have), and why
    /// its members cannot all be told, if so: a base outside the release, a metaclass, or
    /// a class decorator that may add members.
    fn class_namespace(&self, mro: &[Target]) -> (BTreeSet<String>, Option<String>) {
        const EXCEPTION: &[&str] = &["args", "with_traceback", "add_note"];
        const OS_ERROR: &[&str] = &[
            "args",
            "with_traceback",
            "add_note",
            "errno",
            "strerror",
            "filename",
            "filename2",
            "characters_written",
        ];
        // Class decorators of the standard library and attrs that add no public member
        // (dunders and private names only), by where they come from.
        const PLAIN_DECORATORS: &[&str] = &[
            "dataclasses.dataclass",
            "functools.total_ordering",
            "typing.final",
            "typing_extensions.final",
            "typing.runtime_checkable",
            "typing_extensions.runtime_checkable",
            "typing.dataclass_transform",
            "typing_extensions.dataclass_transform",
            "typing_extensions.deprecated",
            "warnings.deprecated",
            "enum.unique",
            "attr.s",
            "attr.attrs",
            "attr.define",
            "attr.frozen",
            "attr.mutable",
            "attrs.define",
            "attrs.frozen",
            "attrs.mutable",
        ];
        // `mro` and the dunders of `object` and `type` are answered where classes are asked.
        let mut names = BTreeSet::new();
        let mut unknown = None;
        for owner in mro {
            match owner {
                Target::Def(k, path) => {
                    let Some(def) = self.find_def(*k, path) else {
                        continue;
                    };
                    // Public methods are symbols, on the class or on a base it lists; the
                    // table holds what is not (it is the largest fact a release stores).
                    names.extend(
                        def.members
                            .iter()
                            .filter(|m| !is_public_name(&m.name) || m.kind == DefKind::Class)
                            .map(|m| m.name.clone()),
                    );
                    names.extend(def.member_aliases.iter().map(|a| a.name.clone()));
                    names.extend(def.class_names.iter().cloned());
                    // A Cython module with source the lowering did not read (a `.pxd`
                    // declaring `public` attributes): its classes cannot be known whole.
                    if let Some(why) = &self.modules[*k].unread {
                        unknown.get_or_insert_with(|| why.clone());
                    }
                    if let Some(meta) = &def.metaclass
                        && let Err(why) = self.metaclass_names(*k, meta, &mut names)
                    {
                        unknown.get_or_insert(why);
                    }
                    for d in &def.decorators {
                        let head = d.split('(').next().unwrap_or(d);
                        // Where the decorator comes from; inside attrs, `attr.s` resolves to
                        // its own definition.
                        let origin = match self.resolve_expr(*k, head, &mut HashSet::new()) {
                            Some(Target::External(e)) => e,
                            _ => head.to_string(),
                        };
                        if !PLAIN_DECORATORS.contains(&origin.as_str()) {
                            unknown.get_or_insert_with(|| {
                                format!("the class decorator @{head} can add members at run time")
                            });
                        }
                    }
                }
                Target::External(e) => {
                    let base = e.strip_prefix("builtins.").unwrap_or(e);
                    let known: Option<&[&str]> = match base {
                        "object" | "Generic" | "typing.Generic" => Some(&[]),
                        // Protocol's metaclass derives from ABCMeta.
                        "ABC"
                        | "abc.ABC"
                        | "Protocol"
                        | "typing.Protocol"
                        | "typing_extensions.Protocol" => Some(&["register"]),
                        "OSError"
                        | "IOError"
                        | "EnvironmentError"
                        | "ConnectionError"
                        | "BrokenPipeError"
                        | "ConnectionAbortedError"
                        | "ConnectionRefusedError"
                        | "ConnectionResetError"
                        | "TimeoutError"
                        | "FileNotFoundError"
                        | "FileExistsError"
                        | "PermissionError"
                        | "IsADirectoryError"
                        | "NotADirectoryError"
                        | "InterruptedError"
                        | "BlockingIOError"
                        | "ChildProcessError"
                        | "ProcessLookupError" => Some(OS_ERROR),
                        "Exception"
                        | "BaseException"
                        | "ValueError"
                        | "TypeError"
                        | "RuntimeError"
                        | "KeyError"
                        | "IndexError"
                        | "LookupError"
                        | "NotImplementedError"
                        | "ArithmeticError"
                        | "ZeroDivisionError"
                        | "OverflowError"
                        | "AssertionError"
                        | "RecursionError"
                        | "BufferError"
                        | "EOFError"
                        | "MemoryError"
                        | "ReferenceError"
                        | "KeyboardInterrupt"
                        | "GeneratorExit"
                        | "Warning"
                        | "UserWarning"
                        | "DeprecationWarning"
                        | "PendingDeprecationWarning"
                        | "FutureWarning"
                        | "RuntimeWarning"
                        | "SyntaxWarning"
                        | "ImportWarning"
                        | "UnicodeWarning"
                        | "BytesWarning"
                        | "ResourceWarning"
                        | "EncodingWarning" => Some(EXCEPTION),
                        _ => None,
                    };
                    match known {
                        Some(list) => names.extend(list.iter().map(|n| n.to_string())),
                        None => {
                            unknown.get_or_insert_with(|| {
                                format!(
                                    "it inherits from {e}, outside the release, whose members \
                                     are not listed"
                                )
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        (names, unknown)
    }

    /// The names a metaclass gives the classes it makes: its own methods and class names
    /// (reached through the class), and what its methods set on them. `Err` says why they
    /// cannot all be told.
    fn metaclass_names(
        &self,
        module: usize,
        meta: &str,
        names: &mut BTreeSet<String>,
    ) -> Result<(), String> {
        let last = meta.rsplit('.').next().unwrap_or(meta);
        if last == "ABCMeta" {
            names.insert("register".into());
            return Ok(());
        }
        let dynamic = || format!("the metaclass {meta} can add members at run time");
        let target = self.resolve_expr(module, meta, &mut HashSet::new());
        let Some(target @ Target::Def(..)) = target else {
            return Err(dynamic());
        };
        for owner in self.mro(&target, 0) {
            match owner {
                Target::Def(k, path) => {
                    let def = self.find_def(k, &path).ok_or_else(dynamic)?;
                    let writes = def.class_writes.as_ref().ok_or_else(dynamic)?;
                    if writes.dynamic {
                        return Err(dynamic());
                    }
                    names.extend(writes.names.iter().cloned());
                    names.extend(def.members.iter().map(|m| m.name.clone()));
                    names.extend(def.class_names.iter().cloned());
                }
                Target::External(e) if e == "type" || e == "abc.ABCMeta" || e == "ABCMeta" => {
                    if e != "type" {
                        names.insert("register".into());
                    }
                }
                _ => return Err(dynamic()),
            }
        }
        Ok(())
    }

    /// The function a class-body assignment binds, named as the assignment names it: the
    /// class's own function for `alias = name`; for a wrapper or a factory call, a function of
    /// the class or of its module. `None` when the source does not show it.
    fn alias_def(&self, module: usize, class: &Def, alias: &MemberAlias) -> Option<Def> {
        let local = |name: &str| {
            class
                .members
                .iter()
                .chain(&self.modules[module].defs)
                .find(|d| d.name == name && d.kind == DefKind::Function)
        };
        let mut def = match &alias.value {
            AliasValue::Name(target) => class
                .members
                .iter()
                .find(|m| &m.name == target && m.kind == DefKind::Function)?
                .clone(),
            AliasValue::Wrapped {
                wrapper,
                target,
                doc,
            } => {
                let mut def = match target.as_deref().and_then(local) {
                    Some(d) => d.clone(),
                    // A property's getter may live elsewhere: it is still a property.
                    None if *wrapper == "property" => Def {
                        line: alias.line,
                        ..Def::function(&alias.name)
                    },
                    None => return None,
                };
                def.decorators = vec![wrapper.to_string()];
                if doc.is_some() {
                    def.doc = doc.clone();
                }
                def
            }
            AliasValue::Made(factory) => local(factory)?.returned.as_deref()?.clone(),
        };
        def.name = alias.name.clone();
        Some(def)
    }

    /// The public class a type expression names, when it names exactly one instance of one:
    /// `CustomerService`, `"resources.Completions"`, `Optional[Customer]`, `Customer | None`.
    /// Containers (`List[Customer]`), unions of classes and `Type[X]` name none.
    fn class_named(&self, module: usize, expr: &str, canon: &Canon) -> Option<String> {
        let mut named = None;
        for token in type_names(expr) {
            let last = token.rsplit('.').next().unwrap_or(token);
            if matches!(last, "Optional" | "Union" | "None" | "Annotated") {
                continue;
            }
            if named.replace(token).is_some() {
                return None;
            }
        }
        let mut seen = HashSet::new();
        match self.resolve_expr(module, named?, &mut seen)? {
            Target::Def(k, p) if p.len() == 1 => {
                let def = self.find_def(k, &p)?;
                if def.kind != DefKind::Class {
                    return None;
                }
                canon.get(&(k, p[0].clone())).map(|(c, _)| c.clone())
            }
            _ => None,
        }
    }

    /// `returns`, `parameter` and `requests` links of a callable defined in `module`.
    fn signature_relations(
        &self,
        module: usize,
        def: &Def,
        subject: &str,
        file: &str,
        canon: &Canon,
        out: &mut Vec<Relation>,
    ) {
        let file = def.file.as_deref().unwrap_or(file);
        if let Some(r) = &def.returns
            && let Some(object) = self.class_named(module, r, canon)
        {
            out.push(Relation {
                subject: subject.to_string(),
                kind: RelationKind::Returns,
                name: None,
                object,
                evidence: format!("-> {r}"),
                file: file.to_string(),
                line: def.line,
            });
        }
        out.extend(
            def.requests
                .iter()
                .filter_map(|r| r.relation(subject, file)),
        );
        self.param_relations(module, &def.params, def.line, subject, file, canon, out);
    }

    /// `parameter` links of a callable (or of a class, through its constructor): each
    /// parameter annotated with a class, the annotation read in `module`, where it is written.
    #[allow(clippy::too_many_arguments)]
    fn param_relations(
        &self,
        module: usize,
        params: &[Param],
        line: usize,
        subject: &str,
        file: &str,
        canon: &Canon,
        out: &mut Vec<Relation>,
    ) {
        for p in params {
            if let Some(a) = &p.annotation
                && let Some(object) = self.class_named(module, a, canon)
            {
                out.push(Relation {
                    subject: subject.to_string(),
                    kind: RelationKind::Parameter,
                    name: Some(p.name.clone()),
                    object,
                    evidence: format!("{}: {a}", p.name),
                    file: file.to_string(),
                    line,
                });
            }
        }
    }

    /// `attribute` links of a class: `self.x = ...` statements of `__init__` and annotated
    /// class fields along its MRO (the nearest definer of a name wins), stopping at public bases,
    /// whose attributes are their own links.
    fn attribute_relations(
        &self,
        mro: &[Target],
        this: &Target,
        q: &str,
        canon: &Canon,
        out: &mut Vec<Relation>,
    ) {
        let mut seen: HashSet<&str> = HashSet::new();
        for owner in mro {
            let Target::Def(k, opath) = owner else {
                continue;
            };
            if owner != this && opath.len() == 1 && canon.contains_key(&(*k, opath[0].clone())) {
                continue;
            }
            let Some(odef) = self.find_def(*k, opath) else {
                continue;
            };
            let init = odef
                .members
                .iter()
                .rev()
                .find(|m| m.name == "__init__" && m.kind == DefKind::Function);
            // What `__init__` does first: it shows how the value is built.
            let attrs = init
                .into_iter()
                .flat_map(|i| &i.attributes)
                .chain(&odef.attributes);
            for a in attrs {
                if !seen.insert(&a.name) {
                    continue;
                }
                let object = a
                    .annotation
                    .as_deref()
                    .and_then(|t| self.class_named(*k, t, canon))
                    .or_else(|| {
                        let c = a.constructed.as_deref()?;
                        self.class_named(*k, c, canon)
                    });
                let Some(object) = object else {
                    continue;
                };
                out.push(Relation {
                    subject: q.to_string(),
                    kind: RelationKind::Attribute,
                    name: Some(a.name.clone()),
                    object,
                    evidence: a.evidence.clone(),
                    file: self.modules[*k].file.clone(),
                    line: a.line,
                });
            }
        }
    }

    /// The constructor along the MRO: the first `__init__` (receiver dropped), a synthesised
    /// dataclass/NamedTuple signature, or nothing when it comes from outside the release.
    fn constructor(&self, mro: &[Target]) -> Constructor {
        let unknown = Constructor {
            has_signature: false,
            ..Default::default()
        };
        for (pos, t) in mro.iter().enumerate() {
            match t {
                Target::Def(k, p) => {
                    let Some(def) = self.find_def(*k, p) else {
                        return unknown;
                    };
                    if let Some(init) = def.members.iter().find(|m| m.name == "__init__") {
                        let mut params = init.params.clone();
                        drop_receiver(&mut params);
                        mangle(&mut params, &def.name);
                        let mut overloads = init.overloads.clone();
                        for o in &mut overloads {
                            drop_receiver(o);
                        }
                        return Constructor {
                            params,
                            has_signature: true,
                            overloads,
                            written_in: Some((*k, init.line)),
                        };
                    }
                    if is_synthesised(def) {
                        return Constructor {
                            params: self.synthesised_fields(&mro[pos..]),
                            has_signature: true,
                            ..Default::default()
                        };
                    }
                    if let Some(new) = def.members.iter().find(|m| m.name == "__new__") {
                        let mut params = new.params.clone();
                        drop_receiver(&mut params);
                        return Constructor {
                            params,
                            has_signature: true,
                            overloads: vec![],
                            written_in: Some((*k, new.line)),
                        };
                    }
                }
                Target::External(e) => {
                    let last = e.rsplit('.').next().unwrap_or(e);
                    if matches!(last, "NamedTuple") {
                        continue;
                    }
                    if !matches!(last, "object" | "Generic" | "ABC" | "Protocol") {
                        return unknown;
                    }
                }
                Target::Module(_) | Target::Value(..) => return unknown,
            }
        }
        Constructor {
            has_signature: true,
            ..Default::default()
        }
    }

    /// Dataclass-style fields along the MRO, base classes first.
    fn synthesised_fields(&self, mro: &[Target]) -> Vec<Param> {
        let mut fields: Vec<Param> = Vec::new();
        for t in mro.iter().rev() {
            let Target::Def(k, p) = t else { continue };
            let Some(def) = self.find_def(*k, p) else {
                continue;
            };
            if !is_synthesised(def) && !def.bases.iter().any(|b| b.ends_with("NamedTuple")) {
                continue;
            }
            let kw_only_all = def.decorators.iter().any(|d| d.contains("kw_only=True"));
            for f in &def.fields {
                if f.annotation.starts_with("ClassVar") || f.annotation.contains(".ClassVar") {
                    continue;
                }
                if f.annotation == "KW_ONLY" || f.annotation.ends_with(".KW_ONLY") {
                    continue;
                }
                // `field(init=False)`: not a constructor parameter.
                if f.default.as_deref().is_some_and(|d| {
                    let d: String = d.chars().filter(|c| !c.is_whitespace()).collect();
                    d.contains("init=False") && d.contains("field(")
                }) {
                    continue;
                }
                let default = f.default.as_deref().map(field_default);
                let param = Param {
                    name: f.name.clone(),
                    kind: if kw_only_all {
                        ParamKind::KeywordOnly
                    } else {
                        ParamKind::PositionalOrKeyword
                    },
                    annotation: Some(f.annotation.clone()),
                    default: default.flatten(),
                    ..Default::default()
                };
                if let Some(old) = fields.iter_mut().find(|x| x.name == f.name) {
                    *old = param;
                } else {
                    fields.push(param);
                }
            }
        }
        fields
    }
}

/// `field(default=1)` -> `1`; `field(default_factory=list)` -> `<factory>` as inspect shows it.
fn field_default(text: &str) -> Option<String> {
    let t = text.trim();
    let call = t
        .strip_prefix("field(")
        .or_else(|| t.strip_prefix("dataclasses.field("))
        .or_else(|| t.strip_prefix("attr.ib("))
        .or_else(|| t.strip_prefix("attrs.field("));
    let Some(args) = call else {
        return Some(t.to_string());
    };
    let args = args.strip_suffix(')').unwrap_or(args);
    for part in args.split(',') {
        let part = part.trim();
        if let Some(v) = part.strip_prefix("default=") {
            return Some(v.trim().to_string());
        }
        if part.starts_with("default_factory=") || part.starts_with("factory=") {
            return Some("<factory>".to_string());
        }
    }
    None
}

fn is_synthesised(def: &Def) -> bool {
    def.has_decorator(&["dataclass", "define", "frozen", "mutable", "attrs", "s"])
        && !def.members.iter().any(|m| m.name == "__init__")
}

/// The dotted names in a type expression, string quotes removed: `Optional["a.B"]` gives
/// `Optional`, `a.B`.
fn type_names(expr: &str) -> impl Iterator<Item = &str> {
    expr.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map(|t| t.trim_matches('.'))
        .filter(|t| {
            t.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
}

/// A module attribute that is not a class or function: a variable, or a name of another
/// package. `paths` are its public paths: the shortest is canonical.
fn variable_symbol(
    paths: BTreeSet<String>,
    defined_in: String,
    annotation: Option<String>,
    doc: Option<String>,
    file: &str,
    line: usize,
) -> Symbol {
    let mut sorted: Vec<String> = paths.into_iter().collect();
    sorted.sort_by_key(|p| (p.matches('.').count(), p.len(), p.clone()));
    let q = sorted.remove(0);
    Symbol {
        parent: parent_of(&q),
        qualified_name: q,
        aliases: sorted,
        defined_in,
        kind: SymbolKind::Attribute,
        params: vec![],
        has_signature: false,
        returns: annotation,
        is_async: false,
        doc,
        decorators: vec![],
        bases: vec![],
        overloads: vec![],
        deprecation: None,
        inherited_from: None,
        file: file.to_string(),
        line,
        signature_text: None,
        value_type: None,
        provenance: None,
    }
}

fn parent_of(q: &str) -> Option<String> {
    q.rsplit_once('.').map(|(p, _)| p.to_string())
}

/// Python mangles `__name` parameters of functions defined in a class body to `_Class__name`.
fn mangle(params: &mut [Param], class: &str) {
    let class = class.trim_start_matches('_');
    if class.is_empty() {
        return;
    }
    for p in params {
        if p.name.starts_with("__") && !p.name.ends_with("__") {
            p.name = format!("_{class}{}", p.name);
        }
    }
}

fn drop_receiver(params: &mut Vec<Param>) {
    if params.first().is_some_and(|p| {
        matches!(
            p.kind,
            ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
        )
    }) {
        params.remove(0);
    }
}

fn member_kind(m: &Def) -> SymbolKind {
    if m.has_decorator(&["staticmethod"]) {
        SymbolKind::Staticmethod
    } else if m.has_decorator(&["classmethod"]) {
        SymbolKind::Classmethod
    } else if m.has_decorator(&["getter"])
        || m.decorators.iter().any(|d| {
            // `property`, `cached_property`, `locked_cached_property`, `memoized_property`,
            // `abc.abstractproperty`: descriptors read as attributes.
            let head = d.split('(').next().unwrap_or(d);
            head.rsplit('.')
                .next()
                .unwrap_or(head)
                .ends_with("property")
        })
    {
        SymbolKind::Property
    } else {
        SymbolKind::Method
    }
}

#[allow(clippy::too_many_arguments)]
fn function_symbol(
    def: &Def,
    qualified_name: String,
    aliases: Vec<String>,
    defined_in: String,
    kind: SymbolKind,
    inherited_from: Option<String>,
    parent: Option<String>,
    file: &str,
) -> Symbol {
    Symbol {
        qualified_name,
        aliases,
        defined_in,
        kind,
        params: def.params.clone(),
        has_signature: def.kind == DefKind::Function,
        returns: def.returns.clone(),
        is_async: def.is_async,
        doc: def.doc.clone(),
        decorators: def.decorators.clone(),
        bases: def.bases.clone(),
        overloads: def.overloads.clone(),
        deprecation: def.deprecation.clone(),
        inherited_from,
        parent,
        file: def.file.as_deref().unwrap_or(file).to_string(),
        line: def.line,
        signature_text: None,
        value_type: None,
        provenance: None,
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::SourceFile;
    use crate::extract::python::extract;
    use crate::model::{ReleaseFacts, Symbol, SymbolKind};

    fn files(list: &[(&str, &str)]) -> Vec<SourceFile> {
        list.iter()
            .map(|(p, t)| SourceFile {
                path: p.to_string(),
                text: t.as_bytes().to_vec(),
            })
            .collect()
    }

    #[test]
    fn reexports_make_private_definitions_public() {
        let facts = extract(&files(&[
            (
                "pkg/__init__.py",
                "from ._impl import Client, helper as assist\nfrom .models import *\n__all__ = ['Client', 'assist', 'Model']\n",
            ),
            (
                "pkg/_impl.py",
                "from .models import Model\nclass _Base:\n    def ping(self, t=1): ...\n    def _hidden(self): ...\nclass Client(_Base):\n    def __init__(self, key, /, *, timeout=30.0): ...\n    @property\n    def name(self): ...\n    @staticmethod\n    def make(x): ...\n    def run(self, t=2): ...\n    get = run\ndef helper(a, *args, **kw): ...\n",
            ),
            (
                "pkg/models.py",
                "from . import _impl\n__all__ = ['Model']\nclass Model:\n    @classmethod\n    def load(cls, data): ...\ndef not_exported(): ...\n",
            ),
        ]));
        let get = |n: &str| {
            facts
                .symbols
                .iter()
                .find(|s| s.qualified_name == n)
                .unwrap_or_else(|| {
                    panic!(
                        "{n} missing; have {:?}",
                        facts
                            .symbols
                            .iter()
                            .map(|s| &s.qualified_name)
                            .collect::<Vec<_>>()
                    )
                })
        };
        let client = get("pkg.Client");
        assert_eq!(client.defined_in, "pkg._impl.Client");
        assert_eq!(client.kind, SymbolKind::Class);
        let names: Vec<_> = client
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.kind.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![("key", "positional_only"), ("timeout", "keyword_only")]
        );
        let ping = get("pkg.Client.ping");
        assert_eq!(ping.inherited_from.as_deref(), Some("pkg._impl._Base"));
        assert_eq!(ping.params[0].name, "t");
        assert_eq!(get("pkg.Client.name").kind, SymbolKind::Property);
        assert_eq!(get("pkg.Client.make").params[0].name, "x");
        assert_eq!(
            get("pkg.Client.get").params[0].default.as_deref(),
            Some("2")
        );
        assert_eq!(get("pkg.assist").defined_in, "pkg._impl.helper");
        let model = get("pkg.Model");
        assert_eq!(model.aliases, vec!["pkg.models.Model"]);
        // Member paths through class aliases are not stored; lookups derive them.
        assert!(get("pkg.Model.load").aliases.is_empty());
        assert_eq!(get("pkg.Model.load").kind, SymbolKind::Classmethod);
        assert!(get("pkg.Model.load").params.iter().all(|p| p.name != "cls"));
        assert!(
            facts
                .symbols
                .iter()
                .all(|s| !s.qualified_name.contains("_hidden"))
        );
        assert!(
            facts
                .symbols
                .iter()
                .all(|s| s.qualified_name != "pkg.models.not_exported")
        );
    }

    #[test]
    fn import_cycles_terminate() {
        let facts = extract(&files(&[
            ("c/__init__.py", "from .a import *\nfrom .b import *\n"),
            ("c/a.py", "from .b import *\nX = Y\ndef fa(): ...\n"),
            ("c/b.py", "from .a import *\nY = X\ndef fb(): ...\n"),
        ]));
        let names: Vec<_> = facts
            .symbols
            .iter()
            .map(|s| s.qualified_name.as_str())
            .collect();
        assert!(
            names.contains(&"c.fa") && names.contains(&"c.fb"),
            "{names:?}"
        );
    }

    #[test]
    fn public_base_members_are_aliases_on_the_subclass() {
        let facts = extract(&files(&[(
            "p/__init__.py",
            "class Base:\n    def run(self, a): ...\nclass Sub(Base):\n    pass\n@dataclass\nclass D:\n    x: int\n    y: str = 'a'\n    z: list = field(default=None, init=False)\n",
        )]));
        let run = facts
            .symbols
            .iter()
            .find(|s| s.qualified_name == "p.Base.run")
            .unwrap();
        // Not stored on the subclass: lookups walk the ancestors (see answer.rs).
        assert!(run.aliases.is_empty());
        let sub = facts
            .symbols
            .iter()
            .find(|s| s.qualified_name == "p.Sub")
            .unwrap();
        assert_eq!(sub.bases, vec!["p.Base"]);
        let d = facts
            .symbols
            .iter()
            .find(|s| s.qualified_name == "p.D")
            .unwrap();
        // `z` is `field(init=False)`: no constructor parameter.
        assert_eq!(d.params.len(), 2);
        assert_eq!(d.params[1].default.as_deref(), Some("'a'"));
    }

    /// Whether `module.name` exists at run time by the facts: a name in the module's table, a
    /// path that reaches a symbol, or a symbol's own path.
    fn binds(facts: &ReleaseFacts, module: &str, name: &str) -> bool {
        let path = format!("{module}.{name}");
        facts
            .bound_names
            .iter()
            .any(|(m, names)| m == module && names.iter().any(|n| n == name))
            || facts.reachable.iter().any(|(p, _)| *p == path)
            || facts
                .symbols
                .iter()
                .any(|s| s.qualified_name == path || s.aliases.contains(&path))
    }

    fn symbol<'f>(facts: &'f ReleaseFacts, name: &str) -> &'f Symbol {
        facts
            .symbols
            .iter()
            .find(|s| s.qualified_name == name)
            .unwrap_or_else(|| panic!("no {name}"))
    }

    #[test]
    fn lazy_loader_modules_export_what_they_serve() {
        let facts = extract(&files(&[
            (
                "sk/__init__.py",
                "import lazy_loader as lazy\n\
                 __getattr__, __dir__, __all__ = lazy.attach_stub(__name__, __file__)\n",
            ),
            (
                "sk/__init__.pyi",
                "from . import filters\nfrom ._io import imread\n__all__ = ['filters', 'imread']\n",
            ),
            ("sk/_io.py", "def imread(fname, plugin=None): ...\n"),
            (
                "sk/filters/__init__.py",
                "import lazy_loader as lazy\nsubmodules = ['rank']\n\
                 __getattr__, __dir__, __all__ = lazy.attach(\n    __name__, submodules, \
                 submod_attrs={'edges': ['sobel']}\n)\n",
            ),
            ("sk/filters/edges.py", "def sobel(image, mask=None): ...\n"),
            ("sk/filters/rank.py", "def mean(image): ...\n"),
        ]));
        let imread = symbol(&facts, "sk.imread");
        assert_eq!(
            crate::model::render_params(&imread.params),
            "(fname, plugin=None)"
        );
        assert_eq!(
            symbol(&facts, "sk.filters.sobel").kind,
            SymbolKind::Function
        );
        assert_eq!(symbol(&facts, "sk.filters.rank").kind, SymbolKind::Module);
        // Its names are all spelled out: nothing under it is unknown.
        assert!(
            facts.unknown_members.is_empty(),
            "{:?}",
            facts.unknown_members
        );
    }

    #[test]
    fn a_getattr_guarded_by_a_table_serves_the_tables_names() {
        // As astropy.cosmology: `realizations` makes each of `available` from a data file on
        // first use; the package refuses every other name and serves the table it imports.
        let getattr = "def __getattr__(name):\n    \"\"\"Lazy.\"\"\"\n    \
                       if name not in available:\n        raise AttributeError(name)\n    \
                       cosmo = read(name)\n    return cosmo\n";
        let facts = extract(&files(&[
            (
                "cosmo/realizations.py",
                &format!("available = (\n    'WMAP1',\n    'Planck18',\n)\n\n{getattr}"),
            ),
            (
                "cosmo/__init__.py",
                "from . import realizations\nfrom .realizations import available\n\n\
                 def __getattr__(name):\n    if name not in available:\n        \
                 raise AttributeError(name)\n    return getattr(realizations, name)\n",
            ),
            // A body that may still refuse a name of the table is not read.
            (
                "cosmo/strict.py",
                "from .realizations import available\n\n\
                 def __getattr__(name):\n    if name not in available:\n        \
                 raise AttributeError(name)\n    if name == 'WMAP1':\n        \
                 raise AttributeError('removed')\n    return 1\n",
            ),
            // Nor is one whose table is not a literal.
            (
                "cosmo/computed.py",
                "names = tuple(load())\n\ndef __getattr__(name):\n    if name not in names:\n        \
                 raise AttributeError(name)\n    return 1\n",
            ),
        ]));
        for module in ["cosmo.realizations", "cosmo"] {
            for name in ["WMAP1", "Planck18"] {
                assert!(binds(&facts, module, name), "{module}.{name}");
            }
            assert!(!binds(&facts, module, "Planck99"), "{module}");
        }
        // A value made at the `__getattr__`'s line.
        let planck = symbol(&facts, "cosmo.realizations.Planck18");
        assert_eq!((planck.kind, planck.line), (SymbolKind::Attribute, 6));
        let unknown = |m: &str| facts.unknown_members.iter().any(|(x, _)| x == m);
        assert!(!unknown("cosmo") && !unknown("cosmo.realizations"));
        assert!(unknown("cosmo.strict") && unknown("cosmo.computed"));
        assert!(!binds(&facts, "cosmo.strict", "Planck18"));
    }

    #[test]
    fn names_a_module_computes_from_its_tables_are_bound_and_exported() {
        // As astropy.modeling: projections bind short aliases in a loop over a table and list
        // them in a computed `__all__`; `models` star-imports them and loops over classes.
        let facts = extract(&files(&[
            (
                "mdl/projections.py",
                "from itertools import chain, product\n\
                 CODES = [(\"Gnomonic\", \"TAN\"), (\"Airy\", \"AIR\")]\n\
                 __all__ = [\"Projection\"]\n\
                 __all__ += list(map(\"_\".join, product([\"Pix2Sky\"], chain(*CODES))))\n\
                 class Projection: ...\n\
                 class Pix2Sky_Gnomonic(Projection): ...\n\
                 class Pix2Sky_Airy(Projection): ...\n\
                 for long_name, short_name in CODES:\n    \
                 globals()[\"Pix2Sky_\" + short_name] = globals()[\"Pix2Sky_\" + long_name]\n",
            ),
            (
                "mdl/models.py",
                "from mdl.projections import *\n\
                 from mdl.projections import Projection\n\
                 MODELS = [Projection]\n\
                 for item in MODELS:\n    item.x = 1\n\
                 for other in load():\n    pass\n\
                 for gone in MODELS:\n    pass\n\
                 del gone\n",
            ),
        ]));
        for name in ["Pix2Sky_TAN", "Pix2Sky_AIR", "Pix2Sky_Airy", "long_name"] {
            assert!(binds(&facts, "mdl.projections", name), "{name}");
            assert_eq!(
                binds(&facts, "mdl.models", name),
                name != "long_name",
                "{name}"
            );
        }
        let unknown = |m: &str| facts.unknown_members.iter().any(|(x, _)| x == m);
        assert!(!unknown("mdl.projections") && !unknown("mdl.models"));
        // A loop variable exists once the loop has run, and is not API.
        assert!(binds(&facts, "mdl.models", "item"));
        assert!(!facts.symbols.iter().any(|s| {
            s.qualified_name.ends_with(".item") || s.qualified_name.ends_with(".long_name")
        }));
        // Over what cannot be told empty or not, it may be bound; deleted, it is not.
        let maybe = |n: &str| {
            facts
                .maybe_bound
                .iter()
                .any(|(m, x, _)| m == "mdl.models" && x == n)
        };
        assert!(maybe("other") && !binds(&facts, "mdl.models", "other"));
        assert!(!maybe("gone") && !binds(&facts, "mdl.models", "gone"));
    }

    #[test]
    fn a_lazy_module_serves_its_type_checking_names() {
        let facts = extract(&files(&[
            (
                "tf/__init__.py",
                "from typing import TYPE_CHECKING\nfrom .utils import is_torch_available, is_tf_available\n\
                 _import_structure = {'models': ['Model']}\n\
                 if TYPE_CHECKING:\n    from .models import Model\n    from .utils import is_tf_available\n\
                 else:\n    import sys\n    \
                 sys.modules[__name__] = _LazyModule(__name__, globals()['__file__'], _import_structure)\n",
            ),
            (
                "tf/models.py",
                "class Model:\n    def __init__(self, config): ...\n",
            ),
            (
                "tf/utils.py",
                "def is_torch_available(): ...\ndef is_tf_available(): ...\n",
            ),
            // A module `__getattr__` serves the package's own names, not typing's.
            (
                "tf/getters.py",
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from typing import Iterator\n    \
                 from .models import Model\n\ndef __getattr__(name):\n    return _load(name)\n",
            ),
            // Without an `else:` or a module `__getattr__`, the names are for type checkers.
            (
                "tf/plain.py",
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .models import Model\n",
            ),
        ]));
        let model = symbol(&facts, "tf.Model");
        assert_eq!(crate::model::render_params(&model.params), "(config)");
        // The module is replaced: its own imports are not what users reach; a name it also
        // lists for type checkers is served (transformers' `is_tf_available`).
        assert!(
            symbol(&facts, "tf.utils.is_torch_available")
                .aliases
                .is_empty()
        );
        assert_eq!(
            symbol(&facts, "tf.is_tf_available").defined_in,
            "tf.utils.is_tf_available"
        );
        assert!(
            !facts
                .reachable
                .iter()
                .any(|(p, _)| p.starts_with("tf.plain"))
        );
        assert!(binds(&facts, "tf.getters", "Model"));
        assert!(!binds(&facts, "tf.getters", "Iterator"));
        assert!(
            facts
                .unknown_members
                .iter()
                .any(|(m, why)| m == "tf" && why.contains("run time")),
            "{:?}",
            facts.unknown_members
        );
    }

    #[test]
    fn all_arithmetic_variables_other_packages_and_compiled_modules() {
        let facts = extract(&files(&[
            (
                "np2/__init__.py",
                "from . import core\nfrom .core import *\nfrom ._speed import fast\n\
                 from requests import Timeout\nimport os\n\
                 __all__ = ['Timeout', 'VERSION_INFO'] + core.__all__\nVERSION_INFO = (1, 2)\n",
            ),
            (
                "np2/core.py",
                "__all__ = ['array', 'DEFAULT']\ndef array(obj): ...\nDEFAULT = 3\n",
            ),
            ("np2/_speed.cpython-311-x86_64-linux-gnu.so", ""),
            ("np2/native.abi3.so", ""),
            (
                "np2/align.py",
                "from .core import array\nfrom . import core as c\nLIMIT: int = 5\n",
            ),
        ]));
        assert_eq!(symbol(&facts, "np2.array").kind, SymbolKind::Function);
        assert_eq!(symbol(&facts, "np2.DEFAULT").kind, SymbolKind::Attribute);
        assert_eq!(
            symbol(&facts, "np2.VERSION_INFO").kind,
            SymbolKind::Attribute
        );
        let limit = symbol(&facts, "np2.align.LIMIT");
        assert_eq!(limit.returns.as_deref(), Some("int"));
        // Named by `__all__`, from another package: there, marked as such.
        let timeout = symbol(&facts, "np2.Timeout");
        assert_eq!(timeout.defined_in, "requests.Timeout");
        assert!(
            timeout
                .doc
                .as_deref()
                .unwrap()
                .contains("package `requests`")
        );
        // A package's import from its own compiled module.
        assert_eq!(symbol(&facts, "np2.fast").defined_in, "np2._speed.fast");
        assert!(!facts.symbols.iter().any(|s| s.qualified_name == "np2.os"));
        // A compiled module exists, and what it holds is unknown.
        assert_eq!(symbol(&facts, "np2.native").kind, SymbolKind::Module);
        assert!(
            facts
                .unknown_members
                .iter()
                .any(|(m, why)| m == "np2.native" && why.contains("compiled")),
            "{:?}",
            facts.unknown_members
        );
        // A plain module's own imports reach, without being its exports.
        assert!(
            symbol(&facts, "np2.array")
                .aliases
                .iter()
                .all(|a| !a.starts_with("np2.align"))
        );
        for (path, canonical) in [
            ("np2.align.array", "np2.array"),
            ("np2.align.c", "np2.core"),
        ] {
            assert!(
                facts
                    .reachable
                    .contains(&(path.to_string(), canonical.to_string())),
                "{path}: {:?}",
                facts.reachable
            );
        }
    }

    #[test]
    fn packages_an_unbuilt_release_builds_into_are_unknown_not_empty() {
        let unknown = |list: &[(&str, &str)]| {
            extract(&files(list))
                .unknown_members
                .into_iter()
                .collect::<Vec<_>>()
        };
        // shapely's sdist: `lib` is built from `_geos.pxd` and C sources beside it.
        let shapely = unknown(&[
            ("sh/__init__.py", "from .lib import GEOSException\n"),
            ("sh/_geos.pxd", ""),
            ("sh/plain/__init__.py", "X = 1\n"),
        ]);
        assert!(
            shapely
                .iter()
                .any(|(m, why)| m == "sh" && why.contains("sh/_geos.pxd")),
            "{shapely:?}"
        );
        assert!(!shapely.iter().any(|(m, _)| m == "sh.plain"), "{shapely:?}");
        // polars' sdist: maturin builds `polars.polars` from Rust.
        let polars = unknown(&[
            (
                "pyproject.toml",
                "[tool.maturin]\nmodule-name = \"pl.pl\"\n",
            ),
            ("pl/__init__.py", "from pl.pl import col\n"),
        ]);
        assert!(
            polars
                .iter()
                .any(|(m, why)| m == "pl" && why.contains("maturin")),
            "{polars:?}"
        );
        // The same package without them: its missing module is a proven absence.
        let plain = unknown(&[("pl/__init__.py", "X = 1\n")]);
        assert!(!plain.iter().any(|(m, _)| m == "pl"), "{plain:?}");
    }

    #[test]
    fn names_bound_by_chains_globals_loops_and_bound_methods_exist() {
        let facts = extract(&files(&[
            // SQLAlchemy: `base.dialect = dialect = x` binds `dialect` in both modules.
            (
                "sa/__init__.py",
                "from . import base, pysqlite\nbase.dialect = dialect = pysqlite.dialect\n",
            ),
            ("sa/base.py", "class Base: ...\n"),
            (
                "sa/pysqlite.py",
                "class SQLiteDialect:\n    def connect(self, url): ...\ndialect = SQLiteDialect\n",
            ),
            // `global` in a function binds a module name; so does an import in a loop.
            (
                "sa/orm.py",
                "def _preload():\n    global AppenderQuery, token\n    \
                 from .dynamic import AppenderQuery\n    token = make()\n_preload()\n\
                 def lex():\n    global lexer\n    lexer = make()\n\
                 def setup():\n    global handler\n    for handler in []: pass\n\
                 for pkg in ['a']:\n    if pkg == 'a':\n        from .dynamic import Loader\n",
            ),
            (
                "sa/dynamic.py",
                "class AppenderQuery: ...\nclass Loader: ...\n",
            ),
            // A method of an instance, bound at module level.
            (
                "sa/power.py",
                "class TTestPower:\n    def solve_power(self, n): ...\n\
                 tt_solve_power = TTestPower().solve_power\n",
            ),
            // Names written through globals() in a star-imported module without a closed
            // __all__: the importer cannot tell its names either.
            (
                "sa/projections.py",
                "__all__ = ['Projection']\n__all__ += list(map('_'.join, CODES))\n\
                 class Projection: ...\nfor c in CODES:\n    globals()['P_' + c] = make(c)\n",
            ),
            ("sa/models.py", "from .projections import *\n"),
            // A write from a module that is not a package above the target binds the name only
            // once it has run; a write on a class of the module adds to the class.
            (
                "sa/types.py",
                "from . import base\nbase.INDEXABLE = object()\nclass Foo: ...\nFoo.extra = 1\n",
            ),
            (
                "sa/consts.py",
                "__all__ = ['A']\nA = 1\nglobals()['B'] = 2\n",
            ),
            ("sa/uses.py", "from .consts import *\n"),
            // A package without `__all__` star-exports the submodules its imports load,
            // its own or those of the modules it imports.
            ("sa/ts/__init__.py", "from sa.ts.periodograms import *\n"),
            (
                "sa/ts/periodograms/__init__.py",
                "from sa.ts.periodograms.base import *\nfrom .lomb import *\n",
            ),
            (
                "sa/ts/periodograms/lomb/__init__.py",
                "from .core import Lomb\n",
            ),
            (
                "sa/ts/periodograms/lomb/core.py",
                "from .impl import fast\nclass Lomb: ...\n",
            ),
            ("sa/ts/periodograms/lomb/impl.py", "def fast(): ...\n"),
            (
                "sa/ts/periodograms/base.py",
                "__all__ = ['BasePeriodogram']\nclass BasePeriodogram: ...\n",
            ),
        ]));
        assert!(
            facts.reachable.contains(&(
                "sa.ts.base".to_string(),
                "sa.ts.periodograms.base".to_string()
            )),
            "{:?}",
            facts.reachable
        );
        assert!(
            facts.reachable.contains(&(
                "sa.ts.impl".to_string(),
                "sa.ts.periodograms.lomb.impl".to_string()
            )),
            "{:?}",
            facts.reachable
        );
        assert_eq!(symbol(&facts, "sa.dialect").kind, SymbolKind::Class);
        let bound = |module: &str, name: &str| binds(&facts, module, name);
        assert!(bound("sa.base", "dialect"), "{:?}", facts.bound_names);
        assert!(
            facts
                .reachable
                .contains(&("sa.base.dialect".to_string(), "sa.dialect".to_string())),
            "{:?}",
            facts.reachable
        );
        for name in ["AppenderQuery", "token", "Loader"] {
            assert!(bound("sa.orm", name), "{name}: {:?}", facts.bound_names);
        }
        // `lex()` binds `lexer` only when someone calls it: neither bound nor absent; so is
        // a global bound in a way not read, and a name another module sets.
        let maybe = |m: &str, n: &str, why: &str| {
            facts
                .maybe_bound
                .iter()
                .any(|(x, y, w)| x == m && y == n && w.contains(why))
        };
        assert!(!bound("sa.orm", "lexer"));
        assert!(maybe("sa.orm", "lexer", "lex()"), "{:?}", facts.maybe_bound);
        assert!(maybe("sa.orm", "handler", "may be bound by setup()"));
        assert!(!bound("sa.base", "INDEXABLE"));
        assert!(
            maybe("sa.base", "INDEXABLE", "sa.types"),
            "{:?}",
            facts.maybe_bound
        );
        assert!(bound("sa.types.Foo", "extra"), "{:?}", facts.bound_names);
        assert_eq!(
            symbol(&facts, "sa.power.tt_solve_power").kind,
            SymbolKind::Attribute
        );
        let unknown = |m: &str| facts.unknown_members.iter().any(|(x, _)| x == m);
        assert!(unknown("sa.projections"), "{:?}", facts.unknown_members);
        assert!(unknown("sa.models"), "{:?}", facts.unknown_members);
        // A closed `__all__` is exactly what a star import takes.
        assert!(unknown("sa.consts"), "{:?}", facts.unknown_members);
        assert!(!unknown("sa.uses"), "{:?}", facts.unknown_members);
    }

    #[test]
    fn module_level_del_unbinds_what_came_before_it() {
        let src = r#"import sys
from .helpers import helper, other

def scratch(x): ...
class Temp: ...

del scratch, Temp
del helper

def scratch(y): ...

if sys.platform == "win32":
    del other
"#;
        let facts = extract(&files(&[
            ("p/__init__.py", src),
            (
                "p/helpers.py",
                "def helper(): ...
def other(): ...
",
            ),
        ]));
        let names: Vec<&str> = facts
            .symbols
            .iter()
            .map(|s| s.qualified_name.as_str())
            .collect();
        assert!(!names.contains(&"p.Temp"), "{names:?}");
        assert!(!names.contains(&"p.helper"), "{names:?}");
        // Bound again after the `del`: the new one stands.
        let scratch = facts
            .symbols
            .iter()
            .find(|s| s.qualified_name == "p.scratch")
            .unwrap();
        assert_eq!(crate::model::render_params(&scratch.params), "(y)");
        // A conditional `del` may not run: kept.
        assert!(names.contains(&"p.other"), "{names:?}");
    }

    #[test]
    fn callables_bound_by_class_body_assignments_are_members() {
        let src = r#"import functools
import typing as t
PY2 = False

def _make_binop(op):
    @optimizeconst
    def visitor(self, node, frame):
        return op
    return visitor

def _dict_all(meth):
    @functools.wraps(meth)
    def proxy(self):
        return meth(self)
    return t.cast(t.Any, proxy)

def _get_lexer(env):
    "The getter."

class V:
    def _simple(self, node, **kw): ...
    visit_A = (
        visit_B
    ) = visit_C = _simple
    (visit_D,) = [_simple]

    def binop(op):
        def made(self, left, right): ...
        return made
    visit_Add = _make_binop("+")
    visit_Sub = binop("-")
    del binop
    keys = _dict_all("keys")
    lexer = property(_get_lexer, doc="The lexer.")
    def make(x, y): ...
    make = staticmethod(make)
    if PY2:
        iterkeys = _dict_all("iterkeys")
        def py2_only(self): ...
    else:
        def py3_only(self): ...
"#;
        let facts = extract(&files(&[("p/__init__.py", src)]));
        let get = |q: &str| facts.symbols.iter().find(|s| s.qualified_name == q);
        let sig = |q: &str| {
            let s = get(q).unwrap_or_else(|| panic!("{q} missing"));
            (
                s.kind,
                crate::model::render_params(&s.params),
                s.has_signature,
            )
        };
        for alias in ["p.V.visit_A", "p.V.visit_B", "p.V.visit_C"] {
            assert_eq!(
                sig(alias),
                (SymbolKind::Method, "(node, **kw)".into(), true)
            );
        }
        // `(visit_D,) = [...]` unpacks a list: not an alias.
        assert!(get("p.V.visit_D").is_none());
        // Made by a module function and by a class-body function the body then deletes.
        assert_eq!(
            sig("p.V.visit_Add"),
            (SymbolKind::Method, "(node, frame)".into(), true)
        );
        assert_eq!(
            sig("p.V.visit_Sub"),
            (SymbolKind::Method, "(left, right)".into(), true)
        );
        assert!(get("p.V.binop").is_none());
        // `functools.wraps` gives the wrapped function's signature, which the source lacks.
        assert_eq!(sig("p.V.keys"), (SymbolKind::Method, "()".into(), false));
        let lexer = get("p.V.lexer").unwrap();
        assert_eq!(lexer.kind, SymbolKind::Property);
        assert_eq!(lexer.doc.as_deref(), Some("The lexer."));
        // The later binding wins: `make` is a static method that keeps its first parameter.
        assert_eq!(
            sig("p.V.make"),
            (SymbolKind::Staticmethod, "(x, y)".into(), true)
        );
        assert!(get("p.V.iterkeys").is_none() && get("p.V.py2_only").is_none());
        assert!(get("p.V.py3_only").is_some());
    }

    #[test]
    fn sources_run_and_stubs_add_types() {
        let facts = extract(&files(&[
            (
                "q/__init__.py",
                "from typing import TYPE_CHECKING\nfrom .impl import evolve, Box\nif TYPE_CHECKING:\n    from .impl import Hidden\n    class Proto: ...\nclass Cached:\n    @locked_cached_property\n    def env(self): ...\nif __name__ == \"__main__\":\n    class Demo: ...\n",
            ),
            (
                "q/impl.py",
                "def evolve(*args, **changes):\n    \"Make a copy.\"\ndef _make(): ...\nclass Box:\n    def put(self, item, where=None): ...\nclass Hidden: ...\n",
            ),
            (
                "q/impl.pyi",
                "def evolve(inst: T, **changes: Any) -> T: ...\nclass Box:\n    def put(self, item: int, where: str | None = ...) -> None: ...\n    def made_at_run_time(self) -> int: ...\nclass Stubbed: ...\n",
            ),
        ]));
        let get = |q: &str| facts.symbols.iter().find(|s| s.qualified_name == q);
        // The source's parameters stand; the stub's differ, so its types are not applied.
        let evolve = get("q.evolve").unwrap();
        assert_eq!(
            crate::model::render_params(&evolve.params),
            "(*args, **changes)"
        );
        assert_eq!(evolve.doc.as_deref(), Some("Make a copy."));
        assert_eq!(evolve.file, "q/impl.py");
        // Declared alike: the stub's types, the source's defaults.
        let put = get("q.Box.put").unwrap();
        assert_eq!(put.params[0].annotation.as_deref(), Some("int"));
        assert_eq!(put.params[1].default.as_deref(), Some("None"));
        assert_eq!(put.returns.as_deref(), Some("None"));
        // What only the stub declares is kept.
        assert!(get("q.Box.made_at_run_time").is_some());
        assert!(get("q.impl.Stubbed").is_some());
        // Type-checking imports and classes, and a script's own classes, export nothing.
        assert!(get("q.Hidden").is_none() && get("q.impl.Hidden").is_some());
        assert!(get("q.Proto").is_none() && get("q.Demo").is_none());
        assert_eq!(get("q.Cached.env").unwrap().kind, SymbolKind::Property);
    }

    #[test]
    fn folders_without_init_inside_a_package_are_namespace_packages() {
        let facts = extract(&files(&[
            ("p/__init__.py", ""),
            ("p/ns/mod.py", "def f(): ...\n"),
            ("loose/x.py", "def g(): ...\n"),
        ]));
        let ns = facts
            .symbols
            .iter()
            .find(|s| s.qualified_name == "p.ns")
            .expect("p.ns is importable");
        assert_eq!((ns.kind, ns.file.as_str()), (SymbolKind::Module, "p/ns/"));
        assert!(
            facts
                .symbols
                .iter()
                .any(|s| s.qualified_name == "p.ns.mod.f")
        );
        // A folder outside any package is not made one.
        assert!(!facts.symbols.iter().any(|s| s.qualified_name == "loose"));
    }

    #[test]
    fn a_class_takes_what_its_constructor_takes() {
        // The annotation is read where the `__init__` is written: `Timeout` of `_base`, even
        // for the subclass in a module that binds another `Timeout`.
        let facts = extract(&files(&[
            (
                "pkg/__init__.py",
                "from ._base import Base, Timeout\nfrom ._client import Client, Plain, Timeout as Other\n",
            ),
            (
                "pkg/_base.py",
                "class Timeout: ...\nclass Base:\n    def __init__(self, url: str, timeout: Timeout = None): ...\n",
            ),
            (
                "pkg/_client.py",
                "from ._base import Base\nclass Timeout: ...\nclass Client(Base): ...\nclass Plain:\n    def __new__(cls, t: 'Timeout'): ...\n",
            ),
        ]));
        let takes = facts.links(crate::model::RelationKind::Parameter);
        assert_eq!(
            takes,
            [
                ("pkg.Base", "timeout", "pkg.Timeout"),
                ("pkg.Client", "timeout", "pkg.Timeout"),
                ("pkg.Plain", "t", "pkg.Other"),
            ]
        );
    }
}
