//! Constant folding of module-level expressions over literal tables: what a module computes
//! from its own string literals when it runs, read without running it.
//!
//! astropy's projections list their classes as `__all__ += list(map("_".join,
//! product(["Pix2Sky", "Sky2Pix"], chain(*_PROJ_NAME_CODE))))` and bind the short names in a
//! loop over the same table, `for long, short in _PROJ_NAME_CODE: globals()["Pix2Sky_" +
//! short] = ...`. Only the builtins and `itertools` functions below are folded, each as
//! Python defines it, and only when the module does not rebind their names; anything else
//! (a call, a comprehension, an f-string, a name bound to something else) is not a constant,
//! and the caller keeps what it did without folding.

use std::collections::HashSet;

use tree_sitter::Node;

use super::{
    BindingTarget, ModuleSyntax, enclosing_def, module_literal, string_literal_value, text,
};

/// A folded value: a string, or a sequence (list, tuple or set: order as written).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Lit {
    Str(String),
    Seq(Vec<Lit>),
}

impl Lit {
    /// The strings of a sequence of strings.
    pub(super) fn strings(self) -> Option<Vec<String>> {
        match self {
            Lit::Seq(items) => items
                .into_iter()
                .map(|i| match i {
                    Lit::Str(s) => Some(s),
                    Lit::Seq(_) => None,
                })
                .collect(),
            Lit::Str(_) => None,
        }
    }

    fn seq(self) -> Option<Vec<Lit>> {
        match self {
            Lit::Seq(items) => Some(items),
            Lit::Str(_) => None,
        }
    }
}

/// The loop variables in scope, with their values.
type Env<'e> = [(&'e str, Lit)];

/// How deep names may refer to names (`B = A + [...]`, `A = [...]`).
const MAX_DEPTH: usize = 8;

/// What folding may read: the module's statements, and the functions it may call.
pub(super) struct Folder<'a, 't> {
    statements: &'a [Node<'t>],
    src: &'a [u8],
    /// The builtins and `itertools` functions the module leaves as Python defines them, by
    /// the name it calls them (`product`, `itertools.product`, `map`).
    callable: HashSet<String>,
    /// `globals()`, and the module-level names bound to it or to `locals()` (the same
    /// namespace at module level): `__locals = locals()` in openai's `_old_api`.
    namespaces: Vec<String>,
}

