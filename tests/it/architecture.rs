//! The library's layers, as ARCHITECTURE.md states them: each module of `src/` may use only
//! modules of lower layers. A use that breaks the order (and so any import cycle) fails here,
//! naming the file; a new module must be given its layer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::support::repo;

/// Lowest first. A module may use the modules of lower layers, not those of its own or higher.
const LAYERS: &[&[&str]] = &[
    // Plain data and helpers: facts, IRIs, file and HTML helpers, the catalog.
    &["model", "vocab", "fsutil", "html", "queries"],
    // The order of an ecosystem's versions.
    &["version"],
    // Bytes to facts.
    &["extract"],
    // Facts to quads.
    &["lower"],
    // Where releases live; where they come from.
    &["store", "fetch"],
    // Names only the run time makes: imports in a sandbox.
    &["inspect"],
    // A data directory's settings (config.toml).
    &["config"],
    // Writing releases; the derived text index.
    &["ingest", "index"],
    // Reading: every answer.
    &["answer"],
    // Built on answers: migration reports; a project's versions (which may fetch and ingest);
    // whether the machine is ready; offline bundles.
    &["diff", "project", "doctor", "bundle"],
    // Serving.
    &["mcp"],
    &["http"],
    // Hostile-input checks over everything.
    &["fuzz"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The source without comments and without `#[cfg(test)]` items at the top level.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("#[cfg(test)]") {
            // Skip the item: to its closing brace at depth 0, or its `;`.
            let mut depth = 0i32;
            let mut opened = false;
            for l in lines.by_ref() {
                depth += l.matches('{').count() as i32 - l.matches('}').count() as i32;
                opened |= l.contains('{');
                if (opened && depth <= 0) || (!opened && l.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        let line = match line.find("//") {
            // A `//` inside a string literal (a URL) cuts a line short, which can only hide
            // a path, never invent one.
            Some(i) => &line[..i],
            None => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The top-level modules `code` names through `crate::` paths, `use crate::{a, b::c}` included.
fn used_modules(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The top-level items of the group, to its matching brace.
            let mut depth = 0;
            let mut start = 0;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.insert(ident(group[start..j].trim()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(ident(group[start..j].trim()));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.retain(|m| !m.is_empty() && m != "self" && m != "super");
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn modules_use_only_lower_layers() {
    let src = repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut uses: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    let mut unplaced = BTreeSet::new();
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let top = rel.split('/').next().unwrap().trim_end_matches(".rs");
        if matches!(top, "main" | "lib") {
            continue; // the binary and the crate root sit above every layer
        }
        if layer_of(top).is_none() {
            unplaced.insert(top.to_string());
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for used in used_modules(&code(&text)) {
            if used != top {
                uses.entry((top.to_string(), used))
                    .or_default()
                    .insert(rel.clone());
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules with no layer in tests/it/architecture.rs (and ARCHITECTURE.md): {unplaced:?}"
    );
    let wrong: Vec<String> = uses
        .iter()
        .filter(|((from, to), _)| match (layer_of(from), layer_of(to)) {
            (Some(f), Some(t)) => t >= f,
            _ => true,
        })
        .map(|((from, to), files)| format!("{from} -> {to} ({files:?})"))
        .collect();
    assert!(
        wrong.is_empty(),
        "uses of a module of the same or a higher layer (move the shared code down):\n{}",
        wrong.join("\n")
    );
    // The check sees real uses: the layers below the servers are used from above.
    assert!(
        uses.contains_key(&("http".into(), "mcp".into())),
        "{uses:?}"
    );
    assert!(uses.contains_key(&("answer".into(), "store".into())));
}

#[test]
fn uses_are_read_from_paths_groups_and_not_from_comments_or_tests() {
    let text = "use crate::{answer::{Engine, x}, model, store::Store};\n\
                // crate::http is only named here\n\
                fn f() { crate::lower::iri(); }\n\
                #[cfg(test)]\nmod tests {\n    use crate::mcp;\n}\n";
    assert_eq!(
        used_modules(&code(text)),
        ["answer", "lower", "model", "store"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}

/// The functions of `code` longer than `max` lines, as (name, lines).
fn long_functions(code: &str, max: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let mut rest = line.trim_start();
        while let Some(r) = [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "async ",
            "const ",
            "unsafe ",
        ]
        .iter()
        .find_map(|q| rest.strip_prefix(q))
        {
            rest = r;
        }
        let Some(signature) = rest.strip_prefix("fn ") else {
            continue;
        };
        if line.trim_end().ends_with('}') {
            continue; // a one-line function
        }
        let name: String = signature
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // The body opens where the signature ends; a declaration without one ends in `;`.
        let Some(open) = (i..lines.len()).find(|&j| {
            let l = lines[j].trim_end();
            l.ends_with('{') || l.ends_with(';')
        }) else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        if let Some(end) = (open..lines.len()).find(|&j| lines[j] == close) {
            let n = end - i + 1;
            if n > max {
                out.push((name, n));
            }
        }
    }
    out
}

#[test]
fn no_function_outside_tests_is_over_200_lines() {
    let src = repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (name, n) in long_functions(&code(&text), 200) {
            long.push(format!("{}: {name} ({n} lines)", file.display()));
        }
    }
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
    // The measure sees a long function.
    let body = "    x();\n".repeat(201);
    let sample = format!(
        "fn one() -> u8 {{ 1 }}\npub(crate) fn big(a: u8) -> u8 {{\n{body}}}\nfn small() {{}}\n"
    );
    assert_eq!(long_functions(&sample, 200), [("big".to_string(), 203)]);
}
