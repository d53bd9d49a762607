//! Facts to quads: the only place that mints IRIs.

use oxigraph::model::{GraphName, Literal, NamedNode, NamedNodeRef, Quad, Term};

use crate::model::{
    Ecosystem, Mention, PackageId, Param, ParamKind, Reach, RelationKind, ReleaseFacts, Symbol,
    SymbolKind,
};
use crate::vocab::{rdf, rg};

/// Where a release came from, recorded on the release node.
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    pub source: String,
    pub sha256: Option<String>,
    /// RFC 3339 timestamp.
    pub ingested_at: String,
}

/// `pkg:pypi/click#click.Group`: stable across releases of the package.
pub fn symbol_iri(package: &PackageId, qualified_name: &str) -> String {
    format!("{}#{}", package.purl(), escape_fragment(qualified_name))
}

/// IRIs may not hold spaces, quotes, brackets or a second `#`; names from sources rarely do,
/// but a hostile input must not produce an invalid IRI. Every character RFC 3987 does not allow
/// in a fragment is percent-encoded (as UTF-8), `%` included, so the text reads back exactly.
fn escape_fragment(s: &str) -> String {
    percent_encode_outside(s, is_fragment_char)
}

/// `ifragment` characters of RFC 3987: unreserved and sub-delims, `:@/?`, and the Unicode
/// ranges of `ucschar` (not private use, not noncharacters).
fn is_fragment_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:@/?".contains(c);
    }
    let u = c as u32;
    let plane_offset = u & 0xFFFF;
    (0xA0..=0xD7FF).contains(&u)
        || (0xF900..=0xFDCF).contains(&u)
        || (0xFDF0..=0xFFEF).contains(&u)
        || (0x10000..=0xEFFFD).contains(&u) && plane_offset <= 0xFFFD
}

fn percent_encode_outside(s: &str, keep: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if keep(c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

pub fn kind_class(kind: SymbolKind) -> NamedNodeRef<'static> {
    match kind {
        SymbolKind::Module => rg::MODULE,
        SymbolKind::Class => rg::CLASS,
        SymbolKind::Function => rg::FUNCTION,
        SymbolKind::Method => rg::METHOD,
        SymbolKind::Classmethod => rg::CLASS_METHOD,
        SymbolKind::Staticmethod => rg::STATIC_METHOD,
        SymbolKind::Property => rg::PROPERTY,
        SymbolKind::Attribute => rg::ATTRIBUTE,
        SymbolKind::Interface => rg::INTERFACE,
        SymbolKind::Operation => rg::OPERATION,
        SymbolKind::Schema => rg::SCHEMA,
    }
}

pub fn kind_of_class(iri: &str) -> Option<SymbolKind> {
    SymbolKind::ALL
        .into_iter()
        .find(|k| kind_class(*k).as_str() == iri)
}

struct Writer {
    graph: GraphName,
    quads: Vec<Quad>,
}

impl Writer {
    fn add(&mut self, s: &NamedNode, p: NamedNodeRef<'_>, o: impl Into<Term>) {
        self.quads
            .push(Quad::new(s.clone(), p, o.into(), self.graph.clone()));
    }
    fn str(&mut self, s: &NamedNode, p: NamedNodeRef<'_>, o: &str) {
        self.add(s, p, Literal::new_simple_literal(o));
    }
}

fn node(iri: String) -> NamedNode {
    // Every IRI here is a Package URL plus escaped text, so it is valid. Should a package name
    // or version itself hold a character an IRI may not, that character is percent-encoded
    // (the first `#` and existing escapes kept), never written as is.
    NamedNode::new(iri.clone()).unwrap_or_else(|_| {
        let (head, fragment) = iri.split_once('#').unwrap_or((&iri, ""));
        let mut fixed = escape_keeping_escapes(head);
        if iri.contains('#') {
            fixed.push('#');
            fixed.push_str(&escape_keeping_escapes(fragment));
        }
        // Every character is now one an IRI allows, or a valid `%XX`.
        NamedNode::new(fixed.clone()).unwrap_or_else(|_| NamedNode::new_unchecked(fixed))
    })
}

/// [`escape_fragment`], but a `%` that starts a valid escape (`%40` of a scoped npm name) stays.
fn escape_keeping_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('%') {
        out.push_str(&escape_fragment(&rest[..pos]));
        let hex = rest.as_bytes().get(pos + 1..pos + 3);
        if hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
            out.push_str(&rest[pos..pos + 3]);
            rest = &rest[pos + 3..];
        } else {
            out.push_str("%25");
            rest = &rest[pos + 1..];
        }
    }
    out.push_str(&escape_fragment(rest));
    out
}

/// The first paragraph of a docstring; empty when it opens with tags (a JSDoc comment of
/// `@param` lines only).
pub fn summary_of(doc: &str) -> String {
    let first = doc.split("\n\n").next().unwrap_or(doc);
    if first.trim_start().starts_with('@') {
        return String::new();
    }
    first.replace('\n', " ")
}

