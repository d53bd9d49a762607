//! One JavaScript or TypeScript declaration file to plain facts: its declarations, exports,
//! imports and re-exports, without looking at other files.
//!
//! `.d.ts`/`.d.mts`/`.d.cts` files go through tree-sitter-typescript, `.js`/`.mjs`/`.cjs`
//! through tree-sitter-javascript. Both grammars share most node names, so one walker reads
//! both; CommonJS patterns are matched by the query `extractors/javascript/commonjs.scm`.

use std::collections::HashMap;
use std::sync::OnceLock;

use tree_sitter::{Language, Node, Parser, Query, QueryCursor, StreamingIterator};

use crate::extract::requests::{self, CallArg, RequestFact};
use crate::extract::{first_error_line, line_of, text};
use crate::model::{Deprecation, Diagnostic, Param, ParamKind};

pub const COMMONJS_QUERY: &str = include_str!("../../../extractors/javascript/commonjs.scm");
pub const REQUESTS_QUERY: &str = include_str!("../../../extractors/javascript/requests.scm");

pub fn javascript() -> Language {
    tree_sitter_javascript::LANGUAGE.into()
}

pub fn typescript() -> Language {
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
}

fn commonjs_query() -> &'static Query {
    static Q: OnceLock<Query> = OnceLock::new();
    Q.get_or_init(|| {
        // Guarded by a test that compiles it; a failure here is a build defect.
        Query::new(&javascript(), COMMONJS_QUERY)
            .unwrap_or_else(|e| panic!("extractors/javascript/commonjs.scm: {e}"))
    })
}

fn requests_query() -> &'static Query {
    static Q: OnceLock<Query> = OnceLock::new();
    Q.get_or_init(|| {
        // Guarded by a test that compiles it; a failure here is a build defect.
        Query::new(&javascript(), REQUESTS_QUERY)
            .unwrap_or_else(|e| panic!("extractors/javascript/requests.scm: {e}"))
    })
}

/// Whether a path is a TypeScript declaration file.
pub fn is_declaration(path: &str) -> bool {
    path.ends_with(".d.ts") || path.ends_with(".d.mts") || path.ends_with(".d.cts")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclKind {
    Class,
    Function,
    Interface,
    TypeAlias,
    Enum,
    Namespace,
    Variable,
}

/// A parsed JSDoc/TSDoc comment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Doc {
    /// The whole comment (without the `*` margin): the description, a blank line, then every
    /// tag as written (`@param`, `@returns`, `@example`, also `@deprecated`, `@since`), as a
    /// Python docstring keeps its parameter sections; its first paragraph is the description.
    /// `None` when it documents nothing: no description, and no tag with words beyond a type
    /// and a name (`/** @internal */`, `/** @param {string} name */`).
    pub text: Option<String>,
    /// The description alone (the text before the first tag): what a declaration says of
    /// itself, which decides whether another declaration's comment stands in for it.
    pub description: Option<String>,
    pub deprecated: Option<String>,
    pub since: Option<String>,
    /// `@param {type} name description`: name -> (type, optional, description).
    pub params: Vec<(String, Option<String>, bool, Option<String>)>,
    pub returns: Option<String>,
}

impl Doc {
    /// Whether `other` (the comment of another declaration of the same thing: an overload, a
    /// merged interface, the function of an ES5 class) should stand in for this one: this one
    /// has no description, and `other` has one or this one documents nothing at all.
    pub fn stands_in(&self, other: &Doc) -> bool {
        self.description.is_none() && (other.description.is_some() || self.text.is_none())
    }

    pub fn deprecation(&self) -> Option<Deprecation> {
        self.deprecated.as_ref().map(|m| Deprecation {
            since: None,
            message: (!m.is_empty()).then(|| m.clone()),
            replacement: (!m.is_empty())
                .then(|| crate::extract::python::replacement_in(m))
                .flatten(),
            source: "jsdoc".into(),
        })
    }
}

/// One call signature: parameters, their source text and the return type.
#[derive(Debug, Clone, PartialEq)]
pub struct Sig {
    pub params: Vec<Param>,
    /// `a: string, b?: number`, whitespace collapsed.
    pub params_text: String,
    pub returns: Option<String>,
    pub doc: Doc,
    pub line: usize,
    /// HTTP requests the body sends with a literal path (JavaScript files only).
    pub requests: Vec<RequestFact>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    Constructor,
    /// A call signature of an interface (`(value: T): R`): the interface's values are callable.
    Call,
    Method,
    Property,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    pub kind: MemberKind,
    pub is_static: bool,
    pub sigs: Vec<Sig>,
    pub doc: Doc,
    pub line: usize,
    pub type_text: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    pub kind: DeclKind,
    pub line: usize,
    pub doc: Doc,
    /// Functions: one per overload, the implementation last.
    pub sigs: Vec<Sig>,
    pub members: Vec<Member>,
    pub bases: Vec<String>,
    pub type_text: Option<String>,
    pub is_async: bool,
}

impl Decl {
    fn new(kind: DeclKind, line: usize, doc: Doc) -> Self {
        Decl {
            kind,
            line,
            doc,
            sigs: vec![],
            members: vec![],
            bases: vec![],
            type_text: None,
            is_async: false,
        }
    }
}

/// What an export name points at.
#[derive(Debug, Clone, PartialEq)]
pub enum Export {
    /// A name bound in this file (a declaration or an import).
    Local(String),
    /// `export { name as x } from "from"`.
    From { from: String, name: String },
    /// `export * as x from "from"`: a namespace object, not expanded.
    Namespace { from: String },
    /// `exports.x = m.name`: a member of a local (a `require`d module).
    Member { local: String, name: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    pub from: String,
    /// The imported name; `*` for the whole module, `default` for a default import,
    /// `module.exports` for a CommonJS `require`.
    pub name: String,
}

/// The facts of one file.
#[derive(Debug, Clone, Default)]
pub struct ModuleSyntax {
    pub path: String,
    /// Declarations by local name; declaration merging keeps the first value kind.
    pub decls: HashMap<String, Decl>,
    pub exports: Vec<(String, Export)>,
    pub stars: Vec<String>,
    pub imports: HashMap<String, Import>,
    pub diagnostics: Vec<Diagnostic>,
}

impl ModuleSyntax {
    pub fn export(&self, name: &str) -> Option<&Export> {
        self.exports.iter().find(|(n, _)| n == name).map(|(_, e)| e)
    }

    fn set_export(&mut self, name: &str, target: Export) {
        if let Some(slot) = self.exports.iter_mut().find(|(n, _)| n == name) {
            slot.1 = target;
        } else {
            self.exports.push((name.to_string(), target));
        }
    }

    fn add_decl(&mut self, name: &str, decl: Decl) {
        match self.decls.get_mut(name) {
            None => {
                self.decls.insert(name.to_string(), decl);
            }
            Some(old) if old.kind == DeclKind::Namespace && decl.kind != DeclKind::Namespace => {
                *old = decl;
            }
            Some(old) if old.kind == decl.kind => {
                // Overloads and merged interfaces / classes.
                old.sigs.extend(decl.sigs);
                merge_members(&mut old.members, decl.members);
                old.bases.extend(decl.bases);
                if old.doc.stands_in(&decl.doc) {
                    old.doc = decl.doc;
                }
            }
            Some(old)
                if matches!(
                    (old.kind, decl.kind),
                    (DeclKind::Interface, DeclKind::Class) | (DeclKind::Class, DeclKind::Interface)
                ) =>
            {
                // `interface EC2 { describeInstances(..) }` + `class EC2 extends EC2Client {}`
                // (the AWS SDK's aggregated clients): one class with the interface's members,
                // constructed as the class says. The interface's own `extends` are left out,
                // so that a class without `extends` still has the constructor `()`.
                let earlier = std::mem::replace(old, Decl::new(DeclKind::Class, 0, Doc::default()));
                let (mut class, interface) = if earlier.kind == DeclKind::Class {
                    (earlier, decl)
                } else {
                    (decl, earlier)
                };
                merge_members(
                    &mut class.members,
                    interface
                        .members
                        .into_iter()
                        .filter(|m| !matches!(m.kind, MemberKind::Constructor | MemberKind::Call))
                        .collect(),
                );
                if class.doc.stands_in(&interface.doc) {
                    class.doc = interface.doc;
                }
                *old = class;
            }
            Some(_) => {}
        }
    }
}

/// Members of merged declarations: a member both declare is one member with the signatures of
/// both (overloads), as within one body, not two symbols of one name.
fn merge_members(into: &mut Vec<Member>, more: Vec<Member>) {
    for m in more {
        match into
            .iter_mut()
            .find(|o| o.name == m.name && o.is_static == m.is_static)
        {
            Some(old) => old.sigs.extend(m.sigs),
            None => into.push(m),
        }
    }
}

pub fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A string literal's text without its quotes.
pub(crate) fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_string()
}

