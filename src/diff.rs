//! Two indexed releases of one package -> a migration report: every change found by the rules
//! of `diff/rules/` (SPARQL over both release graphs), classified by severity, with probable
//! renames paired up. Rendering the report as text, Markdown or HTML is `diff/render.rs`.

mod renames;
pub mod render;
pub mod rules;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use oxigraph::model::{NamedNode, Quad, Term};

use schemars::JsonSchema;
use serde::Serialize;

use crate::answer::{AnswerError, Engine, ErrorKind, Failure, ReleaseError};
use crate::lower::kind_name;
use crate::model::Ecosystem;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::{get_str, iri};
pub use rules::{CoarseKind, Severity};
use rules::{Rule, Side};

#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct DiffSummary {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub deprecated: usize,
    pub renamed: usize,
    /// Changes of severity `breaking`.
    pub breaking: usize,
    pub possibly_breaking: usize,
    pub not_breaking: usize,
    /// How many changes each rule found (rules that found none are left out).
    pub by_rule: BTreeMap<String, usize>,
    /// Changes an ignore file left out of the report.
    pub ignored: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Change {
    /// added | removed | changed | deprecated | renamed
    pub kind: String,
    /// The symbol changed: its name in the baseline, or in the current release for additions.
    pub qualified_name: String,
    /// The symbol's kind (function, class, method, operation...).
    pub symbol_kind: String,
    /// Whether code written against `from` breaks on `to` (severity `breaking`).
    pub breaking: bool,
    pub severity: Severity,
    /// The id of the rule that found the change (`src/diff/rules/<rule>.rq`), or
    /// `probable_rename` for a removal paired with an addition.
    pub rule: String,
    /// symbol | class | signature | openapi
    pub area: String,
    /// What changed, in one sentence.
    pub detail: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The parameter, property or value concerned, when the change is below the symbol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_signature: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_signature: Option<String>,
    /// For `renamed`: the new name; for a removal: the name that probably replaces it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// How sure the pairing of a removal with its replacement is, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

#[cfg(test)]
impl Change {
    /// A change with only what report-level tests look at filled in.
    pub(crate) fn for_test(rule: &str, name: &str, symbol_kind: &str) -> Change {
        let kind = if rule.ends_with("added") {
            "added"
        } else {
            "removed"
        };
        Change {
            kind: kind.into(),
            qualified_name: name.into(),
            symbol_kind: symbol_kind.into(),
            breaking: kind == "removed",
            severity: if kind == "removed" {
                Severity::Breaking
            } else {
                Severity::NotBreaking
            },
            rule: rule.into(),
            area: "symbol".into(),
            detail: String::new(),
            hint: None,
            parameter: None,
            old_value: None,
            new_value: None,
            old_signature: None,
            new_signature: None,
            replacement: None,
            confidence: None,
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiffReport {
    pub package: String,
    pub from: String,
    pub to: String,
    /// For a side asked by a label (`8.1`, `latest`): what was asked and which release
    /// answered (`from 8.1.7 (asked 8.1 -> 8.1.7: the newest indexed 8.1.*)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chosen_by: Vec<String>,
    /// Counts over every change, whatever page this is.
    pub summary: DiffSummary,
    pub changes: Vec<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// What may make the report wrong, such as a release stored by an older refgraph whose
    /// facts differ from what this one extracts (the differences may be the extractor's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Changes a project has decided to live with: one `RULE [NAME]` per line, `*` matching any
/// run of characters in either, `#` starting a comment. `parameter_removed acme.*` ignores
/// every removed parameter under `acme`; `* acme._internal.*` every change there.
#[derive(Debug, Clone, Default)]
pub struct IgnoreList {
    entries: Vec<(String, String)>,
}

impl IgnoreList {
    pub fn parse(text: &str) -> Result<IgnoreList, String> {
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let rule = parts.next().unwrap_or("*").to_string();
            let name = parts.next().unwrap_or("*").to_string();
            if parts.next().is_some() {
                return Err(format!(
                    "line {}: expected `RULE [NAME]`, got `{line}`",
                    i + 1
                ));
            }
            if rule != "*"
                && rule != "probable_rename"
                && !rules::all().iter().any(|r| r.id() == rule)
            {
                return Err(format!(
                    "line {}: no rule is called `{rule}` (see `refgraph diff --rules`)",
                    i + 1
                ));
            }
            entries.push((rule, name));
        }
        Ok(IgnoreList { entries })
    }

    fn ignores(&self, c: &Change) -> bool {
        self.entries
            .iter()
            .any(|(r, n)| glob(r, &c.rule) && glob(n, &c.qualified_name))
    }
}

/// `*` matches any run of characters; everything else matches itself.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    text.ends_with(last)
}

/// What the caller wants of a diff beyond the two versions.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Only changes of severity `breaking`.
    pub breaking_only: bool,
    pub limit: usize,
    pub cursor: Option<String>,
    pub ignore: IgnoreList,
    /// Run the signature rules over every symbol of both releases instead of those whose
    /// signature text changed (`signature_changed.rq`): the same report, many times slower.
    /// Tests use it to check that the shortcut loses nothing.
    pub exhaustive: bool,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            breaking_only: false,
            limit: 5000,
            cursor: None,
            ignore: IgnoreList::default(),
            exhaustive: false,
        }
    }
}