/// The version of the facts this build writes for a release of `ecosystem`
/// (`rg:factsVersion`). Raise an ecosystem's number with any extractor or lowering change that
/// stores different facts for the same input, so that its releases written before are known
/// to be stale: `releases` marks them, `diff` warns that their differences may be the
/// extractor's, and `sync` re-ingests them. Releases written before the property existed
/// count as 0.
///
/// - npm 1: bases stored by canonical name (`class A extends Core.APIClient` names
///   `pkg/core:APIClient`, not `Core.APIClient`). npm 2: the docstring is the whole JSDoc
///   comment (`@param`, `@returns`, `@example` kept); parameters carry their `@param` words.
///   npm 3: doc pages link fewer symbols by mistake: words of terminal sessions
///   (```console, ```sh) only when shaped like code, a bare word of a code block no class
///   member, a word after a `.` only members. Pages added with `refgraph docs` live in a graph
///   of their own that re-ingesting keeps: they keep the links they were written with until
///   added again.
/// - OpenAPI (`generic`) 1: parameters carry their descriptions.
/// - PyPI 1: the first recorded version. PyPI 2: doc links as npm 3; parameters carry the
///   words their docstring gives them (`:param x:`, `Args:`, NumPy `Parameters`); docstrings
///   read as Python reads them (escapes such as a backslash and n resolved); reStructuredText
///   READMEs and `docs/*.rst` pages read as such.
/// - PyPI 3, npm 4, OpenAPI 2: in reStructuredText pages (of any ecosystem), Sphinx roles
///   (`:meth:`) are code spans that link their symbol, and `::` blocks are code.
/// - PyPI 4: the public surface as Python builds it: `__all__` arithmetic, lazy loaders,
///   names for type checkers served by a lazy module, module variables, names of other
///   packages and of compiled modules, paths that reach a symbol without exporting it
///   (`rg:reachableAs`, `rg:boundNames`), and why a module's names cannot all be known
///   (`rg:unknownMembers`).
/// - PyPI 5: names bound by `a.b = c = x` chains, in loop bodies, by instance methods
///   (`f = Obj().method`) and by `global` in a function the module calls; names such a
///   function binds only when someone else calls it (`rg:maybeBound`); star imports pass on
///   what the imported module cannot tell; names bound only when an optional dependency is
///   installed (`rg:guardedBy`).
/// - PyPI 6: a `warnings.warn(..., DeprecationWarning)` that only some calls reach (under an
///   `if`, in an `except`) no longer deprecates its function, class or module: it deprecates
///   an argument or a way of calling (httpx 0.27's `Client`, for its `proxies` argument).
/// - PyPI 7: nor does one in a loop, a comprehension or a lambda.
/// - PyPI 8: star imports bind in statement order (a later one wins); a package shadows a
///   module file of the same name; unpacking (`A, B = ...`) binds its names; plotly's
///   `relative_import` tables are read; a name bound to a stub whose every call raises a
///   removal error is not available (`rg:raisesOnUse`).
/// - PyPI 9: where type checkers and the run time disagree on a module's names (bound only
///   under `if TYPE_CHECKING:`, declared only by the stub, missing from the stub), the module
///   says so (`rg:typeCheckerView`).
pub fn facts_version(ecosystem: Ecosystem) -> i64 {
    match ecosystem {
        Ecosystem::Npm => 4,
        Ecosystem::Pypi => 9,
        Ecosystem::Generic => 2,
    }
}