impl<'a, 't> Folder<'a, 't> {
    /// The folder of a module whose definitions and imports `syntax` already holds; its
    /// assignments are read from `statements`, where the folding looks up tables too.
    pub(super) fn new(statements: &'a [Node<'t>], src: &'a [u8], syntax: &ModuleSyntax) -> Self {
        let assigned: HashSet<&str> = statements
            .iter()
            .filter_map(|s| s.named_child(0).filter(|a| a.kind() == "assignment"))
            .filter_map(|a| a.child_by_field_name("left"))
            .map(|l| text(l, src))
            .collect();
        // What `name` is in the module: Python's own when nothing rebinds it, itertools' when
        // only an import of itertools binds it.
        let only = |name: &str, import: Option<&BindingTarget>| {
            let bindings: Vec<&BindingTarget> = syntax
                .bindings
                .iter()
                .filter(|b| b.name == name)
                .map(|b| &b.target)
                .collect();
            !assigned.contains(name)
                && !syntax.defs.iter().any(|d| d.name == name)
                && match import {
                    None => bindings.is_empty(),
                    Some(t) => !bindings.is_empty() && bindings.iter().all(|b| *b == t),
                }
        };
        let mut callable: HashSet<String> = ["list", "tuple", "sorted", "map"]
            .into_iter()
            .filter(|b| only(b, None))
            .map(String::from)
            .collect();
        let module = BindingTarget::Module("itertools".into());
        for f in ["product", "chain"] {
            let imported = BindingTarget::FromImport {
                module: "itertools".into(),
                name: f.into(),
            };
            if only(f, Some(&imported)) {
                callable.insert(f.to_string());
            }
            if only("itertools", Some(&module)) {
                callable.insert(format!("itertools.{f}"));
            }
        }
        let namespaces = std::iter::once("globals()".to_string())
            .chain(namespace_aliases(statements, src))
            .collect();
        Folder {
            statements,
            src,
            callable,
            namespaces,
        }
    }

    /// The value of `node`, when it is a constant of the module.
    pub(super) fn fold(&self, node: Node) -> Option<Lit> {
        self.fold_at(node, 0, &[])
    }

    fn fold_at(&self, node: Node, depth: usize, env: &Env) -> Option<Lit> {
        if depth > MAX_DEPTH {
            return None;
        }
        let src = self.src;
        match node.kind() {
            "string" => {
                let t = text(node, src);
                let prefix = &t[..t.find(['"', '\'']).unwrap_or(0)];
                // An f-string is computed; bytes are not names.
                let mut c = node.walk();
                if prefix.contains(['f', 'F', 'b', 'B'])
                    || node
                        .named_children(&mut c)
                        .any(|n| n.kind() == "interpolation")
                {
                    return None;
                }
                string_literal_value(t).map(Lit::Str)
            }
            "concatenated_string" => {
                let mut c = node.walk();
                let mut out = String::new();
                for part in node.named_children(&mut c) {
                    match self.fold_at(part, depth, env)? {
                        Lit::Str(s) => out.push_str(&s),
                        Lit::Seq(_) => return None,
                    }
                }
                Some(Lit::Str(out))
            }
            "list" | "tuple" | "set" => {
                let mut c = node.walk();
                node.named_children(&mut c)
                    .filter(|n| n.kind() != "comment")
                    .map(|n| self.fold_at(n, depth, env))
                    .collect::<Option<Vec<_>>>()
                    .map(Lit::Seq)
            }
            "parenthesized_expression" => self.fold_at(node.named_child(0)?, depth, env),
            // `__all__` is what the module builds, not a table it reads.
            "identifier" if text(node, src) == "__all__" => None,
            "identifier" => {
                let name = text(node, src);
                if let Some((_, v)) = env.iter().find(|(n, _)| *n == name) {
                    return Some(v.clone());
                }
                let value = module_literal(node, self.statements, src)?;
                self.fold_at(value, depth + 1, &[])
            }
            "binary_operator" => {
                let op = node.child_by_field_name("operator")?;
                if text(op, src) != "+" {
                    return None;
                }
                let left = self.fold_at(node.child_by_field_name("left")?, depth, env)?;
                let right = self.fold_at(node.child_by_field_name("right")?, depth, env)?;
                match (left, right) {
                    (Lit::Str(a), Lit::Str(b)) => Some(Lit::Str(a + &b)),
                    (Lit::Seq(mut a), Lit::Seq(b)) => {
                        a.extend(b);
                        Some(Lit::Seq(a))
                    }
                    _ => None,
                }
            }
            "call" => self.call(node, depth, env),
            _ => None,
        }
    }

    fn call(&self, call: Node, depth: usize, env: &Env) -> Option<Lit> {
        let src = self.src;
        let function = call.child_by_field_name("function")?;
        let args_node = call.child_by_field_name("arguments")?;
        let mut c = args_node.walk();
        let raw: Vec<Node> = args_node
            .named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .collect();
        // `"_".join(x)`, and `map("_".join, x)` below.
        let join = |f: Node| -> Option<String> {
            (f.kind() == "attribute"
                && f.child_by_field_name("attribute")
                    .is_some_and(|a| text(a, src) == "join"))
            .then(|| self.fold_at(f.child_by_field_name("object")?, depth, env))
            .flatten()
            .and_then(|o| match o {
                Lit::Str(sep) => Some(sep),
                Lit::Seq(_) => None,
            })
        };
        let joined = |sep: &str, item: Lit| -> Option<Lit> {
            let parts = item.strings()?;
            Some(Lit::Str(parts.join(sep)))
        };
        if let Some(sep) = join(function) {
            let [arg] = raw.as_slice() else { return None };
            return joined(&sep, self.fold_at(*arg, depth, env)?);
        }
        let name = text(function, src);
        if !self.callable.contains(name) {
            return None;
        }
        let name = name.rsplit('.').next().unwrap_or(name);
        if name == "map" {
            let [f, x] = raw.as_slice() else { return None };
            let sep = join(*f)?;
            let items = self.fold_at(*x, depth, env)?.seq()?;
            return items
                .into_iter()
                .map(|i| joined(&sep, i))
                .collect::<Option<Vec<_>>>()
                .map(Lit::Seq);
        }
        // Positional arguments, `*x` spread into its items.
        let mut args = Vec::new();
        for a in &raw {
            match a.kind() {
                "list_splat" => args.extend(self.fold_at(a.named_child(0)?, depth, env)?.seq()?),
                "keyword_argument" | "dictionary_splat" => return None,
                _ => args.push(self.fold_at(*a, depth, env)?),
            }
        }
        match name {
            "list" | "tuple" => match args.as_slice() {
                [Lit::Seq(items)] => Some(Lit::Seq(items.clone())),
                _ => None,
            },
            "sorted" => {
                let [one] = args.as_slice() else { return None };
                let mut items = one.clone().strings()?;
                items.sort();
                Some(Lit::Seq(items.into_iter().map(Lit::Str).collect()))
            }
            "chain" => {
                let mut out = Vec::new();
                for a in args {
                    out.extend(a.seq()?);
                }
                Some(Lit::Seq(out))
            }
            "product" => {
                let mut rows: Vec<Vec<Lit>> = vec![Vec::new()];
                for a in args {
                    let items = a.seq()?;
                    rows = rows
                        .into_iter()
                        .flat_map(|r| {
                            items.iter().map(move |i| {
                                let mut r = r.clone();
                                r.push(i.clone());
                                r
                            })
                        })
                        .collect();
                }
                Some(Lit::Seq(rows.into_iter().map(Lit::Seq).collect()))
            }
            _ => None,
        }
    }
}

