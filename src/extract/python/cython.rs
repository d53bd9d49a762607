//! Cython sources (`.pyx`, and the `.pxi` files they `include`) lowered to the Python that
//! the Python extractor reads, line for line.
//!
//! A Cython module's Python-visible API is what its `def`, `cpdef` and `class`/`cdef class`
//! statements and its plain Python statements bind; `cdef` functions and variables,
//! `ctypedef`, `cdef extern` blocks and compile-time `DEF` are C-level and invisible from
//! Python. Wheels of lxml, SQLAlchemy and astropy ship these sources beside the compiled
//! modules, so names and signatures of `lxml.etree` come from `etree.pyx` instead of being
//! unknown. Lowering keeps every statement on its line: `cdef class X(B) [type ...]:` becomes
//! `class X(B):`, typed parameters (`_BaseParser parser=None`, `bint pretty=True`) lose their C
//! type, function bodies are blanked but for their docstring, and C-level statements become
//! blank lines. Included files are spliced in at their `include` line, and [`Lowered::origin`]
//! maps each line back to the file and line it came from.

use std::collections::HashMap;

/// Deepest chain of `include`s followed (lxml's is one level deep).
const MAX_INCLUDE_DEPTH: usize = 16;

/// A Cython module lowered to Python.
#[derive(Debug, Default)]
pub struct Lowered {
    pub text: String,
    /// For each line of `text` (0-based), the file and 1-based line it came from.
    pub origin: Vec<(String, usize)>,
    /// Constructs that can bind Python names and are not read (a `cpdef enum`, a compile-time
    /// `IF`, an include that is not among the release's files), as `file:line what`: a name
    /// the module is not seen to bind may still exist.
    pub unread: Vec<String>,
}

/// Lowers the Cython module at `path`, splicing in the files it includes from `files`
/// (release path -> text).
pub fn lower(path: &str, files: &HashMap<&str, &[u8]>) -> Lowered {
    let mut out = Lowered::default();
    let mut stack = Vec::new();
    let mut spliced = std::collections::HashSet::new();
    splice(path, files, &mut stack, &mut spliced, &mut out);
    if out.unread.len() > MAX_NOTES {
        let more = out.unread.len() - MAX_NOTES;
        out.unread.truncate(MAX_NOTES);
        out.unread.push(format!("{more} more"));
    }
    out
}

/// The most unread constructs named (the rest are counted).
const MAX_NOTES: usize = 8;

/// Splices `path` into `out`, each of its includes in place. A file is spliced once per
/// module: a second `include` of it (or a cycle) is noted, which bounds the work by the
/// release's own size whatever its includes do.
fn splice<'p>(
    path: &'p str,
    files: &HashMap<&'p str, &[u8]>,
    stack: &mut Vec<String>,
    spliced: &mut std::collections::HashSet<String>,
    out: &mut Lowered,
) {
    let Some(text) = files.get(path) else {
        return;
    };
    spliced.insert(path.to_string());
    stack.push(path.to_string());
    let file = lower_file(&String::from_utf8_lossy(text));
    for note in &file.unread {
        out.unread.push(format!("{path}:{note}"));
    }
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    for (i, line) in file.lines.iter().enumerate() {
        if let Some(target) = file.includes.get(&i) {
            let full = if dir.is_empty() {
                target.clone()
            } else {
                format!("{dir}/{target}")
            };
            let found = files
                .get_key_value(normalized(&full).as_str())
                .map(|(k, _)| *k);
            match found {
                Some(inc) if !spliced.contains(inc) && stack.len() < MAX_INCLUDE_DEPTH => {
                    splice(inc, files, stack, spliced, out);
                    continue;
                }
                _ => out
                    .unread
                    .push(format!("{path}:{} include \"{target}\" not read", i + 1)),
            }
        }
        out.text.push_str(line);
        out.text.push('\n');
        out.origin.push((path.to_string(), i + 1));
    }
    stack.pop();
}

