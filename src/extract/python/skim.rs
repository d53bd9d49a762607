//! Function bodies that no fact comes from, blanked before parsing.
//!
//! Most of a Python source is the statements of its functions' bodies, and the public API
//! needs few of them: a docstring, `self.x = ...` in an `__init__`, a `warnings.warn(...)`, an
//! HTTP path, a nested function a factory returns. Parsing the rest is most of the time an
//! ingest takes (Django: 56% of its lines). [`skim`] finds each function body with a
//! tokenizer of Python's lexical rules (strings with every prefix, f-strings with nested
//! quotes, brackets, comments, continuation lines, indentation) and, when nothing in it can
//! give a fact, overwrites its statements after the docstring with one empty tuple: `(` where
//! the first began, `)` on the last character of the last, spaces and the newlines between.
//! Every byte keeps its offset, so lines, columns and the text of everything kept are those
//! of the file, and the function (and an `if` block around it) still ends on its last line.
//!
//! A body is kept whole when the extractor reads it: `__init__`, `__new__`, `__getattr__`,
//! `__getattribute__` and `__call__`; the methods of a class that may be a metaclass (its
//! header names `type` or `Meta...`); and a body holding a `global` statement, a nested
//! `def`, a deprecation warning or a path literal ([`body_is_read`]). Bodies of
//! functions inside kept bodies are kept too. Whatever the tokenizer does not follow (a stray
//! `\r`, a form feed or a mix of tabs and spaces in indentation, an unterminated string, an
//! unbalanced bracket, a comment inside an f-string's expression, an indentation Python
//! refuses) makes [`skim`] give up on the file, which is then parsed as it is.

use super::contains;

/// Text whose presence in a function body keeps it: a `global` statement (the names a
/// call binds) and a nested definition (the function a factory returns). A deprecation
/// warning (`warn(...)` with a `...Warning` category) and a path literal (an HTTP request)
/// keep it too, see [`body_is_read`]. The file-wide tests of `parse_module` read the whole
/// file, not the skimmed one.
const TRIGGERS: &[&[u8]] = &[b"global", b"def ", b"def\t"];

/// Methods whose bodies the extractor reads whatever they hold.
const READ_METHODS: &[&[u8]] = &[
    b"__init__",
    b"__new__",
    b"__getattr__",
    b"__getattribute__",
    b"__call__",
];

/// `src` with the function bodies nothing reads blanked (see the module docs), or `None` when
/// there is nothing to blank or the file is beyond the tokenizer.
pub fn skim(src: &[u8]) -> Option<Vec<u8>> {
    let lines = logical_lines(src)?;
    let regions = blank_regions(src, &lines)?;
    if regions.is_empty() {
        return None;
    }
    let mut out = src.to_vec();
    for (start, close) in regions {
        for b in &mut out[start..close] {
            if !matches!(*b, b'\n' | b'\r') {
                *b = b' ';
            }
        }
        out[start] = b'(';
        out[close] = b')';
    }
    Some(out)
}

/// One logical line: the statement text from its first token to the newline that ends it.
#[derive(Debug)]
struct Line {
    /// Offset of the first token.
    start: usize,
    /// Offset of the newline that ends the line (or the end of the file).
    end: usize,
    /// Indentation column, tabs to the next multiple of 8.
    indent: usize,
    kind: LineKind,
    /// The line opens a block: a `:` at bracket depth 0 with nothing after it.
    opens_block: bool,
    /// The line's first token is a string (a docstring when first in a body).
    starts_with_string: bool,
}

