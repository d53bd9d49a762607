//! Code examples resolved to the entities they use.
//!
//! A guide's code block rarely names the method it shows by its qualified name: it imports the
//! package, builds a client and calls through it (`client = OpenAI()`,
//! `client.files.create(...)`; `const api = ky.create({prefixUrl})`, `api.get(...)`). Each
//! block of a doc page is parsed with the release's own grammar and followed through the
//! release's facts, the usage paths in reverse: an import binds a module or a symbol, a
//! construction gives an instance of its class, a call gives what the callable returns, an
//! attribute of an instance gives the class the attribute holds (its `attribute` relation), a
//! member is looked up on the class and its bases. Every symbol reached this way is linked to
//! the section the block is in, so a hit on the section's words (its heading path, the prose
//! around the block) is a hit on the entities the example calls.
//!
//! Names are kept per page, in page order, as a reader reads them: a later block uses the
//! client an earlier one built. A name the blocks never bind is read as the package itself
//! when it is the package's import name (`httpx.get(...)` with the import left out), and as
//! nothing otherwise: nothing is guessed from a variable's name.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use tree_sitter::{Node, Parser};

use super::javascript::syntax::{self, unquote};
use crate::model::{
    DocPageFacts, Mention, Reach, RelationKind, ReleaseFacts, SymbolKind, owner_of,
};

/// What a name in an example holds, as far as the release's facts tell.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    /// A module (Python) or the package's namespace (`import * as lib from 'lib'`).
    Module(String),
    /// A class or interface itself (to construct, or to reach its static members).
    Class(String),
    /// A function or method, to call.
    Callable(String),
    /// An instance of a class.
    Instance(String),
}

/// The language a code block is parsed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockLanguage {
    Python,
    JavaScript,
    TypeScript,
}

impl BlockLanguage {
    fn grammar(self) -> tree_sitter::Language {
        match self {
            BlockLanguage::Python => super::python::language(),
            BlockLanguage::JavaScript => syntax::javascript(),
            BlockLanguage::TypeScript => syntax::typescript(),
        }
    }

    /// The language of a fenced block of a release in `ecosystem_language` (`python` or
    /// `javascript`), from its info string; an unmarked block is read in the release's own
    /// language. None for another language (a shell session, JSON, another language's SDK).
    pub fn of_fence(info: &str, release_language: &str) -> Option<BlockLanguage> {
        match (super::docs::fence_language(info).as_str(), release_language) {
            ("python" | "py" | "python3" | "pycon" | "ipython" | "py3", "python") => {
                Some(BlockLanguage::Python)
            }
            ("js" | "javascript" | "jsx" | "mjs" | "cjs" | "node", "javascript") => {
                Some(BlockLanguage::JavaScript)
            }
            ("ts" | "typescript" | "mts" | "cts", "javascript") => Some(BlockLanguage::TypeScript),
            ("", "python") => Some(BlockLanguage::Python),
            ("", "javascript") => Some(BlockLanguage::JavaScript),
            _ => None,
        }
    }
}

/// The release's API as examples are resolved against it.
pub struct ApiIndex {
    /// Every public path (canonical names and aliases) -> (canonical name, kind).
    names: HashMap<String, (String, SymbolKind)>,
    /// (class, attribute) -> the class the attribute holds.
    attributes: HashMap<(String, String), String>,
    /// Callable (or property) -> the class calling (reading) it gives.
    returns: HashMap<String, String>,
    /// Class -> its bases in the release.
    bases: HashMap<String, Vec<String>>,
    /// A variable (canonical name) -> the class or interface its declared type names.
    value_types: HashMap<String, String>,
    /// How the package is imported: Python's top-level modules; an npm package's name.
    roots: Vec<String>,
    /// An npm package's qualified-name prefix (`axios:`); empty for Python.
    prefix: String,
}

