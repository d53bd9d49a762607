//! What a docstring says about each parameter, in the three styles Python projects write:
//!
//! - reST / Sphinx fields: `:param name: text`, `:param int name: text`, `:keyword name:`;
//! - Google sections: `Args:` (or `Arguments:`, `Parameters:`, `Keyword Args:` ...), then
//!   `name (type): text` items;
//! - NumPy sections: `Parameters` over a line of dashes, then `name : type` items with the
//!   text indented below.
//!
//! A description runs over the item's continuation lines (indented deeper than the item) and
//! stops at the next item, the end of the section, or a paragraph that is not indented
//! under it. Docstrings arrive cleaned (`inspect.cleandoc`).

use crate::model::Param;

/// Fills the description of each parameter the docstring describes and that has none yet.
pub fn describe(params: &mut [Param], doc: &str) {
    if params.iter().all(|p| p.description.is_some()) {
        return;
    }
    let found = param_descriptions(doc);
    for p in params.iter_mut().filter(|p| p.description.is_none()) {
        if let Some((_, d)) = found.iter().find(|(n, _)| *n == p.name) {
            p.description = Some(d.clone());
        }
    }
}

/// (name, description) of every parameter the docstring describes, in its order, the first
/// description of a name winning. `*args` and `**kwargs` are named without their stars.
pub fn param_descriptions(doc: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out: Vec<(String, String)> = Vec::new();
    let mut put = |name: &str, text: String| {
        let name = name.trim_start_matches('*');
        let text = text.trim().to_string();
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !text.is_empty();
        if valid && !out.iter().any(|(n, _)| n == name) {
            out.push((name.to_string(), text));
        }
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = indent_of(line);
        let body = line.trim();
        // reST field: `:param [type] name: text`.
        if let Some(rest) = body.strip_prefix(':')
            && let Some((head, text)) = rest.split_once(':')
        {
            let words: Vec<&str> = head.split_whitespace().collect();
            let field = words.first().copied().unwrap_or_default();
            if words.len() >= 2
                && matches!(
                    field,
                    "param" | "parameter" | "arg" | "argument" | "key" | "keyword"
                )
            {
                let (block, next) = continuation(&lines, i + 1, indent);
                put(words[words.len() - 1], join(text, &block));
                i = next;
                continue;
            }
        }
        // Google section header.
        if is_google_header(body) {
            let mut j = i + 1;
            let mut item_indent: Option<usize> = None;
            while j < lines.len() {
                let l = lines[j];
                if l.trim().is_empty() {
                    j += 1;
                    continue;
                }
                let li = indent_of(l);
                if li <= indent || item_indent.is_some_and(|d| li < d) {
                    break;
                }
                // Every item at the first item's depth (`continuation` takes deeper lines).
                item_indent.get_or_insert(li);
                let (block, next) = continuation(&lines, j + 1, li);
                if let Some((name, text)) = google_item(l.trim()) {
                    put(name, join(text, &block));
                }
                j = next;
            }
            i = j;
            continue;
        }
        // NumPy section header: `Parameters` over dashes.
        if matches!(
            body,
            "Parameters" | "Other Parameters" | "Keyword Arguments" | "Other parameters"
        ) && lines.get(i + 1).is_some_and(|u| is_rule(u))
        {
            let mut j = i + 2;
            while j < lines.len() {
                let l = lines[j];
                if l.trim().is_empty() {
                    j += 1;
                    continue;
                }
                let li = indent_of(l);
                // The next section: a header over dashes, or text less indented.
                let next_is_rule = lines.get(j + 1).is_some_and(|u| is_rule(u));
                if li < indent || (li == indent && next_is_rule) {
                    break;
                }
                if li > indent {
                    j += 1;
                    continue;
                }
                let (block, next) = continuation(&lines, j + 1, li);
                // `name : type`, also written `name: type`; `x, y : type` describes both.
                let head = l.trim();
                let names = head.split_once(':').map_or(head, |(n, _)| n);
                for name in names.split(',') {
                    put(name.trim(), join("", &block));
                }
                j = next;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// A NumPy section's underline: dashes (numpydoc), or `=` / `~` as some projects write.
fn is_rule(line: &str) -> bool {
    let u = line.trim();
    u.len() >= 3 && ['-', '=', '~'].iter().any(|r| u.chars().all(|c| c == *r))
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `Args:` and its synonyms, alone on their line.
fn is_google_header(body: &str) -> bool {
    matches!(
        body,
        "Args:"
            | "Arguments:"
            | "Parameters:"
            | "Params:"
            | "Keyword Args:"
            | "Keyword Arguments:"
            | "Kwargs:"
            | "Other Parameters:"
    )
}

/// `name (type): text`, `name: text`, `*args: text`; the type may hold colons
/// (`console (:class:`~rich.console.Console`, optional): text`).
fn google_item(item: &str) -> Option<(&str, &str)> {
    let colon = item.find(':')?;
    // After `name (type)`: the first `)` followed by a colon (spaces allowed between).
    let typed = item
        .find('(')
        .filter(|open| *open < colon)
        .and_then(|open| {
            item[open..].match_indices(')').find_map(|(k, _)| {
                let rest = item[open + k + 1..].trim_start();
                rest.starts_with(':').then(|| (&item[..open], &rest[1..]))
            })
        });
    let (name, text) = typed.unwrap_or((&item[..colon], &item[colon + 1..]));
    let name = name.trim();
    (!name.is_empty() && !name.contains(' ')).then_some((name, text))
}

/// The lines from `start` that continue an item indented by `indent`: deeper lines, and blank
/// lines followed by a deeper one.
fn continuation<'a>(lines: &[&'a str], start: usize, indent: usize) -> (Vec<&'a str>, usize) {
    let mut block = Vec::new();
    let mut j = start;
    while j < lines.len() {
        let l = lines[j];
        if l.trim().is_empty() {
            // Blank lines continue the item only when a deeper line follows them: the whole
            // run is taken or left at once.
            let run = lines[j..]
                .iter()
                .take_while(|x| x.trim().is_empty())
                .count();
            if lines.get(j + run).is_some_and(|n| indent_of(n) > indent) {
                block.extend(std::iter::repeat_n("", run));
                j += run;
                continue;
            }
            break;
        }
        if indent_of(l) <= indent {
            break;
        }
        block.push(l);
        j += 1;
    }
    (block, j)
}

/// The item's first-line text and its continuation, dedented, as one text.
fn join(first: &str, block: &[&str]) -> String {
    let indent = block
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent_of(l))
        .min()
        .unwrap_or(0);
    let mut text = first.trim().to_string();
    for l in block {
        text.push('\n');
        text.push_str(l.get(indent..).unwrap_or(l.trim_start()).trim_end());
    }
    text.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(doc: &str) -> Vec<(String, String)> {
        param_descriptions(doc)
    }

    #[test]
    fn rest_fields() {
        // As in click.Option.
        let doc = "Creates an option.\n\n:param show_default: Show the default value for this option in its\n    help text. Values are not shown by default.\n:param int count: how many.\n:type count: int\n\n.. versionchanged:: 8.1\n    Something.";
        assert_eq!(
            pairs(doc),
            [
                (
                    "show_default".to_string(),
                    "Show the default value for this option in its\nhelp text. Values are not shown by default.".to_string()
                ),
                ("count".to_string(), "how many.".to_string()),
            ]
        );
    }

    #[test]
    fn google_sections() {
        // As in rich.
        let doc = "Print to the console.\n\nArgs:\n    objects (positional args): Objects to log to the terminal.\n    sep (str, optional): String to write between print data.\n        Defaults to \" \".\n    **kwargs: Passed on.\n\nReturns:\n    None: nothing";
        let p = pairs(doc);
        assert_eq!(p.len(), 3, "{p:?}");
        assert_eq!(
            p[0],
            ("objects".into(), "Objects to log to the terminal.".into())
        );
        assert_eq!(
            p[1],
            (
                "sep".into(),
                "String to write between print data.\nDefaults to \" \".".into()
            )
        );
        assert_eq!(p[2].0, "kwargs");
        let typed = pairs(
            "Args:\n    console (:class:`~rich.console.Console`, optional): Where to write.\n    x (int) : spaced.\n    f (Callable[(int), str]): called.",
        );
        assert_eq!(
            typed,
            [
                ("console".into(), "Where to write.".into()),
                ("x".into(), "spaced.".into()),
                ("f".into(), "called.".into())
            ]
        );
    }

    #[test]
    fn numpy_sections() {
        // As in networkx.
        let doc = "Add an edge.\n\nParameters\n----------\nu_of_edge, v_of_edge : nodes\n    Nodes can be, for example, strings or numbers.\n\n    Nodes must be hashable.\nattr : keyword arguments, optional\n    Edge data.\ndefault:  any Python object (default=None)\n    Value to return.\n\nReturns\n-------\nNone";
        let p = pairs(doc);
        assert_eq!(p.len(), 4, "{p:?}");
        assert_eq!(p[3], ("default".into(), "Value to return.".into()));
        assert_eq!(p[0].0, "u_of_edge");
        assert_eq!(
            p[1].1,
            "Nodes can be, for example, strings or numbers.\n\nNodes must be hashable."
        );
        assert_eq!(p[2], ("attr".into(), "Edge data.".into()));
        let eq = pairs(
            "Parameters\n==========\nx : int\n    The x.\n\nReturns\n=======\nout : ndarray\n    Not a parameter.",
        );
        assert_eq!(eq, [("x".into(), "The x.".into())]);
    }

    #[test]
    fn prose_is_not_a_parameter_section() {
        assert!(pairs("Returns the value.\n\nNote: this is slow.\n\n:returns: x").is_empty());
        assert!(pairs("Example:\n    foo(1)").is_empty());
    }

    #[test]
    fn described_params_keep_their_words_and_others_get_the_docstrings() {
        let mut ps = vec![
            Param {
                name: "a".into(),
                description: Some("kept".into()),
                ..Default::default()
            },
            Param {
                name: "b".into(),
                ..Default::default()
            },
            Param {
                name: "kwargs".into(),
                ..Default::default()
            },
        ];
        describe(
            &mut ps,
            ":param a: other\n:param b: the b\n:param kwargs: rest",
        );
        let d: Vec<Option<&str>> = ps.iter().map(|p| p.description.as_deref()).collect();
        assert_eq!(d, [Some("kept"), Some("the b"), Some("rest")]);
    }
}
