//! `refgraph docs`: a release's doc pages (HTML and Markdown) stored in the graph
//! `<release>/docs`, each section linked to the release's symbols it names.

use std::path::Path;

use super::IngestError;
use crate::model::{Diagnostic, PackageId};
use crate::store::{Store, get_str, iri};

/// What `refgraph docs` stored.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DocsReport {
    pub release: String,
    pub graph: String,
    pub pages: usize,
    pub sections: usize,
    pub mentions: usize,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads every HTML and Markdown page under `dir` and stores them as the doc pages of release
/// `version` of `id` (replacing the pages an earlier run stored there). The release must be
/// stored already (the caller chooses it as every answer does): pages are linked to its
/// symbols.
pub fn add_docs(
    store: &Store,
    id: &PackageId,
    version: &str,
    dir: &Path,
    options: &crate::extract::docs::DocOptions,
) -> Result<DocsReport, IngestError> {
    let release = id.release_purl(version);
    let mut files = Vec::new();
    let mut diagnostics = Vec::new();
    collect_pages(dir, dir, &mut files, &mut diagnostics)?;
    if files.is_empty() {
        return Err(IngestError::Unsupported(format!(
            "no .html, .htm, .md or .markdown pages under {}",
            dir.display()
        )));
    }
    let mut pages = Vec::new();
    for (rel_path, bytes, modified) in files {
        match crate::extract::docs::read_page(&rel_path, &bytes, modified, options) {
            Ok(p) if !p.sections.is_empty() => pages.push(p),
            Ok(_) => {}
            Err(d) => diagnostics.push(d),
        }
    }
    let rows = store.select(&crate::queries::list_symbols, &[("release", iri(&release))])?;
    let symbols: Vec<(String, Vec<String>, Option<crate::model::SymbolKind>)> = rows
        .iter()
        .filter_map(|r| {
            let kind = get_str(r, "type")
                .as_deref()
                .and_then(crate::lower::kind_of_class);
            Some((get_str(r, "qname")?, Vec::new(), kind))
        })
        .collect();
    let quads = crate::lower::docs_quads(id, version, &pages, &symbols, &super::now_rfc3339());
    let graph = crate::lower::docs_graph(&release);
    let mentions = quads
        .iter()
        .filter(|q| q.predicate.as_ref() == crate::vocab::rg::MENTIONS)
        .count();
    store.replace_graph(
        &oxigraph::model::NamedNode::new_unchecked(graph.clone()),
        quads,
    )?;
    Ok(DocsReport {
        release,
        graph,
        pages: pages.len(),
        sections: pages.iter().map(|p| p.sections.len()).sum(),
        mentions,
        diagnostics,
    })
}

/// Pages under `dir` (symlinks not followed), with their paths relative to `root` and their
/// modification times.
fn collect_pages(
    root: &Path,
    dir: &Path,
    out: &mut Vec<(String, Vec<u8>, Option<String>)>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(), IngestError> {
    let bad = |source: std::io::Error| IngestError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(bad)?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            collect_pages(root, &path, out, diagnostics)?;
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if !meta.is_file() || !crate::extract::docs::is_page(&rel) {
            continue;
        }
        if out.len() >= 5000 || meta.len() > 4 << 20 {
            diagnostics.push(Diagnostic {
                file: rel,
                line: 0,
                message: "skipped: more than 5000 pages, or a page over 4 MiB".into(),
            });
            continue;
        }
        let modified = meta.modified().ok().map(super::rfc3339);
        match std::fs::read(&path) {
            Ok(bytes) => out.push((rel, bytes, modified)),
            Err(err) => diagnostics.push(Diagnostic {
                file: rel,
                line: 0,
                message: format!("cannot read: {err}"),
            }),
        }
    }
    Ok(())
}