/// Parses one file.
pub fn parse(path: &str, src: &[u8]) -> ModuleSyntax {
    let declaration = is_declaration(path);
    let mut parser = Parser::new();
    let lang = if declaration {
        typescript()
    } else {
        javascript()
    };
    let mut out = ModuleSyntax {
        path: path.to_string(),
        ..Default::default()
    };
    if parser.set_language(&lang).is_err() {
        return out;
    }
    let masked = if declaration {
        mask_import_types(src)
    } else {
        None
    };
    let Some(tree) = parser.parse(masked.as_deref().unwrap_or(src), None) else {
        out.diagnostics.push(Diagnostic {
            file: path.to_string(),
            line: 1,
            message: "the parser gave up on this file; skipped".into(),
        });
        return out;
    };
    let root = tree.root_node();
    if root.has_error() {
        out.diagnostics.push(Diagnostic {
            file: path.to_string(),
            line: first_error_line(root).unwrap_or(1),
            message: "syntax error; declarations around it may be missing".into(),
        });
    }
    let mut w = Walker {
        src,
        declaration,
        out: &mut out,
    };
    w.statements(root, false);
    if !declaration {
        // Top-level ES5 classes: a function with prototype methods is a class.
        for (name, class) in w.es5_classes(root, None) {
            w.out.decls.insert(name, class);
        }
        w.commonjs(root);
    }
    out
}

/// tree-sitter-typescript 0.23 fails on an import type followed by type arguments
/// (`import("x").C<T>`, its issue #322) or after `keyof` (#352), which tsc emits in every
/// AWS SDK v3 command: the declaration around it was lost. The parser reads a copy in which
/// each `import("x")` is an identifier of the same length (`import_____`), so `import_____.C<T>`
/// parses as a qualified type, and node ranges still point into the original text, from
/// which every name and type is read. `None` when the file has no import type.
fn mask_import_types(src: &[u8]) -> Option<Vec<u8>> {
    let mut hits = memchr::memmem::find_iter(src, b"import(").peekable();
    hits.peek()?;
    let mut out = src.to_vec();
    for at in hits {
        let word_before = at
            .checked_sub(1)
            .is_some_and(|b| src[b].is_ascii_alphanumeric() || b"_$.".contains(&src[b]));
        let open = at + "import".len();
        let Some(&quote) = src.get(open + 1) else {
            continue;
        };
        if word_before || !matches!(quote, b'"' | b'\'') {
            continue;
        }
        let start = open + 2;
        let Some(len) = src[start..]
            .iter()
            .position(|&b| b == quote || b == b'\n' || b == b'\\')
        else {
            continue;
        };
        let close = start + len;
        if src[close] == quote && src.get(close + 1) == Some(&b')') {
            out[open..=close + 1].fill(b'_');
        }
    }
    Some(out)
}

struct Walker<'a, 'o> {
    src: &'a [u8],
    declaration: bool,
    out: &'o mut ModuleSyntax,
}

impl Walker<'_, '_> {
    fn t(&self, n: Node) -> &str {
        text(n, self.src)
    }

    /// The statements of a program (or of a `declare namespace` body when `in_namespace`).
    fn statements(&mut self, parent: Node, in_namespace: bool) {
        let mut c = parent.walk();
        let children: Vec<Node> = parent.named_children(&mut c).collect();
        for st in children {
            match st.kind() {
                "export_statement" => self.export_statement(st),
                "import_statement" => self.import_statement(st),
                "expression_statement" if self.declaration && !in_namespace => {}
                _ => {
                    // In a `.d.ts`, a top-level declaration without `export` is still exported when
                    // the file has no import/export at all (a global script); the resolver only
                    // sees it through `export =` or export lists, as TypeScript does.
                    self.declaration_of(st, st);
                }
            }
        }
    }

    /// Records the declaration `node` (possibly wrapped in `declare`); returns its local names.
    fn declaration_of(&mut self, node: Node, doc_anchor: Node) -> Vec<String> {
        let doc = self.doc_before(doc_anchor);
        match node.kind() {
            "ambient_declaration" => {
                let mut c = node.walk();
                let inner: Vec<Node> = node.named_children(&mut c).collect();
                inner
                    .into_iter()
                    .flat_map(|n| self.declaration_of(n, doc_anchor))
                    .collect()
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                let Some(name) = node.child_by_field_name("name") else {
                    return vec![];
                };
                let name = self.t(name).to_string();
                let decl = self.class_decl(node, doc);
                self.out.add_decl(&name, decl);
                vec![name]
            }
            "function_declaration"
            | "function_signature"
            | "generator_function_declaration"
            | "function_expression"
            | "function" => {
                let Some(name) = node.child_by_field_name("name") else {
                    return vec![];
                };
                let name = self.t(name).to_string();
                let mut decl = Decl::new(DeclKind::Function, line_of(node), doc.clone());
                decl.is_async = self.has_keyword(node, "async");
                decl.sigs.push(self.sig(node, doc));
                self.out.add_decl(&name, decl);
                vec![name]
            }
            "interface_declaration" => {
                let Some(name) = node.child_by_field_name("name") else {
                    return vec![];
                };
                let name = self.t(name).to_string();
                let mut decl = Decl::new(DeclKind::Interface, line_of(node), doc);
                let mut c = node.walk();
                for ch in node.named_children(&mut c) {
                    if ch.kind() == "extends_type_clause" {
                        let mut c2 = ch.walk();
                        for ty in ch.named_children(&mut c2) {
                            decl.bases.push(collapse_ws(self.t(ty)));
                        }
                    }
                }
                if let Some(body) = node.child_by_field_name("body") {
                    decl.members = self.members(body);
                }
                self.out.add_decl(&name, decl);
                vec![name]
            }
            "type_alias_declaration" | "enum_declaration" => {
                let Some(name) = node.child_by_field_name("name") else {
                    return vec![];
                };
                let name = self.t(name).to_string();
                let kind = if node.kind() == "enum_declaration" {
                    DeclKind::Enum
                } else {
                    DeclKind::TypeAlias
                };
                let mut decl = Decl::new(kind, line_of(node), doc.clone());
                let value = node.child_by_field_name("value");
                decl.type_text = value.map(|v| collapse_ws(self.t(v)));
                // `type Decorator = (value: T, context: C) => void`: values of it are callable.
                if let Some(f) = value.filter(|v| v.kind() == "function_type") {
                    decl.sigs.push(self.sig(f, doc));
                }
                self.out.add_decl(&name, decl);
                vec![name]
            }
            "internal_module" | "module" => {
                let Some(name) = node.child_by_field_name("name") else {
                    return vec![];
                };
                let raw = self.t(name);
                if raw.starts_with('"') || raw.starts_with('\'') {
                    // `declare module "x" {}` augments another module: not this file's API.
                    return vec![];
                }
                let name = raw.to_string();
                self.out
                    .add_decl(&name, Decl::new(DeclKind::Namespace, line_of(node), doc));
                vec![name]
            }
            "lexical_declaration" | "variable_declaration" => {
                let mut names = vec![];
                let mut c = node.walk();
                let declarators: Vec<Node> = node
                    .named_children(&mut c)
                    .filter(|n| n.kind() == "variable_declarator")
                    .collect();
                for d in declarators {
                    let Some(name) = d.child_by_field_name("name") else {
                        continue;
                    };
                    if name.kind() != "identifier" {
                        continue;
                    }
                    let name = self.t(name).to_string();
                    let decl = match d.child_by_field_name("value") {
                        Some(v) => self.value_decl(v, doc.clone(), line_of(d)),
                        None => {
                            let ty = d.child_by_field_name("type");
                            // `declare const A: typeof Errors.A` (what tsc writes for
                            // `export const { A } = Errors`) is that value under another
                            // name: bound as `import { A } from './error'` would bind it.
                            if let Some(import) = ty.and_then(|t| self.typeof_import(t)) {
                                self.out.imports.insert(name.clone(), import);
                                names.push(name);
                                continue;
                            }
                            let fn_type = ty
                                .and_then(|t| t.named_child(0))
                                .filter(|t| t.kind() == "function_type");
                            if let Some(f) = fn_type {
                                // `declare const f: (a: string) => void` is called like a function.
                                let mut decl =
                                    Decl::new(DeclKind::Function, line_of(d), doc.clone());
                                decl.sigs.push(self.sig(f, doc.clone()));
                                decl
                            } else {
                                let mut decl =
                                    Decl::new(DeclKind::Variable, line_of(d), doc.clone());
                                decl.type_text = ty.map(|t| type_text(self.t(t)));
                                // `declare const X_base: { new (input: I): X; (a: A): B }`:
                                // its construct and call signatures (tsc writes one such
                                // base for each class built by a mixin or a factory).
                                if let Some(object) = ty
                                    .and_then(|t| t.named_child(0))
                                    .filter(|t| t.kind() == "object_type")
                                {
                                    decl.members = self.members(object);
                                    decl.members.retain(|m| {
                                        matches!(m.kind, MemberKind::Constructor | MemberKind::Call)
                                    });
                                }
                                decl
                            }
                        }
                    };
                    self.out.add_decl(&name, decl);
                    names.push(name);
                }
                names
            }
            _ => vec![],
        }
    }

