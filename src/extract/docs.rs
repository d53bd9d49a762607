//! Documentation pages: Markdown and HTML to sections for the text index.
//!
//! HTML first loses its boilerplate (navigation, sidebars, footers, "related" boxes: CSS
//! selectors, configurable per site) with `lol_html`, then becomes Markdown with `htmd` (code
//! blocks fenced with their language, tables kept). Markdown is cut by its headings with
//! `pulldown-cmark`: a section is the text under one heading; a long section is split at
//! paragraph boundaries, never inside a code block. Each section keeps its heading path and
//! the identifiers it names in code and headings, which lowering resolves to symbols.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::model::{Diagnostic, DocPageFacts, DocSectionFacts, Mention, Reach};

/// Sections longer than this are split at paragraph boundaries (code blocks stay whole).
pub const MAX_SECTION_BYTES: usize = 2400;

/// Elements removed from every HTML page before conversion.
pub const BOILERPLATE: &[&str] = &[
    "script",
    "style",
    "noscript",
    "template",
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "button",
    "iframe",
    "svg",
    "[role=navigation]",
    "[role=banner]",
    "[role=contentinfo]",
    "[role=search]",
    "[aria-hidden=true]",
    ".sidebar",
    ".sphinxsidebar",
    ".footer",
    "#footer",
    "#searchbox",
    ".related",
    ".breadcrumbs",
    ".toc",
    "#toc",
    ".headerlink",
    "a.headerlink",
    ".copy-button",
    ".skip-link",
    ".cookie-banner",
];

/// How pages are read.
#[derive(Debug, Clone, Default)]
pub struct DocOptions {
    /// More CSS selectors to remove from HTML pages (a site's own chrome).
    pub remove: Vec<String>,
    /// Pages are published under this URL (`https://docs.example.com/`): source URLs become
    /// `base + path`.
    pub base_url: Option<String>,
}

/// Whether a file is a documentation page.
pub fn is_page(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".html", ".htm", ".rst"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// Most pages read from one release; the rest are reported.
pub const MAX_PAGES: usize = 300;

/// Whether a page found in a package is documentation of it: a README at the top, or anything
/// under `docs/` or `doc/` (a leading `package/`, as npm tarballs have, ignored). Changelogs are
/// left out: they name every API without explaining any, which drowns concept search.
pub fn is_release_page(path: &str) -> bool {
    let p = path.strip_prefix("package/").unwrap_or(path);
    if !is_page(p) {
        return false;
    }
    let lower = p.to_ascii_lowercase();
    match lower.split_once('/') {
        None => lower.starts_with("readme"),
        Some((top, _)) => (top == "docs" || top == "doc") && !is_changelog(&lower),
    }
}

/// A changelog or release-notes page (`docs/changes.rst`, `doc/whatsnew/3.1.md`,
/// `docs/history.md`), by its file or folder names.
fn is_changelog(lower_path: &str) -> bool {
    lower_path.split('/').any(|part| {
        let stem = part
            .split('.')
            .next()
            .unwrap_or(part)
            .replace(['-', '_'], "");
        matches!(
            stem.as_str(),
            "changelog" | "changes" | "history" | "releasenotes" | "news" | "whatsnew"
        )
    })
}

/// A wheel's `*.dist-info/METADATA` holds the project's README as its body (after the headers),
/// and its markup in `Description-Content-Type`: the body and `md` for Markdown (and plain
/// text, which reads as Markdown), `rst` for reStructuredText, which is also what the core
/// metadata specification says an absent type means. The page is `README.<markup>`. None when
/// the body is empty.
pub fn readme_from_metadata(bytes: &[u8]) -> Option<(Vec<u8>, &'static str)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (headers, body) = text
        .split_once("\n\n")
        .or_else(|| text.split_once("\r\n\r\n"))?;
    if body.trim().is_empty() {
        return None;
    }
    let content_type = headers.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("Description-Content-Type")
            .then(|| v.trim().to_ascii_lowercase())
    });
    let markup = match content_type.as_deref() {
        Some(t) if t.starts_with("text/markdown") || t.starts_with("text/plain") => "md",
        _ => "rst",
    };
    Some((body.as_bytes().to_vec(), markup))
}

/// The most `[` on one line of a page `rst_to_markdown` parses (10 take 0.1 s).
const MAX_RST_BRACKETS_PER_LINE: usize = 10;

/// The parser's time grows much faster than the length of a page (xarray 2023.1.0's
/// `whats-new.rst`: 1,500 lines 0.2 s, 1,800 lines 2.4 s, 6,500 lines more than 5 minutes),
/// while each of its sections takes milliseconds: a page is parsed in pieces of about this
/// many lines, cut before a section title.
const RST_PIECE_LINES: usize = 150;

/// reStructuredText as Markdown: parsed and rendered to HTML (`rst_parser`, `rst_renderer`),
/// then converted as HTML pages are. Text the parser does not take (it knows no Sphinx
/// extension) is kept as written rather than lost: headings underlined with `=` and `-` and
/// indented literal blocks read as Markdown much as they were meant. A long page is parsed
/// in pieces (see [`RST_PIECE_LINES`]), each given the page's title styles first so that its
/// headings keep their levels.
pub fn rst_to_markdown(rst: &str, extra_remove: &[String]) -> String {
    let lines: Vec<&str> = rst.lines().collect();
    // Where each line starts in `rst`, and its end: a piece is a slice of the page as written.
    let offsets: Vec<usize> = std::iter::once(0)
        .chain(rst.split_inclusive('\n').scan(0, |at, l| {
            *at += l.len();
            Some(*at)
        }))
        .collect();
    let titles = rst_titles(&lines);
    let mut styles: Vec<(bool, char)> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    let mut start = 0;
    let mut cuts = titles.iter().map(|t| (t.first_line, t.style)).peekable();
    while start < lines.len() {
        // The styles in use before this piece, in the order the page introduces them.
        let before = styles.clone();
        let mut end = lines.len();
        while let Some(&(line, style)) = cuts.peek() {
            if line > start && line - start >= RST_PIECE_LINES {
                end = line;
                break;
            }
            if !styles.contains(&style) {
                styles.push(style);
            }
            cuts.next();
        }
        out.push(rst_piece_to_markdown(
            &rst[offsets[start]..offsets[end]],
            &before,
            extra_remove,
        ));
        start = end;
    }
    out.join("\n\n")
}

/// A section title found by [`rst_titles`]: the line it starts on (its overline, if any) and
/// its style (overlined, adornment character), which is what gives a title its level.
struct RstTitle {
    first_line: usize,
    style: (bool, char),
}

/// The section titles of a page, in order: a line of text at the left margin underlined (and
/// perhaps overlined) by one repeated punctuation character at least as long as the text.
fn rst_titles(lines: &[&str]) -> Vec<RstTitle> {
    let adornment = |l: &str| -> Option<char> {
        let l = l.trim_end();
        let c = l.chars().next()?;
        (l.chars().count() >= 3 && c.is_ascii_punctuation() && l.chars().all(|x| x == c))
            .then_some(c)
    };
    let mut titles = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let text = lines[i];
        let is_text = !text.trim().is_empty()
            && !text.starts_with(char::is_whitespace)
            && adornment(text).is_none();
        let width = text.trim_end().chars().count();
        match adornment(lines[i + 1]) {
            Some(c) if is_text && lines[i + 1].trim_end().chars().count() >= width => {
                let overlined = i > 0 && adornment(lines[i - 1]) == Some(c);
                titles.push(RstTitle {
                    first_line: if overlined { i - 1 } else { i },
                    style: (overlined, c),
                });
                i += 2;
            }
            _ => i += 1,
        }
    }
    titles
}