impl Folder<'_, '_> {
    /// Whether `node` is a constant sequence with at least one item: a literal with one that
    /// is not `*spread`, or a name of the module bound to one (`for item in MODELS:` runs).
    pub(super) fn non_empty(&self, node: Node) -> bool {
        self.non_empty_at(node, 0)
    }

    fn non_empty_at(&self, node: Node, depth: usize) -> bool {
        match node.kind() {
            _ if depth > MAX_DEPTH => false,
            "list" | "tuple" | "set" => {
                let mut c = node.walk();
                node.named_children(&mut c)
                    .any(|n| !matches!(n.kind(), "comment" | "list_splat"))
            }
            "identifier" if text(node, self.src) != "__all__" => {
                module_literal(node, self.statements, self.src)
                    .is_some_and(|v| self.non_empty_at(v, depth + 1))
            }
            _ => matches!(self.fold(node), Some(Lit::Seq(items)) if !items.is_empty()),
        }
    }

    /// The names a module-level `for` loop over a constant table binds through `globals()[KEY]
    /// = ...` statements of its body (or `ns[KEY] = ...` where `ns = locals()`), KEY folded for
    /// each row with the loop's variables, with the callee when every write's value is a call
    /// of the same one. `None` when the loop does anything else with the namespace: a write
    /// under a branch, a chained or augmented one, `globals().update(...)`, a key that is not
    /// constant.
    pub(super) fn globals_loop(&self, stmt: Node) -> Option<(Vec<String>, Option<String>)> {
        let src = self.src;
        if stmt.kind() != "for_statement" || stmt.child_by_field_name("alternative").is_some() {
            return None;
        }
        let left = stmt.child_by_field_name("left")?;
        let targets: Vec<&str> = match left.kind() {
            "identifier" => vec![text(left, src)],
            "pattern_list" | "tuple_pattern" => {
                let mut c = left.walk();
                left.named_children(&mut c)
                    .map(|n| (n.kind() == "identifier").then(|| text(n, src)))
                    .collect::<Option<_>>()?
            }
            _ => return None,
        };
        let body = stmt.child_by_field_name("body")?;
        // Other ways to write the namespace are not read (the statement that holds one would
        // otherwise pass as part of a loop read whole).
        let whole = text(body, src);
        if [
            "sys.modules",
            "setattr(",
            "locals()",
            "vars()",
            "globals().",
            "global ",
        ]
        .iter()
        .any(|w| whole.contains(w))
        {
            return None;
        }
        let rows = self.fold(stmt.child_by_field_name("right")?)?.seq()?;
        let mut keys = Vec::new();
        let mut callees = Vec::new();
        let mut c = body.walk();
        for s in body.named_children(&mut c) {
            if s.kind() == "comment" || !self.writes_namespace(s) {
                continue;
            }
            let a = s.named_child(0).filter(|a| a.kind() == "assignment")?;
            let target = a.child_by_field_name("left")?;
            let value = a.child_by_field_name("right")?;
            if value.kind() == "assignment" {
                return None;
            }
            match target.kind() {
                "subscript"
                    if target
                        .child_by_field_name("value")
                        .is_some_and(|v| self.namespaces.iter().any(|n| n == text(v, src))) =>
                {
                    keys.push(target.child_by_field_name("subscript")?);
                    callees.push(super::callee_of(value, src));
                }
                // `globals()[k].attr = v` sets an attribute of a value, not a name.
                "attribute" => {}
                _ => return None,
            }
        }
        let mut names = Vec::new();
        for row in rows {
            let env: Vec<(&str, Lit)> = match targets.as_slice() {
                [one] => vec![(*one, row)],
                many => {
                    let items = row.seq()?;
                    if items.len() != many.len() {
                        return None;
                    }
                    many.iter().copied().zip(items).collect()
                }
            };
            for key in &keys {
                match self.fold_at(*key, 0, &env)? {
                    Lit::Str(name) => names.push(name),
                    Lit::Seq(_) => return None,
                }
            }
        }
        let callee = callees.first().cloned().flatten();
        let callee = callee.filter(|c| callees.iter().all(|x| x.as_ref() == Some(c)));
        Some((names, callee))
    }

