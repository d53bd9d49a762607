//! Boilerplate removal on real doc pages, fetched from the registries at test time: built HTML
//! shipped in PyPI sdists and an npm tarball, from four generators (Sphinx's classic and Read
//! the Docs themes, a hand-made docutils site, zzzeeksphinx, TypeDoc). For each page: the site
//! chrome's own words are gone, the page's content and code are kept.

use std::io::Read;
use std::path::Path;

use refgraph::extract::docs::{DocOptions, read_page};
use refgraph::model::PackageId;

use crate::support::cache_dir;

struct Case {
    /// Label for messages.
    site: &'static str,
    /// Path of the page inside the archive, after its top folder.
    page: &'static str,
    /// Selectors for chrome that only this site marks its own way (`refgraph docs --remove`).
    remove: &'static [&'static str],
    /// Words that appear only in the chrome (checked present in the raw page first).
    chrome: &'static [&'static str],
    /// Words of the content, compared with whitespace collapsed.
    content: &'static [&'static str],
    /// Whether the page has code blocks, which must stay fenced.
    code: bool,
}

/// The file `inner` (below the archive's single top folder) of a .zip or .tar.gz.
fn archive_file(archive: &Path, inner: &str) -> Vec<u8> {
    let bytes = std::fs::read(archive).unwrap();
    let strip = |name: &str| name.split_once('/').map(|(_, r)| r.to_string());
    if archive.extension().is_some_and(|e| e == "zip") {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        for i in 0..zip.len() {
            let mut entry = zip.by_index(i).unwrap();
            let name = entry.name().map(|n| n.to_string()).unwrap_or_default();
            if strip(&name).as_deref() == Some(inner) {
                let mut out = Vec::new();
                entry.read_to_end(&mut out).unwrap();
                return out;
            }
        }
    } else {
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        for entry in tar.entries().unwrap() {
            let mut entry = entry.unwrap();
            let name = entry.path().unwrap().to_string_lossy().to_string();
            if strip(&name).as_deref() == Some(inner) {
                let mut out = Vec::new();
                entry.read_to_end(&mut out).unwrap();
                return out;
            }
        }
    }
    panic!("{inner} is not in {}", archive.display())
}

/// The page's text with tags dropped, for checking that a case's words are really there.
fn untagged(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

fn collapsed(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn check(archive: &Path, case: &Case) {
    let html = archive_file(archive, case.page);
    let raw = collapsed(&untagged(&String::from_utf8_lossy(&html)));
    for c in case.chrome {
        assert!(
            raw.contains(c),
            "{}: the raw page lacks {c:?}; the case is wrong",
            case.site
        );
    }
    let options = DocOptions {
        remove: case.remove.iter().map(|s| s.to_string()).collect(),
        base_url: None,
    };
    let page = read_page(case.page, &html, None, &options)
        .unwrap_or_else(|d| panic!("{}: {}", case.site, d.message));
    let markdown: String = page
        .sections
        .iter()
        .map(|s| s.markdown.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let text = collapsed(&markdown);
    for c in case.chrome {
        assert!(
            !text.contains(c),
            "{} {}: chrome {c:?} left in:\n{markdown}",
            case.site,
            case.page
        );
    }
    for c in case.content {
        assert!(
            text.contains(c),
            "{} {}: content {c:?} lost:\n{markdown}",
            case.site,
            case.page
        );
    }
    assert!(
        !case.code || markdown.contains("```"),
        "{}: code blocks lost:\n{markdown}",
        case.site
    );
}

fn pypi_sdist(name: &str, version: &str) -> std::path::PathBuf {
    refgraph::fetch::fetch_pypi_sdist(name, version, &cache_dir().join("pypi"), &|_, _| {})
        .unwrap_or_else(|e| panic!("{name} {version} from PyPI: {e}"))
        .path
}

#[test]
fn sphinx_classic_theme_pages_lose_sidebar_related_bars_and_footer() {
    // mock 1.0.1 (Sphinx 1.1 "nature" theme: div-based, no HTML5 elements).
    let sdist = pypi_sdist("mock", "1.0.1");
    for (page, content) in [
        (
            "html/patch.html",
            &[
                "Patch Decorators",
                "The patch decorators are used for patching objects only within the scope of",
                "@patch('__main__.SomeClass')",
            ],
        ),
        (
            "html/getting-started.html",
            &[
                "Getting Started with Mock",
                "Once our mock has been used",
                "real.method = MagicMock(name='method')",
            ],
        ),
    ] {
        check(
            &sdist,
            &Case {
                site: "mock (Sphinx nature)",
                page,
                remove: &[],
                chrome: &[
                    "Quick search",
                    "Enter search terms or a module, class or function name.",
                    "Copyright 2007-2012, Michael Foord",
                    "Previous topic",
                ],
                content,
                code: true,
            },
        );
    }
}

#[test]
fn read_the_docs_theme_and_a_hand_made_site() {
    let sdist = pypi_sdist("lxml", "4.9.4");
    check(
        &sdist,
        &Case {
            site: "lxml (sphinx_rtd_theme)",
            page: "doc/html/apidoc/lxml.builder.html",
            remove: &[],
            chrome: &[
                "lxml.html.soupparser module",
                "View page source",
                "Copyright 2020, lxml dev team.",
            ],
            content: &[
                "lxml.builder module",
                "Unlike the ordinary Element factory, the E factory allows you to pass in",
                "from lxml.builder import E",
            ],
            code: true,
        },
    );
    // The docutils pages mark their side menu and banner their own way: the --remove case.
    check(
        &sdist,
        &Case {
            site: "lxml (docutils)",
            page: "doc/html/parsing.html",
            remove: &["#sidemenu", ".banner"],
            chrome: &[
                "Like the tool?",
                "How to build lxml from source",
                "Generated on: 2023-12-19.",
            ],
            content: &[
                "Parsing XML and HTML with lxml",
                "lxml provides a very simple and powerful API for parsing XML and HTML.",
                "from io import StringIO, BytesIO",
                "The target parser interface",
            ],
            code: true,
        },
    );
}

#[test]
fn zzzeeksphinx_pages_with_chrome_marked_by_id() {
    let sdist = pypi_sdist("Mako", "1.3.5");
    check(
        &sdist,
        &Case {
            site: "Mako (zzzeeksphinx)",
            page: "doc/syntax.html",
            remove: &[
                "#docs-header",
                "#docs-top-navigation",
                "#docs-sidebar",
                "#docs-bottom-navigation",
            ],
            chrome: &[
                "Quick Search",
                "Copyright the Mako authors and contributors.",
                "Previous Topic",
            ],
            content: &[
                "Expression Substitution",
                "A Mako template is parsed from a text stream containing any kind",
                "% if x==5:",
            ],
            code: true,
        },
    );
}

#[test]
fn typedoc_pages_lose_toolbar_navigation_and_legend() {
    let rot = PackageId::new(refgraph::model::Ecosystem::Npm, "rot-js");
    let tgz = refgraph::fetch::fetch_npm(&rot, "2.2.0", &cache_dir().join("npm"), &|_, _| {})
        .expect("rot-js 2.2.0 from npm")
        .path;
    check(
        &tgz,
        &Case {
            site: "rot-js (TypeDoc)",
            page: "doc/classes/_rng_.rng.html",
            remove: &[],
            chrome: &[
                "Preparing search index...",
                "Only exported",
                "Generated using TypeDoc",
            ],
            content: &[
                "Standard deviation.",
                "getUniformInt(lowerBound: number, upperBound: number): number",
            ],
            code: false,
        },
    );
}