    /// The import a `typeof A.B` (or `typeof A`) annotation amounts to, when `A` is a
    /// namespace import (`import * as A`) or, alone, any import.
    fn typeof_import(&self, annotation: Node) -> Option<Import> {
        let query = annotation
            .named_child(0)
            .filter(|t| t.kind() == "type_query")?;
        let text = self.t(query).trim().strip_prefix("typeof")?.trim();
        let is_name = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        };
        match text.split_once('.') {
            Some((ns, member)) if is_name(ns) && is_name(member) => {
                let namespace = self.out.imports.get(ns).filter(|i| i.name == "*")?;
                Some(Import {
                    from: namespace.from.clone(),
                    name: member.to_string(),
                })
            }
            None if is_name(text) => self.out.imports.get(text).cloned(),
            _ => None,
        }
    }

    /// A declaration for a value expression bound to a name (`const f = (a) => a`).
    fn value_decl(&mut self, v: Node, doc: Doc, line: usize) -> Decl {
        match v.kind() {
            "arrow_function" | "function_expression" | "function" | "generator_function" => {
                let mut decl = Decl::new(DeclKind::Function, line, doc.clone());
                decl.is_async = self.has_keyword(v, "async");
                decl.sigs.push(self.sig(v, doc));
                decl
            }
            "class" => self.class_decl(v, doc),
            "parenthesized_expression" => match v.named_child(0) {
                Some(inner) => self.value_decl(inner, doc, line),
                None => Decl::new(DeclKind::Variable, line, doc),
            },
            // `/** @class */ (function (_super) { function C(a) {} C.prototype.m = ...; return C; }(Base))`:
            // an ES5 class as TypeScript and Babel emit it.
            "call_expression" => self
                .iife_class(v, doc.clone(), line)
                .unwrap_or_else(|| Decl::new(DeclKind::Variable, line, doc)),
            _ => Decl::new(DeclKind::Variable, line, doc),
        }
    }

    fn iife_class(&mut self, call: Node, doc: Doc, line: usize) -> Option<Decl> {
        let mut callee = call.child_by_field_name("function")?;
        while callee.kind() == "parenthesized_expression" {
            callee = callee.named_child(0)?;
        }
        if !matches!(callee.kind(), "function_expression" | "function") {
            return None;
        }
        let body = callee.child_by_field_name("body")?;
        let mut c = body.walk();
        let returned = body
            .named_children(&mut c)
            .filter(|st| st.kind() == "return_statement")
            .find_map(|st| st.named_child(0).filter(|e| e.kind() == "identifier"))?;
        let name = self.t(returned).to_string();
        let mut classes = self.es5_classes(body, Some(&name));
        let mut decl = classes.remove(&name)?;
        decl.line = line;
        if decl.doc.stands_in(&doc) {
            decl.doc = doc;
        }
        // `(function (_super) { __extends(C, _super); ... }(Base))`
        if let Some(arg) = call
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
            && self.has_extends_call(body)
        {
            decl.bases.push(collapse_ws(self.t(arg)));
        }
        Some(decl)
    }

    fn has_extends_call(&self, body: Node) -> bool {
        let mut c = body.walk();
        body.named_children(&mut c).any(|st| {
            st.kind() == "expression_statement"
                && st
                    .named_child(0)
                    .filter(|e| e.kind() == "call_expression")
                    .and_then(|e| e.child_by_field_name("function"))
                    .is_some_and(|f| self.t(f).ends_with("__extends"))
        })
    }

    /// ES5 classes in a block: `function C(a) {}` with `C.prototype.m = function (b) {}` (and
    /// static `C.s = function () {}`) assignments beside it.
    fn es5_classes(&mut self, block: Node, returned: Option<&str>) -> HashMap<String, Decl> {
        let mut ctors: HashMap<String, Node> = HashMap::new();
        // (class, member name, the assignment statement, the function, static)
        let mut members: Vec<(String, String, Node, Node, bool)> = Vec::new();
        let mut c = block.walk();
        let statements: Vec<Node> = block.named_children(&mut c).collect();
        for st in statements {
            match st.kind() {
                "function_declaration" => {
                    if let Some(n) = st.child_by_field_name("name") {
                        ctors.insert(self.t(n).to_string(), st);
                    }
                }
                "expression_statement" => {
                    let Some(a) = st
                        .named_child(0)
                        .filter(|e| e.kind() == "assignment_expression")
                    else {
                        continue;
                    };
                    let (Some(left), Some(right)) = (
                        a.child_by_field_name("left"),
                        a.child_by_field_name("right"),
                    ) else {
                        continue;
                    };
                    if !matches!(
                        right.kind(),
                        "function_expression" | "function" | "arrow_function"
                    ) || left.kind() != "member_expression"
                    {
                        continue;
                    }
                    let (Some(obj), Some(prop)) = (
                        left.child_by_field_name("object"),
                        left.child_by_field_name("property"),
                    ) else {
                        continue;
                    };
                    let member = self.t(prop).to_string();
                    let owner = self.t(obj);
                    if let Some(cls) = owner.strip_suffix(".prototype") {
                        members.push((cls.to_string(), member, st, right, false));
                    } else if obj.kind() == "identifier" {
                        members.push((owner.to_string(), member, st, right, true));
                    }
                }
                _ => {}
            }
        }
        let mut out: HashMap<String, Decl> = HashMap::new();
        for (cls, ctor) in &ctors {
            let has_proto = members.iter().any(|(c, _, _, _, st)| c == cls && !st);
            let marked = self.doc_text_before(*ctor).contains("@class");
            // A function an IIFE builds and returns is the class it emits.
            if !has_proto && !marked && returned != Some(cls.as_str()) {
                continue;
            }
            let doc = self.doc_before(*ctor);
            let mut decl = Decl::new(DeclKind::Class, line_of(*ctor), doc.clone());
            decl.members.push(Member {
                name: "constructor".into(),
                kind: MemberKind::Constructor,
                is_static: false,
                sigs: vec![self.sig(*ctor, doc.clone())],
                doc,
                line: line_of(*ctor),
                type_text: None,
            });
            for (c2, name, st, func, is_static) in &members {
                if c2 != cls {
                    continue;
                }
                let name = name.clone();
                if name.starts_with('_') || decl.members.iter().any(|m| m.name == name) {
                    continue;
                }
                let mdoc = self.doc_before(*st);
                decl.members.push(Member {
                    name,
                    kind: MemberKind::Method,
                    is_static: *is_static,
                    sigs: vec![self.sig(*func, mdoc.clone())],
                    doc: mdoc,
                    line: line_of(*st),
                    type_text: None,
                });
            }
            out.insert(cls.clone(), decl);
        }
        out
    }

    fn doc_text_before(&self, node: Node) -> String {
        match node.prev_sibling() {
            Some(p) if p.kind() == "comment" => self.t(p).to_string(),
            _ => String::new(),
        }
    }

    fn class_decl(&mut self, node: Node, doc: Doc) -> Decl {
        let mut decl = Decl::new(DeclKind::Class, line_of(node), doc);
        let mut c = node.walk();
        for ch in node.named_children(&mut c) {
            if ch.kind() == "class_heritage" {
                let mut c2 = ch.walk();
                for clause in ch.named_children(&mut c2) {
                    match clause.kind() {
                        "extends_clause" => {
                            if let Some(v) = clause.child_by_field_name("value") {
                                decl.bases.push(collapse_ws(self.t(v)));
                            }
                        }
                        "implements_clause" => {}
                        // The JavaScript grammar puts the expression right under the heritage.
                        _ => decl.bases.push(collapse_ws(self.t(clause))),
                    }
                }
            }
        }
        if let Some(body) = node.child_by_field_name("body") {
            decl.members = self.members(body);
        }
        decl
    }

    fn has_keyword(&self, node: Node, kw: &str) -> bool {
        let mut c = node.walk();
        node.children(&mut c)
            .take_while(|ch| ch.kind() != "formal_parameters" && ch.kind() != "statement_block")
            .any(|ch| !ch.is_named() && ch.kind() == kw)
    }

    /// Public members of a class or interface body: private, protected, `#x` and `_x` left out.
    fn members(&mut self, body: Node) -> Vec<Member> {
        let mut out: Vec<Member> = Vec::new();
        let mut c = body.walk();
        let items: Vec<Node> = body.named_children(&mut c).collect();
        for m in items {
            let kind = match m.kind() {
                "method_signature" | "method_definition" | "abstract_method_signature" => {
                    MemberKind::Method
                }
                "public_field_definition" | "field_definition" | "property_signature" => {
                    MemberKind::Property
                }
                "construct_signature" => MemberKind::Constructor,
                "call_signature" => MemberKind::Call,
                _ => continue,
            };
            let name_node = m
                .child_by_field_name("name")
                .or_else(|| m.child_by_field_name("property"));
            let name = match (kind, name_node) {
                (MemberKind::Constructor, _) => "constructor".to_string(),
                (MemberKind::Call, _) => "()".to_string(),
                (_, Some(n)) if n.kind() == "private_property_identifier" => continue,
                (_, Some(n)) if n.kind() == "computed_property_name" => continue,
                (_, Some(n)) => unquote(self.t(n)),
                (_, None) => continue,
            };
            let mut c2 = m.walk();
            let hidden = m.children(&mut c2).any(|ch| {
                ch.kind() == "accessibility_modifier" && {
                    let t = self.t(ch);
                    t == "private" || t == "protected"
                }
            });
            if hidden || name.starts_with('_') {
                continue;
            }
            let is_static = self.has_keyword(m, "static");
            let accessor = self.has_keyword(m, "get") || self.has_keyword(m, "set");
            let kind = match kind {
                MemberKind::Method if name == "constructor" => MemberKind::Constructor,
                MemberKind::Method if accessor => MemberKind::Property,
                k => k,
            };
            let doc = self.doc_before(m);
            let line = line_of(m);
            let sigs = if matches!(
                kind,
                MemberKind::Method | MemberKind::Constructor | MemberKind::Call
            ) {
                vec![self.sig(m, doc.clone())]
            } else {
                vec![]
            };
            let type_text = m
                .child_by_field_name("type")
                .or_else(|| m.child_by_field_name("return_type"))
                .map(|t| type_text(self.t(t)));
            if let Some(old) = out
                .iter_mut()
                .find(|o| o.name == name && o.is_static == is_static)
            {
                old.sigs.extend(sigs);
                continue;
            }
            out.push(Member {
                name,
                kind,
                is_static,
                sigs,
                doc,
                line,
                type_text,
            });
        }
        out
    }

    /// The signature of a function-like node.
    fn sig(&self, node: Node, doc: Doc) -> Sig {
        let mut params = Vec::new();
        let mut texts = Vec::new();
        if let Some(ps) = node.child_by_field_name("parameters") {
            let mut c = ps.walk();
            for p in ps.named_children(&mut c) {
                if p.kind() == "comment" {
                    continue;
                }
                if let Some(param) = self.param(p, &doc) {
                    texts.push(collapse_ws(self.t(p)));
                    params.push(param);
                }
            }
        } else if let Some(p) = node.child_by_field_name("parameter") {
            // `x => ...`
            texts.push(self.t(p).to_string());
            params.push(Param {
                name: self.t(p).to_string(),
                kind: ParamKind::Positional,
                ..Default::default()
            });
        }
        let returns = node
            .child_by_field_name("return_type")
            .or_else(|| {
                (node.kind() == "construct_signature")
                    .then(|| node.child_by_field_name("type"))
                    .flatten()
            })
            .map(|t| type_text(self.t(t)))
            .or_else(|| doc.returns.clone());
        let requests = match node.child_by_field_name("body") {
            Some(body) if !self.declaration => self.body_requests(body),
            _ => vec![],
        };
        Sig {
            params,
            params_text: texts.join(", "),
            returns,
            doc,
            line: line_of(node),
            requests,
        }
    }

    /// The HTTP requests a function body sends with a literal path.
    fn body_requests(&self, body: Node) -> Vec<RequestFact> {
        if !requests::may_hold_path(&self.src[body.byte_range()]) {
            return vec![];
        }
        let query = requests_query();
        let names = query.capture_names();
        let mut qc = QueryCursor::new();
        let mut matches = qc.matches(query, body, self.src);
        let mut out = Vec::new();
        while let Some(m) = matches.next() {
            let (mut call, mut callee, mut arguments) = (None, None, None);
            for c in m.captures() {
                match names[c.index as usize] {
                    "call" => call = Some(c.node),
                    "callee" => callee = Some(self.t(c.node)),
                    "arguments" => arguments = Some(c.node),
                    _ => {}
                }
            }
            let (Some(call), Some(callee), Some(arguments)) = (call, callee, arguments) else {
                continue;
            };
            let mut args = Vec::new();
            let mut cursor = arguments.walk();
            for a in arguments.named_children(&mut cursor) {
                match a.kind() {
                    "comment" => {}
                    // `request({ method: 'POST', path: '/v1/x' })`: the pairs are keywords.
                    "object" => {
                        let mut c2 = a.walk();
                        for pair in a.named_children(&mut c2).filter(|p| p.kind() == "pair") {
                            args.push(CallArg {
                                keyword: pair
                                    .child_by_field_name("key")
                                    .map(|k| unquote(self.t(k))),
                                text: pair
                                    .child_by_field_name("value")
                                    .and_then(|v| self.string_template(v)),
                            });
                        }
                    }
                    _ => args.push(CallArg {
                        keyword: None,
                        text: self.string_template(a),
                    }),
                }
            }
            if let Some((method, path)) = requests::request_of(callee, &args) {
                out.push(RequestFact {
                    method,
                    path,
                    line: line_of(call),
                    evidence: crate::extract::clip_evidence(collapse_ws(self.t(call))),
                });
            }
        }
        out
    }

    /// A string or template literal's text (`${x}` kept for the path rules), or `'...' + x`
    /// with the rest a parameter. `None` for anything else.
    fn string_template(&self, node: Node) -> Option<String> {
        match node.kind() {
            "string" | "template_string" => {
                let t = self.t(node);
                (t.len() >= 2).then(|| t[1..t.len() - 1].to_string())
            }
            "binary_expression" => {
                let op = node.child_by_field_name("operator").map(|o| self.t(o));
                let left = self.string_template(node.child_by_field_name("left")?)?;
                (op == Some("+")).then(|| format!("{left}{{}}"))
            }
            "parenthesized_expression" => self.string_template(node.named_child(0)?),
            _ => None,
        }
    }

    /// One formal parameter, or `None` for TypeScript's `this` parameter.
    fn param(&self, p: Node, doc: &Doc) -> Option<Param> {
        let mut param = Param {
            kind: ParamKind::Positional,
            ..Default::default()
        };
        let pattern = match p.kind() {
            "required_parameter" | "optional_parameter" => {
                param.optional = p.kind() == "optional_parameter";
                param.annotation = p.child_by_field_name("type").map(|t| type_text(self.t(t)));
                param.default = p
                    .child_by_field_name("value")
                    .map(|v| self.t(v).to_string());
                p.child_by_field_name("pattern")
                    .or_else(|| p.child_by_field_name("name"))?
            }
            "assignment_pattern" => {
                param.default = p
                    .child_by_field_name("right")
                    .map(|v| self.t(v).to_string());
                p.child_by_field_name("left")?
            }
            _ => p,
        };
        let pattern = if pattern.kind() == "rest_pattern" {
            param.kind = ParamKind::Rest;
            pattern.named_child(0).unwrap_or(pattern)
        } else {
            pattern
        };
        if pattern.kind() == "this" {
            return None;
        }
        param.name = collapse_ws(self.t(pattern));
        // JSDoc fills in what plain JavaScript cannot say.
        if let Some((_, ty, optional, desc)) = doc.params.iter().find(|(n, ..)| *n == param.name) {
            if param.annotation.is_none() {
                param.annotation = ty.clone();
            }
            if !self.declaration && *optional {
                param.optional = true;
            }
            param.description = desc.clone();
        }
        Some(param)
    }

    fn export_statement(&mut self, st: Node) {
        let mut c = st.walk();
        let children: Vec<Node> = st.children(&mut c).collect();
        let is_default = children.iter().any(|n| n.kind() == "default");
        let source = st.child_by_field_name("source").map(|s| unquote(self.t(s)));
        if let Some(decl) = st.child_by_field_name("declaration") {
            if decl.kind() == "import_alias" {
                self.exported_import_alias(decl);
                return;
            }
            let names = self.declaration_of(decl, st);
            for n in names {
                if is_default {
                    self.out.set_export("default", Export::Local(n.clone()));
                } else {
                    self.out.set_export(&n, Export::Local(n.clone()));
                }
            }
            return;
        }
        if let Some(value) = st.child_by_field_name("value") {
            // `export default <expression>`
            self.default_value(value, st);
            return;
        }
        if children.iter().any(|n| n.kind() == "=") {
            // `export = X;`
            if let Some(e) = children
                .iter()
                .find(|n| n.is_named() && n.kind() != "comment")
            {
                self.default_value(*e, st);
            }
            return;
        }
        if let Some(ns) = children.iter().find(|n| n.kind() == "namespace_export") {
            if let (Some(name), Some(from)) = (ns.named_child(0), source.clone()) {
                self.out
                    .set_export(&unquote(self.t(name)), Export::Namespace { from });
            }
            return;
        }
        if let Some(clause) = children.iter().find(|n| n.kind() == "export_clause") {
            let mut c2 = clause.walk();
            for spec in clause.named_children(&mut c2) {
                if spec.kind() != "export_specifier" {
                    continue;
                }
                let Some(name) = spec.child_by_field_name("name") else {
                    continue;
                };
                let local = unquote(self.t(name));
                let exported = spec
                    .child_by_field_name("alias")
                    .map(|a| unquote(self.t(a)))
                    .unwrap_or_else(|| local.clone());
                let target = match &source {
                    Some(from) => Export::From {
                        from: from.clone(),
                        name: local,
                    },
                    None => Export::Local(local),
                };
                self.out.set_export(&exported, target);
            }
            return;
        }
        if children.iter().any(|n| n.kind() == "*")
            && let Some(from) = source
        {
            self.out.stars.push(from);
        }
    }

    /// `export import X = A.B;` (TypeScript): `X` exports what `A.B` names, `A` being a
    /// namespace import (`import * as A`, or a `require`; a local `namespace A` is not
    /// followed); `export import X = Y;` exports `Y`.
    fn exported_import_alias(&mut self, decl: Node) {
        let mut c = decl.walk();
        let named: Vec<Node> = decl
            .named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .collect();
        let [name, value] = named[..] else {
            return;
        };
        let target = match value.kind() {
            "identifier" => Export::Local(self.t(value).to_string()),
            "nested_identifier" => match self.t(value).split_once('.') {
                Some((local, member)) if !member.contains('.') => Export::Member {
                    local: local.trim().to_string(),
                    name: member.trim().to_string(),
                },
                _ => return,
            },
            _ => return,
        };
        let name = self.t(name).to_string();
        self.out.set_export(&name, target);
    }

    /// `export default X`, `export = X`, `module.exports = X`.
    fn default_value(&mut self, value: Node, anchor: Node) {
        match value.kind() {
            "identifier" => self
                .out
                .set_export("default", Export::Local(self.t(value).to_string())),
            "member_expression" => {
                if let (Some(o), Some(p)) = (
                    value.child_by_field_name("object"),
                    value.child_by_field_name("property"),
                ) && o.kind() == "identifier"
                {
                    self.out.set_export(
                        "default",
                        Export::Member {
                            local: self.t(o).to_string(),
                            name: self.t(p).to_string(),
                        },
                    );
                }
            }
            _ => {
                let doc = self.doc_before(anchor);
                let decl = self.value_decl(value, doc, line_of(value));
                if decl.kind == DeclKind::Variable {
                    return;
                }
                // A named function or class expression keeps its own name as the local.
                let local = value
                    .child_by_field_name("name")
                    .map(|n| self.t(n).to_string())
                    .unwrap_or_else(|| "default".to_string());
                self.out.add_decl(&local, decl);
                self.out.set_export("default", Export::Local(local));
            }
        }
    }

    fn import_statement(&mut self, st: Node) {
        let Some(source) = st.child_by_field_name("source") else {
            return;
        };
        let from = unquote(self.t(source));
        let mut c = st.walk();
        let children: Vec<Node> = st.named_children(&mut c).collect();
        for ch in children {
            match ch.kind() {
                "import_clause" => {
                    let mut c2 = ch.walk();
                    for part in ch.named_children(&mut c2) {
                        match part.kind() {
                            "identifier" => {
                                self.import(self.t(part).to_string(), &from, "default");
                            }
                            "namespace_import" => {
                                if let Some(id) = part.named_child(0) {
                                    self.import(self.t(id).to_string(), &from, "*");
                                }
                            }
                            "named_imports" => {
                                let mut c3 = part.walk();
                                for spec in part.named_children(&mut c3) {
                                    let Some(name) = spec.child_by_field_name("name") else {
                                        continue;
                                    };
                                    let name = unquote(self.t(name));
                                    let local = spec
                                        .child_by_field_name("alias")
                                        .map(|a| self.t(a).to_string())
                                        .unwrap_or_else(|| name.clone());
                                    self.import(local, &from, &name);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "import_require_clause" => {
                    if let Some(id) = ch.named_child(0) {
                        self.import(self.t(id).to_string(), &from, "*");
                    }
                }
                _ => {}
            }
        }
    }

    fn import(&mut self, local: String, from: &str, name: &str) {
        self.out.imports.insert(
            local,
            Import {
                from: from.to_string(),
                name: name.to_string(),
            },
        );
    }

    /// CommonJS exports of a JavaScript file, outside function bodies.
    fn commonjs(&mut self, root: Node) {
        let query = commonjs_query();
        let names = query.capture_names();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(query, root, self.src);
        let mut found: Vec<(Node, HashMap<&str, Node>)> = Vec::new();
        while let Some(m) = matches.next() {
            let caps: HashMap<&str, Node> = m
                .captures()
                .iter()
                .map(|c| (names[c.index as usize], c.node))
                .collect();
            let anchor = m.captures().first().map(|c| c.node).unwrap_or(root);
            if inside_function(anchor) {
                continue;
            }
            found.push((anchor, caps));
        }
        // Imports first, so exports of required modules resolve whatever their order.
        for (_, caps) in &found {
            if let (Some(l), Some(f)) = (caps.get("require_local"), caps.get("require_from")) {
                let from = self.t(*f).to_string();
                // `__importDefault(require(x))` is an object whose `default` is the module.
                let wrapped = l
                    .parent()
                    .and_then(|d| d.child_by_field_name("value"))
                    .and_then(|v| v.child_by_field_name("function"))
                    .is_some_and(|f| self.t(f).ends_with("__importDefault"));
                // A plain `require` binds the module's `module.exports` (its default export
                // when that is a function or class, else the object of its named exports).
                let what = if wrapped { "*" } else { "module.exports" };
                self.import(self.t(*l).to_string(), &from, what);
            }
            if let (Some(p), Some(f)) = (
                caps.get("require_pattern"),
                caps.get("require_pattern_from"),
            ) {
                let from = self.t(*f).to_string();
                let mut c = p.walk();
                for prop in p.named_children(&mut c) {
                    match prop.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let n = self.t(prop).to_string();
                            self.import(n.clone(), &from, &n);
                        }
                        "pair_pattern" => {
                            if let (Some(k), Some(v)) = (
                                prop.child_by_field_name("key"),
                                prop.child_by_field_name("value"),
                            ) {
                                let key = self.t(k).to_string();
                                self.import(self.t(v).to_string(), &from, &key);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        for (anchor, caps) in &found {
            if let Some(v) = caps.get("module_exports") {
                self.module_exports(*v, *anchor);
            } else if let (Some(n), Some(v)) = (caps.get("export_name"), caps.get("export_value")) {
                let name = self.t(*n).to_string();
                self.export_value(&name, *v, *anchor);
            } else if let (Some(n), Some(d)) =
                (caps.get("define_name"), caps.get("define_descriptor"))
            {
                let name = self.t(*n).to_string();
                if name == "__esModule" {
                    continue;
                }
                if let Some(target) = self.getter_target(*d) {
                    self.out.set_export(&name, target);
                }
            } else if let Some(f) = caps.get("star_from") {
                let from = self.t(*f).to_string();
                if !self.out.stars.contains(&from) {
                    self.out.stars.push(from);
                }
            }
        }
    }

    fn module_exports(&mut self, value: Node, anchor: Node) {
        match value.kind() {
            // `exports = module.exports = X`
            "assignment_expression" => {
                if let Some(r) = value.child_by_field_name("right") {
                    self.module_exports(r, anchor);
                }
            }
            "object" => {
                let mut c = value.walk();
                let props: Vec<Node> = value.named_children(&mut c).collect();
                for p in props {
                    match p.kind() {
                        "shorthand_property_identifier" => {
                            let n = self.t(p).to_string();
                            self.out.set_export(&n, Export::Local(n.clone()));
                        }
                        "pair" => {
                            if let (Some(k), Some(v)) =
                                (p.child_by_field_name("key"), p.child_by_field_name("value"))
                            {
                                let name = unquote(self.t(k));
                                self.export_value(&name, v, p);
                            }
                        }
                        "method_definition" => {
                            if let Some(k) = p.child_by_field_name("name") {
                                let name = unquote(self.t(k));
                                let doc = self.doc_before(p);
                                let mut decl =
                                    Decl::new(DeclKind::Function, line_of(p), doc.clone());
                                decl.sigs.push(self.sig(p, doc));
                                let local = format!("module.exports.{name}");
                                self.out.add_decl(&local, decl);
                                self.out.set_export(&name, Export::Local(local));
                            }
                        }
                        _ => {}
                    }
                }
            }
            "call_expression" if self.require_of(value).is_some() => {
                let from = self.require_of(value).unwrap_or_default();
                self.out.stars.push(from.clone());
                self.out.set_export(
                    "default",
                    Export::From {
                        from,
                        name: "default".into(),
                    },
                );
            }
            _ => self.default_value(value, anchor_statement(anchor)),
        }
    }

    /// `exports.name = value`.
    fn export_value(&mut self, name: &str, value: Node, anchor: Node) {
        match value.kind() {
            "identifier" => {
                let v = self.t(value).to_string();
                if v != "undefined" {
                    self.out.set_export(name, Export::Local(v));
                }
            }
            // `exports.x = void 0;` is TypeScript's forward declaration.
            "unary_expression" => {}
            "member_expression" => {
                if let (Some(o), Some(p)) = (
                    value.child_by_field_name("object"),
                    value.child_by_field_name("property"),
                ) {
                    if o.kind() == "identifier" {
                        self.out.set_export(
                            name,
                            Export::Member {
                                local: self.t(o).to_string(),
                                name: self.t(p).to_string(),
                            },
                        );
                    } else if let Some(from) = self.require_of(o) {
                        self.out.set_export(
                            name,
                            Export::From {
                                from,
                                name: self.t(p).to_string(),
                            },
                        );
                    }
                }
            }
            // `require(x)` is x's `module.exports`: its default export when it has one.
            "call_expression" if self.require_of(value).is_some() => {
                let from = self.require_of(value).unwrap_or_default();
                self.out.set_export(
                    name,
                    Export::From {
                        from,
                        name: "default".into(),
                    },
                );
            }
            "assignment_expression" => {
                // `exports.a = exports.b = value`
                if let Some(r) = value.child_by_field_name("right") {
                    self.export_value(name, r, anchor);
                }
            }
            _ => {
                let doc = self.doc_before(anchor_statement(anchor));
                let decl = self.value_decl(value, doc, line_of(value));
                let local = format!("exports.{name}");
                self.out.add_decl(&local, decl);
                self.out.set_export(name, Export::Local(local));
            }
        }
    }

    /// `require("x")` -> `x`.
    fn require_of(&self, call: Node) -> Option<String> {
        if call.kind() != "call_expression" {
            return None;
        }
        let f = call.child_by_field_name("function")?;
        if self.t(f) != "require" {
            return None;
        }
        let arg = call.child_by_field_name("arguments")?.named_child(0)?;
        (arg.kind() == "string").then(|| unquote(self.t(arg)))
    }

    /// `{ get: function () { return m.name; } }` -> `m.name`.
    fn getter_target(&self, descriptor: Node) -> Option<Export> {
        let mut c = descriptor.walk();
        let props: Vec<Node> = descriptor.named_children(&mut c).collect();
        for p in props {
            let (key, body) = match p.kind() {
                "pair" => (
                    p.child_by_field_name("key"),
                    p.child_by_field_name("value")
                        .and_then(|v| v.child_by_field_name("body")),
                ),
                "method_definition" => {
                    (p.child_by_field_name("name"), p.child_by_field_name("body"))
                }
                _ => continue,
            };
            let (Some(key), Some(body)) = (key, body) else {
                continue;
            };
            if self.t(key) != "get" {
                continue;
            }
            let expr = if body.kind() == "statement_block" {
                let ret = body.named_child(0)?;
                if ret.kind() != "return_statement" {
                    return None;
                }
                ret.named_child(0)?
            } else {
                body
            };
            return match expr.kind() {
                "member_expression" => {
                    let o = expr.child_by_field_name("object")?;
                    let n = self.t(expr.child_by_field_name("property")?).to_string();
                    if o.kind() == "identifier" {
                        Some(Export::Member {
                            local: self.t(o).to_string(),
                            name: n,
                        })
                    } else {
                        self.require_of(o)
                            .map(|from| Export::From { from, name: n })
                    }
                }
                "identifier" => Some(Export::Local(self.t(expr).to_string())),
                _ => None,
            };
        }
        None
    }

    /// The JSDoc block right before `node` (or before the statement that wraps it).
    fn doc_before(&self, node: Node) -> Doc {
        let mut n = node;
        while let Some(p) = n.parent() {
            if matches!(p.kind(), "export_statement" | "ambient_declaration")
                && p.start_byte() < n.start_byte()
            {
                n = p;
            } else {
                break;
            }
        }
        let Some(prev) = n.prev_sibling() else {
            return Doc::default();
        };
        if prev.kind() != "comment" {
            return Doc::default();
        }
        let t = self.t(prev);
        if !t.starts_with("/**") || prev.end_position().row + 1 < n.start_position().row {
            return Doc::default();
        }
        parse_jsdoc(t)
    }
}

/// The statement an expression belongs to (for its doc comment).
fn anchor_statement(node: Node) -> Node {
    let mut n = node;
    while let Some(p) = n.parent() {
        if p.kind() == "program" || p.kind() == "statement_block" {
            break;
        }
        n = p;
    }
    n
}

fn inside_function(node: Node) -> bool {
    let mut n = node.parent();
    while let Some(p) = n {
        match p.kind() {
            "function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "method_definition"
            | "generator_function_declaration"
            | "class_body" => {
                // A UMD or bundler wrapper `(function (exports) { ... })(...)` still exports:
                // a function that is called right away counts as the top level.
                let called = p
                    .parent()
                    .and_then(|q| {
                        if q.kind() == "parenthesized_expression" {
                            q.parent()
                        } else {
                            Some(q)
                        }
                    })
                    .is_some_and(|q| q.kind() == "call_expression");
                if !called {
                    return true;
                }
            }
            _ => {}
        }
        n = p.parent();
    }
    false
}

/// `: string` -> `string`.
fn type_text(annotation: &str) -> String {
    collapse_ws(annotation.trim_start().trim_start_matches(':').trim())
}

/// Tags that say how to use a symbol: with words after them, they make a comment worth keeping
/// even without a description.
const DOCUMENTING_TAGS: &[&str] = &[
    "@param",
    "@arg",
    "@argument",
    "@returns",
    "@return",
    "@example",
    "@throws",
    "@remarks",
    "@see",
    "@default",
    "@defaultValue",
    "@typeParam",
    "@template",
];

/// Parses `/** ... */`: the text, `@param`, `@returns`, `@deprecated`, `@since`.
pub fn parse_jsdoc(comment: &str) -> Doc {
    let body = comment
        .trim_start_matches("/**")
        .trim_end_matches("*/")
        .lines()
        .map(|l| {
            let l = l.trim();
            l.strip_prefix('*')
                .map(|r| r.strip_prefix(' ').unwrap_or(r))
                .unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut doc = Doc::default();
    let mut blocks: Vec<String> = Vec::new();
    let mut description = String::new();
    for line in body.lines() {
        if line.trim_start().starts_with('@') {
            blocks.push(line.trim_start().to_string());
        } else if let Some(last) = blocks.last_mut() {
            last.push('\n');
            last.push_str(line);
        } else {
            description.push_str(line);
            description.push('\n');
        }
    }
    let description = description.trim();
    if !description.is_empty() {
        doc.description = Some(description.to_string());
    }
    // Each tag once: what it says, and whether it has words beyond `{type}` (and, for a
    // parameter, its name), which make a comment worth keeping without a description.
    let mut documents_use = false;
    for b in &blocks {
        let (tag, rest) = b.split_once(char::is_whitespace).unwrap_or((b, ""));
        let rest = rest.trim();
        let (ty, after_type) = braced(rest);
        let mut words = after_type;
        match tag {
            "@deprecated" => doc.deprecated = Some(collapse_ws(rest)),
            "@since" => doc.since = Some(collapse_ws(rest)),
            "@returns" | "@return" => doc.returns = ty,
            "@typeParam" | "@template" => {
                words = after_type
                    .split_once(char::is_whitespace)
                    .map_or("", |x| x.1);
            }
            "@param" | "@arg" | "@argument" => {
                let (name, desc) = after_type
                    .split_once(char::is_whitespace)
                    .unwrap_or((after_type, ""));
                words = desc;
                let mut optional = ty.as_deref().is_some_and(|t| t.ends_with('='));
                let name = if let Some(inner) = name.strip_prefix('[') {
                    optional = true;
                    inner
                        .trim_end_matches(']')
                        .split('=')
                        .next()
                        .unwrap_or("")
                        .to_string()
                } else {
                    name.to_string()
                };
                let desc = collapse_ws(desc.trim_start_matches('-'));
                doc.params.push((
                    name,
                    ty.map(|t| t.trim_end_matches('=').to_string()),
                    optional,
                    (!desc.is_empty()).then_some(desc),
                ));
            }
            _ => {}
        }
        documents_use |= DOCUMENTING_TAGS.contains(&tag)
            && !words.trim_start_matches([' ', '-']).trim().is_empty();
    }
    if !description.is_empty() || documents_use {
        let tags: Vec<&str> = blocks.iter().map(|b| b.trim_end()).collect();
        doc.text = Some(
            [description, &tags.join("\n")]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n"),
        );
    }
    doc
}

/// `{type} rest` -> (Some(type), rest), braces balanced.
fn braced(s: &str) -> (Option<String>, &str) {
    if !s.starts_with('{') {
        return (None, s);
    }
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return (Some(collapse_ws(&s[1..i])), s[i + 1..].trim_start());
                }
            }
            _ => {}
        }
    }
    (None, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commonjs_query_compiles() {
        let q = commonjs_query();
        assert!(q.pattern_count() >= 6);
        assert_eq!(requests_query().pattern_count(), 1);
    }

    #[test]
    fn declarations_exports_and_params() {
        let src = br#"
import { Base } from './base';
/** Makes things.
 * @deprecated use make2 instead
 */
export declare function make(name: string, opts?: Options, ...rest: any[]): Thing;
export declare function make(this: Window, n: number): Thing;
export declare class Command extends Base {
    private secret;
    protected hidden(): void;
    constructor(name?: string);
    /** Adds an option. */
    option(flags: string, description?: string): this;
    static create(): Command;
    get name(): string;
}
export interface Options { verbose?: boolean; run(x: number): void; }
export { Base as Parent } from './base';
export * from './more';
export = Command;
"#;
        let m = parse("index.d.ts", src);
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        let make = &m.decls["make"];
        assert_eq!(make.kind, DeclKind::Function);
        assert_eq!(make.sigs.len(), 2);
        let ps = &make.sigs[0].params;
        assert_eq!(
            ps.iter()
                .map(|p| (p.name.as_str(), p.kind, p.required()))
                .collect::<Vec<_>>(),
            vec![
                ("name", ParamKind::Positional, true),
                ("opts", ParamKind::Positional, false),
                ("rest", ParamKind::Rest, false)
            ]
        );
        assert_eq!(
            make.sigs[0].params_text,
            "name: string, opts?: Options, ...rest: any[]"
        );
        assert_eq!(make.sigs[0].returns.as_deref(), Some("Thing"));
        // `this` is not a parameter.
        assert_eq!(make.sigs[1].params.len(), 1);
        assert_eq!(make.doc.deprecated.as_deref(), Some("use make2 instead"));
        let cmd = &m.decls["Command"];
        assert_eq!(cmd.bases, vec!["Base"]);
        let members: Vec<(&str, MemberKind, bool)> = cmd
            .members
            .iter()
            .map(|m| (m.name.as_str(), m.kind, m.is_static))
            .collect();
        assert_eq!(
            members,
            vec![
                ("constructor", MemberKind::Constructor, false),
                ("option", MemberKind::Method, false),
                ("create", MemberKind::Method, true),
                ("name", MemberKind::Property, false),
            ]
        );
        assert_eq!(cmd.members[1].doc.text.as_deref(), Some("Adds an option."));
        assert_eq!(m.decls["Options"].members.len(), 2);
        assert_eq!(m.export("make"), Some(&Export::Local("make".into())));
        assert_eq!(
            m.export("Parent"),
            Some(&Export::From {
                from: "./base".into(),
                name: "Base".into()
            })
        );
        assert_eq!(m.export("default"), Some(&Export::Local("Command".into())));
        assert_eq!(m.stars, vec!["./more"]);
        assert_eq!(
            m.imports["Base"],
            Import {
                from: "./base".into(),
                name: "Base".into()
            }
        );
    }

    #[test]
    fn commonjs_as_written_and_as_compiled() {
        let src = br#"
"use strict";
var __createBinding = function () {};
Object.defineProperty(exports, "__esModule", { value: true });
exports.helper = exports.Client = void 0;
const tslib_1 = require("tslib");
const client_1 = require("./client");
Object.defineProperty(exports, "Client", { enumerable: true, get: function () { return client_1.Client; } });
tslib_1.__exportStar(require("./types"), exports);
/**
 * Helps.
 * @param {string} a the first
 * @param {number} [b] optional
 */
function helper(a, b = 2, ...more) { function inner() { exports.nope = 1; } }
exports.helper = helper;
exports.arrow = (x, { y, z }) => x;
module.exports.Thing = class Thing { constructor(a) {} run(b) {} #secret() {} };
"#;
        let m = parse("index.js", src);
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        assert_eq!(
            m.export("Client"),
            Some(&Export::Member {
                local: "client_1".into(),
                name: "Client".into()
            })
        );
        assert_eq!(m.imports["client_1"].from, "./client");
        assert_eq!(m.imports["client_1"].name, "module.exports");
        assert_eq!(m.stars, vec!["./types"]);
        assert_eq!(m.export("helper"), Some(&Export::Local("helper".into())));
        assert!(
            m.export("nope").is_none(),
            "assignments inside functions do not export"
        );
        let h = &m.decls["helper"].sigs[0];
        assert_eq!(
            h.params
                .iter()
                .map(|p| (
                    p.name.as_str(),
                    p.kind,
                    p.required(),
                    p.annotation.as_deref()
                ))
                .collect::<Vec<_>>(),
            vec![
                ("a", ParamKind::Positional, true, Some("string")),
                ("b", ParamKind::Positional, false, Some("number")),
                ("more", ParamKind::Rest, false, None)
            ]
        );
        let arrow = &m.decls["exports.arrow"].sigs[0];
        assert_eq!(arrow.params[1].name, "{ y, z }");
        let thing = &m.decls["exports.Thing"];
        assert_eq!(thing.kind, DeclKind::Class);
        assert_eq!(
            thing
                .members
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>(),
            vec!["constructor", "run"]
        );
    }

    #[test]
    fn module_exports_object_and_default_class() {
        let m = parse(
            "lib.js",
            b"class A { go(x) {} }\nfunction b(y) {}\nmodule.exports = { A, b, c: require('./c') };\n",
        );
        assert_eq!(m.export("A"), Some(&Export::Local("A".into())));
        assert_eq!(m.export("b"), Some(&Export::Local("b".into())));
        assert_eq!(
            m.export("c"),
            Some(&Export::From {
                from: "./c".into(),
                name: "default".into()
            })
        );
        let m = parse("lib.mjs", b"export default class Widget { draw(ctx) {} }\n");
        assert_eq!(m.export("default"), Some(&Export::Local("Widget".into())));
        assert_eq!(m.decls["Widget"].members[0].name, "draw");
    }

    #[test]
    fn es5_classes_as_typescript_emits_them() {
        let src = br#"
var Container = /** @class */ (function () {
    function Container(containerOptions) { this.x = 1; }
    Container.prototype.load = function () { var modules = []; };
    Container.prototype.get = function (serviceIdentifier, options) {};
    Container.merge = function (a, b) {};
    Container.prototype._hidden = function () {};
    return Container;
}());
exports.Container = Container;
var Child = (function (_super) {
    __extends(Child, _super);
    function Child(a, b) { return _super.call(this) || this; }
    return Child;
}(Container));
exports.Child = Child;
function Legacy(name) {}
Legacy.prototype.greet = function (whom) {};
module.exports.Legacy = Legacy;
"#;
        let m = parse("container.js", src);
        let c = &m.decls["Container"];
        assert_eq!(c.kind, DeclKind::Class);
        let members: Vec<(&str, MemberKind, bool)> = c
            .members
            .iter()
            .map(|m| (m.name.as_str(), m.kind, m.is_static))
            .collect();
        assert_eq!(
            members,
            vec![
                ("constructor", MemberKind::Constructor, false),
                ("load", MemberKind::Method, false),
                ("get", MemberKind::Method, false),
                ("merge", MemberKind::Method, true),
            ]
        );
        assert_eq!(c.members[0].sigs[0].params[0].name, "containerOptions");
        let child = &m.decls["Child"];
        assert_eq!(child.kind, DeclKind::Class);
        assert_eq!(child.bases, vec!["Container"]);
        assert_eq!(m.decls["Legacy"].kind, DeclKind::Class);
        assert_eq!(m.decls["Legacy"].members[1].name, "greet");
    }

    #[test]
    fn export_import_aliases_export_what_they_name() {
        let src = br#"import * as Uploads from './uploads';
import { Client } from './client';
export import toFile = Uploads.toFile;
export import MyClient = Client;
export import Deep = Uploads.a.b;
"#;
        let m = parse("index.d.ts", src);
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        assert_eq!(
            m.export("toFile"),
            Some(&Export::Member {
                local: "Uploads".into(),
                name: "toFile".into()
            })
        );
        assert_eq!(m.export("MyClient"), Some(&Export::Local("Client".into())));
        assert!(
            m.export("Deep").is_none(),
            "two levels deep is not followed"
        );
    }

    #[test]
    fn consts_typed_as_typeof_an_import_are_that_import() {
        let src = br#"import * as Errors from './error';
import { Base } from './base';
export declare const APIError: typeof Errors.APIError, Same: typeof Base;
export declare const count: number, local: typeof count;
"#;
        let m = parse("index.d.ts", src);
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        let import = |from: &str, name: &str| Import {
            from: from.into(),
            name: name.into(),
        };
        assert_eq!(m.imports["APIError"], import("./error", "APIError"));
        assert_eq!(m.imports["Same"], import("./base", "Base"));
        assert_eq!(
            m.export("APIError"),
            Some(&Export::Local("APIError".into()))
        );
        assert!(!m.decls.contains_key("APIError"));
        assert_eq!(m.decls["count"].kind, DeclKind::Variable);
        assert_eq!(
            m.decls["local"].kind,
            DeclKind::Variable,
            "typeof a local stays a variable"
        );
    }

    #[test]
    fn syntax_errors_become_diagnostics() {
        let m = parse("bad.js", b"export function ok(a) {}\nfunction (((\n");
        assert_eq!(m.diagnostics.len(), 1);
        assert!(m.decls.contains_key("ok"));
    }

    #[test]
    fn jsdoc_tags() {
        let d = parse_jsdoc(
            "/**\n * Sum.\n *\n * @param {number} a - first\n * @param {{x: number}=} b\n * @returns {number}\n * @since 2.0\n */",
        );
        // The whole comment is the docstring, tags included, as a Python docstring keeps its
        // parameter sections.
        assert_eq!(
            d.text.as_deref(),
            Some(
                "Sum.\n\n@param {number} a - first\n@param {{x: number}=} b\n@returns {number}\n@since 2.0"
            )
        );
        assert_eq!(d.params[0].0, "a");
        assert_eq!(d.params[0].3.as_deref(), Some("first"));
        assert_eq!(
            d.params[1],
            ("b".into(), Some("{x: number}".into()), true, None)
        );
        assert_eq!(d.returns.as_deref(), Some("number"));
        assert_eq!(d.since.as_deref(), Some("2.0"));
        // Marker tags alone document nothing (a declaration without words inherits its
        // documentation elsewhere); a tag with words does.
        assert_eq!(parse_jsdoc("/** @internal */").text, None);
        assert_eq!(parse_jsdoc("/** @param {string} name */").text, None);
        assert_eq!(parse_jsdoc("/** @returns {number} */").text, None);
        // Tags right under the description still leave it as the first paragraph.
        let d = parse_jsdoc("/**\n * Makes things.\n * @param a the input\n */");
        assert_eq!(
            d.text.as_deref(),
            Some("Makes things.\n\n@param a the input")
        );
        assert_eq!(d.description.as_deref(), Some("Makes things."));
        assert_eq!(parse_jsdoc("/**\n * @deprecated use b\n */").text, None);
        assert_eq!(
            parse_jsdoc("/**\n * @param x the width\n */")
                .text
                .as_deref(),
            Some("@param x the width")
        );
    }
}