/// Lowers one release's facts into quads of its named graph.
pub fn release_quads(
    package: &PackageId,
    version: &str,
    facts: &ReleaseFacts,
    provenance: &Provenance,
) -> Vec<Quad> {
    let release = node(package.release_purl(version));
    let package_node = node(package.purl());
    let mut w = Writer {
        graph: GraphName::NamedNode(release.clone()),
        quads: Vec::with_capacity(facts.symbols.len() * 24),
    };
    w.add(&release, rdf::TYPE, rg::RELEASE);
    w.add(&release, rg::PACKAGE_PROP, package_node.clone());
    w.str(&release, rg::VERSION, version);
    w.str(&release, rg::SOURCE, &provenance.source);
    if let Some(h) = &provenance.sha256 {
        w.str(&release, rg::SHA256, h);
    }
    w.add(
        &release,
        rg::INGESTED_AT,
        Literal::new_typed_literal(
            &provenance.ingested_at,
            oxigraph::model::vocab::xsd::DATE_TIME,
        ),
    );
    w.add(
        &release,
        rg::FACTS_VERSION,
        Literal::from(facts_version(package.ecosystem)),
    );
    w.add(
        &release,
        rg::SYMBOL_COUNT,
        Literal::from(facts.symbols.len() as i64),
    );
    w.str(&release, rg::NAME_TABLE, &name_table(facts));
    if !facts.private_names.is_empty() {
        // One line each, with a newline on both ends so `CONTAINS("\nname\n")` finds one.
        let table = format!("\n{}\n", facts.private_names.join("\n"));
        w.str(&release, rg::PRIVATE_NAMES, &table);
    }
    w.add(&package_node, rdf::TYPE, rg::PACKAGE);
    w.str(&package_node, rg::ECOSYSTEM, package.ecosystem.as_str());
    w.str(&package_node, rg::PACKAGE_NAME, &package.name);
    for (i, d) in facts.diagnostics.iter().enumerate() {
        let n = node(format!("{}#diagnostic-{i}", release.as_str()));
        w.add(&release, rg::DIAGNOSTIC_PROP, n.clone());
        w.add(&n, rdf::TYPE, rg::DIAGNOSTIC);
        w.str(&n, rg::MESSAGE, &d.message);
        w.str(&n, rg::SOURCE_FILE, &d.file);
        w.add(&n, rg::LINE, Literal::from(d.line as i64));
    }
    for s in &facts.symbols {
        lower_symbol(&mut w, package, &release, s);
    }
    for (path, canonical) in &facts.reachable {
        w.str(
            &node(symbol_iri(package, canonical)),
            rg::REACHABLE_AS,
            path,
        );
    }
    for (module, names) in &facts.bound_names {
        // One per line, a newline on both ends: `CONTAINS("\nname\n")` finds one.
        let table = format!("\n{}\n", names.join("\n"));
        w.str(&node(symbol_iri(package, module)), rg::BOUND_NAMES, &table);
    }
    for (module, names, provenance) in &facts.runtime_bound {
        // The provenance on the first line, then one name per line, newline-terminated.
        let table = format!("{provenance}\n{}\n", names.join("\n"));
        w.str(
            &node(symbol_iri(package, module)),
            rg::RUNTIME_BOUND,
            &table,
        );
    }
    for (name, reason) in &facts.unknown_members {
        w.str(
            &node(symbol_iri(package, name)),
            rg::UNKNOWN_MEMBERS,
            reason,
        );
    }
    for (module, name, reason) in &facts.maybe_bound {
        // `name<TAB>reason`: the answer finds a name by its prefix.
        w.str(
            &node(symbol_iri(package, module)),
            rg::MAYBE_BOUND,
            &format!("{name}\t{reason}"),
        );
    }
    for (module, name, test) in &facts.guarded {
        w.str(
            &node(symbol_iri(package, module)),
            rg::GUARDED_BY,
            &format!("{name}\t{test}"),
        );
    }
    for (module, name, why) in &facts.raises_on_use {
        w.str(
            &node(symbol_iri(package, module)),
            rg::RAISES_ON_USE,
            &format!("{name}\t{why}"),
        );
    }
    for (module, name, view) in &facts.type_views {
        w.str(
            &node(symbol_iri(package, module)),
            rg::TYPE_CHECKER_VIEW,
            &format!("{name}\t{view}"),
        );
    }
    lower_relations(&mut w, package, &release, facts);
    lower_openapi(&mut w, package, &release, facts);
    lower_pages(&mut w, package, &release, facts);
    w.quads
}

/// How doc pages name symbols, mapped to qualified names: the name itself, its aliases, the
/// export path of a JavaScript name (`Command.option`), `Class.member`, and a short name (all
/// the symbols that have it, when it is shared by at most three). It knows which symbols are
/// class members, for mentions that may name only members or none.
pub(crate) struct MentionTable {
    /// Qualified names, aliases, export paths and `Class.member`.
    names: std::collections::HashMap<String, Vec<String>>,
    /// Last segments (`upload_file`), all the symbols that have each.
    short: std::collections::HashMap<String, Vec<String>>,
    members: std::collections::HashSet<String>,
}

/// A short name shared by more symbols than this (of the reach asked for) names none.
const MAX_SHORT_NAMESAKES: usize = 3;