#[derive(Debug, PartialEq)]
enum LineKind {
    /// `def NAME` or `async def NAME`, with NAME.
    Def(std::ops::Range<usize>),
    /// `class ...`; the header may make a metaclass.
    Class {
        metaclass_like: bool,
    },
    Other,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Splits `src` into logical lines, or `None` where the tokenizer cannot follow it.
fn logical_lines(src: &[u8]) -> Option<Vec<Line>> {
    let mut lines = Vec::new();
    let mut i = if src.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let (mut tabs, mut spaces) = (false, false);
    while i < src.len() {
        // Indentation of a physical line that may begin a logical line.
        let mut indent = 0;
        while let Some(&b) = src.get(i) {
            match b {
                b' ' => {
                    spaces = true;
                    indent += 1;
                }
                b'\t' => {
                    tabs = true;
                    indent = (indent / 8 + 1) * 8;
                }
                _ => break,
            }
            i += 1;
        }
        match src.get(i) {
            None => break,
            Some(b'\n') => {
                i += 1;
                continue;
            }
            Some(b'\r') if src.get(i + 1) == Some(&b'\n') => {
                i += 2;
                continue;
            }
            Some(b'#') => {
                i = line_end(src, i);
                continue;
            }
            Some(b'\x0c' | b'\r') => return None,
            _ => {}
        }
        if tabs && spaces {
            return None;
        }
        let start = i;
        let mut depth = 0usize;
        let mut colon = None;
        let mut after_colon = false;
        let mut words: Vec<std::ops::Range<usize>> = Vec::new();
        let mut first_string = None;
        let mut tokens = 0usize;
        let end = loop {
            let Some(&b) = src.get(i) else {
                if depth > 0 {
                    return None;
                }
                break src.len();
            };
            match b {
                b' ' | b'\t' => {
                    i += 1;
                    continue;
                }
                b'\r' if src.get(i + 1) == Some(&b'\n') => {
                    i += 1;
                    continue;
                }
                b'\n' if depth == 0 => {
                    i += 1;
                    break i - 1;
                }
                b'\n' => {
                    i += 1;
                    continue;
                }
                b'#' => {
                    i = line_end(src, i);
                    continue;
                }
                b'\\' => {
                    // A continuation line; a backslash anywhere else is a syntax error.
                    match (src.get(i + 1), src.get(i + 2)) {
                        (Some(b'\n'), _) => i += 2,
                        (Some(b'\r'), Some(b'\n')) => i += 3,
                        _ => return None,
                    }
                    continue;
                }
                _ => {}
            }
            if colon.is_some() {
                after_colon = true;
            }
            tokens += 1;
            match b {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    i += 1;
                }
                b')' | b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    i += 1;
                }
                b':' if depth == 0 && colon.is_none() && src.get(i + 1) != Some(&b'=') => {
                    colon = Some(i);
                    i += 1;
                }
                b'"' | b'\'' => {
                    if tokens == 1 {
                        first_string = Some(true);
                    }
                    i = string_end(src, i, false)?;
                }
                b'\r' | b'\x0c' => return None,
                _ if is_word_byte(b) && !b.is_ascii_digit() => {
                    let w = i;
                    let prefix;
                    (i, prefix) = word_at(src, i);
                    if let Some(formatted) = prefix {
                        if tokens == 1 {
                            first_string = Some(true);
                        }
                        i = string_end(src, i, formatted)?;
                    } else if words.len() < 3 {
                        words.push(w..i);
                    }
                }
                _ if b.is_ascii_digit() => {
                    while src.get(i).is_some_and(|&b| is_word_byte(b) || b == b'.') {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
            if tokens > 1 && first_string.is_none() {
                first_string = Some(false);
            }
        };
        let word = |k: usize| words.get(k).map(|r| &src[r.clone()]);
        // A keyword counts only as the line's first token (`x = def` cannot occur).
        let first_is_word = words.first().is_some_and(|r| r.start == start);
        let kind = match (first_is_word, word(0), word(1), word(2)) {
            (true, Some(b"def"), Some(_), _) => LineKind::Def(words[1].clone()),
            (true, Some(b"async"), Some(b"def"), Some(_)) => LineKind::Def(words[2].clone()),
            (true, Some(b"class"), _, _) => {
                let header = &src[start..colon.unwrap_or(end)];
                LineKind::Class {
                    metaclass_like: contains(header, b"type") || contains(header, b"Meta"),
                }
            }
            _ => LineKind::Other,
        };
        lines.push(Line {
            start,
            end,
            indent,
            kind,
            opens_block: colon.is_some() && !after_colon,
            starts_with_string: first_string == Some(true),
        });
    }
    Some(lines)
}

/// The offset of the newline that ends the physical line holding `i` (or the end of file).
fn line_end(src: &[u8], i: usize) -> usize {
    src[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(src.len(), |p| i + p)
}

/// The word that starts at `start`: the offset past it, and when it is a string prefix with
/// the string's quote right after it, whether that string is formatted.
fn word_at(src: &[u8], start: usize) -> (usize, Option<bool>) {
    let mut i = start;
    while src.get(i).is_some_and(|&b| is_word_byte(b)) {
        i += 1;
    }
    let quoted = matches!(src.get(i), Some(b'"' | b'\''));
    (i, string_prefix(&src[start..i]).filter(|_| quoted))
}

/// Whether `word` is a string prefix (`r`, `b`, `f`, `rb`, `tr`, ...), and if so whether it
/// makes a formatted string (raw or not changes nothing here: in raw strings too, a backslash
/// keeps the next character from closing the string).
fn string_prefix(word: &[u8]) -> Option<bool> {
    let lower = word.to_ascii_lowercase();
    match lower.as_slice() {
        b"r" | b"u" | b"b" | b"f" | b"t" | b"br" | b"rb" | b"fr" | b"rf" | b"tr" | b"rt" => {
            Some(lower.contains(&b'f') || lower.contains(&b't'))
        }
        _ => None,
    }
}

/// The offset just past the string literal whose opening quote is at `i`.
fn string_end(src: &[u8], mut i: usize, formatted: bool) -> Option<usize> {
    let q = src[i];
    let triple = src.get(i..i + 3) == Some(&[q, q, q][..]);
    i += if triple { 3 } else { 1 };
    loop {
        let b = *src.get(i)?;
        match b {
            b'\\' => {
                i += if src.get(i + 1) == Some(&b'\r') { 3 } else { 2 };
            }
            b'\n' if !triple => return None,
            _ if b == q => {
                if !triple {
                    return Some(i + 1);
                }
                if src.get(i..i + 3) == Some(&[q, q, q][..]) {
                    return Some(i + 3);
                }
                i += 1;
            }
            b'{' if formatted => {
                if src.get(i + 1) == Some(&b'{') {
                    i += 2;
                } else {
                    i = field_end(src, i + 1, q)?;
                }
            }
            _ => i += 1,
        }
    }
}

/// The offset just past the `}` closing an f-string replacement field whose expression
/// starts at `i`. Since Python 3.12 the expression may hold strings in the same quotes.
fn field_end(src: &[u8], mut i: usize, quote: u8) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        let b = *src.get(i)?;
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            b'}' if depth == 0 => return Some(i + 1),
            b'}' => {
                depth -= 1;
                i += 1;
            }
            // The format spec: literal text with nested fields, up to the closing brace.
            b':' if depth == 0 => {
                i += 1;
                loop {
                    match *src.get(i)? {
                        b'{' => i = field_end(src, i + 1, quote)?,
                        b'}' => return Some(i + 1),
                        b'\n' | b'\\' => return None,
                        c if c == quote => return None,
                        _ => i += 1,
                    }
                }
            }
            b'#' | b'\\' => return None,
            b'"' | b'\'' => i = string_end(src, i, false)?,
            _ if is_word_byte(b) && !b.is_ascii_digit() => {
                let prefix;
                (i, prefix) = word_at(src, i);
                if let Some(formatted) = prefix {
                    i = string_end(src, i, formatted)?;
                }
            }
            _ => i += 1,
        }
    }
}

