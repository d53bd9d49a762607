//! Probable renames: a removed symbol paired with an added one of the same kind, by what a
//! reader would look at — the deprecation note that named the replacement, the name, the
//! container, the parameters, the members and the docstring. Still breaking: the old name is
//! gone.

use std::collections::{BTreeMap, HashSet};

use super::{Change, Severity};
use crate::model::last_component;

/// Pairs scoring below this stay a removal and an addition.
const THRESHOLD: f64 = 0.7;
/// Below this name similarity, only near-identical parameters or members make a rename.
const NAME_FLOOR: f64 = 0.6;

const REMOVALS: [&str; 3] = ["symbol_removed", "operation_removed", "schema_removed"];
const ADDITIONS: [&str; 3] = ["symbol_added", "operation_added", "schema_added"];

/// What is known of a removed or added symbol's contents: member names, docstring words.
#[derive(Default)]
pub(super) struct Contents {
    pub members: BTreeMap<String, HashSet<String>>,
    pub docs: BTreeMap<String, String>,
}

fn parent(name: &str) -> &str {
    let end = name.len() - last_component(name).len();
    name[..end].trim_end_matches(['.', ':'])
}

/// Identifiers in a signature or words in a docstring, lower-cased.
fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.len() > 1)
        .map(str::to_lowercase)
        .collect()
}

fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> Option<f64> {
    if a.is_empty() && b.is_empty() {
        return None;
    }
    let inter = a.intersection(b).count() as f64;
    Some(inter / (a.len() + b.len()) as f64 * 2.0)
}

/// Whether a deprecation's named replacement (`iter_buckets()`, `Client.iter_buckets`) is
/// this added name.
fn names(replacement: &str, added: &str) -> bool {
    let r = replacement.trim().trim_end_matches("()");
    !r.is_empty() && (added == r || added.ends_with(&format!(".{r}")) || last_component(added) == r)
}