impl MentionTable {
    /// `symbols`: (qualified name, aliases, kind when known).
    pub(crate) fn new<'a>(
        symbols: impl Iterator<Item = (&'a str, &'a [String], Option<SymbolKind>)>,
    ) -> Self {
        use std::collections::{HashMap, HashSet};
        let mut table: HashMap<String, Vec<String>> = HashMap::new();
        let mut short: HashMap<String, Vec<String>> = HashMap::new();
        let mut classes: HashSet<&str> = HashSet::new();
        let mut all: Vec<&str> = Vec::new();
        let put = |t: &mut HashMap<String, Vec<String>>, key: &str, q: &str| {
            let e = t.entry(key.to_string()).or_default();
            if !e.iter().any(|x| x == q) {
                e.push(q.to_string());
            }
        };
        for (q, aliases, kind) in symbols {
            all.push(q);
            if matches!(kind, Some(SymbolKind::Class | SymbolKind::Interface)) {
                classes.insert(q);
            }
            for key in std::iter::once(q).chain(aliases.iter().map(String::as_str)) {
                put(&mut table, key, q);
                if let Some((_, export)) = key.split_once(':') {
                    put(&mut table, export, q);
                }
            }
            let path = q.rsplit(':').next().unwrap_or(q);
            let parts: Vec<&str> = path.split('.').collect();
            if parts.len() >= 2 {
                put(&mut table, &parts[parts.len() - 2..].join("."), q);
            }
            if let Some(last) = parts.last() {
                put(&mut short, last, q);
            }
        }
        let members = all
            .into_iter()
            .filter(|q| {
                q.rsplit_once('.')
                    .is_some_and(|(owner, _)| classes.contains(owner))
            })
            .map(str::to_string)
            .collect();
        MentionTable {
            names: table,
            short,
            members,
        }
    }

    /// Whether `qualified_name` is a member of a class (a method, property, attribute).
    pub(crate) fn is_member(&self, qualified_name: &str) -> bool {
        self.members.contains(qualified_name)
    }

    /// The symbols a mention names, kept to members or to the rest as its reach says: the
    /// identifier whole, else by its last two segments, else by its last segment as a short
    /// name (`client.upload_file` finds the `upload_file` methods) when at most three symbols
    /// of that reach have it.
    pub(crate) fn resolve(&self, m: &Mention) -> Vec<&String> {
        let reaches = |q: &&String| match m.reach {
            Reach::Any => true,
            Reach::TopLevel => !self.members.contains(*q),
            Reach::Member => self.members.contains(*q),
        };
        let id = m.name.as_str();
        let parts: Vec<&str> = id.split('.').collect();
        let exact = self.names.get(id).or_else(|| {
            (parts.len() >= 3)
                .then(|| self.names.get(&parts[parts.len() - 2..].join(".")))
                .flatten()
        });
        if let Some(q) = exact {
            return q.iter().filter(reaches).collect();
        }
        let last = parts.last().copied().unwrap_or(id);
        if parts.len() >= 2
            && let Some(q) = self.names.get(last)
        {
            return q.iter().filter(reaches).collect();
        }
        let namesakes: Vec<&String> = self
            .short
            .get(last)
            .map(|q| q.iter().filter(reaches).collect())
            .unwrap_or_default();
        if namesakes.len() <= MAX_SHORT_NAMESAKES {
            namesakes
        } else {
            Vec::new()
        }
    }
}

fn lower_pages(w: &mut Writer, package: &PackageId, release: &NamedNode, facts: &ReleaseFacts) {
    if facts.pages.is_empty() {
        return;
    }
    let table = MentionTable::new(facts.symbols.iter().map(|s| {
        (
            s.qualified_name.as_str(),
            s.aliases.as_slice(),
            Some(s.kind),
        )
    }));
    write_pages(w, package, release, &facts.pages, &table, "doc");
}

/// The named graph that holds doc pages added to a release apart from its sources
/// (`refgraph docs`): re-ingesting the release keeps them.
pub fn docs_graph(release: &str) -> String {
    format!("{release}/docs")
}

/// Quads of doc pages added to an existing release, in its docs graph; `symbols` are the
/// release's (qualified name, aliases), for linking mentions.
pub fn docs_quads(
    package: &PackageId,
    version: &str,
    pages: &[crate::model::DocPageFacts],
    symbols: &[(String, Vec<String>, Option<SymbolKind>)],
    added_at: &str,
) -> Vec<Quad> {
    let release = node(package.release_purl(version));
    let graph = node(docs_graph(release.as_str()));
    let mut w = Writer {
        graph: GraphName::NamedNode(graph.clone()),
        quads: Vec::new(),
    };
    // When the pages were added: the text index compares it to decide what is stale.
    w.add(
        &graph,
        rg::PAGES_ADDED_AT,
        Literal::new_typed_literal(added_at, oxigraph::model::vocab::xsd::DATE_TIME),
    );
    let table = MentionTable::new(
        symbols
            .iter()
            .map(|(q, a, c)| (q.as_str(), a.as_slice(), *c)),
    );
    // `docs:`, not `doc:`: a README added here must not share IRIs with the release's own.
    write_pages(&mut w, package, &release, pages, &table, "docs");
    w.quads
}