impl ApiIndex {
    /// From a release's facts. `npm_name` is the npm package's name (`axios`, `@scope/x`), for
    /// an npm release; None for Python.
    pub fn new(facts: &ReleaseFacts, npm_name: Option<&str>) -> ApiIndex {
        let mut names: HashMap<String, (String, SymbolKind)> = HashMap::new();
        let mut roots: Vec<String> = Vec::new();
        for s in &facts.symbols {
            for n in std::iter::once(&s.qualified_name).chain(&s.aliases) {
                names
                    .entry(n.clone())
                    .or_insert_with(|| (s.qualified_name.clone(), s.kind));
            }
            if npm_name.is_none()
                && s.kind == SymbolKind::Module
                && !s.qualified_name.contains('.')
                && !roots.contains(&s.qualified_name)
            {
                roots.push(s.qualified_name.clone());
            }
        }
        let mut attributes = HashMap::new();
        let mut returns = HashMap::new();
        let mut bases: HashMap<String, Vec<String>> = HashMap::new();
        for r in &facts.relations {
            match (r.kind, &r.name) {
                (RelationKind::Attribute, Some(name)) => {
                    attributes
                        .entry((r.subject.clone(), name.clone()))
                        .or_insert_with(|| r.object.clone());
                }
                (RelationKind::Returns, _) => {
                    returns
                        .entry(r.subject.clone())
                        .or_insert_with(|| r.object.clone());
                }
                (RelationKind::Extends, _) => {
                    bases
                        .entry(r.subject.clone())
                        .or_default()
                        .push(r.object.clone());
                }
                _ => {}
            }
        }
        let (prefix, roots) = match npm_name {
            Some(n) => (format!("{n}:"), vec![n.to_string()]),
            None => (String::new(), roots),
        };
        // `declare const ky: KyInstance`: a type the package exports, by its plain name.
        let mut value_types = HashMap::new();
        for s in &facts.symbols {
            let Some(plain) = s
                .value_type
                .as_deref()
                .and_then(super::javascript::plain_type_name)
            else {
                continue;
            };
            if let Some((q, SymbolKind::Class | SymbolKind::Interface)) =
                names.get(&format!("{prefix}{plain}"))
            {
                value_types.insert(s.qualified_name.clone(), q.clone());
            }
        }
        ApiIndex {
            names,
            attributes,
            returns,
            bases,
            value_types,
            roots,
            prefix,
        }
    }

    fn symbol(&self, path: &str) -> Option<&(String, SymbolKind)> {
        self.names.get(path)
    }

    /// What naming the symbol `q` (canonical) gives.
    fn value_of(&self, q: &str, kind: SymbolKind) -> Option<Value> {
        Some(match kind {
            SymbolKind::Module => Value::Module(q.to_string()),
            SymbolKind::Class | SymbolKind::Interface => Value::Class(q.to_string()),
            SymbolKind::Function
            | SymbolKind::Method
            | SymbolKind::Classmethod
            | SymbolKind::Staticmethod => Value::Callable(q.to_string()),
            // A value of a known type: a property or attribute's type, a constant's.
            SymbolKind::Property | SymbolKind::Attribute => Value::Instance(
                self.returns
                    .get(q)
                    .or_else(|| self.value_types.get(q))?
                    .clone(),
            ),
            SymbolKind::Operation | SymbolKind::Schema => return None,
        })
    }

    /// The member `name` of `class`, on the class or (breadth first) on its bases: its
    /// canonical name and kind.
    fn member(&self, class: &str, name: &str) -> Option<(String, SymbolKind)> {
        let mut queue = vec![class.to_string()];
        let mut seen = 0;
        while seen < queue.len() && seen < 32 {
            let c = queue[seen].clone();
            seen += 1;
            if let Some((q, k)) = self.symbol(&format!("{c}.{name}")) {
                return Some((q.clone(), *k));
            }
            for b in self.bases.get(&c).into_iter().flatten() {
                if !queue.contains(b) {
                    queue.push(b.clone());
                }
            }
        }
        None
    }

    /// What reading `name` of an instance (or the class itself) of `class` gives, and the
    /// member it reads, if the release has it.
    fn read_member(
        &self,
        class: &str,
        name: &str,
        of_instance: bool,
    ) -> (Option<String>, Option<Value>) {
        let member = self.member(class, name);
        // An attribute the class sets in its constructor may be a relation without a symbol.
        let held = self
            .attributes
            .get(&(class.to_string(), name.to_string()))
            .or_else(|| {
                member.as_ref().and_then(|(q, _)| {
                    self.attributes
                        .get(&(owner_of(q).to_string(), name.to_string()))
                })
            });
        let value = match (&member, held) {
            (_, Some(c)) if of_instance => Some(Value::Instance(c.clone())),
            (Some((q, k)), _) => self.value_of(q, *k),
            _ => None,
        };
        (member.map(|(q, _)| q), value)
    }