    /// Whether `stmt` may write the module's namespace: its text names `globals()`, or it
    /// assigns to an item of an alias of it (`ns[k] = v`, not `ns[k].attr = v`, which sets an
    /// attribute of a value) or calls one of the alias's writing methods.
    pub(super) fn writes_namespace(&self, stmt: Node) -> bool {
        let src = self.src;
        let t = text(stmt, src);
        let item_of = |left: Node, alias: &str| {
            left.kind() == "subscript"
                && left
                    .child_by_field_name("value")
                    .is_some_and(|v| text(v, src) == alias)
        };
        self.namespaces.iter().any(|n| {
            if n == "globals()" {
                return t.contains(n.as_str());
            }
            ["update(", "setdefault(", "pop(", "clear("]
                .iter()
                .any(|m| t.contains(&format!("{n}.{m}")))
                || stmt
                    .named_child(0)
                    .filter(|a| matches!(a.kind(), "assignment" | "augmented_assignment"))
                    .and_then(|a| a.child_by_field_name("left"))
                    .is_some_and(|l| item_of(l, n))
        })
    }

    /// Whether the module names its namespace under another name (`ns = locals()`).
    pub(super) fn has_namespace_alias(&self) -> bool {
        self.namespaces.len() > 1
    }
}

/// Module-level names bound to `globals()`, or to `locals()`, which is the same at module
/// level: `__locals = locals()`.
fn namespace_aliases(statements: &[Node], src: &[u8]) -> Vec<String> {
    statements
        .iter()
        .filter(|s| enclosing_def(**s).is_none())
        .filter_map(|s| s.named_child(0).filter(|a| a.kind() == "assignment"))
        .filter(|a| {
            a.child_by_field_name("right")
                .is_some_and(|r| matches!(text(r, src), "globals()" | "locals()"))
        })
        .filter_map(|a| {
            a.child_by_field_name("left")
                .filter(|l| l.kind() == "identifier")
        })
        .map(|l| text(l, src).to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::Parser;

    fn parse(src: &str) -> tree_sitter::Tree {
        let mut p = Parser::new();
        p.set_language(&super::super::language()).unwrap();
        p.parse(src, None).unwrap()
    }

    /// What the extractor holds of the module before its assignments: definitions and
    /// import bindings.
    fn syntax(root: Node, src: &str) -> ModuleSyntax {
        let mut syntax = ModuleSyntax::default();
        let mut c = root.walk();
        for n in root.named_children(&mut c) {
            match n.kind() {
                "import_statement" | "import_from_statement" => {
                    super::super::import_bindings(n, src.as_bytes(), &mut syntax)
                }
                "function_definition" | "class_definition" => {
                    let name = text(n.child_by_field_name("name").unwrap(), src.as_bytes());
                    syntax.defs.push(super::super::Def::function(name));
                }
                _ => {}
            }
        }
        syntax
    }

    /// The module's statements as the extractor lists them, and its top-level ones.
    fn statements(root: Node) -> Vec<Node> {
        let mut c = root.walk();
        root.named_children(&mut c)
            .flat_map(|n| {
                if n.kind() == "for_statement" {
                    let body = n.child_by_field_name("body").unwrap();
                    let mut c = body.walk();
                    body.named_children(&mut c).collect::<Vec<_>>()
                } else {
                    vec![n]
                }
            })
            .collect()
    }

    fn strs(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn folds_what_astropy_projections_compute() {
        let src = "from itertools import chain, product\n\
                   CODES = [\n    (\"Gnomonic\", \"TAN\"),\n    (\"Airy\", \"AIR\"),\n]\n\
                   __all__ = [\"Projection\"]\n\
                   __all__ += list(map(\"_\".join, product([\"Pix2Sky\", \"Sky2Pix\"], chain(*CODES))))\n\
                   for long_name, short_name in CODES:\n    # short aliases\n    \
                   globals()[\"Pix2Sky_\" + short_name] = globals()[\"Pix2Sky_\" + long_name]\n    \
                   globals()[\"Pix2Sky_\" + long_name]._inv_cls = 1\n";
        let tree = parse(src);
        let root = tree.root_node();
        let stmts = statements(root);
        let folder = Folder::new(&stmts, src.as_bytes(), &syntax(root, src));
        let all = stmts
            .iter()
            .find(|s| text(**s, src.as_bytes()).starts_with("__all__ +="))
            .unwrap();
        let value = all
            .named_child(0)
            .unwrap()
            .child_by_field_name("right")
            .unwrap();
        assert_eq!(
            folder.fold(value).and_then(Lit::strings),
            Some(strs(&[
                "Pix2Sky_Gnomonic",
                "Pix2Sky_TAN",
                "Pix2Sky_Airy",
                "Pix2Sky_AIR",
                "Sky2Pix_Gnomonic",
                "Sky2Pix_TAN",
                "Sky2Pix_Airy",
                "Sky2Pix_AIR",
            ]))
        );
        let mut c = root.walk();
        let for_loop = root
            .named_children(&mut c)
            .find(|n| n.kind() == "for_statement")
            .unwrap();
        assert_eq!(
            folder.globals_loop(for_loop),
            Some((strs(&["Pix2Sky_TAN", "Pix2Sky_AIR"]), None))
        );
    }

    #[test]
    fn a_loop_writing_an_alias_of_locals_binds_its_table_with_the_callee() {
        // openai's `lib/_old_api.py`.
        let src = "SYMBOLS = [\"Edit\", \"Completion\"]\n__locals = locals()\nfor symbol in SYMBOLS:\n    __locals[symbol] = APIRemovedProxy(symbol=symbol)\n";
        let tree = parse(src);
        let root = tree.root_node();
        let mut c = root.walk();
        let stmts: Vec<Node> = root
            .named_children(&mut c)
            .filter(|n| n.kind() == "expression_statement")
            .collect();
        let folder = Folder::new(&stmts, src.as_bytes(), &syntax(root, src));
        assert!(folder.has_namespace_alias());
        let for_loop = root.named_child(2).unwrap();
        assert_eq!(
            folder.globals_loop(for_loop),
            Some((
                strs(&["Edit", "Completion"]),
                Some("APIRemovedProxy".to_string())
            ))
        );
    }

    #[test]
    fn what_is_not_constant_is_not_folded() {
        for (src, why) in [
            // `product` is not itertools' here.
            (
                "def product(*a): ...\nX = list(product(['a'], ['b']))\n",
                "rebound",
            ),
            (
                "from itertools import product\nX = list(product(['a'], ['b'], repeat=2))\n",
                "keyword",
            ),
            ("n = 1\nX = [f'a{n}']\n", "f-string"),
            ("X = [x for x in 'ab']\n", "comprehension"),
            ("X = sorted(load())\n", "a call"),
            ("X = ['a'] + names\n", "an unbound name"),
        ] {
            let tree = parse(src);
            let root = tree.root_node();
            let stmts = statements(root);
            let folder = Folder::new(&stmts, src.as_bytes(), &syntax(root, src));
            let last = stmts.last().unwrap().named_child(0).unwrap();
            let value = last.child_by_field_name("right").unwrap();
            assert_eq!(folder.fold(value), None, "{why}");
        }
        // A loop that writes the namespace otherwise is not read.
        for body in [
            "    if short:\n        globals()[short] = 1\n",
            "    globals().update({short: 1})\n",
            "    globals()[short] = globals()[long] = 1\n",
            "    globals()[load(short)] = 1\n",
            "    globals()[short] = 1\n    setattr(sys.modules[__name__], long, 1)\n",
        ] {
            let src = format!("T = [('a', 'b')]\nfor long, short in T:\n{body}");
            let tree = parse(&src);
            let root = tree.root_node();
            let stmts = statements(root);
            let folder = Folder::new(&stmts, src.as_bytes(), &syntax(root, &src));
            let for_loop = root.named_child(1).unwrap();
            assert_eq!(folder.globals_loop(for_loop), None, "{body}");
        }
    }
}