/// One rule's raw finding, before the report's words are filled in.
struct Finding<'r> {
    rule: &'r Rule,
    row: BTreeMap<&'static str, String>,
}

impl Finding<'_> {
    fn get(&self, k: &str) -> Option<&String> {
        self.row.get(k)
    }

    fn name(&self) -> &str {
        self.row.get("name").map(String::as_str).unwrap_or("")
    }
}

/// Fills `{field}` placeholders of a rule template; a `[...]` group is left out whole when a
/// field inside it has no value.
fn fill(template: &str, fields: &BTreeMap<&str, String>) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(i) = rest.find('[') {
        out.push_str(&fill_fields(&rest[..i], fields).0);
        let tail = &rest[i + 1..];
        let Some(j) = tail.find(']') else {
            out.push_str(&rest[i..]);
            return out;
        };
        let (group, complete) = fill_fields(&tail[..j], fields);
        if complete {
            out.push_str(&group);
        }
        rest = &tail[j + 1..];
    }
    out.push_str(&fill_fields(rest, fields).0);
    out
}

/// The template filled, unknown placeholders kept as written, and whether every placeholder
/// had a value.
fn fill_fields(template: &str, fields: &BTreeMap<&str, String>) -> (String, bool) {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    let mut complete = true;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let Some(j) = tail.find('}') else {
            out.push_str(&rest[i..]);
            rest = "";
            break;
        };
        let key = &tail[..j];
        match fields.get(key) {
            Some(v) => out.push_str(v),
            None => {
                complete = false;
                out.push_str(&format!("{{{key}}}"));
            }
        }
        rest = &tail[j + 1..];
    }
    out.push_str(rest);
    (out, complete)
}

/// `a.b.C.m` is under `a.b.C`, `mod:C.m` under `mod:C` and under `mod`.
fn is_under(name: &str, container: &str) -> bool {
    name.len() > container.len()
        && name.starts_with(container)
        && matches!(name.as_bytes()[container.len()], b'.' | b':')
}