/// `a/./b/../c.pxi` -> `a/c.pxi`.
fn normalized(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

/// One file lowered, before its includes are spliced in.
struct LoweredFile {
    lines: Vec<String>,
    /// Module-level names declared `cdef`: C globals, which Python assignments to them
    /// (`_VERSION = ...` after `cdef int _VERSION`) do not make Python names.
    c_globals: std::collections::HashSet<String>,
    /// Line index -> the file a top-level `include "..."` names (the line itself is blank).
    includes: HashMap<usize, String>,
    unread: Vec<String>,
}

/// A logical statement: its first and last line (0-based) and its indentation.
#[derive(Debug, Clone)]
struct Stmt {
    first: usize,
    last: usize,
    indent: usize,
    /// The statement's text, lines joined, comments removed.
    text: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Context {
    Module,
    Class,
}

fn lower_file(src: &str) -> LoweredFile {
    let lines: Vec<String> = src.lines().map(str::to_string).collect();
    let stmts = statements(&lines);
    let mut f = LoweredFile {
        lines,
        c_globals: Default::default(),
        includes: HashMap::new(),
        unread: Vec::new(),
    };
    let end = stmts.len();
    walk(&stmts, 0, end, Context::Module, &mut f);
    f
}

/// Splits lines into logical statements: a statement goes on while a bracket or a
/// triple-quoted string is open or a line ends with a backslash.
fn statements(lines: &[String]) -> Vec<Stmt> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut string: Option<(char, bool)> = None;
    let mut current: Option<Stmt> = None;
    for (i, line) in lines.iter().enumerate() {
        let starts = depth == 0 && string.is_none() && current.is_none();
        let trimmed = line.trim_start();
        if starts && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        let stmt = current.get_or_insert_with(|| Stmt {
            first: i,
            last: i,
            indent: indentation(line),
            text: String::new(),
        });
        stmt.last = i;
        let mut chars = line.chars().peekable();
        let mut continued = false;
        while let Some(c) = chars.next() {
            match string {
                Some((q, triple)) => {
                    stmt.text.push(c);
                    if c == '\\' {
                        if let Some(n) = chars.next() {
                            stmt.text.push(n);
                        }
                    } else if c == q {
                        if !triple {
                            string = None;
                        } else if chars.peek() == Some(&q) {
                            chars.next();
                            if chars.peek() == Some(&q) {
                                chars.next();
                                stmt.text.push(q);
                                stmt.text.push(q);
                                string = None;
                            } else {
                                stmt.text.push(q);
                            }
                        }
                    }
                }
                None => match c {
                    '#' => break,
                    '\'' | '"' => {
                        stmt.text.push(c);
                        let triple = chars.peek() == Some(&c) && {
                            let mut ahead = chars.clone();
                            ahead.next();
                            ahead.peek() == Some(&c)
                        };
                        if triple {
                            chars.next();
                            chars.next();
                            stmt.text.push(c);
                            stmt.text.push(c);
                        }
                        string = Some((c, triple));
                    }
                    '(' | '[' | '{' => {
                        depth += 1;
                        stmt.text.push(c);
                    }
                    ')' | ']' | '}' => {
                        depth = depth.saturating_sub(1);
                        stmt.text.push(c);
                    }
                    '\\' if chars.peek().is_none() => continued = true,
                    _ => stmt.text.push(c),
                },
            }
        }
        // An unterminated one-quote string ends with its line (a syntax error; do not let it
        // swallow the rest of the file).
        if matches!(string, Some((_, false))) {
            string = None;
        }
        stmt.text.push('\n');
        if depth == 0 && string.is_none() && !continued {
            let mut done = current.take().expect("a statement is open");
            done.text = done.text.trim().to_string();
            out.push(done);
        }
    }
    if let Some(mut s) = current {
        s.text = s.text.trim().to_string();
        out.push(s);
    }
    out
}

fn indentation(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 8 } else { 1 })
        .sum()
}

/// The end (exclusive) of the block of statement `i`: the statements after it indented
/// deeper.
fn block_end(stmts: &[Stmt], i: usize, end: usize) -> usize {
    let indent = stmts[i].indent;
    let mut j = i + 1;
    while j < end && stmts[j].indent > indent {
        j += 1;
    }
    j
}

fn opens_block(s: &Stmt) -> bool {
    s.text.ends_with(':')
}

/// The first word of a statement and the rest.
fn first_word(text: &str) -> (&str, &str) {
    let t = text.trim_start();
    let end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    (&t[..end], t[end..].trim_start())
}