/// The text of the hidden titles that give a piece the levels of the page before it.
const RST_LEVEL_MARKER: &str = "Refgraphhiddenlevelmarker";

/// One piece of a page (see [`rst_to_markdown`]): `styles` are the title styles the page used
/// before it, set out first as hidden titles and removed from the result.
fn rst_piece_to_markdown(rst: &str, styles: &[(bool, char)], extra_remove: &[String]) -> String {
    // The parser backtracks exponentially on the square brackets of one line (footnote
    // references: 16 `[a] ` on a line take 4 s, 20 more than 10 s): such a piece is kept as
    // written rather than hang the ingest.
    if rst
        .lines()
        .any(|l| l.matches('[').count() > MAX_RST_BRACKETS_PER_LINE)
    {
        return rst.to_string();
    }
    let mut preamble = String::new();
    for &(overlined, c) in styles {
        let rule = c.to_string().repeat(RST_LEVEL_MARKER.len());
        if overlined {
            preamble.push_str(&rule);
            preamble.push('\n');
        }
        preamble.push_str(&format!("{RST_LEVEL_MARKER}\n{rule}\n\n"));
    }
    // The grammar wants the text to end in one newline; a panic in the parser must not take
    // the ingest down.
    let source = format!(
        "{preamble}{}\n",
        sphinx_as_plain_rst(&without_images(rst)).trim_end()
    );
    quiet_rst_parser_panics();
    let html = std::panic::catch_unwind(|| {
        let doc = rst_parser::parse(&source).ok()?;
        let mut out = Vec::new();
        rst_renderer::render_html(&doc, &mut out, false).ok()?;
        String::from_utf8(out).ok()
    })
    .ok()
    .flatten();
    html.and_then(|h| html_to_markdown(&h, extra_remove).ok())
        .map(|md| {
            md.lines()
                .filter(|l| l.trim_start_matches('#').trim() != RST_LEVEL_MARKER)
                .collect::<Vec<_>>()
                .join("\n")
                .trim()
                .to_string()
        })
        .filter(|md| !md.trim().is_empty())
        .unwrap_or_else(|| rst.to_string())
}

/// The parser panics on constructs it does not implement (`not implemented: unhandled rule
/// admonition`); `rst_to_markdown` catches that and keeps the page as written, so the panic is
/// no crash and its message, printed by the default hook, would only alarm. The process's
/// panic hook is wrapped once to log such panics at debug level and pass every other on.
fn quiet_rst_parser_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let file = info.location().map_or("", |l| l.file());
            if file.contains("rst_parser") || file.contains("rst_renderer") {
                tracing::debug!("reStructuredText parser gave up on a page: {info}");
            } else {
                previous(info);
            }
        }));
    });
}

/// Roles naming Python objects (`:func:`, `:meth:`, `:class:`...): their target becomes an
/// inline literal, which Markdown keeps as a code span and mentions resolve.
const OBJECT_ROLES: &[&str] = &[
    "func",
    "meth",
    "class",
    "attr",
    "data",
    "exc",
    "obj",
    "mod",
    "const",
    "type",
    "function",
    "method",
    "attribute",
    "module",
    "exception",
];

/// What Sphinx adds to reStructuredText, in the plain forms the parser reads: a role naming a
/// Python object (``:meth:`~click.Context.invoke` ``, ``:class:`title <click.IntRange>` ``)
/// becomes an inline literal of its target (``` ``click.Context.invoke`` ```), any other role
/// (`:ref:`, `:doc:`) its title; a paragraph ending in `::` introduces its indented block as
/// code (a `code-block` directive), as Sphinx reads it.
fn sphinx_as_plain_rst(rst: &str) -> String {
    let lines: Vec<&str> = rst.lines().collect();
    let indent_of = |l: &str| l.len() - l.trim_start().len();
    let mut out = String::with_capacity(rst.len() + 64);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = indent_of(line);
        let t = line.trim();
        i += 1;
        // A directive: the body of one that holds code (`.. code-block:: python`) or raw text
        // is kept as written; in others (`.. note::`) roles and `::` are read as anywhere.
        if t == ".." || t.starts_with(".. ") {
            match sphinx_code_directive(t) {
                Some(language) => {
                    out.push_str(&format!("{}.. code-block:: {language}", " ".repeat(indent)))
                }
                None => out.push_str(line),
            }
            out.push('\n');
            if VERBATIM_DIRECTIVES.iter().any(|d| t.contains(d)) {
                let start = i;
                while i < lines.len()
                    && (lines[i].trim().is_empty() || indent_of(lines[i]) > indent)
                {
                    i += 1;
                }
                let mut end = i;
                while end > start && lines[end - 1].trim().is_empty() {
                    end -= 1;
                }
                out.push_str(&under_directive(&lines[start..end], indent));
                out.push_str(&"\n".repeat(i - end));
            }
            continue;
        }
        let line = plain_roles(line.trim_end());
        let Some(text) = line.strip_suffix("::") else {
            out.push_str(&line);
            out.push('\n');
            continue;
        };
        // The literal block: the lines after, indented deeper, blank lines within.
        let start = i;
        while i < lines.len() && (lines[i].trim().is_empty() || indent_of(lines[i]) > indent) {
            i += 1;
        }
        let mut end = i;
        while end > start && lines[end - 1].trim().is_empty() {
            end -= 1;
        }
        let block = lines[start..end]
            .iter()
            .skip_while(|l| l.trim().is_empty())
            .copied()
            .collect::<Vec<&str>>();
        // `text::` reads "text:", `text ::` reads "text", `::` alone nothing.
        if !text.trim().is_empty() {
            if text.ends_with(char::is_whitespace) {
                out.push_str(text.trim_end());
            } else {
                out.push_str(text);
                out.push(':');
            }
            out.push('\n');
        }
        if block.iter().all(|l| l.trim().is_empty()) {
            continue;
        }
        out.push_str(&format!("\n{}.. code-block::\n\n", " ".repeat(indent)));
        out.push_str(&under_directive(&block, indent));
        out.push('\n');
    }
    out
}

/// The body of a directive written at `indent`, moved to exactly three columns deeper, which
/// is where the parser looks for it (a body four columns in kept a stray space on each line
/// of code); relative indentation and blank lines are kept.
fn under_directive(body: &[&str], indent: usize) -> String {
    let indent_of = |l: &str| l.len() - l.trim_start().len();
    let common = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent_of(l))
        .min()
        .unwrap_or(0);
    let pad = " ".repeat(indent + 3);
    let mut out = String::new();
    for l in body {
        if !l.trim().is_empty() {
            out.push_str(&pad);
            out.push_str(&l[common.min(indent_of(l))..]);
        }
        out.push('\n');
    }
    out
}

