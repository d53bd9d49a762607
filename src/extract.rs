//! Extractors: bytes in, facts and diagnostics out. No IO, no store.

use crate::model::{Ecosystem, PackageId, ReleaseFacts};

pub mod docs;
pub mod examples;
pub mod javascript;
pub mod openapi;
pub mod python;
pub mod requests;

/// One source file of a release, path relative to the release root with `/` separators.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: String,
    pub text: Vec<u8>,
}

/// Which extractor reads a release. Chosen from the package's ecosystem: a release of
/// `pkg:pypi/...` is Python source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    /// npm packages: JavaScript and TypeScript declarations.
    JavaScript,
    /// An OpenAPI 3.0 or 3.1 document, JSON or YAML.
    OpenApi,
}

impl Language {
    pub fn for_package(package: &PackageId) -> Language {
        match package.ecosystem {
            Ecosystem::Pypi => Language::Python,
            Ecosystem::Npm => Language::JavaScript,
            Ecosystem::Generic => Language::OpenApi,
        }
    }

    /// Whether a file of a release tree or archive is read at all: its sources, and for
    /// packages their documentation pages (README, docs folder).
    pub fn reads(self, path: &str) -> bool {
        if docs::is_page(path) {
            let path = path.trim_start_matches("./");
            // Only pages that can be the release's docs: the others must not count against
            // the archive's limits. An sdist or npm tarball may wrap everything in one folder.
            return self != Language::OpenApi
                && (docs::is_release_page(path)
                    || path
                        .split_once('/')
                        .is_some_and(|(_, rest)| docs::is_release_page(rest)));
        }
        if self == Language::Python && (path == "METADATA" || path.ends_with(".dist-info/METADATA"))
        {
            return true;
        }
        match self {
            Language::Python => {
                path.ends_with(".py")
                    || path.ends_with(".pyi")
                    || is_cython_source(path)
                    || compiled_module(path).is_some()
                    || is_build_config(path)
                    || builds_in_folder(path)
            }
            Language::JavaScript => javascript::reads(path),
            Language::OpenApi => {
                path.ends_with(".json") || path.ends_with(".yaml") || path.ends_with(".yml")
            }
        }
    }

    /// What a user should pass when a release yields no symbols.
    pub fn layout_hint(self) -> &'static str {
        match self {
            Language::Python => {
                "pass the folder that holds the import package (for click, the folder containing click/__init__.py), a wheel or an sdist"
            }
            Language::JavaScript => {
                "pass the unpacked npm package (the folder with package.json) or its .tgz; the package.json must name an entry (types, exports, main or index.js)"
            }
            Language::OpenApi => {
                "pass an OpenAPI 3.0 or 3.1 document (.json, .yaml or .yml) or a folder holding one"
            }
        }
    }

    pub fn extract(self, files: &[SourceFile], limits: &ExtractLimits) -> ReleaseFacts {
        let mut facts = match self {
            Language::Python => python::extract_with(files, limits),
            Language::JavaScript => javascript::extract_with(files, limits),
            Language::OpenApi => openapi::extract_with(files, limits),
        };
        facts.add_base_relations();
        facts
    }
}

/// How far the extractors follow references before they treat a release as hostile. Reaching
/// a limit never fails the release: the symbols behind it are left out and a diagnostic names
/// the option that raises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractLimits {
    /// Longest chain of `$ref` to `$ref` followed in an OpenAPI document (`--max-ref-hops`).
    pub max_ref_hops: usize,
    /// Deepest nesting of `$ref`d schemas expanded inside one another while flattening request
    /// bodies and schema properties (`--max-schema-nesting`). Each level can fan out (`allOf`),
    /// so the cost grows exponentially with it.
    pub max_schema_nesting: usize,
    /// Longest chain of re-exports followed to a definition: Python `from .x import y` and
    /// aliases, npm `export ... from` and `export *` (`--max-reexport-depth`).
    pub max_reexport_depth: usize,
}

impl Default for ExtractLimits {
    fn default() -> Self {
        ExtractLimits {
            max_ref_hops: 64,
            max_schema_nesting: 16,
            max_reexport_depth: 64,
        }
    }
}

/// The source text of a tree-sitter node ("" if it is not UTF-8).
pub(crate) fn text<'a>(node: tree_sitter::Node, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or("")
}

/// Source text as evidence: `collapsed` (whitespace already collapsed) cut at 160 bytes, on a
/// character boundary, with `...` when cut.
pub(crate) fn clip_evidence(mut collapsed: String) -> String {
    if collapsed.len() > 160 {
        let cut = (0..=157)
            .rev()
            .find(|i| collapsed.is_char_boundary(*i))
            .unwrap_or(0);
        collapsed.truncate(cut);
        collapsed.push_str("...");
    }
    collapsed
}