    /// The value of the package root `name` as an example names it without importing it.
    fn root(&self, name: &str) -> Option<Value> {
        if !self.roots.iter().any(|r| r == name) {
            return None;
        }
        if self.prefix.is_empty() {
            return Some(Value::Module(name.to_string()));
        }
        self.value(&format!("{}default", self.prefix))
            .or_else(|| Some(Value::Module(self.prefix.clone())))
    }

    /// What importing the public path `path` gives (`sdk.Client`, `axios:default`), nothing
    /// mentioned.
    fn value(&self, path: &str) -> Option<Value> {
        let (q, k) = self.symbol(path)?;
        self.value_of(q, *k)
    }
}

/// How deep [`Reader::walk`] and [`Reader::eval`] descend: far past any example, well short of
/// the stack's end (a 64 KiB block of brackets nests 30,000 deep).
const MAX_NESTING: usize = 200;

/// One page's examples read in order: the names bound so far, and what each block reached.
struct Reader<'a> {
    api: &'a ApiIndex,
    src: &'a [u8],
    env: HashMap<String, Value>,
    found: Vec<String>,
    /// How many walks and evaluations are under way.
    depth: usize,
}

impl Reader<'_> {
    fn text(&self, n: Node) -> &str {
        n.utf8_text(self.src).unwrap_or_default()
    }

    fn mention(&mut self, q: &str) {
        if !self.found.iter().any(|f| f == q) {
            self.found.push(q.to_string());
        }
    }

    /// What the public path `path` names (mentioned, unless a module) gives.
    fn named(&mut self, path: &str) -> Option<Value> {
        let (q, k) = self.api.symbol(path)?.clone();
        if k != SymbolKind::Module {
            self.mention(&q);
        }
        self.api.value_of(&q, k)
    }

    /// `left = right` (Python's assignment, JavaScript's assignment expression): a plain
    /// name is bound to what the right side gives; any other target is walked.
    fn assign(&mut self, n: Node, python: bool) -> bool {
        let (Some(left), Some(right)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return false;
        };
        let value = self.eval(right, python);
        if left.kind() == "identifier" {
            let name = self.text(left).to_string();
            self.bind(name, value);
        } else {
            self.walk(left, python);
        }
        true
    }

    fn lookup(&self, name: &str) -> Option<Value> {
        self.env.get(name).cloned().or_else(|| self.api.root(name))
    }

    /// Walks a statement or expression, binding what it binds and resolving what it uses, to
    /// [`MAX_NESTING`] levels.
    fn walk(&mut self, n: Node, python: bool) {
        if self.depth < MAX_NESTING {
            self.depth += 1;
            self.walk_node(n, python);
            self.depth -= 1;
        }
    }

    fn walk_node(&mut self, n: Node, python: bool) {
        let kind = n.kind();
        let handled = if python {
            self.python_statement(n, kind)
        } else {
            self.js_statement(n, kind)
        };
        if handled {
            return;
        }
        if matches!(
            kind,
            "call" | "attribute" | "call_expression" | "member_expression" | "new_expression"
        ) {
            self.eval(n, python);
            return;
        }
        let mut cursor = n.walk();
        let children: Vec<Node> = n.named_children(&mut cursor).collect();
        for c in children {
            self.walk(c, python);
        }
    }

    /// Binds what a Python import, assignment or `with` binds; true when handled.
    fn python_statement(&mut self, n: Node, kind: &str) -> bool {
        match kind {
            "import_statement" => {
                let mut cursor = n.walk();
                let names: Vec<Node> = n.children_by_field_name("name", &mut cursor).collect();
                for name in names {
                    let (path, alias) = self.aliased(name);
                    // `import a.b as c` binds `c` to `a.b`; `import a.b` binds `a`.
                    let bound = match alias {
                        Some(a) => (a, path),
                        None => {
                            let top = path.split('.').next().unwrap_or_default().to_string();
                            (top.clone(), top)
                        }
                    };
                    let value = self.api.value(&bound.1);
                    self.bind(bound.0, value);
                }
                true
            }
            "import_from_statement" => {
                let Some(module) = n.child_by_field_name("module_name") else {
                    return true;
                };
                let module = self.text(module).to_string();
                if module.starts_with('.') {
                    return true;
                }
                let mut cursor = n.walk();
                let names: Vec<Node> = n.children_by_field_name("name", &mut cursor).collect();
                for name in names {
                    let (path, alias) = self.aliased(name);
                    let value = self.named(&format!("{module}.{path}"));
                    self.bind(alias.unwrap_or(path), value);
                }
                true
            }
            "assignment" => self.assign(n, true),
            "as_pattern" => {
                // `with Client() as client:` (and `except E as e`).
                let mut cursor = n.walk();
                let children: Vec<Node> = n.named_children(&mut cursor).collect();
                let value = children.first().and_then(|v| self.eval(*v, true));
                if let Some(alias) = n.child_by_field_name("alias") {
                    let target = alias.named_child(0).unwrap_or(alias);
                    if target.kind() == "identifier" {
                        let name = self.text(target).to_string();
                        self.bind(name, value);
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// Binds what a JavaScript import, `require` or declaration binds; true when handled.
    fn js_statement(&mut self, n: Node, kind: &str) -> bool {
        match kind {
            "import_statement" => {
                let Some(source) = n.child_by_field_name("source") else {
                    return true;
                };
                let from = unquote(self.text(source));
                if !self.api.roots.contains(&from) {
                    return true;
                }
                let mut cursor = n.walk();
                let clause = n
                    .named_children(&mut cursor)
                    .find(|c| c.kind() == "import_clause");
                if let Some(clause) = clause {
                    self.js_import_clause(clause);
                }
                true
            }
            "variable_declarator" => {
                let (Some(name), Some(value)) = (
                    n.child_by_field_name("name"),
                    n.child_by_field_name("value"),
                ) else {
                    return false;
                };
                let v = self.eval(value, false);
                match name.kind() {
                    "identifier" => {
                        let name = self.text(name).to_string();
                        self.bind(name, v);
                    }
                    // `const { create } = require('axios')` / `= axios`.
                    "object_pattern" => self.destructure(name, v),
                    _ => {}
                }
                true
            }
            "assignment_expression" => self.assign(n, false),
            _ => false,
        }
    }

    fn js_import_clause(&mut self, clause: Node) {
        let prefix = self.api.prefix.clone();
        let mut cursor = clause.walk();
        let parts: Vec<Node> = clause.named_children(&mut cursor).collect();
        for part in parts {
            match part.kind() {
                // `import axios from 'axios'`
                "identifier" => {
                    let name = self.text(part).to_string();
                    let v = self.api.value(&format!("{prefix}default"));
                    self.bind(name, v);
                }
                // `import * as lib from 'lib'`
                "namespace_import" => {
                    let mut c = part.walk();
                    let id = part
                        .named_children(&mut c)
                        .find(|x| x.kind() == "identifier");
                    if let Some(id) = id {
                        let name = self.text(id).to_string();
                        self.bind(name, Some(Value::Module(prefix.clone())));
                    }
                }
                // `import { a, b as c } from 'lib'`
                "named_imports" => {
                    let mut c = part.walk();
                    let specs: Vec<Node> = part
                        .named_children(&mut c)
                        .filter(|x| x.kind() == "import_specifier")
                        .collect();
                    for s in specs {
                        let Some(name) = s.child_by_field_name("name") else {
                            continue;
                        };
                        let export = self.text(name).to_string();
                        let local = s
                            .child_by_field_name("alias")
                            .map_or(export.clone(), |a| self.text(a).to_string());
                        let v = self.named(&format!("{prefix}{export}"));
                        self.bind(local, v);
                    }
                }
                _ => {}
            }
        }
    }

    /// `{ a, b: c }` taken from a value: each name read as a member of it.
    fn destructure(&mut self, pattern: Node, from: Option<Value>) {
        let mut cursor = pattern.walk();
        let parts: Vec<Node> = pattern.named_children(&mut cursor).collect();
        for p in parts {
            let (key, local) = match p.kind() {
                "shorthand_property_identifier_pattern" => {
                    let t = self.text(p).to_string();
                    (t.clone(), t)
                }
                "pair_pattern" => {
                    let (Some(k), Some(v)) =
                        (p.child_by_field_name("key"), p.child_by_field_name("value"))
                    else {
                        continue;
                    };
                    (self.text(k).to_string(), self.text(v).to_string())
                }
                _ => continue,
            };
            let v = from.clone().and_then(|f| self.member_of(f, &key));
            self.bind(local, v);
        }
    }

    fn bind(&mut self, name: String, value: Option<Value>) {
        match value {
            Some(v) => {
                self.env.insert(name, v);
            }
            // Rebound to something unknown: the old meaning no longer holds.
            None => {
                self.env.remove(&name);
            }
        }
    }

    /// `(dotted path, alias)` of an import's `name` field (`a.b` or `a.b as c`).
    fn aliased(&self, n: Node) -> (String, Option<String>) {
        if n.kind() == "aliased_import" {
            let path = n
                .child_by_field_name("name")
                .map(|x| self.text(x).to_string())
                .unwrap_or_default();
            let alias = n
                .child_by_field_name("alias")
                .map(|x| self.text(x).to_string());
            (path, alias)
        } else {
            (self.text(n).to_string(), None)
        }
    }

    /// Reading `name` of `value`: the member it names (mentioned) and what it gives.
    fn member_of(&mut self, value: Value, name: &str) -> Option<Value> {
        match value {
            Value::Module(m) => {
                let path = if m.ends_with(':') {
                    format!("{m}{name}")
                } else {
                    format!("{m}.{name}")
                };
                self.named(&path)
            }
            Value::Class(ref c) | Value::Instance(ref c) => {
                let of_instance = matches!(value, Value::Instance(_));
                let (member, v) = self.api.read_member(c, name, of_instance);
                if let Some(m) = member {
                    self.mention(&m);
                }
                v
            }
            // A callable value with members (`axios.create` where `axios: AxiosStatic`).
            Value::Callable(q) => {
                let class = self.api.value_types.get(&q)?.clone();
                self.member_of(Value::Instance(class), name)
            }
        }
    }

    /// What an expression gives, resolving (and mentioning) what it uses on the way, to
    /// [`MAX_NESTING`] levels (deeper gives nothing).
    fn eval(&mut self, n: Node, python: bool) -> Option<Value> {
        if self.depth >= MAX_NESTING {
            return None;
        }
        self.depth += 1;
        let value = self.eval_node(n, python);
        self.depth -= 1;
        value
    }

    fn eval_node(&mut self, n: Node, python: bool) -> Option<Value> {
        match n.kind() {
            "identifier" => {
                let name = self.text(n).to_string();
                self.lookup(&name)
            }
            "attribute" | "member_expression" => {
                let object = n.child_by_field_name("object")?;
                let field = n.child_by_field_name(if python { "attribute" } else { "property" })?;
                let base = self.eval(object, python);
                let name = self.text(field).to_string();
                base.and_then(|b| self.member_of(b, &name))
            }
            "call" | "call_expression" => {
                let callee = n.child_by_field_name("function")?;
                let args = n.child_by_field_name("arguments");
                // `require('axios')`: the package, as an import of its default export.
                if !python && self.text(callee) == "require" {
                    let from = args
                        .and_then(|a| a.named_child(0))
                        .map(|s| unquote(self.text(s)))?;
                    return self.api.root(&from);
                }
                if let Some(args) = args {
                    self.walk(args, python);
                }
                let f = self.eval(callee, python)?;
                self.called(f)
            }
            "new_expression" => {
                if let Some(args) = n.child_by_field_name("arguments") {
                    self.walk(args, python);
                }
                let c = self.eval(n.child_by_field_name("constructor")?, python)?;
                match c {
                    Value::Class(q) => {
                        self.mention(&q);
                        Some(Value::Instance(q))
                    }
                    other => self.called(other),
                }
            }
            "await" | "await_expression" | "parenthesized_expression" => {
                let inner = n.named_child(0)?;
                self.eval(inner, python)
            }
            _ => {
                self.walk(n, python);
                None
            }
        }
    }

    /// What calling `f` gives.
    fn called(&mut self, f: Value) -> Option<Value> {
        match f {
            Value::Class(q) => {
                self.mention(&q);
                Some(Value::Instance(q))
            }
            Value::Callable(q) => {
                self.mention(&q);
                self.api.returns.get(&q).cloned().map(Value::Instance)
            }
            Value::Instance(_) | Value::Module(_) => None,
        }
    }
}

/// The fenced code blocks of a section's Markdown: (info string, code).
fn fenced_blocks(md: &str) -> Vec<(String, String)> {
    use pulldown_cmark::{CodeBlockKind, Event, Parser as Md, Tag, TagEnd};
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for ev in Md::new(md) {
        match ev {
            Event::Start(Tag::CodeBlock(kind)) => {
                let info = match kind {
                    CodeBlockKind::Fenced(i) => i.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                current = Some((info, String::new()));
            }
            Event::Text(t) => {
                if let Some((_, code)) = current.as_mut() {
                    code.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => out.extend(current.take()),
            _ => {}
        }
    }
    out
}

/// A Python console session's code: the lines after `>>> ` and `... ` prompts; other text
/// as it is.
fn without_prompts(code: &str) -> String {
    if !code.lines().any(|l| l.starts_with(">>> ")) {
        return code.to_string();
    }
    code.lines()
        .filter_map(|l| {
            l.strip_prefix(">>> ")
                .or_else(|| l.strip_prefix("... "))
                .or_else(|| (l == ">>>" || l == "...").then_some(""))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Largest code block parsed, in bytes: a generated listing is not an example.
const MAX_BLOCK: usize = 64 << 10;

/// The symbols each section of `page` uses in its code blocks, in order (canonical names),
/// reading the page's blocks in order with one set of names.
pub fn page_examples(
    api: &ApiIndex,
    page: &DocPageFacts,
    release_language: &str,
) -> Vec<Vec<String>> {
    let mut env: HashMap<String, Value> = HashMap::new();
    // One parser per language for the page's blocks.
    let mut parsers: HashMap<BlockLanguage, Parser> = HashMap::new();
    let mut out = Vec::new();
    for section in &page.sections {
        let mut found: Vec<String> = Vec::new();
        for (info, code) in fenced_blocks(&section.markdown) {
            let Some(lang) = BlockLanguage::of_fence(&info, release_language) else {
                continue;
            };
            if code.len() > MAX_BLOCK {
                continue;
            }
            let code = match lang {
                BlockLanguage::Python => without_prompts(&code),
                _ => code,
            };
            let parser = match parsers.entry(lang) {
                Entry::Occupied(p) => p.into_mut(),
                Entry::Vacant(slot) => {
                    let mut p = Parser::new();
                    if p.set_language(&lang.grammar()).is_err() {
                        continue;
                    }
                    slot.insert(p)
                }
            };
            let Some(tree) = parser.parse(code.as_bytes(), None) else {
                continue;
            };
            let mut reader = Reader {
                api,
                src: code.as_bytes(),
                env,
                found,
                depth: 0,
            };
            reader.walk(tree.root_node(), lang == BlockLanguage::Python);
            (env, found) = (reader.env, reader.found);
        }
        out.push(found);
    }
    out
}

/// Links each section of the release's doc pages to the symbols its code examples use: each
/// becomes one more identifier of the section, by its canonical name (lowering resolves it
/// exactly).
pub fn link_examples(facts: &mut ReleaseFacts, release_language: &str, npm_name: Option<&str>) {
    if facts.pages.is_empty() || !matches!(release_language, "python" | "javascript") {
        return;
    }
    let api = ApiIndex::new(facts, npm_name);
    let mut pages = std::mem::take(&mut facts.pages);
    for page in &mut pages {
        let used = page_examples(&api, page, release_language);
        for (section, names) in page.sections.iter_mut().zip(used) {
            for q in names {
                let m = Mention {
                    name: q,
                    reach: Reach::Any,
                };
                if !section.identifiers.contains(&m) {
                    section.identifiers.push(m);
                }
            }
        }
    }
    facts.pages = pages;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DocSectionFacts, Relation, Symbol};

    fn sym(q: &str, kind: SymbolKind, aliases: &[&str]) -> Symbol {
        Symbol {
            qualified_name: q.to_string(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            kind,
            ..Default::default()
        }
    }

    fn rel(kind: RelationKind, subject: &str, name: Option<&str>, object: &str) -> Relation {
        Relation {
            subject: subject.to_string(),
            kind,
            name: name.map(str::to_string),
            object: object.to_string(),
            evidence: String::new(),
            file: String::new(),
            line: 0,
        }
    }

    fn page(sections: &[&str]) -> DocPageFacts {
        DocPageFacts {
            path: "README.md".into(),
            sections: sections
                .iter()
                .map(|md| DocSectionFacts {
                    markdown: md.to_string(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// Modelled on an SDK whose client holds resources (`client.files.create`), with a
    /// factory, a base class and an aliased export.
    fn python_facts() -> ReleaseFacts {
        use SymbolKind::*;
        ReleaseFacts {
            symbols: vec![
                sym("sdk", Module, &[]),
                sym("sdk.Client", Class, &["sdk._client.Client"]),
                sym("sdk.Client.close", Method, &[]),
                sym("sdk.Client.timeout", Attribute, &[]),
                sym("sdk.resources.Files", Class, &[]),
                sym("sdk.resources.Files.create", Method, &[]),
                sym("sdk.resources.Base", Class, &[]),
                sym("sdk.resources.Base.with_raw_response", Method, &[]),
                sym("sdk.Upload", Class, &[]),
                sym("sdk.Upload.wait", Method, &[]),
                sym("sdk.connect", Function, &[]),
                sym("sdk.Timeout", Class, &[]),
            ],
            relations: vec![
                rel(
                    RelationKind::Attribute,
                    "sdk.Client",
                    Some("files"),
                    "sdk.resources.Files",
                ),
                rel(
                    RelationKind::Returns,
                    "sdk.resources.Files.create",
                    None,
                    "sdk.Upload",
                ),
                rel(RelationKind::Returns, "sdk.connect", None, "sdk.Client"),
                rel(
                    RelationKind::Extends,
                    "sdk.resources.Files",
                    None,
                    "sdk.resources.Base",
                ),
            ],
            ..Default::default()
        }
    }

    fn used(
        facts: &ReleaseFacts,
        npm: Option<&str>,
        lang: &str,
        sections: &[&str],
    ) -> Vec<Vec<String>> {
        let api = ApiIndex::new(facts, npm);
        page_examples(&api, &page(sections), lang)
    }

    /// A block nested far deeper than any example (a generated or hostile page) is read to a
    /// bounded depth rather than overflowing the stack; what the block uses before is found.
    #[test]
    fn deeply_nested_blocks_do_not_overflow_the_stack() {
        let deep = 20_000;
        let cases = [
            (
                "python",
                "from sdk import connect",
                "connect()",
                "(",
                ")",
                "sdk.connect",
            ),
            (
                "javascript",
                "import { isCancel } from 'lib'",
                "isCancel(e)",
                "[",
                "]",
                "lib:isCancel",
            ),
        ];
        for (lang, import, call, open, close, want) in cases {
            let section = format!(
                "## Deep\n\n```{lang}\n{import}\n{call}\ny = {}1{}\n```\n",
                open.repeat(deep),
                close.repeat(deep)
            );
            let got = std::thread::Builder::new()
                .stack_size(2 << 20)
                .spawn(move || match lang {
                    "python" => used(&python_facts(), None, lang, &[&section]),
                    _ => used(&npm_facts(), Some("lib"), lang, &[&section]),
                })
                .unwrap()
                .join()
                .expect("no stack overflow");
            assert_eq!(got, [vec![want.to_string()]], "{lang}");
        }
    }

    #[test]
    fn a_python_example_reaches_methods_through_the_client_it_builds() {
        let got = used(
            &python_facts(),
            None,
            "python",
            &[
                "## Setup\n\n```python\nfrom sdk import Client\n\nclient = Client(timeout=20.0)\n```\n",
                // The client of the section before, through an attribute, then a return.
                "## Uploading\n\n```py\nup = client.files.create(file=open('a', 'rb'))\nup.wait()\n```\n",
                // An inherited member; an aliased import; `with ... as`.
                "## Raw\n\n```python\nimport sdk as s\nwith s.connect() as c:\n    c.files.with_raw_response()\n```\n",
                // No import: the package's own name; a console session's prompts.
                "## Console\n\n```pycon\n>>> t = sdk.Timeout(5)\n>>> sdk.Client().close()\n```\n",
            ],
        );
        assert_eq!(got[0], ["sdk.Client"]);
        assert_eq!(got[1], ["sdk.resources.Files.create", "sdk.Upload.wait"]);
        assert_eq!(
            got[2],
            ["sdk.connect", "sdk.resources.Base.with_raw_response"]
        );
        assert_eq!(got[3], ["sdk.Timeout", "sdk.Client", "sdk.Client.close"]);
    }

    #[test]
    fn nothing_is_guessed_from_a_name_the_example_never_binds() {
        let got = used(
            &python_facts(),
            None,
            "python",
            &[
                // `client` was never built here; `files` is no module of the package.
                "```python\nclient.files.create()\nfiles.create()\n```\n",
                // Rebinding to something unknown forgets the old meaning.
                "```python\nfrom sdk import Client\nc = Client()\nc = make()\nc.close()\n```\n",
                // Another language's block, and a shell session, are not read.
                "```bash\nsdk.Client().close()\n```\n\n```javascript\nsdk.connect()\n```\n",
            ],
        );
        assert!(got[0].is_empty(), "{:?}", got[0]);
        assert_eq!(got[1], ["sdk.Client"]);
        assert!(got[2].is_empty(), "{:?}", got[2]);
    }

    /// Modelled on an npm HTTP client: a default export typed as an interface with a
    /// factory member that returns an instance.
    fn npm_facts() -> ReleaseFacts {
        use SymbolKind::*;
        ReleaseFacts {
            symbols: vec![
                Symbol {
                    value_type: Some("LibStatic<unknown>".into()),
                    ..sym("lib:default", Function, &[])
                },
                Symbol {
                    value_type: Some("KyLike".into()),
                    ..sym("lib:client", Attribute, &[])
                },
                sym("lib:KyLike", Interface, &[]),
                sym("lib:KyLike.extend", Method, &[]),
                sym("lib:LibStatic", Interface, &[]),
                sym("lib:LibStatic.create", Method, &[]),
                sym("lib:LibInstance", Interface, &[]),
                sym("lib:LibInstance.get", Method, &[]),
                sym("lib:Agent", Class, &[]),
                sym("lib:Agent.close", Method, &[]),
                sym("lib:isCancel", Function, &[]),
            ],
            relations: vec![rel(
                RelationKind::Returns,
                "lib:LibStatic.create",
                None,
                "lib:LibInstance",
            )],
            ..Default::default()
        }
    }

    #[test]
    fn a_javascript_example_reaches_members_through_imports_requires_and_factories() {
        let got = used(
            &npm_facts(),
            Some("lib"),
            "javascript",
            &[
                "```js\nimport lib, { isCancel as cancelled, Agent } from 'lib';\nconst api = lib.create({ baseURL: '/x' });\nawait api.get('/users');\ncancelled(e);\n```\n",
                "```ts\nconst { create } = require('lib');\nconst a: Agent = new Agent();\na.close();\nconst x = create();\n```\n",
                // A callable default export is called too; a typed constant's members.
                "```js\nimport { client } from 'lib';\nlib('/users');\nclient.extend({});\n```\n",
            ],
        );
        assert_eq!(
            got[0],
            [
                "lib:isCancel",
                "lib:Agent",
                "lib:LibStatic.create",
                "lib:LibInstance.get"
            ]
        );
        assert_eq!(
            got[1],
            ["lib:LibStatic.create", "lib:Agent", "lib:Agent.close"]
        );
        assert_eq!(got[2], ["lib:client", "lib:default", "lib:KyLike.extend"]);
    }

    #[test]
    fn sections_gain_the_entities_their_examples_use() {
        let mut facts = python_facts();
        facts.pages = vec![page(&[
            "## Timeouts\n\n```python\nclient = sdk.Client(timeout=20.0)\n```\n",
        ])];
        link_examples(&mut facts, "python", None);
        assert_eq!(
            facts.pages[0].sections[0].identifiers,
            [Mention {
                name: "sdk.Client".into(),
                reach: Reach::Any
            }]
        );
    }
}