fn walk(stmts: &[Stmt], start: usize, end: usize, ctx: Context, f: &mut LoweredFile) {
    let mut decorators: Vec<usize> = Vec::new();
    let mut i = start;
    while i < end {
        let s = &stmts[i];
        let block = if opens_block(s) {
            block_end(stmts, i, end)
        } else {
            i + 1
        };
        let (word, rest) = first_word(&s.text);
        if s.text.starts_with('@') {
            decorators.push(i);
            i += 1;
            continue;
        }
        let internal = decorators
            .iter()
            .any(|d| stmts[*d].text.replace(' ', "") == "@cython.internal");
        // `@cython.cfunc` (and `@cython.inline` with it) makes a `def` a C function, in
        // Cython's pure-Python syntax.
        let c_level = decorators.iter().any(|d| {
            let t = stmts[*d].text.replace(' ', "");
            t == "@cython.cfunc" || t == "@cython.inline"
        });
        // `@cython.final`, `@cython.boundscheck(False)`: compiler directives, which neither
        // wrap a function nor add members to a class.
        decorators.retain(|d| {
            let directive = stmts[*d]
                .text
                .trim_start_matches('@')
                .trim_start()
                .starts_with("cython.");
            if directive {
                blank(f, stmts, *d, *d + 1);
            }
            !directive
        });
        let mut blank_it = false;
        match word {
            "include" if ctx == Context::Module && s.indent == 0 => {
                match super::string_literal_value(rest) {
                    Some(target) => {
                        f.includes.insert(s.first, target);
                    }
                    None => f.unread.push(format!("{} include {rest}", s.first + 1)),
                }
                blank_it = true;
            }
            "include" => {
                f.unread
                    .push(format!("{} include inside a block", s.first + 1));
                blank_it = true;
            }
            "cimport" | "ctypedef" | "DEF" => blank_it = true,
            "from" if s.text.contains(" cimport ") => blank_it = true,
            "IF" | "ELIF" | "ELSE" => {
                f.unread
                    .push(format!("{} compile-time {word} block", s.first + 1));
                blank_it = true;
            }
            "cdef" | "cpdef" => {
                blank_it = lower_cdef(stmts, i, block, ctx, internal, f);
            }
            "def" if c_level => blank_it = true,
            "def" => lower_function(stmts, i, block, &s.text, f),
            "async" if rest.starts_with("def ") => lower_function(stmts, i, block, &s.text, f),
            "class" if internal => blank_it = true,
            "class" => {
                walk(stmts, i + 1, block, Context::Class, f);
                keep_body(f, stmts, i, block);
            }
            "property" if ctx == Context::Class && opens_block(s) => {
                // Old-style `property name:` with `__get__`/`__set__` in its block.
                let name = rest.trim_end_matches(':').trim();
                set(f, s, format!("{}{name} = property()", pad(s.indent)));
                blank(f, stmts, i + 1, block);
            }
            _ if opens_block(s) => {
                walk(stmts, i + 1, block, ctx, f);
                keep_body(f, stmts, i, block);
            }
            _ if ctx == Context::Module && f.c_globals.contains(word) && assigns(rest) => {
                set(f, s, format!("{}pass", pad(s.indent)));
            }
            _ if !s.text.starts_with(['"', '\'']) => strip_casts(f, s),
            _ => {}
        }
        if blank_it {
            blank(f, stmts, i, block);
            for d in &decorators {
                blank(f, stmts, *d, *d + 1);
            }
        }
        decorators.clear();
        i = block;
    }
}

fn pad(n: usize) -> String {
    " ".repeat(n)
}

/// Blanks the lines of statements `from..to`.
fn blank(f: &mut LoweredFile, stmts: &[Stmt], from: usize, to: usize) {
    if from >= to {
        return;
    }
    for line in stmts[from].first..=stmts[to - 1].last {
        f.lines[line].clear();
    }
}

/// A block whose statements were all blanked (a class of `cdef` methods, a `try:` of `cdef`
/// assignments) gets `...` on its first line, so that it stays a block.
fn keep_body(f: &mut LoweredFile, stmts: &[Stmt], i: usize, block: usize) {
    if i + 1 >= block {
        return;
    }
    let lines = stmts[i + 1].first..=stmts[block - 1].last;
    if lines.clone().all(|l| f.lines[l].trim().is_empty()) {
        f.lines[stmts[i + 1].first] = format!("{}...", pad(stmts[i + 1].indent));
    }
}