fn write_pages(
    w: &mut Writer,
    package: &PackageId,
    release: &NamedNode,
    pages: &[crate::model::DocPageFacts],
    table: &MentionTable,
    prefix: &str,
) {
    for page in pages {
        let pn = node(format!(
            "{}#{prefix}:{}",
            release.as_str(),
            escape_fragment(&page.path)
        ));
        w.add(&pn, rdf::TYPE, rg::DOC_PAGE);
        w.add(&pn, rg::IN_RELEASE, release.clone());
        w.str(&pn, rg::TITLE, &page.title);
        w.str(&pn, rg::SOURCE_URL, &page.source_url);
        if let Some(t) = &page.last_updated {
            w.str(&pn, rg::LAST_UPDATED, t);
        }
        for (i, sec) in page.sections.iter().enumerate() {
            let sn = node(format!("{}:{i}", pn.as_str()));
            w.add(&sn, rdf::TYPE, rg::DOC_SECTION);
            w.add(&sn, rg::PAGE, pn.clone());
            w.add(&sn, rg::IN_RELEASE, release.clone());
            w.add(&sn, rg::ORDER, Literal::from(i as i64));
            w.str(
                &sn,
                rg::TITLE,
                sec.path.last().map_or(page.title.as_str(), String::as_str),
            );
            w.str(&sn, rg::SECTION_PATH, &sec.path.join(" > "));
            w.str(&sn, rg::TEXT, &sec.markdown);
            w.str(&sn, rg::CONTENT_TYPE, sec.content_type);
            let mut linked: Vec<&String> = Vec::new();
            for id in &sec.identifiers {
                for q in table.resolve(id) {
                    if linked.contains(&q) {
                        continue;
                    }
                    linked.push(q);
                    let sym = node(symbol_iri(package, q));
                    w.add(&sn, rg::MENTIONS, sym.clone());
                    w.add(&sym, rg::MENTIONED_IN, sn.clone());
                }
            }
        }
    }
}

/// Each relation as a node hanging off its subject, and all of them once more as one table on
/// the release (`kind\tsubject\tname\tobject\tfile\tline\tevidence` lines) that the usage-path
/// graph is built from in a single read.
fn lower_relations(w: &mut Writer, package: &PackageId, release: &NamedNode, facts: &ReleaseFacts) {
    if facts.relations.is_empty() {
        return;
    }
    let mut table = String::new();
    for r in &facts.relations {
        let subject = node(symbol_iri(package, &r.subject));
        let rn = node(format!(
            "{}#{}/{}/{}/{}",
            release.as_str(),
            escape_fragment(&r.subject),
            r.kind.as_str(),
            escape_fragment(r.name.as_deref().unwrap_or("")),
            escape_fragment(&r.object)
        ));
        w.add(&subject, rg::RELATION_PROP, rn.clone());
        w.add(&rn, rdf::TYPE, rg::RELATION);
        w.str(&rn, rg::RELATION_KIND, r.kind.as_str());
        if let Some(n) = &r.name {
            w.str(&rn, rg::NAME, n);
        }
        if r.kind == RelationKind::Requests {
            w.str(&rn, rg::REQUEST_KEY, &r.object);
        } else {
            w.add(&rn, rg::TARGET, node(symbol_iri(package, &r.object)));
        }
        w.str(&rn, rg::EVIDENCE, &r.evidence);
        w.str(&rn, rg::SOURCE_FILE, &r.file);
        if r.line > 0 {
            w.add(&rn, rg::LINE, Literal::from(r.line as i64));
        }
        let clean = |t: &str| t.replace(['\t', '\n'], " ");
        table.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            r.kind.as_str(),
            clean(&r.subject),
            clean(r.name.as_deref().unwrap_or("")),
            clean(&r.object),
            clean(&r.file),
            r.line,
            clean(&r.evidence)
        ));
    }
    w.str(release, rg::RELATION_TABLE, &table);
}

/// `name\tcanonical\tkind` for every public name (read back by [`name_rows`]): one read
/// gives the candidate ranker everything (decoding tens of thousands of separate literals takes
/// seconds). The lines are
/// ordered by lower-cased last name component, so that loading the table groups it in one pass
/// (see `NameTable::parse`): a not-found answer in a release not asked about before loads it.
pub(crate) fn name_table(facts: &ReleaseFacts) -> String {
    let mut lines: Vec<(String, String)> = Vec::new();
    for s in &facts.symbols {
        for name in std::iter::once(&s.qualified_name).chain(&s.aliases) {
            // The canonical name is left out where it is the name itself (most rows).
            let canonical = if *name == s.qualified_name {
                ""
            } else {
                &s.qualified_name
            };
            let line = format!("{name}\t{canonical}\t{}\n", s.kind.as_str());
            lines.push((crate::model::last_component(name).to_lowercase(), line));
        }
    }
    // Stable: within a group the symbols keep their order.
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    lines.into_iter().map(|(_, line)| line).collect()
}