/// The language of a Sphinx directive whose body is code but which the parser does not know
/// (it drops the body): `testcode` and `doctest` (sphinx.ext.doctest) hold Python, and
/// `sourcecode` is `code-block` by another name. They are read as a `code-block`.
fn sphinx_code_directive(directive: &str) -> Option<String> {
    let rest = directive.strip_prefix("..")?.trim_start();
    let (name, argument) = rest.split_once("::")?;
    match name.trim() {
        "testcode" => Some("python".into()),
        "doctest" => Some("pycon".into()),
        "sourcecode" => Some(argument.trim().to_string()),
        _ => None,
    }
}

/// Directives whose body is code or raw text, kept as written (but for their indentation).
const VERBATIM_DIRECTIVES: &[&str] = &[
    "code-block::",
    "code::",
    "sourcecode::",
    "literalinclude::",
    "raw::",
    "math::",
    "example::",
    "doctest::",
    "testcode::",
    "parsed-literal::",
];

/// One line with its Sphinx roles replaced (see [`sphinx_as_plain_rst`]); inline literals
/// (``` ``:func:`x` `` ```) are left as written. Docstrings are read with it too.
pub(crate) fn plain_roles(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find([':', '`']) {
        if rest[start..].starts_with("``") {
            let end = rest[start + 2..]
                .find("``")
                .map_or(rest.len(), |e| start + 2 + e + 2);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        if rest[start..].starts_with('`') {
            out.push_str(&rest[..start + 1]);
            rest = &rest[start + 1..];
            continue;
        }
        // `:name:` or `:py:name:` directly followed by a backquoted text.
        let after = &rest[start + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == ':' || c == '-'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        let role = name.strip_suffix(':').filter(|r| !r.is_empty());
        let body = after[name_len..].strip_prefix('`');
        let (Some(role), Some(body)) = (role, body) else {
            out.push_str(&rest[..start + 1]);
            rest = &rest[start + 1..];
            continue;
        };
        let Some(end) = body.find('`') else {
            out.push_str(&rest[..start + 1]);
            rest = &rest[start + 1..];
            continue;
        };
        let text = &body[..end];
        let (title, target) = match text
            .trim_end()
            .strip_suffix('>')
            .and_then(|t| t.rsplit_once('<'))
        {
            Some((title, target)) => (title.trim(), target.trim()),
            None => (text, text),
        };
        out.push_str(&rest[..start]);
        let role = role.rsplit(':').next().unwrap_or(role);
        if OBJECT_ROLES.contains(&role) {
            out.push_str("``");
            out.push_str(target.trim_start_matches(['~', '!']));
            out.push_str("``");
        } else {
            out.push_str(title.trim_start_matches(['~', '!']));
        }
        rest = &body[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The text without its image and figure directives (`.. image:: URL` and their indented
/// `:target:` / `:alt:` options, `.. |badge| image:: URL`): badges and logos, no words to find,
/// and options the parser reads as a quotation.
fn without_images(rst: &str) -> String {
    let mut out = String::with_capacity(rst.len());
    let mut skipping = false;
    for line in rst.lines() {
        let t = line.trim_start();
        let directive = t.starts_with(".. ")
            && (t.contains(" image::") || t.starts_with(".. figure::") || t.contains("|image::"));
        if directive {
            skipping = true;
            continue;
        }
        if skipping && (line.starts_with([' ', '\t']) && !t.is_empty()) {
            continue;
        }
        skipping = false;
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Reads one page. A page that cannot be read is a diagnostic, never a failure.
pub fn read_page(
    path: &str,
    bytes: &[u8],
    last_updated: Option<String>,
    options: &DocOptions,
) -> Result<DocPageFacts, Diagnostic> {
    let diag = |message: String| Diagnostic {
        file: path.to_string(),
        line: 0,
        message,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| diag(format!("not UTF-8: {e}")))?;
    let lower = path.to_ascii_lowercase();
    let (markdown, html_title) = if lower.ends_with(".html") || lower.ends_with(".htm") {
        let title = html_title(text);
        (
            html_to_markdown(text, &options.remove).map_err(diag)?,
            title,
        )
    } else if lower.ends_with(".rst") {
        (rst_to_markdown(text, &options.remove), None)
    } else {
        (text.to_string(), None)
    };
    let sections = sections(&markdown, path);
    let title = html_title
        .or_else(|| {
            sections
                .iter()
                .find_map(|s| s.path.first().cloned())
                .filter(|t| !t.is_empty())
        })
        .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(path).to_string());
    let source_url = match &options.base_url {
        Some(base) => format!(
            "{}/{}",
            base.trim_end_matches('/'),
            path.trim_start_matches('/')
        ),
        None => path.to_string(),
    };
    Ok(DocPageFacts {
        path: path.to_string(),
        source_url,
        title,
        last_updated,
        sections,
    })
}

/// The `<title>` of an HTML page, without a trailing " — Site name".
fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let end = open_end + lower[open_end..].find("</title>")?;
    let raw = html[open_end..end].trim();
    let title = raw
        .split([' '])
        .collect::<Vec<_>>()
        .join(" ")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let title = title
        .split(" — ")
        .next()
        .unwrap_or(&title)
        .split(" | ")
        .next()
        .unwrap_or(&title)
        .trim()
        .to_string();
    (!title.is_empty()).then_some(title)
}

/// Removes boilerplate elements, then converts to Markdown.
pub fn html_to_markdown(html: &str, extra_remove: &[String]) -> Result<String, String> {
    use lol_html::{RewriteStrSettings, Selector, element, rewrite_str};
    let mut settings = RewriteStrSettings::new();
    let selectors = BOILERPLATE
        .iter()
        .map(|s| s.to_string())
        .chain(extra_remove.iter().cloned());
    for sel in selectors {
        sel.parse::<Selector>()
            .map_err(|e| format!("bad CSS selector {sel:?}: {e}"))?;
        settings = settings.append_element_content_handler(element!(sel.as_str(), |el| {
            el.remove();
            Ok(())
        }));
    }
    // Sphinx and Pygments put the language on a wrapper (`div.highlight-python > pre`); htmd
    // reads it from a `language-*` class on the `<pre>`.
    let pending: std::rc::Rc<std::cell::RefCell<Option<String>>> = Default::default();
    for sel in ["div[class*=\"highlight-\"]", "div[class*=\"language-\"]"] {
        let p = pending.clone();
        settings = settings.append_element_content_handler(element!(sel, move |el| {
            if let Some(l) = el
                .get_attribute("class")
                .as_deref()
                .and_then(language_of_class)
            {
                *p.borrow_mut() = Some(l);
            }
            Ok(())
        }));
    }
    let p = pending.clone();
    settings = settings.append_element_content_handler(element!("pre", move |el| {
        let own = el.get_attribute("class").unwrap_or_default();
        let inherited = p.borrow_mut().take();
        if !own.split_whitespace().any(|c| c.starts_with("language-"))
            && let Some(l) = language_of_class(&own).or(inherited)
        {
            el.set_attribute("class", format!("{own} language-{l}").trim())?;
        }
        Ok(())
    }));
    let cleaned = rewrite_str(html, settings).map_err(|e| format!("HTML rewrite failed: {e}"))?;
    converter()
        .convert(&cleaned)
        .map_err(|e| format!("HTML to Markdown failed: {e}"))
}

fn language_of_class(class: &str) -> Option<String> {
    class
        .split_whitespace()
        .find_map(|c| {
            c.strip_prefix("language-")
                .or_else(|| c.strip_prefix("lang-"))
                .or_else(|| c.strip_prefix("highlight-"))
        })
        .filter(|l| !l.is_empty() && *l != "default" && *l != "none")
        .map(str::to_owned)
}

/// A docstring written in HTML (the AWS SDKs' TSDoc, many OpenAPI descriptions) as Markdown,
/// for the text index's snippets and vectors; `None` when it holds no HTML element, or code
/// spans or doctests (Markdown, reST and Python docstrings that only mention a tag). The graph
/// keeps the docstring as written.
pub fn html_docstring_to_markdown(doc: &str) -> Option<String> {
    const CLOSING_TAGS: &[&str] = &[
        "</p>",
        "</a>",
        "</code>",
        "</li>",
        "</i>",
        "</b>",
        "</em>",
        "</strong>",
        "</span>",
        "</div>",
        "</pre>",
        "</note>",
        "</important>",
    ];
    if !doc.contains("</")
        || !CLOSING_TAGS.iter().any(|t| doc.contains(t))
        || doc.contains('`')
        || doc.contains(">>>")
    {
        return None;
    }
    thread_local! {
        static CONVERTER: htmd::HtmlToMarkdown = converter();
    }
    let md = CONVERTER.with(|c| c.convert(doc)).ok()?;
    // htmd escapes Markdown's characters in text (`next\_token`); the tokenizer would split
    // the identifier at the backslash, and a reader needs no escapes in a snippet.
    let mut out = String::with_capacity(md.len());
    let mut chars = md.trim().chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|n| "_*[]#\\<>!`".contains(*n)) {
            continue;
        }
        out.push(c);
    }
    (!out.is_empty()).then_some(out)
}

/// htmd with one change: a `<pre>` without `<code>` (Sphinx, Pygments) still becomes a fenced
/// block, with the language of its `language-*` class.
fn converter() -> htmd::HtmlToMarkdown {
    use htmd::Element;
    use htmd::element_handler::{HandlerResult, Handlers};
    htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "head", "title", "script", "style", "noscript", "svg", "button", "iframe",
        ])
        .add_handler(
            vec!["pre"],
            |h: &dyn Handlers, el: Element| -> Option<HandlerResult> {
                let inner = h.walk_children(el.node).content;
                let body = inner.trim_matches('\n');
                if body.starts_with("```") || body.starts_with("~~~") {
                    return Some(format!("\n\n{body}\n\n").into());
                }
                let lang = el
                    .attrs
                    .iter()
                    .find(|a| &a.name.local == "class")
                    .and_then(|a| {
                        let v: &str = &a.value;
                        v.split_whitespace()
                            .find_map(|c| c.strip_prefix("language-"))
                            .map(str::to_owned)
                    })
                    .unwrap_or_default();
                let run = body
                    .split(|c: char| c != '`')
                    .map(str::len)
                    .max()
                    .unwrap_or(0);
                let fence = "`".repeat(run.max(2) + 1);
                Some(format!("\n\n{fence}{lang}\n{body}\n{fence}\n\n").into())
            },
        )
        .build()
}

struct Heading {
    level: u8,
    text: String,
    range: Range<usize>,
}

/// Headings, code block ranges and the identifiers named in code spans, code blocks and
/// headings, by byte offset.
struct Outline {
    headings: Vec<Heading>,
    code: Vec<Range<usize>>,
    /// (offset, identifier)
    identifiers: Vec<(usize, Mention)>,
}

fn outline(md: &str) -> Outline {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut out = Outline {
        headings: Vec::new(),
        code: Vec::new(),
        identifiers: Vec::new(),
    };
    let mut heading: Option<Heading> = None;
    // Where the code block being read starts, how its words read, and its text so far.
    let mut in_code: Option<(usize, Written, String)> = None;
    for (ev, range) in Parser::new_ext(md, opts).into_offset_iter() {
        match ev {
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some(Heading {
                    level: level as u8,
                    text: String::new(),
                    range,
                })
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    for id in identifiers_in(&h.text, Written::Prose) {
                        out.identifiers.push((h.range.start, id));
                    }
                    out.headings.push(h);
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let written = match &kind {
                    CodeBlockKind::Fenced(info) if is_transcript(info) => Written::Prose,
                    CodeBlockKind::Fenced(info) => Written::Block {
                        object_keys: has_object_keys(info),
                    },
                    CodeBlockKind::Indented => Written::Block { object_keys: false },
                };
                in_code = Some((range.start, written, String::new()));
                out.code.push(range);
            }
            // A block's words are read once it is whole: a chain or an object spans lines.
            Event::End(TagEnd::CodeBlock) => {
                if let Some((start, written, text)) = in_code.take() {
                    for id in identifiers_in(&text, written) {
                        out.identifiers.push((start, id));
                    }
                }
            }
            Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.text.push_str(&t);
                }
                for id in identifiers_in(&t, Written::Span) {
                    out.identifiers.push((range.start, id));
                }
            }
            Event::Text(t) => {
                if let Some(h) = heading.as_mut() {
                    h.text.push_str(&t);
                } else if let Some((_, _, text)) = in_code.as_mut() {
                    text.push_str(&t);
                }
            }
            _ => {}
        }
    }
    out
}

