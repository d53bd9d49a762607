//! Answers that follow relations: how to reach a callable from what a user imports
//! (`get_usage_path`), and what a symbol is linked to (`related`).
//!
//! A release's usage graph has one node per class instance plus a start node (the user's
//! program). Edges say how to get an instance: import and construct a class, import and call a
//! factory, read an attribute of another instance, call a method that returns one, or use a
//! subclass instance where its base is wanted. Its edges come from the release's relation
//! table (`rg:relationTable`) and name table (`rg:nameTable`), one read each, and the graph is
//! kept per release for the store generation.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Reversed;
use schemars::JsonSchema;
use serde::Serialize;

use super::{ApiDetail, Chosen, Engine, ErrorKind, Failure, LookupError, get_str, iri};
use crate::model::{Ecosystem, RelationKind};
use crate::queries;
use crate::store::StoreError;
use crate::vocab::rg;

/// One row of `rg:relationTable`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelationRow {
    pub kind: RelationKind,
    pub subject: String,
    pub name: Option<String>,
    pub object: String,
    pub file: String,
    pub line: usize,
    pub evidence: String,
}

fn parse_table(table: &str) -> Vec<RelationRow> {
    table
        .lines()
        .filter_map(|line| {
            let mut p = line.splitn(7, '\t');
            let kind = RelationKind::parse(p.next()?)?;
            let subject = p.next()?.to_string();
            let name = Some(p.next()?.to_string()).filter(|n| !n.is_empty());
            let object = p.next()?.to_string();
            let file = p.next()?.to_string();
            let line = p.next()?.parse().unwrap_or(0);
            let evidence = p.next().unwrap_or("").to_string();
            Some(RelationRow {
                kind,
                subject,
                name,
                object,
                file,
                line,
                evidence,
            })
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    /// Start -> instance: import the class and construct it.
    Construct,
    /// Start -> instance: import a function (or a class for its class/static method) and call it.
    Factory,
    /// Instance -> instance: read an attribute (relation index).
    Attribute,
    /// Instance -> instance: call a method or read a property that returns one.
    Call,
    /// Subclass instance -> base instance.
    IsA,
}

#[derive(Debug, Clone)]
struct Edge {
    via: Via,
    /// The class constructed, the factory or method called, or the relation's subject.
    symbol: String,
    /// Index into `UsageGraph::relations`, for attribute, call and factory edges.
    relation: Option<usize>,
    cost: f64,
}

/// The relation graph of one release.
pub(crate) struct UsageGraph {
    graph: DiGraph<Option<String>, Edge>,
    start: NodeIndex,
    instance: HashMap<String, NodeIndex>,
    relations: Vec<RelationRow>,
    /// Canonical name -> kind, for every public symbol.
    kinds: HashMap<String, String>,
}

/// The class or module a member's canonical name sits in: `a.B.m` -> `a.B`, `pkg:B.m` -> `pkg:B`.
fn parent_of(q: &str) -> Option<&str> {
    let cut = q.rfind('.')?;
    let colon = q.find(':').unwrap_or(0);
    (cut > colon).then(|| &q[..cut])
}

/// Whether a type annotation is a plain value a user writes down (a string, a number, a flag,
/// optional or not), as opposed to an object they must obtain.
fn is_plain_value(annotation: &str) -> bool {
    let t = annotation.trim().trim_matches(['"', '\'']);
    if t.starts_with("Literal[") || t.starts_with("typing.Literal[") {
        return true;
    }
    let tokens: Vec<&str> = t
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .filter(|x| !x.is_empty())
        .collect();
    !tokens.is_empty()
        && tokens.iter().all(|x| {
            matches!(
                x.rsplit('.').next().unwrap_or(x),
                "str"
                    | "int"
                    | "float"
                    | "bool"
                    | "bytes"
                    | "Optional"
                    | "Union"
                    | "None"
                    | "string"
                    | "number"
                    | "boolean"
                    | "bigint"
                    | "undefined"
                    | "null"
            )
        })
}

/// How much a step costs when ranking paths: fewer steps first. Constructing a class costs more
/// for each required argument, most for one that is an object the user would have to get
/// elsewhere (an SDK's service objects take the client's internals: `CustomerService(requestor)`),
/// and much more when a class at least as central hands it out (as an attribute or property):
/// then the path through the holder, up to four hops, ranks first.
const COST_IMPORT_CONSTRUCT: f64 = 2.0;
const COST_PLAIN_ARGUMENT: f64 = 0.3;
const COST_UNTYPED_ARGUMENT: f64 = 1.0;
const COST_OBJECT_ARGUMENT: f64 = 3.0;
const COST_HELD_PENALTY: f64 = 6.0;
const COST_FACTORY: f64 = 2.5;
const COST_ATTRIBUTE: f64 = 1.0;
const COST_CALL: f64 = 1.4;
const COST_IS_A: f64 = 0.05;

impl UsageGraph {
    /// `constructors`: the annotations of each class's required constructor parameters
    /// (`None` where a parameter has none).
    pub(crate) fn build(
        names: &str,
        relations: Vec<RelationRow>,
        constructors: &HashMap<String, Vec<Option<String>>>,
    ) -> UsageGraph {
        let mut kinds: HashMap<String, String> = HashMap::new();
        for (name, q, kind) in super::name_rows(names) {
            if name == q {
                kinds.insert(q.to_string(), kind.to_string());
            }
        }
        let mut graph: DiGraph<Option<String>, Edge> = DiGraph::new();
        let start = graph.add_node(None);
        let mut instance: HashMap<String, NodeIndex> = HashMap::new();
        let mut classes: Vec<&String> = kinds
            .iter()
            .filter(|(_, k)| matches!(k.as_str(), "class" | "interface"))
            .map(|(q, _)| q)
            .collect();
        classes.sort();
        for c in classes {
            instance.insert(c.clone(), graph.add_node(Some(c.clone())));
        }
        // What each class hands out (as an attribute, or from a property): holder -> classes.
        let mut hands_out: HashMap<&str, HashSet<&str>> = HashMap::new();
        for r in &relations {
            let holder = match r.kind {
                RelationKind::Attribute => r.subject.as_str(),
                RelationKind::Returns
                    if kinds.get(&r.subject).map(String::as_str) == Some("property") =>
                {
                    match parent_of(&r.subject) {
                        Some(p) => p,
                        None => continue,
                    }
                }
                _ => continue,
            };
            if holder != r.object {
                hands_out.entry(holder).or_default().insert(&r.object);
            }
        }
        let out_degree = |c: &str| hands_out.get(c).map_or(0, HashSet::len);
        // A class handed out by one at least as central as itself (a service of a client, not
        // the client a helper keeps) is reached through its holder.
        let held: HashSet<&str> = hands_out
            .iter()
            .flat_map(|(h, objects)| objects.iter().map(move |o| (*h, *o)))
            .filter(|(h, o)| out_degree(h) >= out_degree(o))
            .map(|(_, o)| o)
            .collect();
        for (q, &n) in &instance {
            // Interfaces are not constructed; something returns or holds them.
            if kinds.get(q).map(String::as_str) != Some("class") {
                continue;
            }
            let arguments: f64 = constructors
                .get(q)
                .into_iter()
                .flatten()
                .map(|a| match a.as_deref() {
                    None => COST_UNTYPED_ARGUMENT,
                    Some(t) if is_plain_value(t) => COST_PLAIN_ARGUMENT,
                    Some(_) => COST_OBJECT_ARGUMENT,
                })
                .sum();
            let cost = COST_IMPORT_CONSTRUCT
                + arguments
                + if held.contains(q.as_str()) {
                    COST_HELD_PENALTY
                } else {
                    0.0
                };
            graph.add_edge(
                start,
                n,
                Edge {
                    via: Via::Construct,
                    symbol: q.clone(),
                    relation: None,
                    cost,
                },
            );
        }
        for (i, r) in relations.iter().enumerate() {
            let Some(&to) = instance.get(&r.object) else {
                continue;
            };
            let subject_kind = kinds.get(&r.subject).map(String::as_str);
            let (from, via, cost) = match (r.kind, subject_kind) {
                (RelationKind::Attribute, _) => match instance.get(&r.subject) {
                    Some(&f) => (f, Via::Attribute, COST_ATTRIBUTE),
                    None => continue,
                },
                (RelationKind::Extends, _) => match instance.get(&r.subject) {
                    Some(&f) => (f, Via::IsA, COST_IS_A),
                    None => continue,
                },
                (
                    RelationKind::Returns,
                    Some("function" | "classmethod" | "staticmethod" | "class"),
                ) => (start, Via::Factory, COST_FACTORY),
                (RelationKind::Returns, Some("method" | "property" | "attribute")) => {
                    match parent_of(&r.subject).and_then(|p| instance.get(p)) {
                        Some(&f) => (f, Via::Call, COST_CALL),
                        None => continue,
                    }
                }
                _ => continue,
            };
            if from == to {
                continue;
            }
            graph.add_edge(
                from,
                to,
                Edge {
                    via,
                    symbol: r.subject.clone(),
                    relation: Some(i),
                    cost,
                },
            );
        }
        UsageGraph {
            graph,
            start,
            instance,
            relations,
            kinds,
        }
    }

    /// Up to `limit` cheapest ways to get an instance of `class`, as edge lists from the start,
    /// cheapest first. Paths pass through at most `MAX_HOPS` instances.
    fn paths_to(&self, class: &str, limit: usize) -> Vec<(f64, Vec<Edge>)> {
        const MAX_HOPS: usize = 4;
        const MAX_ENUMERATED: usize = 1000;
        let Some(&goal) = self.instance.get(class) else {
            return vec![];
        };
        // Parallel edges (a class constructed or returned by a factory, two attributes of the
        // same class) make several paths over the same nodes: up to 8 per node sequence.
        let mut found: Vec<(f64, Vec<Edge>)> = Vec::new();
        let mut seen: HashSet<Vec<NodeIndex>> = HashSet::new();
        let mut keep = |nodes: Vec<NodeIndex>, found: &mut Vec<(f64, Vec<Edge>)>| {
            if !seen.insert(nodes.clone()) {
                return;
            }
            let mut combos: Vec<Vec<Edge>> = vec![vec![]];
            for w in nodes.windows(2) {
                let mut options: Vec<Edge> = self
                    .graph
                    .edges_connecting(w[0], w[1])
                    .map(|e| e.weight().clone())
                    .collect();
                options.sort_by(|x, y| x.cost.total_cmp(&y.cost));
                let mut next = Vec::new();
                for c in &combos {
                    for o in &options {
                        if next.len() < 8 {
                            let mut c2 = c.clone();
                            c2.push(o.clone());
                            next.push(c2);
                        }
                    }
                }
                combos = next;
            }
            for edges in combos {
                let cost = edges.iter().map(|e| e.cost).sum();
                found.push((cost, edges));
            }
        };
        // The cheapest path, whatever its length.
        if let Some((_, nodes)) = petgraph::algo::astar(
            &self.graph,
            self.start,
            |n| n == goal,
            |e| e.weight().cost,
            |_| 0.0,
        ) {
            keep(nodes, &mut found);
        }
        // Alternatives: walk back from the goal, where the fan-in is small.
        let reversed = Reversed(&self.graph);
        for mut nodes in petgraph::algo::all_simple_paths::<Vec<_>, _, std::hash::RandomState>(
            reversed,
            goal,
            self.start,
            0,
            Some(MAX_HOPS),
        )
        .take(MAX_ENUMERATED)
        {
            nodes.reverse();
            keep(nodes, &mut found);
        }
        found.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then_with(|| a.1.len().cmp(&b.1.len()))
                .then_with(|| {
                    let key =
                        |p: &Vec<Edge>| p.iter().map(|e| e.symbol.clone()).collect::<Vec<_>>();
                    key(&a.1).cmp(&key(&b.1))
                })
        });
        found.truncate(limit);
        found
    }
}