fn lower_symbol(w: &mut Writer, package: &PackageId, release: &NamedNode, s: &Symbol) {
    let iri = node(symbol_iri(package, &s.qualified_name));
    let local = format!(
        "{}#{}",
        release.as_str(),
        escape_fragment(&s.qualified_name)
    );
    w.add(&iri, rdf::TYPE, kind_class(s.kind));
    w.str(&iri, rg::QUALIFIED_NAME, &s.qualified_name);
    for a in &s.aliases {
        w.str(&iri, rg::ALIAS, a);
    }
    w.str(&iri, rg::DEFINED_IN, &s.defined_in);
    if let Some(p) = &s.parent {
        w.add(&iri, rg::PARENT, node(symbol_iri(package, p)));
    }
    if let Some(sig) = s.signature() {
        w.str(&iri, rg::SIGNATURE, &sig);
    }
    lower_params(w, &iri, &format!("{local}/param/"), &s.params);
    if let Some(r) = &s.returns {
        w.str(&iri, rg::RETURNS, r);
    }
    if s.is_async {
        w.add(&iri, rg::IS_ASYNC, Literal::from(true));
    }
    if let Some(d) = &s.doc {
        w.str(&iri, rg::DOCSTRING, d);
        let summary = summary_of(d);
        if !summary.is_empty() {
            w.str(&iri, rg::SUMMARY, &summary);
        }
    }
    for d in &s.decorators {
        w.str(&iri, rg::DECORATOR, d);
    }
    for b in &s.bases {
        w.str(&iri, rg::BASE, b);
    }
    if s.bases.len() > 1 {
        // A property's values keep no order; the method resolution order does matter.
        w.str(&iri, rg::BASE_ORDER, &s.bases.join("\n"));
    }
    for (i, o) in s.overloads.iter().enumerate() {
        let on = node(format!("{local}/overload/{i}"));
        w.add(&iri, rg::OVERLOAD_PROP, on.clone());
        w.add(&on, rdf::TYPE, rg::OVERLOAD);
        w.add(&on, rg::POSITION, Literal::from(i as i64));
        w.str(&on, rg::SIGNATURE, &crate::model::render_params(o));
        lower_params(w, &on, &format!("{local}/overload/{i}/param/"), o);
    }
    if let Some(d) = &s.deprecation {
        let dn = node(format!("{local}/deprecation"));
        w.add(&iri, rg::DEPRECATION_PROP, dn.clone());
        w.add(&dn, rdf::TYPE, rg::DEPRECATION);
        w.str(&dn, rg::SIGNAL, &d.source);
        if let Some(v) = &d.since {
            w.str(&dn, rg::SINCE, v);
        }
        if let Some(v) = &d.message {
            w.str(&dn, rg::MESSAGE, v);
        }
        if let Some(v) = &d.replacement {
            w.str(&dn, rg::REPLACEMENT, v);
        }
    }
    if let Some(i) = &s.inherited_from {
        w.str(&iri, rg::INHERITED_FROM, i);
    }
    if let Some(p) = &s.provenance {
        w.str(&iri, rg::PROVENANCE, p);
    }
    w.str(&iri, rg::SOURCE_FILE, &s.file);
    // Line 0: not known (an OpenAPI symbol is located by its spec pointer, `definedIn`).
    if s.line > 0 {
        w.add(&iri, rg::LINE, Literal::from(s.line as i64));
    }
}

fn lower_params(w: &mut Writer, owner: &NamedNode, prefix: &str, params: &[Param]) {
    for (i, p) in params.iter().enumerate() {
        let pn = node(param_iri(prefix, p));
        w.add(owner, rg::PARAMETER_PROP, pn.clone());
        w.add(&pn, rdf::TYPE, rg::PARAMETER);
        w.str(&pn, rg::NAME, &p.name);
        w.add(&pn, rg::POSITION, Literal::from(i as i64));
        w.str(&pn, rg::PARAMETER_KIND, p.kind.as_str());
        w.add(&pn, rg::REQUIRED, Literal::from(p.required()));
        if let Some(a) = &p.annotation {
            w.str(&pn, rg::ANNOTATION, a);
        }
        if let Some(d) = &p.default {
            w.str(&pn, rg::DEFAULT, d);
        }
        if let Some(d) = p.description.as_deref().filter(|d| !d.is_empty()) {
            w.str(&pn, rg::DESCRIPTION, d);
        }
    }
}

/// A parameter's node. OpenAPI parameters are told apart by location too (`id` may be both a
/// path and a query parameter): `.../param/query.id`.
fn param_iri(prefix: &str, p: &Param) -> String {
    match p.kind {
        ParamKind::Path | ParamKind::Query | ParamKind::Header | ParamKind::Cookie => {
            format!("{prefix}{}.{}", p.kind.as_str(), escape_fragment(&p.name))
        }
        _ => format!("{prefix}{}", escape_fragment(&p.name)),
    }
}