/// Drops the findings of kind `coarse` whose symbol sits in a container with a finding of the
/// same kind (the members of a removed module or class), recording their names in `contents`.
/// A member that also has an alias none of whose containers changed (a class a package index
/// re-exports, which stays) is reached another way: it is a change of its own.
fn collapse_members(
    findings: &mut Vec<Finding>,
    coarse: CoarseKind,
    contents: &mut renames::Contents,
) {
    let containers: HashSet<String> = findings
        .iter()
        .filter(|f| f.rule.meta().kind == coarse)
        .map(|f| f.name().to_string())
        .collect();
    // Every name the changed symbols had, aliases included.
    let names: HashSet<&str> = findings
        .iter()
        .filter(|f| f.rule.meta().kind == coarse)
        .flat_map(|f| {
            std::iter::once(f.name()).chain(f.get("aliases").into_iter().flat_map(|a| a.split(' ')))
        })
        .filter(|n| !n.is_empty())
        .collect();
    let elsewhere = |f: &Finding| {
        f.get("aliases").is_some_and(|a| {
            a.split(' ').filter(|a| !a.is_empty()).any(|a| {
                !a.match_indices(['.', ':'])
                    .any(|(i, _)| names.contains(&a[..i]))
            })
        })
    };
    let collapsible: Vec<bool> = findings
        .iter()
        .map(|f| f.rule.meta().kind == coarse && !elsewhere(f))
        .collect();
    let mut collapsible = collapsible.into_iter();
    findings.retain(|f| {
        if !collapsible.next().unwrap_or(false) {
            return true;
        }
        let mut inside = false;
        for c in containers.iter().filter(|c| is_under(f.name(), c)) {
            inside = true;
            contents
                .members
                .entry(c.clone())
                .or_default()
                .insert(crate::model::last_component(f.name()).to_string());
        }
        !inside
    });
}

/// Drops the change of a member a subclass inherits (`Sub.m` gained or lost through a base)
/// when the report already tells the same change on the base's own member (`Base.m`): one
/// change, told where it happened. Members of a base the report folds into its new or removed
/// module stay, since nothing else tells them.
fn drop_inherited_told_on_base(findings: &mut Vec<Finding>) {
    let told: HashSet<(&'static str, String)> = findings
        .iter()
        .map(|f| (f.rule.meta().kind.as_str(), f.name().to_string()))
        .collect();
    findings.retain(|f| {
        let base = match f.rule.id() {
            "inherited_member_added" => f.get("new"),
            "inherited_member_removed" => f.get("old"),
            _ => return true,
        };
        let Some(base) = base else { return true };
        let member = crate::model::last_component(f.name());
        !told.contains(&(f.rule.meta().kind.as_str(), format!("{base}.{member}")))
    });
}

/// A value as the report shows it: rule outputs that are class IRIs become kind names.
fn shown(key: &str, value: &str) -> String {
    if matches!(key, "old" | "new") && value.starts_with("https://refgraph.dev/ontology#") {
        kind_name(value)
    } else {
        value.to_string()
    }
}

/// The findings of `rules` over two release graphs of `store`, in the order of `rules`. The
/// rules are independent reads: they run on every core.
fn run_rules(
    store: &Store,
    rules: impl Iterator<Item = &'static Rule>,
    baseline: &str,
    current: &str,
) -> Result<Vec<Finding<'static>>, DiffError> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let rules: Vec<&'static Rule> = rules.collect();
    let next = AtomicUsize::new(0);
    type Found = Result<Vec<Finding<'static>>, DiffError>;
    let results: Vec<Mutex<Option<Found>>> = rules.iter().map(|_| Mutex::new(None)).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(rules.len());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(rule) = rules.get(i) else { break };
                    let found = run_rule(store, rule, baseline, current);
                    *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(found);
                }
            });
        }
    });
    let mut out = Vec::new();
    for r in results {
        if let Some(found) = r.into_inner().unwrap_or_else(|e| e.into_inner()) {
            out.extend(found?);
        }
    }
    Ok(out)
}