/// A score in 0..1 for "`old` was renamed to `new`", and the evidence behind it.
fn score(old: &Change, new: &Change, contents: &Contents) -> (f64, Vec<&'static str>) {
    if let Some(r) = &old.replacement
        && names(r, &new.qualified_name)
    {
        return (0.95, vec!["its deprecation named it"]);
    }
    let (a, b) = (&old.qualified_name, &new.qualified_name);
    let mut signals: Vec<(f64, f64, &'static str)> = Vec::new();
    let name = if last_component(a) == last_component(b) {
        1.0
    } else {
        strsim::normalized_levenshtein(
            &last_component(a).to_lowercase(),
            &last_component(b).to_lowercase(),
        )
    };
    signals.push((0.35, name, "similar name"));
    signals.push((
        0.1,
        if parent(a) == parent(b) { 1.0 } else { 0.0 },
        "same container",
    ));
    if let (Some(x), Some(y)) = (&old.old_signature, &new.new_signature)
        && let Some(s) = jaccard(&words(x), &words(y))
    {
        signals.push((0.3, s, "same parameters"));
    }
    if let (Some(x), Some(y)) = (contents.members.get(a), contents.members.get(b))
        && let Some(s) = jaccard(x, y)
    {
        signals.push((0.3, s, "same members"));
    }
    if let (Some(x), Some(y)) = (contents.docs.get(a), contents.docs.get(b))
        && let Some(s) = jaccard(&words(x), &words(y))
    {
        signals.push((0.15, s, "similar docstring"));
    }
    // A different name needs strong evidence of the same thing: near-identical contents.
    let contents_match = signals[2..]
        .iter()
        .any(|s| s.2 != "similar docstring" && s.1 >= 0.8);
    if name < NAME_FLOOR && !(name >= 0.3 && contents_match) {
        return (0.0, Vec::new());
    }
    let total: f64 = signals.iter().map(|s| s.0).sum();
    let value = signals.iter().map(|s| s.0 * s.1).sum::<f64>() / total;
    let evidence = signals.iter().filter(|s| s.1 >= 0.7).map(|s| s.2).collect();
    (value, evidence)
}

/// Turns each removal that pairs with an addition into one `renamed` change (the addition is
/// dropped), best pairs first, each name used once.
pub(super) fn pair(changes: &mut Vec<Change>, contents: &Contents, to: &str) {
    let removed: Vec<usize> = (0..changes.len())
        .filter(|&i| REMOVALS.contains(&changes[i].rule.as_str()))
        .collect();
    let added: Vec<usize> = (0..changes.len())
        .filter(|&i| ADDITIONS.contains(&changes[i].rule.as_str()))
        .collect();
    let mut candidates = Vec::new();
    for &r in &removed {
        for &a in &added {
            if changes[r].symbol_kind != changes[a].symbol_kind {
                continue;
            }
            let (s, evidence) = score(&changes[r], &changes[a], contents);
            if s >= THRESHOLD {
                candidates.push((s, r, a, evidence));
            }
        }
    }
    candidates.sort_by(|x, y| y.0.total_cmp(&x.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    let mut used = HashSet::new();
    let mut drop = HashSet::new();
    for (s, r, a, evidence) in candidates {
        if used.contains(&r) || used.contains(&a) {
            continue;
        }
        used.insert(r);
        used.insert(a);
        drop.insert(a);
        let new = changes[a].clone();
        let old = &mut changes[r];
        let confidence = (s * 100.0).round() / 100.0;
        let why = if evidence.is_empty() {
            String::new()
        } else {
            format!(": {}", evidence.join(", "))
        };
        // A removal becomes a rename, still breaking; a schema (reported as a change of the
        // spec) stays a change of its severity.
        if old.kind == "removed" {
            old.kind = "renamed".into();
            old.severity = Severity::Breaking;
            old.breaking = true;
        }
        old.rule = "probable_rename".into();
        // The same name on both sides: an operation whose operationId moved to another
        // endpoint. Its endpoints (the signature up to the parameters) tell the two apart.
        let endpoints = (old.qualified_name == new.qualified_name)
            .then(|| {
                let at = |sig: &Option<String>| {
                    let e = sig.as_deref()?.split_once('(')?.0.trim();
                    (!e.is_empty()).then(|| e.to_string())
                };
                Some((at(&old.old_signature)?, at(&new.new_signature)?))
            })
            .flatten();
        if let Some((from, into)) = endpoints {
            old.detail = format!(
                "{} `{}` at `{from}` is gone in {to}; probably moved to `{into}` (confidence \
                 {confidence:.2}{why})",
                old.symbol_kind, old.qualified_name
            );
            old.hint = Some(format!(
                "Send `{}` requests to `{into}`, checking the new signature.",
                old.qualified_name
            ));
        } else {
            old.detail = format!(
                "{} `{}` is gone in {to}; probably replaced by `{}` (confidence \
                 {confidence:.2}{why})",
                old.symbol_kind, old.qualified_name, new.qualified_name
            );
            old.hint = Some(format!(
                "Rewrite uses of `{}` as `{}`, checking the new signature.",
                old.qualified_name, new.qualified_name
            ));
        }
        old.replacement = Some(new.qualified_name);
        old.new_signature = new.new_signature;
        old.confidence = Some(confidence);
    }
    let mut i = 0;
    changes.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(rule: &str, name: &str, kind: &str, sig: Option<&str>) -> Change {
        let mut c = Change::for_test(rule, name, kind);
        c.old_signature = sig.filter(|_| rule.ends_with("removed")).map(Into::into);
        c.new_signature = sig.filter(|_| rule.ends_with("added")).map(Into::into);
        c
    }

    #[test]
    fn an_operation_id_on_another_endpoint_is_a_move_named_by_its_endpoints() {
        let mut c = vec![
            change(
                "operation_removed",
                "createComment",
                "operation",
                Some("POST /activity/comment(body?: body object)"),
            ),
            change(
                "operation_added",
                "createComment",
                "operation",
                Some("POST /comments(body?: body object)"),
            ),
        ];
        pair(&mut c, &Contents::default(), "15.2.0");
        assert_eq!(c.len(), 1, "{c:#?}");
        assert_eq!(c[0].kind, "renamed");
        assert!(
            c[0].detail.starts_with(
                "operation `createComment` at `POST /activity/comment` is gone in 15.2.0; \
                 probably moved to `POST /comments`"
            ),
            "{}",
            c[0].detail
        );
        assert_eq!(
            c[0].hint.as_deref(),
            Some("Send `createComment` requests to `POST /comments`, checking the new signature.")
        );
    }

    #[test]
    fn a_method_with_the_same_parameters_and_a_close_name_is_a_rename() {
        let mut c = vec![
            change(
                "symbol_removed",
                "m.Client.get_obj",
                "method",
                Some("(self, bucket, key)"),
            ),
            change(
                "symbol_added",
                "m.Client.get_object",
                "method",
                Some("(self, bucket, key)"),
            ),
            change(
                "symbol_added",
                "m.Client.put_object",
                "method",
                Some("(self, body)"),
            ),
        ];
        pair(&mut c, &Contents::default(), "2.0");
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].kind, "renamed");
        assert_eq!(c[0].replacement.as_deref(), Some("m.Client.get_object"));
        assert!(c[0].confidence.unwrap() >= THRESHOLD);
        assert_eq!(c[1].qualified_name, "m.Client.put_object");
    }

    #[test]
    fn unrelated_names_stay_a_removal_and_an_addition() {
        let mut c = vec![
            change(
                "symbol_removed",
                "m.upload_bytes",
                "function",
                Some("(client, data)"),
            ),
            change(
                "symbol_added",
                "m.list_regions",
                "function",
                Some("(client, *, page)"),
            ),
            change("symbol_added", "m.Thing", "class", Some("(client, data)")),
        ];
        pair(&mut c, &Contents::default(), "2.0");
        assert_eq!(c.len(), 3);
        assert!(c.iter().all(|x| x.kind != "renamed"));
    }

    #[test]
    fn a_deprecation_naming_the_replacement_wins() {
        let mut old = change("symbol_removed", "m.C.list_buckets", "method", None);
        old.replacement = Some("iter_buckets()".into());
        let mut c = vec![
            old,
            change("symbol_added", "m.C.iter_buckets", "method", None),
        ];
        pair(&mut c, &Contents::default(), "2.0");
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].confidence, Some(0.95));
    }
}