/// Puts `text` on the statement's first line and blanks its other lines.
fn set(f: &mut LoweredFile, s: &Stmt, text: String) {
    // A statement's text joins its lines: they must stay one line here, or every line after
    // it would shift.
    f.lines[s.first] = text.replace(['\n', '\r'], " ");
    for line in s.first + 1..=s.last {
        f.lines[line].clear();
    }
}

/// A `cdef`/`cpdef` statement: a class becomes a Python class, a `cpdef` function a `def`,
/// a class's `public`/`readonly` attributes plain names; the rest is C-level. Returns whether
/// the statement (and its block) is to be blanked.
fn lower_cdef(
    stmts: &[Stmt],
    i: usize,
    block: usize,
    ctx: Context,
    internal: bool,
    f: &mut LoweredFile,
) -> bool {
    let s = &stmts[i];
    let (keyword, mut rest) = first_word(&s.text);
    let mut modifiers = Vec::new();
    loop {
        let (w, r) = first_word(rest);
        if matches!(
            w,
            "public" | "api" | "readonly" | "inline" | "extern" | "packed" | "final" | "nogil"
        ) {
            modifiers.push(w);
            rest = r;
        } else {
            break;
        }
    }
    let (w, after) = first_word(rest);
    match (keyword, w) {
        (_, "class") => {
            let (name, tail) = first_word(after);
            let bases = tail
                .strip_prefix('(')
                .and_then(|_| matching_paren(tail, 0).map(|e| &tail[..=e]))
                .unwrap_or_default();
            // `cdef class X` without a colon declares ahead what a later statement defines;
            // `cdef class X(B): pass` is a class on one line.
            let one_line = !opens_block(s) && tail[bases.len()..].contains(':');
            if internal || !(opens_block(s) || one_line) {
                return true;
            }
            let body = if one_line { " ..." } else { "" };
            set(f, s, format!("{}class {name}{bases}:{body}", pad(s.indent)));
            walk(stmts, i + 1, block, Context::Class, f);
            keep_body(f, stmts, i, block);
            false
        }
        ("cpdef", "enum") => {
            f.unread.push(format!(
                "{} cpdef enum (its names are Python names)",
                s.first + 1
            ));
            true
        }
        ("cpdef", _) => {
            // `cpdef (int, int) minmax(x):`: a parenthesised return type comes first.
            let declarator = match rest.strip_prefix('(') {
                Some(_) => matching_paren(rest, 0).map(|close| &rest[close + 1..]),
                None => Some(rest),
            };
            let found = declarator.and_then(|d| {
                let paren = d.find('(')?;
                let name = d[..paren]
                    .trim_end()
                    .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .filter(|n| !n.is_empty())?;
                Some(format!("def {name}{}", &d[paren..]))
            });
            match found {
                Some(header) => lower_function(stmts, i, block, &header, f),
                None => {
                    f.unread.push(format!("{} cpdef not read", s.first + 1));
                    return true;
                }
            }
            false
        }
        ("cdef", _)
            if ctx == Context::Class
                && (modifiers.contains(&"public") || modifiers.contains(&"readonly"))
                && !s.text.contains('(') =>
        {
            let names = attribute_names(rest);
            if names.is_empty() {
                return true;
            }
            set(
                f,
                s,
                format!("{}{} = None", pad(s.indent), names.join(" = ")),
            );
            false
        }
        ("cdef", _) if ctx == Context::Module && !s.text.contains('(') && !opens_block(s) => {
            if !matches!(w, "enum" | "struct" | "union" | "extern" | "fused") {
                f.c_globals.extend(attribute_names(rest));
            }
            true
        }
        _ => true,
    }
}

/// Whether what follows a name is an assignment to it (`= x`, not `== x`).
fn assigns(rest: &str) -> bool {
    let r = rest.trim_start();
    r.starts_with('=') && !r.starts_with("==") || r.starts_with(':') && r.contains('=')
}

/// Removes Cython casts from a kept statement's lines (see [`without_casts`]).
fn strip_casts(f: &mut LoweredFile, s: &Stmt) {
    for line in s.first..=s.last {
        if f.lines[line].contains('<') {
            f.lines[line] = without_casts(&f.lines[line]);
        }
    }
}