/// One rule's findings; rows that differ only in `param` are merged when the rule says so.
fn run_rule(
    store: &Store,
    rule: &'static Rule,
    baseline: &str,
    current: &str,
) -> Result<Vec<Finding<'static>>, DiffError> {
    let mut out = Vec::new();
    let bindings = [("baseline", iri(baseline)), ("current", iri(current))];
    let started = std::time::Instant::now();
    let rows = store.select(&rule.query, &bindings)?;
    tracing::debug!(
        rule = rule.id(),
        rows = rows.len(),
        ms = started.elapsed().as_secs_f64() * 1000.0,
        "diff rule"
    );
    let merge = rule.meta().merge_params;
    let mut previous: Option<Finding> = None;
    for row in rows {
        let row: BTreeMap<&'static str, String> = rules::OUTPUTS
            .iter()
            .filter_map(|k| get_str(&row, k).map(|v| (*k, v)))
            .collect();
        if merge && let Some(p) = previous.as_mut() {
            let same_but_param = p.row.len() == row.len()
                && row
                    .iter()
                    .all(|(k, v)| *k == "param" || p.row.get(k) == Some(v));
            if same_but_param {
                if let (Some(a), Some(b)) = (p.row.get_mut("param"), row.get("param")) {
                    a.push_str("`, `");
                    a.push_str(b);
                }
                continue;
            }
        }
        out.extend(previous.replace(Finding { rule, row }));
    }
    out.extend(previous);
    Ok(out)
}

/// Why a migration report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// One of the two releases.
    #[error(transparent)]
    Release(#[from] ReleaseError),
    #[error("invalid argument: {0}")]
    BadArgument(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Failure for DiffError {
    fn kind(&self) -> ErrorKind {
        match self {
            DiffError::Release(e) => e.kind(),
            DiffError::BadArgument(_) => ErrorKind::BadInput,
            DiffError::Store(_) => ErrorKind::Internal,
        }
    }
    fn wraps(&self) -> Option<&dyn Failure> {
        match self {
            DiffError::Release(e) => Some(e),
            _ => None,
        }
    }
}

impl From<DiffError> for AnswerError {
    fn from(e: DiffError) -> Self {
        AnswerError::Other(Box::new(e))
    }
}

/// Migration reports between two releases of a package: [`Engine::diff`].
pub struct DiffService<'e> {
    e: &'e Engine,
}

impl Engine {
    /// What changed between two releases of a package, rule by rule.
    pub fn diff(&self) -> DiffService<'_> {
        DiffService { e: self }
    }
}