/// A CPython extension module's path without its platform tag and suffix
/// (`lxml/etree.cpython-311-x86_64-linux-gnu.so` -> `lxml/etree`; `.abi3.so`,
/// `.cp311-win_amd64.pyd`). A Cython `.pyx` is the module's source, read as such.
pub fn compiled_module(path: &str) -> Option<&str> {
    let stem = path
        .strip_suffix(".so")
        .or_else(|| path.strip_suffix(".pyd"))?;
    let (module, tag) = stem.rsplit_once('.')?;
    let tagged = tag.starts_with("cpython-")
        || tag == "abi3"
        || tag.starts_with("cp3")
        || tag.starts_with("pypy");
    (tagged && !module.rsplit('/').next()?.contains('.')).then_some(module)
}

/// A Cython source whose text is read: a module's `.pyx` and the `.pxi` files it includes
/// (see `extract::python::cython`). Declarations (`.pxd`) are not.
pub fn is_cython_source(path: &str) -> bool {
    path.ends_with(".pyx") || path.ends_with(".pxi")
}

/// Whether a release file is kept by name only, its bytes never read: a compiled extension
/// module, or a file that tells an unbuilt release's build writes compiled modules into its
/// folder.
pub fn kept_by_name(path: &str) -> bool {
    compiled_module(path).is_some() || builds_in_folder(path)
}

/// An sdist's build configuration, at its root (perhaps inside the sdist's one wrapper folder):
/// where it declares the folder its packages live in (see `ingest::declared_package_root`).
pub fn is_build_config(path: &str) -> bool {
    let path = path.trim_start_matches("./");
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    (name == "pyproject.toml" || name == "setup.cfg") && !dir.contains('/')
}

/// Whether a `pyproject.toml` configures maturin, which builds a Rust extension module into
/// the package (polars.polars).
pub fn is_maturin_project(pyproject: &[u8]) -> bool {
    toml::from_str::<toml::Table>(&String::from_utf8_lossy(pyproject))
        .ok()
        .and_then(|d| d.get("tool")?.get("maturin").cloned())
        .is_some()
}

/// A file of an unbuilt release (an sdist, a source tree) that builds compiled modules into
/// its folder: a Cython declaration (`.pxd`), C or C++ source, or a `meson.build`. Its name is
/// the fact; its bytes are never read. A module such a folder is missing may be one the build
/// makes (h5py's `defs`, generated from `api_gen.py`).
pub fn builds_in_folder(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "meson.build"
        || [".pxd", ".c", ".cpp", ".cc", ".cxx"]
            .iter()
            .any(|e| name.ends_with(e))
}

/// The 1-based line a node starts on.
pub(crate) fn line_of(node: tree_sitter::Node) -> usize {
    node.start_position().row + 1
}

/// The line of the first syntax error (an ERROR or MISSING node) under `node`.
pub(crate) fn first_error_line(node: tree_sitter::Node) -> Option<usize> {
    if node.is_error() || node.is_missing() {
        return Some(line_of(node));
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error()
            && let Some(l) = first_error_line(child)
        {
            return Some(l);
        }
    }
    None
}

/// Maps `f` over `items` on every core: threads take the next item from a shared counter (file
/// sizes vary a lot), and results keep the order of `items`.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            break;
                        };
                        out.push((i, f(item)));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an extractor thread panicked"))
            .collect()
    });
    let mut all: Vec<(usize, R)> = parts.into_iter().flatten().collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::Language;

    #[test]
    fn only_pages_that_can_document_the_release_are_read() {
        for lang in [Language::Python, Language::JavaScript] {
            for yes in [
                "README.md",
                "package/README.md",
                "click-8.1.7/README.rst.md",
                "docs/guide/upload.md",
                "package/docs/api.html",
                "acme-2.0.0/docs/index.html",
                "./acme-2.0.0/docs/index.html",
            ] {
                assert!(lang.reads(yes), "{lang:?} should read {yes}");
            }
            for no in [
                "CHANGELOG.md",
                "package/CHANGELOG.md",
                "site/generated/api/index.html",
                "package/dist/esm/notes.md",
                "acme/templates/email.html",
            ] {
                assert!(!lang.reads(no), "{lang:?} should not read {no}");
            }
        }
        assert!(!Language::OpenApi.reads("README.md"));
    }
}