/// The service, HTTP and schema facts of an OpenAPI release.
fn lower_openapi(w: &mut Writer, package: &PackageId, release: &NamedNode, facts: &ReleaseFacts) {
    if let Some(svc) = &facts.service {
        w.str(release, rg::SERVICE_TITLE, &svc.title);
        w.str(release, rg::API_VERSION, &svc.api_version);
        w.str(release, rg::OPENAPI_VERSION, &svc.openapi);
        for s in &svc.servers {
            w.str(release, rg::SERVER, s);
        }
        for (tag, description) in &svc.tags {
            w.str(
                release,
                rg::TAG_DESCRIPTION,
                &format!("{tag}\t{description}"),
            );
        }
    }
    for (qname, op) in &facts.operations {
        let iri = node(symbol_iri(package, qname));
        let local = format!("{}#{}", release.as_str(), escape_fragment(qname));
        w.str(&iri, rg::HTTP_METHOD, &op.method);
        w.str(&iri, rg::HTTP_PATH, &op.path);
        if let Some(key) = crate::model::endpoint_key(&format!("{} {}", op.method, op.path)) {
            w.str(&iri, rg::ENDPOINT_KEY, &key);
        }
        if let Some(id) = &op.operation_id {
            w.str(&iri, rg::OPERATION_ID, id);
        }
        for t in &op.tags {
            w.str(&iri, rg::TAG, t);
        }
        for s in &op.security {
            w.str(&iri, rg::SECURITY, s);
        }
        for s in &op.security_keys {
            w.str(&iri, rg::SECURITY_KEY, s);
        }
        for s in &op.servers {
            w.str(&iri, rg::SERVER, s);
        }
        if let Some(s) = &op.sunset {
            w.str(&iri, rg::SUNSET, s);
        }
        let prefix = format!("{local}/param/");
        for d in &op.param_details {
            let pn = node(param_iri(
                &prefix,
                &Param {
                    name: d.name.clone(),
                    kind: d.kind,
                    ..Default::default()
                },
            ));
            if let Some(s) = &d.style {
                w.str(&pn, rg::STYLE, s);
            }
            if let Some(e) = d.explode {
                w.add(&pn, rg::EXPLODE, Literal::from(e));
            }
            if d.deprecated {
                w.add(&pn, rg::PARAMETER_DEPRECATED, Literal::from(true));
            }
        }
        if let Some(rb) = &op.request_body {
            let bn = node(format!("{local}/requestBody"));
            w.add(&iri, rg::REQUEST_BODY_PROP, bn.clone());
            w.add(&bn, rdf::TYPE, rg::REQUEST_BODY);
            w.add(&bn, rg::REQUIRED, Literal::from(rb.required));
            for m in &rb.media_types {
                w.str(&bn, rg::MEDIA_TYPE, m);
            }
            if let Some(s) = &rb.schema {
                w.str(&bn, rg::SCHEMA_TYPE, s);
            }
            for (i, p) in rb.properties.iter().flatten().enumerate() {
                let pn = node(format!(
                    "{local}/requestBody/property/{}",
                    escape_fragment(&p.name)
                ));
                w.add(&bn, rg::BODY_PROPERTY_PROP, pn.clone());
                w.add(&pn, rdf::TYPE, rg::BODY_PROPERTY);
                w.str(&pn, rg::NAME, &p.name);
                w.add(&pn, rg::POSITION, Literal::from(i as i64));
                w.add(&pn, rg::REQUIRED, Literal::from(p.required));
                if let Some(t) = &p.type_ {
                    w.str(&pn, rg::ANNOTATION, t);
                }
            }
        }
        for r in &op.responses {
            let rn = node(format!("{local}/response/{}", escape_fragment(&r.status)));
            w.add(&iri, rg::RESPONSE_PROP, rn.clone());
            w.add(&rn, rdf::TYPE, rg::RESPONSE);
            w.str(&rn, rg::STATUS_CODE, &r.status);
            if let Some(d) = &r.description {
                w.str(&rn, rg::DESCRIPTION, d);
            }
            for m in &r.media_types {
                w.str(&rn, rg::MEDIA_TYPE, m);
            }
            if let Some(s) = &r.schema {
                w.str(&rn, rg::SCHEMA_TYPE, s);
            }
            for h in &r.headers {
                w.str(&rn, rg::HEADER, h);
            }
        }
    }
    for (qname, s) in &facts.schemas {
        let iri = node(symbol_iri(package, qname));
        if let Some(t) = &s.type_ {
            w.str(&iri, rg::SCHEMA_TYPE, t);
        }
        if let Some(f) = &s.format {
            w.str(&iri, rg::FORMAT, f);
        }
        w.add(&iri, rg::PROPERTY_REQUIRED, Literal::from(s.required));
        for (flag, p) in [
            (s.nullable, rg::NULLABLE),
            (s.read_only, rg::READ_ONLY),
            (s.write_only, rg::WRITE_ONLY),
            (s.recursive, rg::RECURSIVE),
        ] {
            if flag {
                w.add(&iri, p, Literal::from(true));
            }
        }
        for v in &s.enum_values {
            w.str(&iri, rg::ENUM_VALUE, v);
        }
        for c in &s.constraints {
            w.str(&iri, rg::CONSTRAINT, c);
        }
    }
}