impl DiffService<'_> {
    /// Runs every rule that applies to the package's ecosystem over the two releases.
    /// The signature rules only when `signature_rules`: the report runs them over the symbols
    /// whose signatures changed (`signature_findings`).
    fn findings(
        &self,
        ecosystem: Ecosystem,
        baseline: &str,
        current: &str,
        signature_rules: bool,
    ) -> Result<Vec<Finding<'static>>, DiffError> {
        let rules = rules::all()
            .iter()
            .filter(|r| r.applies_to(ecosystem) && (signature_rules || !r.is_signature_rule()));
        run_rules(self.e.store(), rules.copied(), baseline, current)
    }

    /// (IRI, IRI) for every symbol of both releases whose signature changed.
    fn signature_changes(
        &self,
        baseline: &str,
        current: &str,
    ) -> Result<Vec<(String, String)>, DiffError> {
        let rows = self.e.store().select(
            &crate::queries::signature_changed,
            &[("baseline", iri(baseline)), ("current", iri(current))],
        )?;
        Ok(rows
            .iter()
            .filter_map(|r| get_str(r, "symbol"))
            .map(|s| (s.clone(), s))
            .collect())
    }

    /// The signature rules over `pairs` of (baseline IRI, current IRI): a symbol whose
    /// signature changed (the same IRI twice), or one whose public name denotes another symbol
    /// in the current release (moved to an alias, or a member now defined on another class of
    /// the MRO). A scratch in-memory store gets each baseline symbol with its parameters, and
    /// the current symbol's facts under the baseline IRI and name, so the rules (which match a
    /// symbol by IRI) compare the two unchanged, and touch a few hundred symbols instead of
    /// every one of both releases.
    fn signature_findings(
        &self,
        ecosystem: Ecosystem,
        baseline: &str,
        current: &str,
        pairs: &BTreeSet<(String, String)>,
    ) -> Result<Vec<Finding<'static>>, DiffError> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let qname = crate::vocab::rg::QUALIFIED_NAME.as_str();
        let parameter = crate::vocab::rg::PARAMETER_PROP.as_str();
        let (mut old_quads, mut new_quads) = (Vec::new(), Vec::new());
        // A symbol's facts (its name left out when `rename`) and its parameters' facts, under
        // `subject` in `graph`; returns the name it had.
        let copy =
            |graph: &str, source: &str, subject: &NamedNode, rename: bool, out: &mut Vec<Quad>| {
                let g = NamedNode::new_unchecked(graph);
                let mut name = None;
                for (p, o) in self.e.store().describe(graph, source)? {
                    if p == qname {
                        name = Some(o.clone());
                        if rename {
                            continue;
                        }
                    }
                    if let (true, Term::NamedNode(node)) = (p == parameter, &o) {
                        for (pp, po) in self.e.store().describe(graph, node.as_str())? {
                            let pp = NamedNode::new_unchecked(pp);
                            out.push(Quad::new(node.clone(), pp, po, g.clone()));
                        }
                    }
                    out.push(Quad::new(
                        subject.clone(),
                        NamedNode::new_unchecked(p),
                        o,
                        g.clone(),
                    ));
                }
                Ok::<_, DiffError>(name)
            };
        let name_of = NamedNode::new_unchecked(qname);
        let current_graph = NamedNode::new_unchecked(current);
        for (s, t) in pairs {
            let subject = NamedNode::new_unchecked(s.as_str());
            let name = copy(baseline, s, &subject, false, &mut old_quads)?;
            copy(current, t, &subject, s != t, &mut new_quads)?;
            // A moved symbol answers to the baseline's name.
            if let (true, Some(name)) = (s != t, name) {
                new_quads.push(Quad::new(
                    subject,
                    name_of.clone(),
                    name,
                    current_graph.clone(),
                ));
            }
        }
        let scratch = Store::in_memory();
        scratch.replace_graph(&NamedNode::new_unchecked(baseline), old_quads)?;
        scratch.replace_graph(&NamedNode::new_unchecked(current), new_quads)?;
        let rules = rules::all()
            .iter()
            .filter(|r| r.applies_to(ecosystem) && r.is_signature_rule());
        run_rules(&scratch, rules.copied(), baseline, current)
    }

    /// The changes from release `from` to release `to` of `package`: every rule's findings,
    /// minus those another rule explains better (supersedes), names that still resolve, and
    /// members of removed or added containers; removals paired with additions as probable
    /// renames; sorted by severity and name; paged. Both versions must be indexed (the error
    /// lists the indexed ones).
    pub fn diff_report(
        &self,
        package: &str,
        from: &str,
        to: &str,
        options: &DiffOptions,
    ) -> Result<DiffReport, DiffError> {
        let old = self.e.choose(Some(package), Some(from), None)?;
        let new = self.e.choose(Some(package), Some(to), None)?;
        let (a, b) = (&old.release.release, &new.release.release);
        let ecosystem = old.release.ecosystem;
        let findings = self.findings(ecosystem, a, b, options.exhaustive)?;

        // A name that still resolves on the other side (an alias, a member now inherited)
        // keeps working: not a change. When it resolves to another symbol, that symbol's
        // signature is compared with the old one (a function moved behind an alias, a method
        // now defined on another class of the MRO), and so is a moved symbol's.
        let mut kept = Vec::with_capacity(findings.len());
        let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
        for f in findings {
            // (the release the name was in, the release it may still resolve in)
            let moved = f.rule.id() == "symbol_moved";
            let sides = match f.rule.meta().unless_resolves_in {
                Some(Side::Current) => Some((a, b)),
                Some(Side::Baseline) => Some((b, a)),
                None if moved => Some((a, b)),
                None => None,
            };
            if let Some((own, there)) = sides {
                let found = self.e.resolve_name(there, f.name())?;
                if !found.is_empty() {
                    let here = self.e.resolve_name(own, f.name())?;
                    let (old, new) = if own == a {
                        (here.first(), found.first())
                    } else {
                        (found.first(), here.first())
                    };
                    // A baseline symbol still in the current release is compared with itself.
                    if let (Some(s), Some(t)) = (old, new)
                        && s.0 != t.0
                        && !self.e.store().has_subject(b, &s.0)?
                    {
                        pairs.insert((s.0.clone(), t.0.clone()));
                    }
                    if !moved {
                        continue;
                    }
                }
            }
            kept.push(f);
        }
        let mut findings = kept;
        if !options.exhaustive {
            pairs.extend(self.signature_changes(a, b)?);
        }
        findings.extend(self.signature_findings(ecosystem, a, b, &pairs)?);

        // A finding another rule explains (same symbol, same parameter) is dropped.
        let mut superseded: HashSet<(String, String, String)> = HashSet::new();
        for f in &findings {
            for s in &f.rule.meta().supersedes {
                for p in [f.get("param"), f.get("new")].into_iter().flatten() {
                    superseded.insert((s.clone(), f.name().to_string(), p.clone()));
                }
                // A finding about the whole symbol (made_private) explains the other rule's
                // finding about it.
                if f.get("param").is_none() {
                    superseded.insert((s.clone(), f.name().to_string(), String::new()));
                }
            }
        }
        findings.retain(|f| {
            let key = (
                f.rule.id().to_string(),
                f.name().to_string(),
                f.get("param").cloned().unwrap_or_default(),
            );
            !superseded.contains(&key)
        });

        // Members of a removed (added) container are reported with it, not one by one; their
        // names still tell renames apart. A member also reachable under a name outside the
        // container (a class re-exported by a package index that stays) is its own change.
        let mut contents = renames::Contents::default();
        for coarse in [CoarseKind::Removed, CoarseKind::Added] {
            collapse_members(&mut findings, coarse, &mut contents);
        }
        drop_inherited_told_on_base(&mut findings);
        for f in &findings {
            if let Some(d) = f.get("doc") {
                contents.docs.insert(f.name().to_string(), d.clone());
            }
        }

        let versions = [
            ("from", old.release.version.clone()),
            ("to", new.release.version.clone()),
        ];
        let mut changes: Vec<Change> = findings
            .iter()
            .map(|f| {
                let meta = f.rule.meta();
                let symbol_kind = f.get("type").map(|t| kind_name(t)).unwrap_or_default();
                let mut fields: BTreeMap<&str, String> =
                    f.row.iter().map(|(k, v)| (*k, shown(k, v))).collect();
                fields.insert("kind", symbol_kind.clone());
                fields.extend(versions.iter().map(|(k, v)| (*k, v.clone())));
                let replacement = meta
                    .replacement
                    .as_ref()
                    .map(|t| fill(t, &fields))
                    .or_else(|| f.get("replacement").cloned());
                Change {
                    kind: meta.kind.as_str().to_string(),
                    qualified_name: f.name().to_string(),
                    symbol_kind,
                    breaking: meta.severity == Severity::Breaking,
                    severity: meta.severity,
                    rule: f.rule.id().to_string(),
                    area: meta.area.clone(),
                    detail: fill(&meta.message, &fields),
                    hint: meta.hint.as_ref().map(|h| fill(h, &fields)),
                    parameter: f.get("param").cloned(),
                    old_value: f.get("old").map(|v| shown("old", v)),
                    new_value: f.get("new").map(|v| shown("new", v)),
                    old_signature: f.get("oldSignature").cloned(),
                    new_signature: f.get("newSignature").cloned(),
                    replacement,
                    confidence: None,
                }
            })
            .collect();
        renames::pair(&mut changes, &contents, &new.release.version);

        let before = changes.len();
        changes.retain(|c| !options.ignore.ignores(c));
        let ignored = before - changes.len();
        changes.sort_by(|x, y| {
            (x.severity, &x.qualified_name, &x.rule, &x.parameter).cmp(&(
                y.severity,
                &y.qualified_name,
                &y.rule,
                &y.parameter,
            ))
        });
        changes.dedup_by(|x, y| {
            x.rule == y.rule
                && x.qualified_name == y.qualified_name
                && x.parameter == y.parameter
                && x.detail == y.detail
        });
        let summary = summarize(&changes, ignored);
        if options.breaking_only {
            changes.retain(|c| c.breaking);
        }
        let start: usize = match &options.cursor {
            Some(c) => c.parse().map_err(|_| {
                DiffError::BadArgument(format!("cursor '{c}' is not one this tool gave"))
            })?,
            None => 0,
        };
        let limit = options.limit.clamp(1, 5000);
        let end = (start + limit).min(changes.len());
        let next_cursor = (end < changes.len()).then(|| end.to_string());
        let page = changes
            .get(start..end)
            .map(<[Change]>::to_vec)
            .unwrap_or_default();
        Ok(DiffReport {
            package: old.release.package.clone(),
            from: old.release.version.clone(),
            to: new.release.version.clone(),
            chosen_by: [("from", &old), ("to", &new)]
                .into_iter()
                .filter(|(_, c)| c.asked.is_some())
                .map(|(side, c)| format!("{side} {}", c.version_line()))
                .collect(),
            summary,
            changes: page,
            next_cursor,
            warnings: [&old.release, &new.release]
                .into_iter()
                .filter_map(|r| r.stale_note())
                .collect(),
        })
    }

    /// `diff_report` with the eval contract's arguments.
    pub fn diff_versions(
        &self,
        package: &str,
        from: &str,
        to: &str,
        breaking_only: bool,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<DiffReport, DiffError> {
        self.diff_report(
            package,
            from,
            to,
            &DiffOptions {
                breaking_only,
                limit,
                cursor: cursor.map(str::to_string),
                ..DiffOptions::default()
            },
        )
    }
}

