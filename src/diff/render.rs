//! A migration report as text (terminal, MCP), Markdown (pull requests, release notes), HTML
//! (one self-contained page with filters) and its JSON Schema.

use crate::html::esc;
use std::fmt::Write;

use super::{Change, DiffReport, Severity};

const SEVERITIES: [(Severity, &str); 3] = [
    (Severity::Breaking, "Breaking"),
    (Severity::PossiblyBreaking, "Possibly breaking"),
    (Severity::NotBreaking, "Not breaking"),
];

impl DiffReport {
    /// The summary's counts in report order, with their labels.
    fn counts(&self) -> [(&'static str, usize); 8] {
        let s = &self.summary;
        [
            ("breaking", s.breaking),
            ("possibly breaking", s.possibly_breaking),
            ("not breaking", s.not_breaking),
            ("removed", s.removed),
            ("added", s.added),
            ("changed", s.changed),
            ("deprecated", s.deprecated),
            ("renamed", s.renamed),
        ]
    }

    /// `a breaking, b possibly breaking, c not breaking (d removed, ...[; n ignored])`.
    fn counts_line(&self, separator: &str) -> String {
        let counts = self.counts();
        let (severities, kinds) = counts.split_at(3);
        let join = |xs: &[(&str, usize)]| {
            xs.iter()
                .map(|(l, n)| format!("{n} {l}"))
                .collect::<Vec<_>>()
                .join(separator)
        };
        let ignored = match self.summary.ignored {
            0 => String::new(),
            n => format!("; {n} ignored"),
        };
        format!("{} ({}{ignored})", join(severities), join(kinds))
    }

    fn headline(&self) -> String {
        format!(
            "{} {} -> {}: {}",
            self.package,
            self.from,
            self.to,
            self.counts_line(", ")
        )
    }

    /// The report as text: the counts, then the changes of each severity with their rule,
    /// the old and new signatures, and the hint.
    pub fn to_text(&self) -> String {
        let mut out = self.headline();
        for c in &self.chosen_by {
            let _ = write!(out, "\n{c}");
        }
        for w in &self.warnings {
            let _ = write!(out, "\nwarning: {w}");
        }
        for (sev, title) in SEVERITIES {
            let group: Vec<&Change> = self.changes.iter().filter(|c| c.severity == sev).collect();
            if group.is_empty() {
                continue;
            }
            let _ = write!(out, "\n\n{} ({})", title.to_uppercase(), group.len());
            for c in group {
                let _ = write!(out, "\n  {:<10} {}  [{}]", c.kind, c.qualified_name, c.rule);
                let _ = write!(out, "\n             {}", c.detail);
                if let (Some(o), Some(n)) = (&c.old_signature, &c.new_signature)
                    && o != n
                {
                    let _ = write!(out, "\n             - {o}\n             + {n}");
                }
                if let Some(h) = &c.hint {
                    let _ = write!(out, "\n             hint: {h}");
                }
            }
        }
        if self.changes.is_empty() {
            out.push_str("\n\nno changes");
        }
        if let Some(c) = &self.next_cursor {
            let _ = write!(out, "\n(more: cursor {c})");
        }
        out
    }

    /// The report as Markdown: a summary table, then one table per severity.
    pub fn to_markdown(&self) -> String {
        let s = &self.summary;
        let counts = self.counts();
        let mut out = format!(
            "# {} {} → {}\n\n| {} |\n|{}\n| {} |\n",
            self.package,
            self.from,
            self.to,
            counts.map(|c| c.0).join(" | "),
            "---|".repeat(counts.len()),
            counts.map(|c| c.1.to_string()).join(" | ")
        );
        for c in &self.chosen_by {
            let _ = write!(out, "\n_{c}_\n");
        }
        if s.ignored > 0 {
            let _ = writeln!(out, "\n{} changes left out by the ignore file.", s.ignored);
        }
        for w in &self.warnings {
            let _ = writeln!(out, "\n> **Warning:** {}", md_cell(w));
        }
        for (sev, title) in SEVERITIES {
            let group: Vec<&Change> = self.changes.iter().filter(|c| c.severity == sev).collect();
            if group.is_empty() {
                continue;
            }
            let _ = write!(
                out,
                "\n## {title} ({})\n\n| symbol | change | before | after | what to do |\n|---|---|---|---|---|\n",
                group.len()
            );
            for c in group {
                let _ = writeln!(
                    out,
                    "| `{}` | {} <sub>{}</sub> | {} | {} | {} |",
                    md_cell(&c.qualified_name),
                    md_cell(&c.detail),
                    c.rule,
                    c.old_signature
                        .as_deref()
                        .map(|x| format!("`{}`", md_cell(x)))
                        .unwrap_or_default(),
                    c.new_signature
                        .as_deref()
                        .map(|x| format!("`{}`", md_cell(x)))
                        .unwrap_or_default(),
                    c.hint.as_deref().map(md_cell).unwrap_or_default()
                );
            }
        }
        if self.changes.is_empty() {
            out.push_str("\nNo changes.\n");
        }
        out
    }

    /// One self-contained HTML page: summary counts, filters by severity, module and text, old
    /// and new signatures side by side. No outside requests.
    pub fn to_html(&self) -> String {
        let s = &self.summary;
        let mut modules: Vec<&str> = self.changes.iter().map(module_of).collect();
        modules.sort();
        modules.dedup();
        let mut rows = String::new();
        for c in &self.changes {
            let _ = writeln!(
                rows,
                "<tr class=\"change\" data-severity=\"{sev}\" data-module=\"{module}\">\
<td><span class=\"sev {sev}\">{sev}</span><br><span class=\"kind\">{kind}</span></td>\
<td><code>{name}</code><br><span class=\"rule\">{rule}</span></td>\
<td>{detail}{hint}</td><td class=\"sig\">{old}</td><td class=\"sig\">{new}</td></tr>",
                sev = c.severity.as_str(),
                module = esc(module_of(c)),
                kind = esc(&c.kind),
                name = esc(&c.qualified_name),
                rule = esc(&c.rule),
                detail = code_spans(&c.detail),
                hint = c
                    .hint
                    .as_deref()
                    .map(|h| format!("<div class=\"hint\">{}</div>", code_spans(h)))
                    .unwrap_or_default(),
                old = c
                    .old_signature
                    .as_deref()
                    .map(|x| format!("<code>{}</code>", esc(x)))
                    .unwrap_or_default(),
                new = c
                    .new_signature
                    .as_deref()
                    .map(|x| format!("<code>{}</code>", esc(x)))
                    .unwrap_or_default(),
            );
        }
        let options: String = modules
            .iter()
            .map(|m| format!("<option value=\"{0}\">{0}</option>", esc(m)))
            .collect();
        let title = esc(&format!("{} {} → {}", self.package, self.from, self.to));
        HTML_TEMPLATE
            .replace("{title}", &title)
            .replace("{breaking}", &s.breaking.to_string())
            .replace("{possibly}", &s.possibly_breaking.to_string())
            .replace("{not}", &s.not_breaking.to_string())
            .replace("{counts}", &esc(&self.counts_line(" · ")))
            .replace(
                "{warnings}",
                &self
                    .warnings
                    .iter()
                    .map(|w| format!("<p class=\"warning\">Warning: {}</p>", code_spans(w)))
                    .collect::<String>(),
            )
            .replace("{modules}", &options)
            .replace("{total}", &self.changes.len().to_string())
            .replace("{rows}", &rows)
    }
}

impl DiffReport {
    /// Instructions for rewriting code written against `from` so it works on `to`: each
    /// breaking and possibly breaking change as a step with its hint and both signatures, then
    /// the deprecations to move off. At most `max_steps` steps; the rest are counted.
    pub fn to_migration_guide(&self, max_steps: usize) -> String {
        let mut out = format!(
            "Rewrite code that uses {} {} so that it works with {} {}. The changes below come \
from refgraph's diff of the two indexed releases; each names the rule that found it. Apply \
each step where the code uses the symbol, keep everything else as it is, and do not call \
anything this list or get_api_detail (version {}) does not show to exist.\n",
            self.package, self.from, self.package, self.to, self.to
        );
        for w in &self.warnings {
            let _ = write!(out, "\nCaution: {w}");
        }
        let steps: Vec<&Change> = self
            .changes
            .iter()
            .filter(|c| c.severity != Severity::NotBreaking || c.kind == "deprecated")
            .collect();
        for (i, c) in steps.iter().take(max_steps).enumerate() {
            let _ = write!(
                out,
                "\n{}. [{}] `{}`: {}",
                i + 1,
                c.severity.as_str(),
                c.qualified_name,
                c.detail
            );
            if let Some(h) = &c.hint {
                let _ = write!(out, "\n   What to do: {h}");
            }
            if let Some(o) = &c.old_signature {
                let _ = write!(out, "\n   {} signature: {o}", self.from);
            }
            if let Some(n) = &c.new_signature {
                let _ = write!(out, "\n   {} signature: {n}", self.to);
            }
        }
        if steps.len() > max_steps {
            let _ = write!(
                out,
                "\n\n{} more steps are not shown: call diff_versions with breaking_only for the full list.",
                steps.len() - max_steps
            );
        }
        if steps.is_empty() {
            out.push_str("\nNothing breaks: code written against the old release works unchanged.");
        }
        out
    }
}

/// The module a change belongs to, for the HTML filter: the name up to its first class-like
/// component (`a.b.C.m` -> `a.b`), the JavaScript specifier (`mod:C.m` -> `mod`), or for an
/// HTTP operation its first path segment.
fn module_of(c: &Change) -> &str {
    let n = c.qualified_name.as_str();
    if let Some((m, _)) = n.split_once(':') {
        return m;
    }
    if let Some((_, path)) = n.split_once(' ') {
        return path.split('/').find(|s| !s.is_empty()).unwrap_or("/");
    }
    let parts: Vec<&str> = n.split('.').collect();
    let mut end = 0;
    for (i, part) in parts.iter().enumerate() {
        if part.starts_with(|ch: char| ch.is_uppercase()) || i + 1 == parts.len() {
            break;
        }
        end += part.len() + usize::from(i > 0);
    }
    if end == 0 { n } else { &n[..end] }
}

/// Escaped text with its `backtick` spans as `<code>`.
fn code_spans(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return esc(s);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", esc(p))
            } else {
                esc(p)
            }
        })
        .collect()
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The report's JSON Schema (draft 2020-12), as published in `docs/diff-report.schema.json`.
pub fn json_schema() -> serde_json::Value {
    let mut schema =
        serde_json::to_value(schemars::schema_for!(DiffReport)).expect("a schema is plain JSON");
    schema["$id"] = "https://refgraph.dev/schema/diff-report.schema.json".into();
    schema
}

const HTML_TEMPLATE: &str = include_str!("report.html");

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str) -> Change {
        Change::for_test("symbol_removed", name, "function")
    }

    #[test]
    fn modules_are_the_lower_case_prefix_the_specifier_or_the_first_path_segment() {
        assert_eq!(module_of(&c("acme.transfer.Uploader.put")), "acme.transfer");
        assert_eq!(module_of(&c("acme.transfer.upload_file")), "acme.transfer");
        assert_eq!(module_of(&c("acme")), "acme");
        assert_eq!(module_of(&c("mobx:Reaction.dispose")), "mobx");
        assert_eq!(module_of(&c("GET /pets/{id}")), "pets");
        assert_eq!(module_of(&c("Pet")), "Pet");
    }

    #[test]
    fn html_escapes_everything_it_is_given() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