/// The kind a symbol's `rdf:type` names (`class`, `function`...), `symbol` when it names none.
pub(crate) fn kind_name(type_iri: &str) -> String {
    kind_of_class(type_iri)
        .map(|k| k.as_str().to_string())
        .unwrap_or_else(|| "symbol".into())
}

/// The rows of a stored name table (`rg:nameTable`): (name, canonical name, kind). A row's
/// canonical name is left empty where it is the name itself, as it is for most names.
pub(crate) fn name_rows(table: &str) -> impl Iterator<Item = (&str, &str, &str)> {
    let bytes = table.as_bytes();
    let mut start = 0;
    memchr::memchr_iter(b'\n', bytes).filter_map(move |end| {
        let line = &table[start..end];
        start = end + 1;
        let t1 = memchr::memchr(b'\t', line.as_bytes())?;
        let rest = &line[t1 + 1..];
        let t2 = memchr::memchr(b'\t', rest.as_bytes())?;
        let name = &line[..t1];
        let qname = &rest[..t2];
        let kind = &rest[t2 + 1..];
        let kind = &kind[..memchr::memchr(b'\t', kind.as_bytes()).unwrap_or(kind.len())];
        Some((name, if qname.is_empty() { name } else { qname }, kind))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_reach_members_or_the_rest_as_written() {
        let none: &[String] = &[];
        let aliases = ["click.core.echo".to_string()];
        let table = MentionTable::new(
            [
                ("click", none, None),
                ("click.echo", &aliases[..], None),
                ("click.Tuple", none, Some(SymbolKind::Class)),
                ("click.Tuple.name", none, None),
                ("commander:Command", none, Some(SymbolKind::Class)),
                ("commander:Command.name", none, None),
                ("commander:program", none, None),
            ]
            .into_iter(),
        );
        let resolve = |name: &str, reach| -> Vec<String> {
            let m = Mention {
                name: name.into(),
                reach,
            };
            table.resolve(&m).into_iter().cloned().collect()
        };
        assert_eq!(resolve("name", Reach::Any).len(), 2);
        assert!(resolve("name", Reach::TopLevel).is_empty());
        assert_eq!(resolve("name", Reach::Member).len(), 2);
        assert_eq!(resolve("echo", Reach::TopLevel), ["click.echo"]);
        assert!(resolve("echo", Reach::Member).is_empty());
        assert_eq!(resolve("program", Reach::TopLevel), ["commander:program"]);
        assert_eq!(
            resolve("Command.name", Reach::Any),
            ["commander:Command.name"]
        );
        assert_eq!(resolve("click.core.echo", Reach::Any), ["click.echo"]);
        // Namesakes are counted within the reach: one function, four members.
        let many = MentionTable::new(
            [
                ("p.A", none, Some(SymbolKind::Class)),
                ("p.A.parse", none, None),
                ("p.B", none, Some(SymbolKind::Class)),
                ("p.B.parse", none, None),
                ("p.C", none, Some(SymbolKind::Class)),
                ("p.C.parse", none, None),
                ("p.D", none, Some(SymbolKind::Class)),
                ("p.D.parse", none, None),
                ("p.parse", none, None),
            ]
            .into_iter(),
        );
        let parse = |reach| {
            many.resolve(&Mention {
                name: "parse".into(),
                reach,
            })
            .len()
        };
        assert_eq!(
            (
                parse(Reach::TopLevel),
                parse(Reach::Member),
                parse(Reach::Any)
            ),
            (1, 0, 0)
        );
    }

    #[test]
    fn hostile_names_give_valid_iris_that_read_back() {
        for name in [
            "listPets]",
            "a[0].b",
            "deleases differ by one kind of ch[nge.",
            "x#y%z",
            "\u{E000}private\u{FFFF}",
            "tab\there",
        ] {
            let iri = symbol_iri(&PackageId::new(Ecosystem::Npm, "fuzzed"), name);
            assert!(NamedNode::new(iri.clone()).is_ok(), "{iri}");
            let fragment = iri.split_once('#').unwrap().1;
            assert_eq!(percent_decode(fragment), name);
        }
        // A version an IRI cannot hold is escaped once; a scoped name's `%40` stays.
        let n = node("pkg:npm/%40scope/x@1.0 beta[1]#a b".to_string());
        assert_eq!(n.as_str(), "pkg:npm/%40scope/x@1.0%20beta%5B1%5D#a%20b");
    }

    fn percent_decode(s: &str) -> String {
        let mut bytes = Vec::new();
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' {
                bytes.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                i += 3;
            } else {
                bytes.push(b[i]);
                i += 1;
            }
        }
        String::from_utf8(bytes).unwrap()
    }
}