fn summarize(changes: &[Change], ignored: usize) -> DiffSummary {
    let mut s = DiffSummary {
        ignored,
        ..DiffSummary::default()
    };
    for c in changes {
        match c.kind.as_str() {
            "added" => s.added += 1,
            "removed" => s.removed += 1,
            "deprecated" => s.deprecated += 1,
            "renamed" => s.renamed += 1,
            _ => s.changed += 1,
        }
        match c.severity {
            Severity::Breaking => s.breaking += 1,
            Severity::PossiblyBreaking => s.possibly_breaking += 1,
            Severity::NotBreaking => s.not_breaking += 1,
        }
        *s.by_rule.entry(c.rule.clone()).or_default() += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_error_keeps_its_kind_and_lists_in_the_umbrella() {
        let e: AnswerError = DiffError::Release(ReleaseError::VersionNotIndexed {
            package: "pkg:pypi/click".into(),
            asked: "9.0".into(),
            indexed: vec!["7.1.2".into(), "8.1.7".into()],
        })
        .into();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(e.version_not_indexed(), Some("9.0"));
        assert_eq!(e.indexed().len(), 2);
        assert!(
            e.to_string().contains("indexed versions: 7.1.2, 8.1.7"),
            "{e}"
        );
        let e: AnswerError =
            DiffError::BadArgument("cursor 'x' is not one this tool gave".into()).into();
        assert_eq!(e.kind(), ErrorKind::BadInput);
    }

    #[test]
    fn glob_matches_runs_of_characters() {
        assert!(glob("*", "anything"));
        assert!(glob("acme.*", "acme.x.y"));
        assert!(!glob("acme.*", "acmex"));
        assert!(glob("*_removed", "parameter_removed"));
        assert!(glob("a*c*e", "abcde"));
        assert!(!glob("a*c*e", "abde"));
        assert!(glob("exact", "exact"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn ignore_files_name_known_rules() {
        let l = IgnoreList::parse("# comment\nparameter_removed acme.*\n* acme._x.*  # trailing\n")
            .unwrap();
        assert_eq!(l.entries.len(), 2);
        let e = IgnoreList::parse("no_such_rule\n").unwrap_err();
        assert!(e.contains("line 1") && e.contains("no_such_rule"), "{e}");
        assert!(IgnoreList::parse("a b c").is_err());
    }

    #[test]
    fn templates_fill_known_fields_and_keep_unknown_ones() {
        let f: BTreeMap<&str, String> = [("name", "f".to_string()), ("param", "x".to_string())]
            .into_iter()
            .collect();
        assert_eq!(
            fill("`{name}` lost `{param}` {to}", &f),
            "`f` lost `x` {to}"
        );
        assert_eq!(fill("open { brace", &f), "open { brace");
        assert_eq!(fill("`{name}` gone[: {new}]", &f), "`f` gone");
        assert_eq!(fill("`{name}` gone[ ({param})]", &f), "`f` gone (x)");
    }

    #[test]
    fn members_of_a_removed_module_reached_through_a_kept_index_are_changes_of_their_own() {
        let rule = rules::all()
            .iter()
            .find(|r| r.id() == "symbol_removed")
            .unwrap();
        let finding = |name: &str, aliases: &str| Finding {
            rule,
            row: [("name", name.to_string()), ("aliases", aliases.to_string())]
                .into_iter()
                .collect(),
        };
        let mut findings = vec![
            finding("p/legacy", ""),
            // Re-exported by the index `p`, which stays.
            finding("p/legacy:Legacy", "p:Legacy"),
            // Its member's alias is under the removed class's alias: reported with the class.
            finding("p/legacy:Legacy.run", "p:Legacy.run"),
            // Only ever in the removed module.
            finding("p/legacy:Options", ""),
        ];
        let mut contents = renames::Contents::default();
        collapse_members(&mut findings, CoarseKind::Removed, &mut contents);
        let kept: Vec<&str> = findings.iter().map(|f| f.name()).collect();
        assert_eq!(kept, ["p/legacy", "p/legacy:Legacy"]);
        assert!(contents.members["p/legacy"].contains("Options"));
        assert!(contents.members["p/legacy:Legacy"].contains("run"));
    }

    #[test]
    fn an_inherited_change_already_told_on_the_base_is_not_repeated() {
        let rule = |id: &str| *rules::all().iter().find(|r| r.id() == id).unwrap();
        let finding = |id: &str, row: &[(&'static str, &str)]| Finding {
            rule: rule(id),
            row: row.iter().map(|(k, v)| (*k, v.to_string())).collect(),
        };
        let mut findings = vec![
            finding("symbol_added", &[("name", "m.Base.retry")]),
            // Told on the base: dropped.
            finding(
                "inherited_member_added",
                &[("name", "m.Sub.retry"), ("new", "m.Base")],
            ),
            // The base's member is not in the report (its module is new): kept.
            finding(
                "inherited_member_added",
                &[("name", "m.Sub.redirect"), ("new", "m.sansio.App")],
            ),
            // Same name on the base, other direction: kept.
            finding(
                "inherited_member_removed",
                &[("name", "m.Sub.retry"), ("old", "m.Base")],
            ),
        ];
        drop_inherited_told_on_base(&mut findings);
        let kept: Vec<(&str, &str)> = findings.iter().map(|f| (f.rule.id(), f.name())).collect();
        assert_eq!(
            kept,
            [
                ("symbol_added", "m.Base.retry"),
                ("inherited_member_added", "m.Sub.redirect"),
                ("inherited_member_removed", "m.Sub.retry"),
            ]
        );
    }

    #[test]
    fn members_are_under_their_containers_only() {
        assert!(is_under("a.b.C.m", "a.b.C"));
        assert!(is_under("mod:C.m", "mod:C"));
        assert!(is_under("mod:C", "mod"));
        assert!(!is_under("a.b.Cx", "a.b.C"));
        assert!(!is_under("a.b.C", "a.b.C"));
    }
}