/// One step of a usage path, with the facts it rests on.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct UsageStep {
    /// import | construct | call | attribute
    pub action: String,
    /// The code of this step: `from stripe import StripeClient`, `.customers`, `.create(...)`.
    pub code: String,
    /// Canonical name of the symbol the step uses (the class, function, method, or the class
    /// owning the attribute).
    pub symbol: String,
    /// The attribute read, for attribute steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute: Option<String>,
    /// `file:line` of the fact: the definition, or the statement that gives the attribute its
    /// class.
    pub source: String,
    /// The source text of a relation the step rests on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// Canonical name of the class whose instance the step yields (construct, a factory call,
    /// an attribute, a method returning one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gives: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct UsagePath {
    /// 1 is the best; paths with fewer and cheaper steps rank first.
    pub rank: usize,
    pub steps: Vec<UsageStep>,
    /// The path as code in the package's language, arguments named after the required
    /// parameters.
    pub snippet: String,
    /// The attribute and method names from the constructed (or returned) object to the target,
    /// in order: what a caller can check with getattr.
    pub chain: Vec<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct UsagePaths {
    pub package: String,
    pub version: String,
    pub qualified_name: String,
    pub kind: String,
    pub paths: Vec<UsagePath>,
    /// Why there is no path, when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A related entity of `related`.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct RelatedEntity {
    /// returns | takes | attribute | held_by | returned_by | taken_by | base | subclass |
    /// requests | wraps | wrapped_by | same_symbol
    pub relation: String,
    pub qualified_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The attribute or parameter name, when the relation has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The package of the related entity when it is another one (wraps, wrapped_by).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// `file:line` of the evidence (absent for same_symbol).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// For same_symbol: the other releases that have it; for wraps and wrapped_by: the
    /// releases of `package` that have the related entity.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct Related {
    pub package: String,
    pub version: String,
    pub qualified_name: String,
    pub kind: String,
    pub related: Vec<RelatedEntity>,
}