/// The identifiers a Markdown text names in code spans, code blocks and headings, each once,
/// in order (a docstring's mentions; doc pages get theirs per section from [`sections`]).
pub fn mentions_in(md: &str) -> Vec<Mention> {
    let mut out: Vec<Mention> = Vec::new();
    for (_, m) in outline(md).identifiers {
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}

/// The language a fenced block's info string names (`ts title=x.ts` names `ts`), lower-cased.
pub(crate) fn fence_language(info: &str) -> String {
    info.split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Whether a fenced block's info string marks a terminal session or plain output
/// (`console`, `sh`, `text`...): its words are commands, flags and messages ("error: option
/// '-d' is invalid"), so only words shaped like code name symbols, as in prose.
fn is_transcript(info: &str) -> bool {
    matches!(
        fence_language(info).as_str(),
        "console"
            | "shell"
            | "shell-session"
            | "sh"
            | "bash"
            | "zsh"
            | "fish"
            | "powershell"
            | "ps1"
            | "bat"
            | "cmd"
            | "text"
            | "txt"
            | "plain"
            | "plaintext"
            | "output"
            | "log"
    )
}

/// Objects of the languages' standard libraries: `console.error(...)` calls no symbol of the
/// package, though one of its classes may have an `error` member.
const BUILTIN_RECEIVERS: &[&str] = &[
    "console",
    "process",
    "Math",
    "JSON",
    "Object",
    "Array",
    "Promise",
    "Number",
    "String",
    "Date",
    "Reflect",
    "window",
    "document",
    "globalThis",
    "os",
    "sys",
    "json",
    "re",
];

/// Where a page writes words.
#[derive(Clone, Copy, PartialEq)]
enum Written {
    /// Prose, headings and terminal sessions: only words shaped like code.
    Prose,
    /// A code span: every word, naming any symbol (`opts`, `.opts()`).
    Span,
    /// A code block: every word; a bare one names no class member (it is a variable or
    /// a keyword argument more often than `SomeClass.name`), one after a `.` only members.
    /// With `object_keys`, a bare word before a `:` is an object key, which may name a
    /// member (an options property).
    Block { object_keys: bool },
}

/// Whether a fenced block's language writes objects as `{ key: value }`, whose keys name
/// the properties of an options type (`configureOutput({ writeErr: ... })`).
fn has_object_keys(info: &str) -> bool {
    matches!(
        fence_language(info).as_str(),
        "js" | "javascript" | "jsx" | "mjs" | "cjs" | "ts" | "typescript" | "tsx"
    )
}

/// Identifier-like words: in code every word (`confirm`, `client.put_object`); in prose only
/// words shaped like code (`upload_file`, `getObject`, `a.b`, `f()`).
fn identifiers_in(text: &str, written: Written) -> Vec<Mention> {
    let mut out: Vec<Mention> = Vec::new();
    // A page may hold one huge code block: no quadratic scan for duplicates.
    let mut seen: std::collections::HashSet<(&str, Reach)> = std::collections::HashSet::new();
    let bytes = text.as_bytes();
    // The brackets open at `i`, innermost last.
    let mut brackets: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || bytes[i] == b'_'
                    || bytes[i] == b'$'
                    || (bytes[i] == b'.'
                        && bytes
                            .get(i + 1)
                            .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'_')))
            {
                i += 1;
            }
            let word = &text[start..i];
            let called = bytes.get(i) == Some(&b'(');
            let dotted = word.contains('.');
            let shaped = dotted
                || word.contains('_')
                || called
                || word.chars().skip(1).any(|c| c.is_ascii_uppercase());
            // An object key: `{ key: ...` or `, key: ...` directly inside braces (not a
            // parameter's type annotation inside parentheses, nor a ternary's branch).
            let keyed = || {
                let rest = text[i..].trim_start_matches([' ', '\t']);
                let before = text[..start].trim_end();
                rest.starts_with(':')
                    && !rest.starts_with("::")
                    && brackets.last() == Some(&b'{')
                    && (before.ends_with('{') || before.ends_with(','))
            };
            // A member access: `x.name`, `f().name`, `a[0].name`, or a chain continued on
            // the next line (`program\n  .option(...)`); not a spread (`...options`) nor a
            // relative import (`from .core import`).
            let accessed = start > 0 && bytes[start - 1] == b'.' && {
                let before = &text[..start - 1];
                let after_expression = before.bytes().next_back().is_some_and(|b| {
                    b.is_ascii_alphanumeric()
                        || matches!(b, b'_' | b'$' | b')' | b']' | b'?' | b'!')
                });
                // Only the end of the text is looked at: a long line is not scanned per word.
                let line_start = before.trim_end_matches([' ', '\t', '\r']);
                after_expression || line_start.is_empty() || line_start.ends_with('\n')
            };
            let builtin = dotted
                && word
                    .split('.')
                    .next()
                    .is_some_and(|r| BUILTIN_RECEIVERS.contains(&r));
            let reach = match written {
                Written::Block { .. } if dotted => Reach::Any,
                Written::Block { .. } if accessed => Reach::Member,
                Written::Block { object_keys: true } if keyed() => Reach::Any,
                Written::Block { .. } => Reach::TopLevel,
                Written::Prose | Written::Span => Reach::Any,
            };
            if (written != Written::Prose || shaped)
                && !builtin
                && word.len() >= 2
                && seen.insert((word, reach))
            {
                out.push(Mention {
                    name: word.to_string(),
                    reach,
                });
            }
        } else {
            match c {
                b'(' | b'[' | b'{' => brackets.push(c),
                b')' | b']' | b'}' => {
                    brackets.pop();
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// The page cut into sections by heading; long ones split at paragraph boundaries.
pub fn sections(md: &str, path: &str) -> Vec<DocSectionFacts> {
    let o = outline(md);
    let mut spans: Vec<(Vec<String>, Range<usize>)> = Vec::new();
    let first = o.headings.first().map_or(md.len(), |h| h.range.start);
    if !md[..first].trim().is_empty() {
        spans.push((Vec::new(), 0..first));
    }
    let mut stack: Vec<(u8, String)> = Vec::new();
    for (i, h) in o.headings.iter().enumerate() {
        while stack.last().is_some_and(|(l, _)| *l >= h.level) {
            stack.pop();
        }
        stack.push((h.level, h.text.trim().to_string()));
        let end = o.headings.get(i + 1).map_or(md.len(), |n| n.range.start);
        spans.push((
            stack.iter().map(|(_, t)| t.clone()).collect(),
            h.range.start..end,
        ));
    }
    let page_kind = page_kind(path);
    let mut out = Vec::new();
    for (heads, range) in spans {
        for part in split_long(md, range, &o.code) {
            let text = md[part.clone()].trim();
            if text.is_empty() {
                continue;
            }
            let identifiers: Vec<Mention> = o
                .identifiers
                .iter()
                .filter(|(at, _)| part.contains(at))
                .map(|(_, id)| id.clone())
                .fold(Vec::new(), |mut acc, id| {
                    if !acc.contains(&id) {
                        acc.push(id);
                    }
                    acc
                });
            let code_bytes: usize = o.code.iter().map(|c| overlap(c, &part)).sum();
            out.push(DocSectionFacts {
                content_type: content_type(page_kind, &heads, code_bytes, text.len()),
                path: heads.clone(),
                markdown: text.to_string(),
                identifiers,
            });
        }
    }
    out
}

fn overlap(a: &Range<usize>, b: &Range<usize>) -> usize {
    a.end.min(b.end).saturating_sub(a.start.max(b.start))
}

/// `range` cut into pieces of at most [`MAX_SECTION_BYTES`] at blank lines outside code blocks;
/// a code block longer than that stays one piece.
fn split_long(md: &str, range: Range<usize>, code: &[Range<usize>]) -> Vec<Range<usize>> {
    if range.len() <= MAX_SECTION_BYTES {
        return vec![range];
    }
    let inside_code = |at: usize| code.iter().any(|c| c.start < at && at < c.end);
    let mut cuts: Vec<usize> = Vec::new();
    let text = &md[range.clone()];
    let mut search = 0;
    while let Some(p) = text[search..].find("\n\n") {
        let at = range.start + search + p + 1;
        if !inside_code(at) {
            cuts.push(at);
        }
        search += p + 2;
    }
    let mut out = Vec::new();
    let mut start = range.start;
    let mut previous = start;
    for cut in cuts.into_iter().chain([range.end]) {
        if cut - start > MAX_SECTION_BYTES && previous > start {
            out.push(start..previous);
            start = previous;
        }
        previous = cut;
    }
    out.push(start..range.end);
    out
}

#[derive(Clone, Copy, PartialEq)]
enum PageKind {
    Tutorial,
    Reference,
    Other,
}

fn page_kind(path: &str) -> PageKind {
    let p = path.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| p.contains(w));
    if has(&[
        "tutorial",
        "guide",
        "quickstart",
        "getting-started",
        "getting_started",
        "howto",
        "how-to",
        "walkthrough",
    ]) {
        PageKind::Tutorial
    } else if has(&["api", "reference"]) {
        PageKind::Reference
    } else {
        PageKind::Other
    }
}

fn content_type(page: PageKind, heads: &[String], code_bytes: usize, len: usize) -> &'static str {
    let heading = heads.join(" ").to_ascii_lowercase();
    if len > 0 && code_bytes * 10 >= len * 6 {
        "code_example"
    } else if page == PageKind::Tutorial
        || [
            "tutorial",
            "quickstart",
            "getting started",
            "how to",
            "step ",
        ]
        .iter()
        .any(|w| heading.contains(w))
    {
        "tutorial"
    } else if page == PageKind::Reference
        || ["api reference", "reference"]
            .iter()
            .any(|w| heading.contains(w))
    {
        "api_reference"
    } else if heading.contains("example") {
        "code_example"
    } else {
        "concept"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphinx_code_directives_keep_their_code() {
        // As tenacity's guide writes its examples: the parser alone dropped these bodies.
        let rst = "Stopping\n--------\n\n.. testcode::\n\n    @retry(stop=stop_after_attempt(7))\n    def f():\n        pass\n\n.. doctest::\n\n    >>> v = 5\n\n.. sourcecode:: python\n\n    w = 4\n\n.. code:: python\n\n    z = 3\n";
        let md = rst_to_markdown(rst, &[]);
        for block in [
            "```python\n@retry(stop=stop_after_attempt(7))\ndef f():\n    pass\n```",
            "```pycon\n>>> v = 5\n```",
            "```python\nw = 4\n```",
            "```python\nz = 3\n```",
        ] {
            assert!(md.contains(block), "{block:?} not in:\n{md}");
        }
    }

    #[test]
    fn release_pages_are_readmes_and_docs_folders_without_changelogs() {
        for page in [
            "README.md",
            "package/readme.markdown",
            "docs/advanced/timeouts.md",
            "doc/api.rst",
            "docs/news-feed.md",
        ] {
            assert!(is_release_page(page), "{page}");
        }
        for page in [
            "CHANGELOG.md",
            "docs/changelog.rst",
            "docs/CHANGES.md",
            "doc/whatsnew/3.1.rst",
            "docs/release-notes.md",
            "docs/history.rst",
            "src/guide.md",
            "docs/logo.png",
        ] {
            assert!(!is_release_page(page), "{page}");
        }
    }

    #[test]
    fn wheel_readmes_take_the_markup_their_metadata_names() {
        let md = b"Metadata-Version: 2.1\nName: x\nDescription-Content-Type: text/markdown; charset=UTF-8\n\n# X\n";
        assert_eq!(readme_from_metadata(md).unwrap().1, "md");
        let rst = b"Metadata-Version: 2.1\nName: x\nDescription-Content-Type: text/x-rst\n\nX\n=\n";
        assert_eq!(readme_from_metadata(rst).unwrap().1, "rst");
        // No type: reStructuredText, as the core metadata specification says.
        assert_eq!(readme_from_metadata(b"Name: x\n\nX\n").unwrap().1, "rst");
        assert!(readme_from_metadata(b"Name: x\n\n  \n").is_none());
    }

    #[test]
    fn html_docstrings_read_as_markdown_and_others_are_left_alone() {
        // As in @aws-sdk/client-ec2 and Blockfrost's OpenAPI descriptions.
        let aws = "<p>Stops an Amazon EBS-backed instance. For more information, see <a href=\"https://docs.aws.amazon.com/stop.html\">Stop and start\n   Amazon EC2 instances</a> in the <i>Amazon EC2 User Guide</i>.</p>\n<p>Use <code>Hibernate</code> to keep RAM.</p>";
        let md = html_docstring_to_markdown(aws).unwrap();
        assert_eq!(
            html_docstring_to_markdown("<p>Set <i>next_token</i> to page on.</p>").as_deref(),
            Some("Set *next_token* to page on.")
        );
        assert!(!md.contains('<'), "{md}");
        assert!(
            md.starts_with("Stops an Amazon EBS-backed instance."),
            "{md}"
        );
        assert!(
            md.contains("](https://docs.aws.amazon.com/stop.html)"),
            "{md}"
        );
        assert!(md.contains("`Hibernate`"), "{md}");
        let hosted = "Submit a transaction.\n\n<p>\n  <span class=\"hosted\">Hosted</span> Endpoint only.\n</p>";
        let md = html_docstring_to_markdown(hosted).unwrap();
        assert!(
            !md.contains("span") && md.contains("Hosted Endpoint only."),
            "{md}"
        );
        // Angle brackets that are not HTML elements.
        for plain in [
            "Returns a List[<int>] when a < b > c.",
            "Run `x </dev/null` to close stdin.",
            "Use <b>only</b> with `foo_bar`.",
            "Strip tags: '<p>hi</p>' -> 'hi'\n>>> strip('<p>hi</p>')",
            "",
        ] {
            assert_eq!(html_docstring_to_markdown(plain), None, "{plain}");
        }
    }

    #[test]
    fn sphinx_roles_and_literal_blocks_read_as_code() {
        // As click's docs/utils.rst and docs/advanced.rst write them.
        let rst = "Colors\n======\n\nFor styling, the :func:`style` function can be used::\n\n    import click\n    click.echo(click.style('Hi', fg='green'))\n\nSee :meth:`~click.Context.invoke`, :py:class:`a range <click.IntRange>` and\n:ref:`the guide <ranges>`; a time 10:30 and :notarole stay, ``:func:`lit` `` too.\n\n.. code-block:: python\n\n    x = 1  # :func:`kept` in code\n\nBefore ::\n\n    $ pip install click\n\nTwo columns::  \n\n  two = 2\n\n    deeper = 3\n\nAfter.\n";
        let md = rst_to_markdown(rst, &[]);
        assert!(
            md.contains("For styling, the `style` function can be used:\n"),
            "{md}"
        );
        assert!(
            md.contains("```\nimport click\nclick.echo(click.style('Hi', fg='green'))\n```"),
            "{md}"
        );
        assert!(
            md.contains("See `click.Context.invoke`, `click.IntRange` and the guide;"),
            "{md}"
        );
        assert!(md.contains("10:30 and :notarole stay"), "{md}");
        assert!(md.contains(":func:`lit`"), "{md}");
        // An author's code-block, its body four columns in, reads without a stray space.
        assert!(
            md.contains("```python\nx = 1  # :func:`kept` in code\n```"),
            "{md}"
        );
        assert!(md.contains("Before\n\n```\n$ pip install click"), "{md}");
        // A block indented two columns, a blank line inside, trailing spaces after `::`.
        assert!(
            md.contains("Two columns:\n\n```\ntwo = 2\n\n  deeper = 3\n```\n\nAfter."),
            "{md}"
        );
        assert!(!md.contains("::"), "{md}");
        let ids: Vec<String> = sections(&md, "docs/utils.rst")
            .into_iter()
            .flat_map(|s| s.identifiers)
            .map(|m| m.name)
            .collect();
        for want in [
            "style",
            "click.Context.invoke",
            "click.IntRange",
            "click.echo",
        ] {
            assert!(ids.iter().any(|i| i == want), "{want} not in {ids:?}");
        }
        // Inside an admonition roles are read too; a prose line starting with `...` is prose.
        let plain = sphinx_as_plain_rst(
            ".. note::\n\n   See :class:`click.Path`.\n\n...and :func:`echo`::\n\n    echo()\n",
        );
        assert!(plain.contains("   See ``click.Path``."), "{plain}");
        assert!(
            plain.contains("...and ``echo``:\n\n.. code-block::\n\n   echo()\n"),
            "{plain}"
        );
    }

    #[test]
    fn restructuredtext_pages_read_as_markdown() {
        // As marshmallow's README (its wheel's METADATA) is written.
        let rst = "********************************************\nmarshmallow: simplified object serialization\n********************************************\n\n**marshmallow** converts complex datatypes, see `the docs <https://marshmallow.readthedocs.io/>`_.\n\n.. code-block:: python\n\n    from marshmallow import Schema, fields\n\n    class ArtistSchema(Schema):\n        name = fields.Str()\n\nGet It Now\n==========\n\n::\n\n    $ pip install -U marshmallow\n\n\n";
        let md = rst_to_markdown(rst, &[]);
        let s = sections(&md, "README.rst");
        let paths: Vec<String> = s.iter().map(|x| x.path.join(" > ")).collect();
        assert_eq!(
            paths,
            [
                "marshmallow: simplified object serialization",
                "marshmallow: simplified object serialization > Get It Now"
            ],
            "{md}"
        );
        assert!(md.contains("```python\n"), "{md}");
        assert!(
            md.contains("[the docs](https://marshmallow.readthedocs.io/)"),
            "{md}"
        );
        assert!(!md.contains(".. code-block"), "{md}");
        // A line the parser would take minutes over is kept as written, at once.
        let brackets = format!("Title\n=====\n\n{}\n", "[a] ".repeat(40));
        let t = std::time::Instant::now();
        assert_eq!(rst_to_markdown(&brackets, &[]), brackets);
        assert!(t.elapsed().as_secs() < 2);
        let badges = ".. image:: https://badgen.net/pypi/v/marshmallow\n    :target: https://pypi.org/project/marshmallow/\n    :alt: Latest version\n\nText.\n";
        assert_eq!(rst_to_markdown(badges, &[]).trim(), "Text.");
        assert!(s[0].identifiers.iter().any(|m| m.name == "fields.Str"));
        // A long page is parsed in pieces; headings keep the levels the whole page gives them,
        // overlined titles included, and nothing is lost at the cuts.
        let mut long = String::from("#####\nNews\n#####\n\nIntro.\n\n");
        for v in 0..2 * RST_PIECE_LINES {
            long.push_str(&format!(
                "v{v}\n----\n\nFeatures\n~~~~~~~~\n\n- Added ``f{v}``.\n\n"
            ));
        }
        let md = rst_to_markdown(&long, &[]);
        let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
        assert_eq!(headings.len(), 1 + 4 * RST_PIECE_LINES, "{md}");
        assert_eq!(headings[0], "# News");
        for v in [0, RST_PIECE_LINES, 2 * RST_PIECE_LINES - 1] {
            let at = headings.iter().position(|h| *h == format!("## v{v}"));
            assert!(
                at.is_some_and(|i| headings[i + 1] == "### Features"),
                "v{v}: {md}"
            );
            assert!(md.contains(&format!("Added `f{v}`.")), "{md}");
        }
        assert!(!md.contains(RST_LEVEL_MARKER), "{md}");
        // What the parser does not take is kept as written, never lost.
        let odd = "Title\n=====\n\n.. autoclass:: marshmallow.Schema\n   :members:\n\n`unclosed";
        assert!(rst_to_markdown(odd, &[]).contains("Title"));
        let p = read_page(
            "docs/quickstart.rst",
            rst.as_bytes(),
            None,
            &DocOptions::default(),
        )
        .unwrap();
        assert_eq!(p.title, "marshmallow: simplified object serialization");
    }

    #[test]
    fn sections_follow_headings_with_their_path() {
        let md = "Intro text.\n\n# Storage\n\nAbout storage.\n\n## Upload\n\nUse `upload_file`.\n\n```python\nclient.upload_file('a')\n```\n\n## Download\n\nCall getObject().\n\n# Other\n\nx\n";
        let s = sections(md, "README.md");
        let paths: Vec<String> = s.iter().map(|s| s.path.join(" > ")).collect();
        assert_eq!(
            paths,
            [
                "",
                "Storage",
                "Storage > Upload",
                "Storage > Download",
                "Other"
            ]
        );
        let named =
            |i: usize| -> Vec<&str> { s[i].identifiers.iter().map(|m| m.name.as_str()).collect() };
        assert!(named(2).contains(&"upload_file"), "{:?}", named(2));
        assert!(named(2).contains(&"client.upload_file"), "{:?}", named(2));
        assert!(s[3].markdown.contains("getObject()"));
        assert!(s[2].markdown.contains("```python"));
    }

    fn names(ms: &[Mention]) -> Vec<(&str, Reach)> {
        ms.iter().map(|m| (m.name.as_str(), m.reach)).collect()
    }

    #[test]
    fn prose_words_are_not_identifiers_unless_shaped_like_code() {
        assert_eq!(
            names(&identifiers_in(
                "Call the getObject method or use_this, not plain words",
                Written::Prose
            )),
            [("getObject", Reach::Any), ("use_this", Reach::Any)]
        );
        assert_eq!(
            names(&identifiers_in("confirm(text)", Written::Span)),
            [("confirm", Reach::Any), ("text", Reach::Any)]
        );
    }

    #[test]
    fn bare_words_of_code_blocks_name_no_members_and_words_after_a_dot_only_members() {
        // As in click's README: `name` is a parameter, not `click.Tuple.name`.
        let code = "@click.option('--name')\ndef hello(count, name):\n    program.name('x').description('y')";
        assert_eq!(
            names(&identifiers_in(code, Written::Block { object_keys: false })),
            [
                ("click.option", Reach::Any),
                ("name", Reach::TopLevel),
                ("def", Reach::TopLevel),
                ("hello", Reach::TopLevel),
                ("count", Reach::TopLevel),
                ("program.name", Reach::Any),
                ("x", Reach::TopLevel),
                ("description", Reach::Member),
                ("y", Reach::TopLevel),
            ]
            .into_iter()
            .filter(|(n, _)| n.len() >= 2)
            .collect::<Vec<_>>()
        );
        // The standard library's objects are not the package's.
        assert!(
            names(&identifiers_in(
                "console.error(x); os.path.join(a, b)",
                Written::Block { object_keys: true }
            ))
            .iter()
            .all(|(n, _)| !n.contains('.'))
        );
        // JavaScript object keys name options properties; Python annotations do not.
        let js = "program.configureOutput({ writeErr: (str) => log(str) })";
        assert!(
            names(&identifiers_in(js, Written::Block { object_keys: true }))
                .contains(&("writeErr", Reach::Any))
        );
        assert!(
            names(&identifiers_in(
                "def f(name: str):",
                Written::Block { object_keys: false }
            ))
            .contains(&("name", Reach::TopLevel))
        );
        assert!(has_object_keys("ts title=x.ts") && !has_object_keys("python"));
        // Type annotations and ternaries are not keys; spreads and relative imports are not
        // member accesses; a chain continued on the next line is.
        let ts = "cmd.action((name: string) => {\n  const o = { ...options, key: ok ? a : b };\n})\nprogram\n  .option('-x')";
        let ms = identifiers_in(ts, Written::Block { object_keys: true });
        let got = names(&ms);
        for want in [
            ("name", Reach::TopLevel),
            ("options", Reach::TopLevel),
            ("key", Reach::Any),
            ("a", Reach::TopLevel),
            ("option", Reach::Member),
        ] {
            if want.0.len() >= 2 {
                assert!(got.contains(&want), "{want:?}: {got:?}");
            }
        }
        let ms = identifiers_in(
            "from .core import Group",
            Written::Block { object_keys: false },
        );
        let py = names(&ms);
        assert!(py.contains(&("core", Reach::TopLevel)), "{py:?}");
        // A code span keeps the reader's shorthand: `.opts()` and `opts` name the method.
        assert_eq!(
            names(&identifiers_in(".opts()", Written::Span)),
            [("opts", Reach::Any)]
        );
    }

    #[test]
    fn terminal_sessions_name_only_words_shaped_like_code() {
        // As in commander's README: a program's output under its code.
        let md = "# Options\n\n```js\nprogram.option('-d, --drink <size>').choices(sizes)\n```\n\n```console\n$ extra --drink huge\nerror: option '-d, --drink <size>' is invalid\nUsage: help [options]\n$ node -e 'program.parse()'\n```\n\n```\nplain fence: every word\n```\n";
        let ids = &sections(md, "Readme.md")[0].identifiers;
        for named in [
            "program.option",
            "choices",
            "sizes",
            "program.parse",
            "every",
        ] {
            assert!(ids.iter().any(|i| i.name == named), "{named}: {ids:?}");
        }
        for word in ["error", "help", "extra", "huge", "Usage", "options"] {
            assert!(!ids.iter().any(|i| i.name == word), "{word}: {ids:?}");
        }
        assert!(is_transcript("console") && is_transcript("Shell {.no-copy}"));
        assert!(!is_transcript("python") && !is_transcript(""));
    }

    #[test]
    fn long_sections_split_at_paragraphs_never_in_code() {
        let para = "word ".repeat(100);
        let code = format!("```\n{}\n```", "line\n\nline\n".repeat(200));
        let md = format!(
            "# A\n\n{para}\n\n{para}\n\n{code}\n\n{para}\n\n{para}\n\n{para}\n\n{para}\n\n{para}\n"
        );
        let s = sections(&md, "x.md");
        assert!(s.len() > 2, "{}", s.len());
        for sec in &s {
            assert_eq!(
                sec.markdown.matches("```").count() % 2,
                0,
                "a code block was split"
            );
            assert_eq!(sec.path, ["A"]);
        }
        assert!(s.iter().any(|x| x.content_type == "code_example"));
    }

    #[test]
    fn html_loses_chrome_and_keeps_code_and_tables() {
        let html = r#"<html><head><title>Upload files — Acme docs</title></head><body>
<nav><a href="/">Home</a> <a href="/x">Everything</a></nav>
<div class="sphinxsidebar">Sidebar links</div>
<main><h1>Upload files</h1><p>Use <code>upload_file</code> to send a file.</p>
<div class="highlight-python"><div class="highlight"><pre>client.upload_file("a.txt")</pre></div></div>
<table><thead><tr><th>name</th><th>meaning</th></tr></thead><tbody><tr><td>bucket</td><td>where</td></tr></tbody></table>
</main><footer>Copyright Acme</footer></body></html>"#;
        let page = read_page(
            "guide/upload.html",
            html.as_bytes(),
            None,
            &DocOptions::default(),
        )
        .unwrap();
        assert_eq!(page.title, "Upload files");
        let md: String = page
            .sections
            .iter()
            .map(|s| s.markdown.clone())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            !md.contains("Sidebar links")
                && !md.contains("Copyright")
                && !md.contains("Everything"),
            "{md}"
        );
        assert!(
            md.contains("```python\nclient.upload_file(\"a.txt\")\n```"),
            "{md}"
        );
        assert!(
            md.contains("| name ") && md.contains("| bucket | where "),
            "{md}"
        );
        assert_eq!(page.sections[0].content_type, "tutorial");
        assert!(
            page.sections[0]
                .identifiers
                .iter()
                .any(|m| m.name == "upload_file")
        );
    }

    /// Property: over many generated Markdown pages (headings of every level, paragraphs, long
    /// code blocks with blank lines inside), every code block lands whole in exactly one section
    /// and every section path is the chain of headings above it.
    #[test]
    fn code_blocks_are_never_split_in_generated_pages() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for case in 0..400 {
            let mut md = String::new();
            let mut blocks = Vec::new();
            let mut stack: Vec<(usize, String)> = Vec::new();
            let mut expected: Vec<Vec<String>> = Vec::new();
            for i in 0..(3 + next(25)) {
                match next(4) {
                    0 => {
                        let level = 1 + next(4) as usize;
                        let text = format!("Heading {case}-{i}");
                        md.push_str(&format!("{} {text}\n\n", "#".repeat(level)));
                        while stack.last().is_some_and(|(l, _)| *l >= level) {
                            stack.pop();
                        }
                        stack.push((level, text));
                        expected.push(stack.iter().map(|(_, t)| t.clone()).collect());
                    }
                    1 | 2 => {
                        let words = 20 + next(400) as usize;
                        md.push_str(&format!("{}\n\n", "lorem ipsum ".repeat(words / 2)));
                    }
                    _ => {
                        let mut body = String::new();
                        for l in 0..(1 + next(120)) {
                            body.push_str(&format!("call_{case}_{i}_{l}(x)\n"));
                            if next(5) == 0 {
                                body.push('\n');
                            }
                        }
                        let block = format!("```python\n{body}```");
                        md.push_str(&block);
                        md.push_str("\n\n");
                        blocks.push(block);
                    }
                }
            }
            let secs = sections(&md, "gen.md");
            for b in &blocks {
                let holders = secs
                    .iter()
                    .filter(|s| s.markdown.contains(b.as_str()))
                    .count();
                assert_eq!(
                    holders, 1,
                    "case {case}: a code block is split or lost:\n{md}"
                );
            }
            let mut paths: Vec<Vec<String>> = Vec::new();
            for s in secs.iter().filter(|s| !s.path.is_empty()) {
                if paths.last() != Some(&s.path) {
                    paths.push(s.path.clone());
                }
            }
            assert_eq!(paths, expected, "case {case}: section paths");
            for s in &secs {
                assert!(
                    s.markdown.len() <= MAX_SECTION_BYTES
                        || s.markdown.contains("```")
                        || !s.markdown.contains("\n\n"),
                    "case {case}: a long section was not split at its paragraphs"
                );
            }
        }
    }

    #[test]
    fn a_bad_selector_is_an_error_not_a_panic() {
        let e = html_to_markdown("<p>x</p>", &["[[[".to_string()]).unwrap_err();
        assert!(e.contains("bad CSS selector"), "{e}");
    }
}