/// `text` without Cython casts (`<bytes>x`, `<unsigned char*>p`, `<char*> p`, `<Foo?>o`):
/// outside strings, `<` directly followed by a type and a `>` directly followed by the
/// operand (any space allowed when the type has `*` or `?`, which no comparison holds). Each
/// cast becomes spaces, so columns stay.
fn without_casts(text: &str) -> String {
    let mut casts = Vec::new();
    outside_strings(text, |k, c, _| {
        if c == '<' {
            let after = &text[k + 1..];
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || " _.*?".contains(c)))
                .unwrap_or(after.len());
            let ty = &after[..end];
            let pointer = ty.contains(['*', '?']);
            let cast = after.as_bytes().get(end) == Some(&b'>')
                && after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && !ty.ends_with(' ')
                && !after[end + 1..].starts_with('=')
                && (pointer || !after[end + 1..].starts_with(' '));
            if cast {
                // `<`, the type, `>`: ASCII only, one byte each.
                casts.push(k..k + end + 2);
            }
        }
        true
    });
    let mut out = text.to_string();
    for cast in casts {
        out.replace_range(cast.clone(), &" ".repeat(cast.len()));
    }
    out
}

/// `TYPE a, b` (`object text`, `unsigned int n, m`, `list *p`): the names declared.
fn attribute_names(decl: &str) -> Vec<String> {
    let parts = split_top(decl.trim_end_matches(':'));
    let mut out = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let part = part.split('=').next().unwrap_or("").trim();
        let name = if k == 0 {
            part.rsplit(|c: char| c.is_whitespace() || c == '*')
                .next()
                .unwrap_or("")
        } else {
            part.trim_start_matches('*').trim()
        };
        if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            out.push(name.to_string());
        }
    }
    out
}

/// Walks `text` outside string literals (escapes honoured), calling `visit(byte, char,
/// depth)` for each character with the bracket depth before it, until `visit` says stop.
fn outside_strings(text: &str, mut visit: impl FnMut(usize, char, usize) -> bool) {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (k, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        if !visit(k, c, depth) {
            return;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
}

/// Splits at commas outside brackets and strings.
fn split_top(text: &str) -> Vec<&str> {
    let mut cuts = Vec::new();
    outside_strings(text, |k, c, depth| {
        if c == ',' && depth == 0 {
            cuts.push(k);
        }
        true
    });
    let mut out = Vec::new();
    let mut start = 0;
    for cut in cuts {
        out.push(&text[start..cut]);
        start = cut + 1;
    }
    out.push(&text[start..]);
    out
}

/// `def name(params) [-> ret] [except ...] [nogil]:` with Cython parameter types dropped, on
/// the statement's first line; the body keeps its docstring and nothing else.
fn lower_function(stmts: &[Stmt], i: usize, block: usize, header: &str, f: &mut LoweredFile) {
    let s = &stmts[i];
    let Some((open, close)) = header
        .find('(')
        .and_then(|open| Some((open, matching_paren(header, open)?)))
    else {
        f.unread
            .push(format!("{} function header not read", s.first + 1));
        blank(f, stmts, i, block);
        return;
    };
    let head = header[..open].trim_end();
    let params: Vec<String> = split_top(&header[open + 1..close])
        .iter()
        .map(|p| lower_param(p))
        .filter(|p| !p.is_empty())
        .collect();
    let tail = header[close + 1..].trim_start();
    let returns = tail
        .strip_prefix("->")
        .map(|r| {
            let r = r.split(':').next().unwrap_or("").trim();
            let r = r.split(" except").next().unwrap_or(r);
            let r = r.split(" nogil").next().unwrap_or(r);
            format!(" -> {}", r.trim())
        })
        .unwrap_or_default();
    let one_liner = !opens_block(s);
    let body = if one_liner { " ..." } else { "" };
    set(
        f,
        s,
        format!(
            "{}{head}({}){returns}:{body}",
            pad(s.indent),
            params.join(", ")
        ),
    );
    if one_liner || i + 1 >= block {
        return;
    }
    let first = &stmts[i + 1];
    let has_doc = first
        .text
        .trim_start_matches(|c: char| "rRbBuUfF".contains(c))
        .starts_with(['"', '\'']);
    if has_doc {
        blank(f, stmts, i + 2, block);
    } else {
        blank(f, stmts, i + 1, block);
        f.lines[first.first] = format!("{}...", pad(first.indent));
    }
}

/// The bracket closing the one at byte `open`.
fn matching_paren(text: &str, open: usize) -> Option<usize> {
    let mut found = None;
    outside_strings(&text[open..], |k, c, depth| {
        if depth == 1 && matches!(c, ')' | ']' | '}') {
            found = Some(open + k);
        }
        found.is_none()
    });
    found
}

/// One parameter without its C type: `_BaseParser parser=None` -> `parser=None`, `_Element
/// elem not None` -> `elem`, `bint pretty_print=True` -> `pretty_print=True`; Python
/// annotations (`x: int`) and `*args`, `**kw`, `*`, `/` stay.
fn lower_param(param: &str) -> String {
    let p = param.trim();
    if p.is_empty() {
        return String::new();
    }
    let (decl, default) = match split_default(p) {
        Some((d, v)) => (d.trim(), Some(v.trim())),
        None => (p, None),
    };
    let decl = decl
        .strip_suffix(" not None")
        .or_else(|| decl.strip_suffix(" or None"))
        .unwrap_or(decl)
        .trim();
    let lowered = if strip_brackets(decl).contains(':') {
        decl.to_string()
    } else {
        // The last word is the name; before it, the C type (with `*` for pointers, and
        // brackets for buffer types such as `np.ndarray[double, ndim=1]`).
        let bare = strip_brackets(decl);
        let name = bare
            .rsplit(|c: char| c.is_whitespace() || (c == '*' && !bare.starts_with('*')))
            .next()
            .unwrap_or("")
            .trim();
        if decl.starts_with('*') {
            // `*args`, `**kwargs`, or a bare `*`.
            decl.to_string()
        } else {
            name.to_string()
        }
    };
    match default {
        Some(v) => format!("{lowered}={}", without_casts(v).trim()),
        None => lowered,
    }
}

/// `name=default` split at the first `=` outside brackets (not `==`).
fn split_default(p: &str) -> Option<(&str, &str)> {
    let mut depth = 0usize;
    let bytes = p.as_bytes();
    for (k, c) in p.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '=' if depth == 0
                && bytes.get(k + 1) != Some(&b'=')
                && k > 0
                && !matches!(bytes[k - 1], b'=' | b'!' | b'<' | b'>') =>
            {
                return Some((&p[..k], &p[k + 1..]));
            }
            _ => {}
        }
    }
    None
}