impl UsagePaths {
    /// The answer as text: each path's snippet, then its steps with the facts they rest on.
    pub fn text(&self, release: &str) -> String {
        let mut t = format!(
            "usage paths to {} ({}) in {release}",
            self.qualified_name, self.kind
        );
        if let Some(n) = &self.note {
            t.push_str(&format!(
                "
{n}"
            ));
        }
        for p in &self.paths {
            t.push_str(&format!(
                "

path {}:
{}
steps:",
                p.rank, p.snippet
            ));
            for s in &p.steps {
                t.push_str(&format!(
                    "
- {} `{}` ({}",
                    s.action, s.code, s.source
                ));
                if let Some(e) = &s.evidence {
                    t.push_str(&format!(": {e}"));
                }
                t.push(')');
            }
        }
        t
    }
}

impl Related {
    /// The answer as text, one line per related entity.
    pub fn text(&self, release: &str) -> String {
        let mut t = format!(
            "related to {} ({}) in {release}:",
            self.qualified_name, self.kind
        );
        if self.related.is_empty() {
            t.push_str(" nothing recorded");
        }
        for r in &self.related {
            t.push_str(&format!(
                "
- {} {}",
                r.relation, r.qualified_name
            ));
            if let Some(n) = &r.name {
                t.push_str(&format!(" (as {n})"));
            }
            if let Some(p) = &r.package {
                t.push_str(&format!(" of {p}"));
            }
            if !r.versions.is_empty() {
                t.push_str(&format!(" in {}", r.versions.join(", ")));
            }
            if let (Some(src), Some(e)) = (&r.source, &r.evidence) {
                t.push_str(&format!(" [{src}: {e}]"));
            }
        }
        t
    }
}

/// The relations `related` accepts for its `relation` filter.
pub const RELATED_KINDS: &[&str] = &[
    "returns",
    "takes",
    "attribute",
    "held_by",
    "returned_by",
    "taken_by",
    "base",
    "subclass",
    "requests",
    "wraps",
    "wrapped_by",
    "same_symbol",
];
/// One usage path being written: its steps, the code lines of its snippet, the attribute
/// chain, the expression reached so far and the imports it needs.
struct Draft {
    javascript: bool,
    steps: Vec<UsageStep>,
    lines: Vec<String>,
    chain: Vec<String>,
    expr: String,
    imports: Vec<String>,
}

impl Draft {
    fn new(javascript: bool) -> Self {
        Draft {
            javascript,
            steps: Vec::new(),
            lines: Vec::new(),
            chain: Vec::new(),
            expr: String::new(),
            imports: Vec::new(),
        }
    }

    /// Imports `qname` (once per snippet) as a step; returns the local name it is bound to.
    fn import(&mut self, qname: &str, d: &ApiDetail) -> String {
        let (line, local) = import_line(qname, self.javascript);
        if !self.imports.contains(&line) {
            self.imports.push(line.clone());
        }
        self.steps.push(UsageStep {
            action: "import".into(),
            code: line,
            symbol: qname.to_string(),
            attribute: None,
            source: source_of(d),
            evidence: None,
            gives: None,
        });
        local
    }

    /// The steps of a route through the relation graph: constructions, factory calls,
    /// attributes and calls, each citing the relation it rests on.
    fn follow(
        &mut self,
        edges: &[Edge],
        graph: &UsageGraph,
        detail: &mut dyn FnMut(&str) -> Result<ApiDetail, UsageError>,
    ) -> Result<(), UsageError> {
        for e in edges {
            let relation = e.relation.map(|i| &graph.relations[i]);
            match e.via {
                Via::Construct => {
                    let d = detail(&e.symbol)?;
                    let local = self.import(&e.symbol, &d);
                    let var = variable_for(&e.symbol, self.javascript);
                    let args = call_args(&d);
                    let code = if self.javascript {
                        format!("const {var} = new {local}({args});")
                    } else {
                        format!("{var} = {local}({args})")
                    };
                    self.steps.push(UsageStep {
                        action: "construct".into(),
                        code: code.clone(),
                        symbol: e.symbol.clone(),
                        attribute: None,
                        source: source_of(&d),
                        evidence: d.signature.clone(),
                        gives: Some(e.symbol.clone()),
                    });
                    self.lines.push(code);
                    self.expr = var;
                }
                Via::Factory => {
                    let d = detail(&e.symbol)?;
                    let r = relation;
                    let owner = parent_of(&e.symbol)
                        .filter(|p| graph.instance.contains_key(*p))
                        .map(str::to_string);
                    let callee = match &owner {
                        Some(class) => {
                            let cd = detail(class)?;
                            let local = self.import(class, &cd);
                            format!(
                                "{local}.{}",
                                e.symbol.rsplit('.').next().unwrap_or(&e.symbol)
                            )
                        }
                        None => self.import(&e.symbol, &d),
                    };
                    let object = r.map(|r| r.object.clone()).unwrap_or_default();
                    let var = variable_for(&object, self.javascript);
                    let call = format!("{callee}({})", call_args(&d));
                    let code = if self.javascript {
                        format!("const {var} = {call};")
                    } else {
                        format!("{var} = {call}")
                    };
                    self.steps.push(UsageStep {
                        action: "call".into(),
                        code: code.clone(),
                        symbol: e.symbol.clone(),
                        attribute: None,
                        source: r.map(|r| at(&r.file, r.line)).unwrap_or_default(),
                        evidence: r.map(|r| r.evidence.clone()),
                        gives: r.map(|r| r.object.clone()),
                    });
                    self.lines.push(code);
                    self.expr = var;
                }
                Via::Attribute => {
                    // Attribute and call edges are built from a relation.
                    let Some(r) = relation else { continue };
                    let a = r.name.clone().unwrap_or_default();
                    self.expr = format!("{}.{a}", self.expr);
                    self.chain.push(a.clone());
                    self.steps.push(UsageStep {
                        action: "attribute".into(),
                        code: format!(".{a}"),
                        symbol: r.subject.clone(),
                        attribute: Some(a),
                        source: at(&r.file, r.line),
                        evidence: Some(r.evidence.clone()),
                        gives: Some(r.object.clone()),
                    });
                }
                Via::Call => {
                    // Attribute and call edges are built from a relation.
                    let Some(r) = relation else { continue };
                    let m = r.subject.rsplit('.').next().unwrap_or(&r.subject);
                    // A property is read, not called: no need for its parameters.
                    let read = matches!(
                        graph.kinds.get(&r.subject).map(String::as_str),
                        Some("property" | "attribute")
                    );
                    let code = if read {
                        format!(".{m}")
                    } else {
                        format!(".{m}({})", call_args(&detail(&r.subject)?))
                    };
                    self.expr.push_str(&code);
                    self.chain.push(m.to_string());
                    self.steps.push(UsageStep {
                        action: if read {
                            "attribute".into()
                        } else {
                            "call".into()
                        },
                        code,
                        symbol: r.subject.clone(),
                        attribute: None,
                        source: at(&r.file, r.line),
                        evidence: Some(r.evidence.clone()),
                        gives: Some(r.object.clone()),
                    });
                }
                Via::IsA => {}
            }
        }
        Ok(())
    }