/// Whether the extractor reads anything in `body`.
fn body_is_read(body: &[u8]) -> bool {
    TRIGGERS.iter().any(|t| contains(body, t))
        || (contains(body, b"warn") && contains(body, b"Warning"))
        || crate::extract::requests::may_hold_path(body)
}

/// What to blank, as the offsets of the `(` and the `)`: for each function not inside
/// another function whose body nothing reads, from its first statement after the docstring
/// to the last character of its last. `None` when the indentation is not what Python accepts.
fn blank_regions(src: &[u8], lines: &[Line]) -> Option<Vec<(usize, usize)>> {
    let mut regions = Vec::new();
    // Open `def` and `class` blocks: (indent, a function, a class that may be a metaclass).
    let mut open: Vec<(usize, bool, bool)> = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let line = &lines[k];
        while open.last().is_some_and(|o| o.0 >= line.indent) {
            open.pop();
        }
        if !line.opens_block {
            k += 1;
            continue;
        }
        let body_start = k + 1;
        let mut body_end = body_start;
        while lines.get(body_end).is_some_and(|l| l.indent > line.indent) {
            body_end += 1;
        }
        let body = &lines[body_start..body_end];
        let Some(first) = body.first() else {
            // A block header with no block: Python refuses the file.
            return None;
        };
        // Every line of a block is at least as far in as its first (else IndentationError).
        if body.iter().any(|l| l.indent < first.indent) {
            return None;
        }
        match &line.kind {
            LineKind::Def(name) => {
                let in_function = open.iter().any(|o| o.1);
                let in_metaclass = open.last().is_some_and(|o| o.2);
                let from = if first.starts_with_string { 1 } else { 0 };
                let end = body[body.len() - 1].end;
                // The docstring stays, so what it holds need not keep the rest.
                let read = in_function
                    || in_metaclass
                    || READ_METHODS.contains(&&src[name.clone()])
                    || body
                        .get(from)
                        .is_some_and(|s| body_is_read(&src[s.start..end]));
                if read {
                    open.push((line.indent, true, false));
                    k += 1;
                    continue;
                }
                if let Some(stmt) = body.get(from) {
                    // The last character of the body's last line closes the bracket.
                    let close = src[..end].iter().rposition(|b| !matches!(b, b'\n' | b'\r'));
                    if let Some(close) = close.filter(|&c| c > stmt.start) {
                        regions.push((stmt.start, close));
                    }
                }
                k = body_end;
            }
            LineKind::Class { metaclass_like } => {
                open.push((line.indent, false, *metaclass_like));
                k += 1;
            }
            LineKind::Other => k += 1,
        }
    }
    Some(regions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skimmed(src: &str) -> String {
        skim(src.as_bytes())
            .map(|b| String::from_utf8(b).unwrap())
            .unwrap_or_else(|| src.to_string())
    }

    /// Lines with trailing spaces cut, so expectations read as code.
    fn trimmed(s: &str) -> String {
        s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
    }

    /// Skims `src` and checks the text keeps its length and reads as `want` (trimmed).
    fn check(src: &str, want: &str) {
        let out = skimmed(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(trimmed(&out), want);
    }

    #[test]
    fn a_body_is_blanked_after_its_docstring_and_keeps_its_lines() {
        let src = "class A:\n    def f(self, x: int = 1) -> str:\n        \"\"\"Doc.\n\n        More.\"\"\"\n        y = x + 1\n        return str(y)\n\n    def g(self):\n        return 2\n";
        check(
            src,
            "class A:\n    def f(self, x: int = 1) -> str:\n        \"\"\"Doc.\n\n        More.\"\"\"\n        (\n                    )\n\n    def g(self):\n        (      )",
        );
    }

    #[test]
    fn bodies_the_extractor_reads_are_kept() {
        for body in [
            "warnings.warn('old', DeprecationWarning)",
            "global CACHE",
            "return self._get(\"/v1/items\")",
            "def inner():\n            pass\n        return inner",
            "if old:\n            warn('old', category=FutureWarning)",
        ] {
            let src = format!("def f():\n        {body}\n        return None\n");
            assert_eq!(skimmed(&src), src, "{body}");
        }
        let init = "class A:\n    def __init__(self):\n        self.x = 1\n        self.y = 2\n";
        assert_eq!(skimmed(init), init);
        let meta = "class M(type):\n    def make(cls):\n        cls.x = 1\n        return cls\n";
        assert_eq!(skimmed(meta), meta);
        // Functions inside a kept body are kept with it.
        let nested =
            "def outer():\n    global G\n    def inner():\n        return 1000\n    return inner\n";
        assert_eq!(skimmed(nested), nested);
    }

    #[test]
    fn strings_brackets_and_continuations_do_not_end_a_body() {
        let src = concat!(
            "def f(a,\n",
            "      b=(1,\n",
            "2)):\n",
            "    s = '''\n",
            "class NotAClass:\n",
            "'''\n",
            "    t = f\"{a[\"k\"]:>{b}} {{x}}\" + rb'\\'' \\\n",
            "        + 'y'\n",
            "    u = [1,\n",
            "# comment\n",
            "2]\n",
            "    return s\n",
            "x = 1\n",
        );
        check(
            src,
            "def f(a,\n      b=(1,\n2)):\n    (\n\n\n\n\n\n\n\n           )\nx = 1",
        );
    }

    #[test]
    fn one_line_bodies_decorators_async_and_comments() {
        let src = "@dec\nasync def f(): return 1\n\n@dec\nasync def g():\n    # note\n    await x()\n    await y()\n# dedented comment\n    await z()\n";
        check(
            src,
            "@dec\nasync def f(): return 1\n\n@dec\nasync def g():\n    # note\n    (\n\n\n            )",
        );
    }

    #[test]
    fn files_beyond_the_tokenizer_are_left_whole() {
        for src in [
            "def f():\n    s = 'open\n    return 1\n",
            "def f():\n    return (1\n",
            "def f():\n\tx = 1\n        return x\n",
            "def f():\n    x = f'{y # no}'\n    return x\n",
            "def f():\n        x = 1\n    return x\n",
            "def f():\nreturn 1\n",
            "def f():\r    return 1\r",
        ] {
            assert_eq!(skim(src.as_bytes()), None, "{src:?}");
        }
    }

    #[test]
    fn any_cut_of_a_file_skims_without_moving_a_line() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/python/acme-storage-2.0.0"
        );
        let src = std::fs::read(format!("{dir}/acme_storage/transfer/upload.py")).unwrap();
        assert!(skim(&src).is_some());
        let newlines = |b: &[u8]| -> Vec<usize> {
            b.iter()
                .enumerate()
                .filter(|(_, c)| **c == b'\n')
                .map(|(i, _)| i)
                .collect()
        };
        for cut in 0..src.len() {
            let part = &src[..cut];
            if let Some(out) = skim(part) {
                assert_eq!(out.len(), part.len());
                assert_eq!(newlines(&out), newlines(part), "cut at {cut}");
            }
        }
    }

    #[test]
    fn crlf_files_keep_their_line_ends() {
        let src = "def f():\r\n    x = 1\r\n    return x\r\n";
        let out = skimmed(src);
        assert_eq!(out, "def f():\r\n    (    \r\n           )\r\n");
    }
}