fn strip_brackets(s: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowered(src: &str) -> String {
        let files = HashMap::from([("m.pyx", src.as_bytes())]);
        lower("m.pyx", &files).text
    }

    #[test]
    fn cython_statements_lower_to_python_on_their_lines() {
        let src = "\
cimport cython
from libc.string cimport strlen
DEF SIZE = 4
cdef object _cache = None
ctypedef int myint

cdef class Base [ type BaseType, object BaseObject ]:
    cdef readonly object tag
    cdef public int count, total
    cdef object _hidden

    def __init__(self, _Parser parser not None, *, bint pretty=True):
        \"\"\"Make one.\"\"\"
        cdef int x = <int>parser
        self._hidden = x

    cdef int _c_level(self) except -1:
        return 0

    cpdef list names(self, Py_ssize_t limit=10, np.ndarray[double, ndim=1] arr=None, x: int = 1, dtype[:] view=None):
        return []

    property text:
        def __get__(self):
            return self._text

@cython.final
cdef inline int helper(char* s) nogil:
    return 1

@cython.internal
cdef class _Hidden:
    pass

cdef class OnlyC:
    cdef int _x
    cdef _f(self):
        return 1

def fromstring(text, _BaseParser parser=None, *, base_url=None): return parse(<bytes>text)

class Plain(Base):
    pass
cdef class Forward
";
        let out = lowered(src);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), src.lines().count(), "{out}");
        assert_eq!(lines[0], "");
        assert_eq!(lines[3], "", "module-level cdef variables are C-level");
        assert_eq!(lines[6], "class Base:");
        assert_eq!(lines[7], "    tag = None");
        assert_eq!(lines[8], "    count = total = None");
        assert_eq!(lines[9], "");
        assert_eq!(lines[11], "    def __init__(self, parser, *, pretty=True):");
        assert_eq!(lines[12], "        \"\"\"Make one.\"\"\"");
        assert_eq!(lines[13], "");
        assert_eq!(lines[16], "", "cdef methods are C-level");
        assert_eq!(
            lines[19], "    def names(self, limit=10, arr=None, x: int=1, view=None):",
            "cpdef methods are Python methods"
        );
        assert_eq!(lines[20], "        ...");
        assert_eq!(lines[22], "    text = property()");
        assert_eq!(lines[26], "", "a decorator of a blanked cdef goes with it");
        assert_eq!(lines[27], "");
        assert_eq!(lines[31], "");
        assert_eq!(lines[34], "class OnlyC:");
        assert_eq!(
            lines[35], "    ...",
            "a class of C-level members stays a class"
        );
        assert_eq!(lines[36], "");
        assert_eq!(
            lines[39],
            "def fromstring(text, parser=None, *, base_url=None): ..."
        );
        assert_eq!(lines[41], "class Plain(Base):");
        assert_eq!(lines[43], "", "a forward declaration declares nothing yet");
    }

    #[test]
    fn includes_are_spliced_in_and_lines_map_back_to_their_files() {
        let files = HashMap::from([
            (
                "pkg/mod.pyx",
                b"__all__ = ['A', 'b']\ninclude \"parts.pxi\"\ninclude \"gone.pxi\"\ndef b(): pass\n"
                    .as_slice(),
            ),
            ("pkg/parts.pxi", b"\ncdef class A:\n    pass\n".as_slice()),
        ]);
        let out = lower("pkg/mod.pyx", &files);
        assert_eq!(
            out.text,
            "__all__ = ['A', 'b']\n\nclass A:\n    pass\n\ndef b(): ...\n"
        );
        assert_eq!(out.origin[2], ("pkg/parts.pxi".to_string(), 2));
        assert_eq!(out.origin[5], ("pkg/mod.pyx".to_string(), 4));
        assert_eq!(
            out.unread,
            vec!["pkg/mod.pyx:3 include \"gone.pxi\" not read"]
        );
    }

    #[test]
    fn casts_go_and_c_globals_stay_c_level() {
        let src = "\
cdef int _VERSION
cdef object CACHE = None
try:
    _VERSION = int((<unsigned char*>tree.v).decode())
except Exception:
    _VERSION = 0
CACHE = {}
PUBLIC = <object>_VERSION
same = a < b and c > d
";
        let out = lowered(src);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[3], "    pass");
        assert_eq!(lines[5], "    pass");
        assert_eq!(lines[6], "pass");
        assert_eq!(
            lines[7].split_whitespace().collect::<Vec<_>>(),
            ["PUBLIC", "=", "_VERSION"]
        );
        assert_eq!(lines[8], "same = a < b and c > d");
    }

    #[test]
    fn headers_that_span_lines_or_hold_odd_syntax_keep_every_line_in_place() {
        let src = "\
def f(x=(1,
      2), sep='\\'', ptr=<object>None):
    pass