    /// The goal, a member of the instance reached: read or called on it.
    fn use_member(&mut self, target: &ApiDetail) {
        let q = &target.qualified_name;
        let m = q.rsplit('.').next().unwrap_or(q);
        let code = if matches!(target.kind.as_str(), "property" | "attribute") {
            format!(".{m}")
        } else {
            format!(".{m}({})", call_args(target))
        };
        self.chain.push(m.to_string());
        self.steps.push(UsageStep {
            action: if code.ends_with(')') {
                "call".into()
            } else {
                "attribute".into()
            },
            code: code.clone(),
            symbol: q.clone(),
            attribute: None,
            source: source_of(target),
            evidence: target.signature.clone(),
            gives: None,
        });
        let last = format!("{}{code}", self.expr);
        self.lines.push(if self.javascript {
            format!("{last};")
        } else {
            last
        });
    }

    /// The goal is the instance itself, reached through attributes: the expression ends the
    /// snippet unless a line holds it already.
    fn end_on_instance(&mut self) {
        if !self.expr.is_empty() && !self.lines.last().is_some_and(|l| l.contains(&self.expr)) {
            let expr = self.expr.clone();
            self.lines.push(if self.javascript {
                format!("{expr};")
            } else {
                expr
            });
        }
    }

    fn into_path(self, rank: usize) -> UsagePath {
        let mut snippet = self.imports.join("\n");
        snippet.push_str("\n\n");
        snippet.push_str(&self.lines.join("\n"));
        UsagePath {
            rank,
            steps: self.steps,
            snippet,
            chain: self.chain,
        }
    }
}

fn source_of(detail: &ApiDetail) -> String {
    match (&detail.source.file, detail.source.line) {
        (Some(f), Some(l)) => format!("{f}:{l}"),
        (Some(f), None) => f.clone(),
        _ => detail.defined_in.clone().unwrap_or_default(),
    }
}

fn at(file: &str, line: usize) -> String {
    if line > 0 {
        format!("{file}:{line}")
    } else {
        file.to_string()
    }
}

/// `StripeClient` -> `stripe_client`, `HTTPClient` -> `http_client`; JavaScript gets the
/// same words in camelCase: `stripeClient`, `openAi`.
fn variable_for(class: &str, javascript: bool) -> String {
    let short = crate::model::last_component(class);
    let mut snake = String::new();
    let chars: Vec<char> = short.chars().collect();
    for (i, ch) in chars.iter().enumerate() {
        if ch.is_uppercase() {
            let prev_lower = i > 0 && chars[i - 1].is_lowercase();
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || next_lower && chars[i - 1].is_uppercase()) {
                snake.push('_');
            }
            snake.extend(ch.to_lowercase());
        } else {
            snake.push(*ch);
        }
    }
    if snake.is_empty() {
        return "value".into();
    }
    if !javascript {
        return snake;
    }
    let mut camel = String::new();
    for (i, word) in snake.split('_').filter(|w| !w.is_empty()).enumerate() {
        let mut c = word.chars();
        if let Some(f) = c.next() {
            if i == 0 {
                camel.push(f);
            } else {
                camel.extend(f.to_uppercase());
            }
            camel.extend(c);
        }
    }
    camel
}