cpdef (int, int) minmax(list values):
    return 0, 0
cdef class Empty(Base): pass
cdef class Wide(A,
                B):
    pass
@cython.cfunc
def c_only(x):
    return x
last = 1
";
        let out = lowered(src);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), src.lines().count(), "{out}");
        assert_eq!(lines[0], "def f(x=(1,       2), sep='\\'', ptr=None):");
        assert_eq!(lines[1], "");
        assert_eq!(lines[3], "def minmax(values):");
        assert_eq!(lines[5], "class Empty(Base): ...");
        assert_eq!(lines[6], "class Wide(A,                 B):");
        assert_eq!(lines[10], "", "a cfunc is a C function");
        assert_eq!(lines[12], "last = 1");
    }

    #[test]
    fn includes_are_spliced_once_however_often_they_are_named() {
        let part = "include \"part.pxi\"\n".repeat(50);
        let files = HashMap::from([
            ("m.pyx", part.as_bytes()),
            ("part.pxi", part.as_bytes()),
            ("./x.pxi", b"y = 1\n".as_slice()),
        ]);
        let out = lower("m.pyx", &files);
        // 50 lines of m.pyx, the first replaced by part.pxi's 50 (whose own includes are
        // each a second inclusion).
        assert_eq!(out.origin.len(), 99);
        assert_eq!(out.unread.len(), MAX_NOTES + 1);
        assert_eq!(normalized("a/./b/../c.pxi"), "a/c.pxi");
    }

    #[test]
    fn strings_and_brackets_do_not_start_statements() {
        let src = "x = '''\ncdef class Nope:\n'''\ny = (\n  cdef\n)\n";
        assert_eq!(lowered(src), src);
    }
}