/// The arguments a call needs: the required parameters by name, keyword-only ones as
/// `name=name` (Python).
fn call_args(detail: &ApiDetail) -> String {
    detail
        .params
        .iter()
        .filter(|p| p.required)
        .map(|p| {
            if p.kind == "keyword_only" {
                format!("{0}={0}", p.name)
            } else {
                p.name.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a user imports a public name: Python `from a.b import C`, JavaScript
/// `import { C } from "pkg"` (the head of the export path for nested ones).
fn import_line(qname: &str, javascript: bool) -> (String, String) {
    if javascript {
        let (spec, path) = qname.split_once(':').unwrap_or((qname, qname));
        let head = path.split('.').next().unwrap_or(path);
        if head == "default" {
            let local = variable_for(spec.rsplit('/').next().unwrap_or(spec), true)
                .replace(['-', '@', '.'], "_");
            let expr = path.replacen("default", &local, 1);
            return (format!("import {local} from \"{spec}\";"), expr);
        }
        return (
            format!("import {{ {head} }} from \"{spec}\";"),
            path.to_string(),
        );
    }
    match qname.rsplit_once('.') {
        Some((module, name)) => (format!("from {module} import {name}"), name.to_string()),
        None => (format!("import {qname}"), qname.to_string()),
    }
}

/// Why a usage path or a symbol's relations could not be given.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// The symbol itself: its release, or its name.
    #[error(transparent)]
    Lookup(#[from] LookupError),
    #[error("invalid argument: {0}")]
    BadArgument(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Failure for UsageError {
    fn kind(&self) -> ErrorKind {
        match self {
            UsageError::Lookup(e) => e.kind(),
            UsageError::BadArgument(_) => ErrorKind::BadInput,
            UsageError::Store(_) => ErrorKind::Internal,
        }
    }
    fn wraps(&self) -> Option<&dyn Failure> {
        match self {
            UsageError::Lookup(e) => Some(e),
            _ => None,
        }
    }
}

/// Answers that follow relations: [`Engine::usage`].
pub struct UsageService<'e> {
    pub(super) e: &'e Engine,
}

impl UsageService<'_> {
    fn usage_graph(&self, release: &str) -> Result<Arc<UsageGraph>, UsageError> {
        let generation = self.e.store.generation();
        {
            let mut cache = self.e.usage.lock().expect("cache lock");
            if cache.0 != generation {
                cache.1.clear();
                cache.0 = generation;
            }
            if let Some(g) = cache.1.get(release) {
                return Ok(g.clone());
            }
        }
        // The name table is the candidate ranker's, loaded (or cached) once for both.
        let names = self.e.names_of(release)?;
        let relations = parse_table(
            &self
                .e
                .store
                .text_of(release, release, rg::RELATION_TABLE.as_str())?
                .unwrap_or_default(),
        );
        let mut constructors: HashMap<String, Vec<Option<String>>> = HashMap::new();
        for row in self
            .e
            .store
            .select(&queries::constructor_params, &[("release", iri(release))])?
        {
            if let Some(class) = get_str(&row, "class") {
                constructors
                    .entry(class)
                    .or_default()
                    .push(get_str(&row, "annotation"));
            }
        }
        let graph = Arc::new(UsageGraph::build(&names.text, relations, &constructors));
        let mut cache = self.e.usage.lock().expect("cache lock");
        if cache.0 == generation {
            cache.1.put(release.to_string(), graph.clone());
        }
        Ok(graph)
    }

    /// The shortest ways to reach `name` from what a user imports, best first.
    pub fn usage_paths(
        &self,
        chosen: &Chosen,
        name: &str,
        limit: usize,
    ) -> Result<UsagePaths, UsageError> {
        let target = self.e.lookup().api_detail(chosen, name)?;
        let rel = &chosen.release;
        let graph = self.usage_graph(&rel.release)?;
        let javascript = rel.ecosystem == Ecosystem::Npm;
        let q = target.qualified_name.clone();
        let mut out = UsagePaths {
            package: rel.package.clone(),
            version: chosen.version_line(),
            qualified_name: q.clone(),
            kind: target.kind.clone(),
            paths: vec![],
            note: None,
        };
        let mut details: HashMap<String, ApiDetail> = HashMap::new();
        details.insert(q.clone(), target.clone());
        let mut detail = |n: &str| -> Result<ApiDetail, UsageError> {
            if let Some(d) = details.get(n) {
                return Ok(d.clone());
            }
            let d = self.e.lookup().api_detail(chosen, n)?;
            details.insert(n.to_string(), d.clone());
            Ok(d)
        };
        match target.kind.as_str() {
            "module" => {
                let code = if javascript {
                    format!("import * as mod from \"{q}\";")
                } else {
                    format!("import {q}")
                };
                out.paths.push(UsagePath {
                    rank: 1,
                    steps: vec![UsageStep {
                        action: "import".into(),
                        code: code.clone(),
                        symbol: q.clone(),
                        attribute: None,
                        source: source_of(&target),
                        evidence: None,
                        gives: None,
                    }],
                    snippet: code,
                    chain: vec![],
                });
                return Ok(out);
            }
            "operation" | "schema" => {
                out.note = Some(
                    "an OpenAPI operation or schema is reached over HTTP, not imported; see \
                     get_api_detail for its method and path"
                        .into(),
                );
                return Ok(out);
            }
            _ => {}
        }
        let member = target.kind != "function"
            && target.kind != "class"
            && target.kind != "interface"
            && parent_of(&q).is_some_and(|p| graph.instance.contains_key(p));
        let goal_class = if member {
            parent_of(&q).map(str::to_string)
        } else if matches!(target.kind.as_str(), "class" | "interface") {
            Some(q.clone())
        } else {
            None
        };
        // (edges from the start, final call on the class itself for class/static methods)
        let mut routes: Vec<(f64, Vec<Edge>, bool)> = Vec::new();
        if let Some(goal) = &goal_class {
            for (cost, edges) in graph.paths_to(goal, limit.max(1) * 2) {
                routes.push((cost, edges, false));
            }
            if matches!(target.kind.as_str(), "classmethod" | "staticmethod") {
                routes.push((COST_FACTORY, vec![], true));
            }
        } else {
            // A module-level function (or a member of something that is not a class here).
            routes.push((COST_FACTORY, vec![], false));
        }
        routes.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.len().cmp(&b.1.len())));
        for (_, edges, on_class) in routes {
            if out.paths.len() >= limit {
                break;
            }
            let mut draft = Draft::new(javascript);
            if edges.is_empty() && !on_class && goal_class.is_none() {
                // Import the function and call it.
                let local = draft.import(&q, &target);
                let call = format!("{local}({})", call_args(&target));
                draft.steps.push(UsageStep {
                    action: "call".into(),
                    code: call.clone(),
                    symbol: q.clone(),
                    attribute: None,
                    source: source_of(&target),
                    evidence: None,
                    gives: None,
                });
                draft.lines.push(call);
            } else if on_class {
                let class = goal_class.clone().unwrap_or_default();
                let cd = detail(&class)?;
                let local = draft.import(&class, &cd);
                let m = q.rsplit('.').next().unwrap_or(&q);
                let call = format!("{local}.{m}({})", call_args(&target));
                draft.steps.push(UsageStep {
                    action: "call".into(),
                    code: format!(".{m}({})", call_args(&target)),
                    symbol: q.clone(),
                    attribute: None,
                    source: source_of(&target),
                    evidence: None,
                    gives: None,
                });
                draft.chain.push(m.to_string());
                draft.lines.push(call);
            } else {
                draft.follow(&edges, &graph, &mut detail)?;
                if member {
                    draft.use_member(&target);
                } else {
                    draft.end_on_instance();
                }
            }
            let path = draft.into_path(out.paths.len() + 1);
            if !out.paths.iter().any(|p| p.snippet == path.snippet) {
                out.paths.push(path);
            }
        }
        if out.paths.is_empty() {
            out.note = Some(format!(
                "no path found: nothing in {} that a user imports leads to {} through the \
                 relations refgraph knows (attribute types, return types, bases)",
                rel.release, q
            ));
        }
        Ok(out)
    }

    /// What `name` is linked to in the chosen release, and the releases that have it too.
    pub fn related(
        &self,
        chosen: &Chosen,
        name: &str,
        relation: Option<&str>,
    ) -> Result<Related, UsageError> {
        if let Some(r) = relation
            && !RELATED_KINDS.contains(&r)
        {
            return Err(UsageError::BadArgument(format!(
                "unknown relation '{r}': use one of {}",
                RELATED_KINDS.join(", ")
            )));
        }
        let target = self.e.lookup().api_detail(chosen, name)?;
        let rel = &chosen.release;
        let graph = self.usage_graph(&rel.release)?;
        let q = target.qualified_name.as_str();
        let mut out: Vec<RelatedEntity> = Vec::new();
        let kind_of = |n: &str| graph.kinds.get(n).cloned();
        for r in &graph.relations {
            if r.kind == RelationKind::Requests {
                if r.subject == q {
                    out.push(RelatedEntity {
                        relation: "requests".into(),
                        qualified_name: r.name.clone().unwrap_or_else(|| r.object.clone()),
                        kind: Some("endpoint".into()),
                        name: None,
                        package: None,
                        source: Some(at(&r.file, r.line)),
                        evidence: Some(r.evidence.clone()),
                        versions: vec![],
                    });
                }
                continue;
            }
            let (label, other) = if r.subject == q {
                let label = match r.kind {
                    RelationKind::Returns => "returns",
                    RelationKind::Parameter => "takes",
                    RelationKind::Attribute => "attribute",
                    RelationKind::Extends => "base",
                    RelationKind::Requests => continue,
                };
                (label, &r.object)
            } else if r.object == q {
                let label = match r.kind {
                    RelationKind::Returns => "returned_by",
                    RelationKind::Parameter => "taken_by",
                    RelationKind::Attribute => "held_by",
                    RelationKind::Extends => "subclass",
                    RelationKind::Requests => continue,
                };
                (label, &r.subject)
            } else {
                continue;
            };
            out.push(RelatedEntity {
                relation: label.into(),
                qualified_name: other.clone(),
                kind: kind_of(other),
                name: r.name.clone(),
                package: None,
                source: Some(at(&r.file, r.line)),
                evidence: Some(r.evidence.clone()),
                versions: vec![],
            });
        }
        // Across packages: the OpenAPI operations the method's requests hit, or the SDK
        // methods whose requests hit the operation.
        if relation.is_none_or(|r| r == "wraps") {
            let requests: Vec<&RelationRow> = graph
                .relations
                .iter()
                .filter(|r| r.kind == RelationKind::Requests && r.subject == q)
                .collect();
            out.extend(self.wrapped_operations(&rel.package, &requests)?);
        }
        if relation.is_none_or(|r| r == "wrapped_by")
            && let Some(http) = &target.http
        {
            out.extend(self.wrapping_methods(rel, http)?);
        }
        // The same symbol in the other indexed releases of the package.
        if relation.is_none_or(|r| r == "same_symbol") {
            let mut versions = Vec::new();
            for v in self.e.indexed_versions(&rel.package)? {
                if v == rel.version {
                    continue;
                }
                let release = format!("{}@{v}", rel.package);
                if !self.e.resolve_name(&release, q)?.is_empty() {
                    versions.push(v);
                }
            }
            if !versions.is_empty() {
                out.push(RelatedEntity {
                    relation: "same_symbol".into(),
                    qualified_name: q.to_string(),
                    kind: Some(target.kind.clone()),
                    name: None,
                    package: None,
                    source: None,
                    evidence: None,
                    versions,
                });
            }
        }
        if let Some(r) = relation {
            out.retain(|e| e.relation == r);
        }
        let order = |l: &str| RELATED_KINDS.iter().position(|k| *k == l).unwrap_or(99);
        out.sort_by(|a, b| {
            order(&a.relation)
                .cmp(&order(&b.relation))
                .then_with(|| a.qualified_name.cmp(&b.qualified_name))
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.package.cmp(&b.package))
        });
        Ok(Related {
            package: rel.package.clone(),
            version: chosen.version_line(),
            qualified_name: q.to_string(),
            kind: target.kind.clone(),
            related: out,
        })
    }
}

/// The path of a server URL, the prefix it puts before every operation path:
/// `https://api.openai.com/v1` -> `/v1`. `None` when it adds none.
fn server_path(url: &str) -> Option<String> {
    let path = match url.split_once("://") {
        Some((_, rest)) => &rest[rest.find('/')?..],
        None if url.starts_with('/') => url,
        None => return None,
    };
    let path = path.trim_end_matches('/');
    (!path.is_empty()).then(|| path.to_string())
}

/// `POST /v1/chat/completions` -> (`/v1`, `POST /chat/completions`), (`/v1/chat`,
/// `POST /completions`): the key with one or two leading path segments taken off as the
/// base path a server URL may supply. Prefixes with parameters are not taken off.
fn without_base_path(key: &str) -> Vec<(String, String)> {
    let Some((method, path)) = key.split_once(' ') else {
        return vec![];
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    (1..=2)
        .filter(|k| segments.len() > *k && !segments[..*k].iter().any(|s| s.contains('{')))
        .map(|k| {
            (
                format!("/{}", segments[..k].join("/")),
                format!("{method} /{}", segments[k..].join("/")),
            )
        })
        .collect()
}

impl UsageService<'_> {
    /// The releases by IRI: cross-package answers only name complete, indexed releases.
    fn releases_by_iri(&self) -> Result<HashMap<String, super::ReleaseInfo>, UsageError> {
        Ok(self
            .e
            .releases()?
            .into_iter()
            .map(|r| (r.release.clone(), r))
            .collect())
    }

    /// An operation's servers: its own (`own`, from `rg:server` on the operation), else the
    /// service's, as its release states them.
    fn operation_servers(
        &self,
        release: &str,
        own: Vec<String>,
    ) -> Result<Vec<String>, UsageError> {
        if !own.is_empty() {
            return Ok(own);
        }
        Ok(self
            .e
            .facts_of(release, release)?
            .remove(crate::vocab::rg::SERVER.as_str())
            .unwrap_or_default())
    }

    /// The OpenAPI operations, in any indexed package but `own`, whose endpoint key is the
    /// key of one of `requests`, directly or after a server URL's base path
    /// (`/v1` + `POST /chat/completions`). One entry per package and operation, with every
    /// release that has it and the newest one's source.
    fn wrapped_operations(
        &self,
        own: &str,
        requests: &[&RelationRow],
    ) -> Result<Vec<RelatedEntity>, UsageError> {
        let releases = self.releases_by_iri()?;
        // (package, operation) -> its releases; from the newest: (symbol, how it matched)
        let mut found: HashMap<(String, String), InReleases<(String, String)>> = HashMap::new();
        for r in requests {
            let mut keys = vec![(None, r.object.clone())];
            keys.extend(
                without_base_path(&r.object)
                    .into_iter()
                    .map(|(p, k)| (Some(p), k)),
            );
            for (base, key) in keys {
                let rows = self.e.store.select(
                    &queries::operations_by_endpoint,
                    &[("key", super::lit(&key))],
                )?;
                for row in rows {
                    let (Some(release), Some(symbol), Some(qname)) = (
                        get_str(&row, "release"),
                        get_str(&row, "symbol"),
                        get_str(&row, "qname"),
                    ) else {
                        continue;
                    };
                    let Some(info) = releases.get(&release) else {
                        continue;
                    };
                    if info.package == own {
                        continue;
                    }
                    if let Some(base) = &base {
                        // Only when the operation's servers put that base path first.
                        let own_servers = self
                            .e
                            .facts_of(&release, &symbol)?
                            .remove(crate::vocab::rg::SERVER.as_str())
                            .unwrap_or_default();
                        if !self
                            .operation_servers(&release, own_servers)?
                            .iter()
                            .any(|s| server_path(s).as_deref() == Some(base.as_str()))
                        {
                            continue;
                        }
                    }
                    let how = format!(
                        "{} at {}{}",
                        r.evidence,
                        at(&r.file, r.line),
                        base.as_deref()
                            .map(|b| format!(" (the server URL gives the base path {b})"))
                            .unwrap_or_default(),
                    );
                    found
                        .entry((info.package.clone(), qname))
                        .or_default()
                        .add(info, (symbol, how));
                }
            }
        }
        let mut out = Vec::new();
        for ((package, qname), hit) in found {
            let (versions, newest, (symbol, how)) = hit.finish();
            let detail = self.e.lookup().detail_of(&releases[&newest], &symbol)?;
            // The spec pointer of the operation: `openapi.yaml#/paths/~1customers/post`.
            let source = match (&detail.http, &detail.source.file) {
                (Some(h), Some(file)) => format!(
                    "{file}#/paths/{}/{}",
                    crate::extract::openapi::refs::escape_token(&h.path),
                    h.method.to_ascii_lowercase()
                ),
                _ => source_of(&detail),
            };
            out.push(RelatedEntity {
                relation: "wraps".into(),
                qualified_name: qname,
                kind: Some(detail.kind.clone()),
                name: detail
                    .http
                    .as_ref()
                    .map(|h| format!("{} {}", h.method, h.path)),
                package: Some(package),
                source: Some(source),
                evidence: Some(how),
                versions,
            });
        }
        Ok(out)
    }

    /// The callables, in any indexed package but `own`, whose bodies request the operation's
    /// endpoint, directly or with a base path of its servers in front.
    fn wrapping_methods(
        &self,
        rel: &super::ReleaseInfo,
        http: &super::HttpOut,
    ) -> Result<Vec<RelatedEntity>, UsageError> {
        let Some(key) = &http.endpoint_key else {
            return Ok(vec![]);
        };
        let own = rel.package.as_str();
        let releases = self.releases_by_iri()?;
        let mut keys = vec![(None, key.clone())];
        let servers = self.operation_servers(&rel.release, http.servers.clone())?;
        let mut bases: Vec<String> = servers.iter().filter_map(|s| server_path(s)).collect();
        bases.sort();
        bases.dedup();
        if let Some((method, path)) = key.split_once(' ') {
            keys.extend(
                bases
                    .into_iter()
                    .map(|b| (Some(b.clone()), format!("{method} {b}{path}"))),
            );
        }
        // (package, callable) -> its releases; the entry from the newest
        let mut found: HashMap<(String, String), InReleases<RelatedEntity>> = HashMap::new();
        for (base, key) in keys {
            let rows = self
                .e
                .store
                .select(&queries::requests_by_key, &[("key", super::lit(&key))])?;
            for row in rows {
                let (Some(release), Some(qname)) =
                    (get_str(&row, "release"), get_str(&row, "qname"))
                else {
                    continue;
                };
                let Some(info) = releases.get(&release) else {
                    continue;
                };
                if info.package == own {
                    continue;
                }
                let line = super::get_int(&row, "line").unwrap_or(0) as usize;
                let file = get_str(&row, "file").unwrap_or_default();
                let request = get_str(&row, "request").unwrap_or_default();
                let entry = RelatedEntity {
                    relation: "wrapped_by".into(),
                    qualified_name: qname.clone(),
                    kind: None,
                    name: Some(request.clone()),
                    package: Some(info.package.clone()),
                    source: Some(at(&file, line)),
                    evidence: Some(format!(
                        "{}{}",
                        get_str(&row, "evidence").unwrap_or_default(),
                        base.as_deref()
                            .map(|b| format!(" (the server URL gives the base path {b})"))
                            .unwrap_or_default()
                    )),
                    versions: vec![],
                };
                found
                    .entry((info.package.clone(), qname))
                    .or_default()
                    .add(info, entry);
            }
        }
        let mut out = Vec::new();
        for ((_, qname), hit) in found {
            let (versions, newest, mut entry) = hit.finish();
            let info = &releases[&newest];
            entry.kind = self
                .e
                .resolve_name(&info.release, &qname)?
                .first()
                .map(|(symbol, _, _)| self.e.lookup().detail_of(info, symbol))
                .transpose()?
                .map(|d| d.kind);
            entry.versions = versions;
            out.push(entry);
        }
        Ok(out)
    }
}

/// One entity found in several releases of a package: the versions that have it, and a
/// payload from the newest of them.
struct InReleases<T> {
    /// The order of the versions; every release of one package shares it.
    ecosystem: Option<Ecosystem>,
    versions: Vec<String>,
    /// (release IRI, version, payload)
    newest: Option<(String, String, T)>,
}

impl<T> Default for InReleases<T> {
    fn default() -> Self {
        InReleases {
            ecosystem: None,
            versions: Vec::new(),
            newest: None,
        }
    }
}

impl<T> InReleases<T> {
    fn add(&mut self, release: &super::ReleaseInfo, payload: T) {
        let (ecosystem, version) = (release.ecosystem, release.version.as_str());
        self.ecosystem = Some(ecosystem);
        let key = |v: &str| crate::version::version_key(ecosystem, v);
        if !self.versions.iter().any(|v| v == version) {
            self.versions.push(version.to_string());
        }
        if self
            .newest
            .as_ref()
            .is_none_or(|(_, v, _)| key(version) > key(v))
        {
            self.newest = Some((release.release.clone(), version.to_string(), payload));
        }
    }

    /// The versions oldest first, the newest release's IRI and its payload.
    fn finish(mut self) -> (Vec<String>, String, T) {
        if let Some(ecosystem) = self.ecosystem {
            self.versions
                .sort_by_key(|v| crate::version::version_key(ecosystem, v));
        }
        let (release, _, payload) = self.newest.expect("an entity is found in a release");
        (self.versions, release, payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entity_in_several_releases_keeps_the_newest_payload() {
        let release = |iri: &str, version: &str| super::super::ReleaseInfo {
            package: "pkg:npm/x".into(),
            ecosystem: Ecosystem::Npm,
            name: "x".into(),
            version: version.into(),
            release: iri.into(),
            symbols: 0,
            ingested_at: String::new(),
            source: String::new(),
            facts_version: 0,
            stale: false,
            docs_added_at: None,
        };
        let mut e = InReleases::default();
        e.add(&release("r2", "2.0.0"), "two");
        e.add(&release("r10", "10.0.0"), "ten");
        e.add(&release("r2", "2.0.0"), "two again");
        e.add(&release("r9", "9.1.0"), "nine");
        assert_eq!(
            e.finish(),
            (
                vec!["2.0.0".to_string(), "9.1.0".into(), "10.0.0".into()],
                "r10".to_string(),
                "ten"
            )
        );
    }

    #[test]
    fn server_base_paths() {
        assert_eq!(
            server_path("https://api.openai.com/v1").as_deref(),
            Some("/v1")
        );
        assert_eq!(server_path("https://api.stripe.com/").as_deref(), None);
        assert_eq!(server_path("https://api.stripe.com").as_deref(), None);
        assert_eq!(server_path("/api/v2/").as_deref(), Some("/api/v2"));
        assert_eq!(
            without_base_path("POST /v1/chat/completions"),
            vec![
                ("/v1".to_string(), "POST /chat/completions".to_string()),
                ("/v1/chat".to_string(), "POST /completions".to_string())
            ]
        );
        assert!(without_base_path("GET /{}/x").is_empty());
        assert!(without_base_path("GET /files").is_empty());
    }

    fn row(kind: RelationKind, s: &str, name: Option<&str>, o: &str) -> RelationRow {
        RelationRow {
            kind,
            subject: s.into(),
            name: name.map(str::to_string),
            object: o.into(),
            file: "f.py".into(),
            line: 1,
            evidence: String::new(),
        }
    }

    #[test]
    fn the_holder_path_ranks_before_constructing_a_service() {
        let names = "p.Client\tp.Client\tclass\np.Service\tp.Service\tclass\n\
                     p.Service.create\tp.Service.create\tmethod\n";
        let constructors = HashMap::from([
            ("p.Client".to_string(), vec![Some("str".to_string())]),
            ("p.Service".to_string(), vec![Some("Requestor".to_string())]),
        ]);
        let g = UsageGraph::build(
            names,
            vec![row(
                RelationKind::Attribute,
                "p.Client",
                Some("service"),
                "p.Service",
            )],
            &constructors,
        );
        let paths = g.paths_to("p.Service", 3);
        assert_eq!(paths.len(), 2);
        let first: Vec<_> = paths[0]
            .1
            .iter()
            .map(|e| (e.via, e.symbol.as_str()))
            .collect();
        assert_eq!(
            first,
            vec![(Via::Construct, "p.Client"), (Via::Attribute, "p.Client")]
        );
        let second: Vec<_> = paths[1]
            .1
            .iter()
            .map(|e| (e.via, e.symbol.as_str()))
            .collect();
        assert_eq!(second, vec![(Via::Construct, "p.Service")]);
    }

    #[test]
    fn plain_values_are_told_from_objects() {
        for plain in [
            "str",
            "Optional[str]",
            "int | None",
            "string",
            "\"str\"",
            "Literal['a']",
        ] {
            assert!(is_plain_value(plain), "{plain}");
        }
        for object in [
            "Requestor",
            "Optional[Version]",
            "Core.APIClient",
            "Dict[str, Any]",
        ] {
            assert!(!is_plain_value(object), "{object}");
        }
    }

    #[test]
    fn names_become_variables_and_imports() {
        assert_eq!(variable_for("stripe.StripeClient", false), "stripe_client");
        assert_eq!(variable_for("p.HTTPClient", false), "http_client");
        assert_eq!(variable_for("openai:OpenAI", true), "openAi");
        assert_eq!(variable_for("pkg:HTTPClient", true), "httpClient");
        assert_eq!(
            import_line("stripe.StripeClient", false),
            (
                "from stripe import StripeClient".into(),
                "StripeClient".into()
            )
        );
        assert_eq!(
            import_line("openai:OpenAI", true),
            ("import { OpenAI } from \"openai\";".into(), "OpenAI".into())
        );
        assert_eq!(
            parent_of("pkg:Client.files.create"),
            Some("pkg:Client.files")
        );
        assert_eq!(parent_of("pkg:Client"), None);
        assert_eq!(parent_of("a.B.m"), Some("a.B"));
    }

    #[test]
    fn relation_tables_round_trip() {
        let rows = parse_table("attribute\ta.C\tx\ta.D\ta/c.py\t12\tself.x = D(self)\nbogus\t\n");
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].name.as_deref(), Some("x"));
        assert_eq!(rows[0].line, 12);
        assert_eq!(rows[0].evidence, "self.x = D(self)");
    }
}
