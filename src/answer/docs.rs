//! Concept search and doc pages: `search_docs` and `get_page` over the text index, with the same
//! version rules as every other answer (a version that is not indexed is an error listing the
//! indexed ones; no version means the newest indexed, and the answer says so).

use schemars::JsonSchema;
use serde::Serialize;

use super::{Engine, ErrorKind, Failure, ReleaseError, ReleaseInfo};
use crate::index::{self, ContentType, EntityRef, Mode, SearchRequest};
use crate::model::Ecosystem;
use crate::store::StoreError;

/// Why concept search, a page, or the index upkeep failed.
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    #[error(transparent)]
    Release(#[from] ReleaseError),
    #[error(
        "the text index is not open here; concept search needs `refgraph serve` or `refgraph search`"
    )]
    NoTextIndex,
    #[error("no page or chunk with id '{0}' (ids come from search_docs results)")]
    PageNotFound(String),
    #[error("invalid argument: {0}")]
    BadArgument(String),
    #[error(transparent)]
    Index(#[from] index::IndexError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Failure for DocsError {
    fn kind(&self) -> ErrorKind {
        match self {
            DocsError::Release(e) => e.kind(),
            DocsError::PageNotFound(_) => ErrorKind::NotFound,
            DocsError::BadArgument(_) => ErrorKind::BadInput,
            DocsError::NoTextIndex => ErrorKind::Unavailable,
            DocsError::Index(_) | DocsError::Store(_) => ErrorKind::Internal,
        }
    }
    fn wraps(&self) -> Option<&dyn Failure> {
        match self {
            DocsError::Release(e) => Some(e),
            _ => None,
        }
    }
}

/// One search hit, as the MCP contract names its fields.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocHit {
    /// Chunk id; `get_page` takes it (or `page`) to return the whole page.
    pub id: String,
    pub title: String,
    pub section_path: String,
    pub snippet: String,
    /// A page URL, or `file:line` inside the release.
    pub source_url: String,
    pub package: String,
    pub version: String,
    /// concept | api_reference | code_example | tutorial.
    pub content_type: String,
    /// The fused score (weighted reciprocal rank; higher is better).
    pub score: f32,
    /// The page this chunk belongs to, for `get_page`.
    pub page: String,
    /// The graph entities this chunk is about; `get_api_detail` gives their signatures.
    pub entities: Vec<EntityRef>,
    /// Why it ranked where it did (`refgraph search --explain`); never sent over MCP.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub why: Option<index::HitRanks>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocSearch {
    pub query: String,
    /// The query as searched, when it differs: put into English (a question in Chinese), with
    /// the developer thesaurus's long forms beside its abbreviations and jargon ("PRs (pull
    /// requests)").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub searched_as: Option<String>,
    /// The releases searched, `package@version`.
    pub releases: Vec<String>,
    pub results: Vec<DocHit>,
    /// When the search found nothing relevant (`results` empty, said in `note`): the closest
    /// chunks, ranked as results would be. Not answers: what the releases hold nearest to the
    /// question, for a reader to judge.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub closest: Vec<DocHit>,
    /// Whether sentence vectors took part (false: BM25 and names only, no model installed).
    pub semantic: bool,
    /// Words of the query that no part of the releases searched holds, nor a synonym of them:
    /// what they name may not be there. Not given for a question put into English first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched: Vec<String>,
    /// Why the list is empty or thin, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The figures the abstention rule read: given with `--explain`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<index::Confidence>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocPage {
    pub id: String,
    pub title: String,
    pub source_url: String,
    pub package: String,
    pub version: String,
    pub last_updated: String,
    pub markdown: String,
    /// Every entity the page's sections link to.
    pub entities: Vec<EntityRef>,
}

/// What `search_docs` takes (the MCP tool's arguments, and the CLI's).
#[derive(Debug, Clone, Default, serde::Deserialize, JsonSchema)]
pub struct DocQuery {
    /// What you want to do or know, in words ("ask the user to confirm before deleting", "retry a
    /// failed upload", "上传文件") or an identifier (`upload_file`, `getObject`).
    pub query: String,
    /// Package URL (`pkg:pypi/click`) or bare name. Omitted: the newest release of every
    /// indexed package.
    pub package: Option<String>,
    /// Release version or label (`8.1.7`, `8.1`, `latest`, `>=2,<3`; needs package).
    /// Omitted: the newest indexed release, stated as such. A version or label no indexed
    /// release matches is an error listing the indexed ones.
    pub version: Option<String>,
    /// Only python, javascript or openapi.
    pub language: Option<String>,
    /// Only concept, api_reference, code_example or tutorial.
    pub content_type: Option<String>,
    /// How many results (default 5, at most 50).
    pub limit: Option<usize>,
    /// Give each hit its ranks (`DocHit::why`): the CLI's `--explain`, not an MCP argument.
    #[serde(skip)]
    #[schemars(skip)]
    pub explain: bool,
}

const SNIPPET_CHARS: usize = 320;

/// `'a', 'b'`.
fn quoted(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn snippet(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= SNIPPET_CHARS {
        return flat;
    }
    let cut: String = flat.chars().take(SNIPPET_CHARS).collect();
    format!("{}…", cut.trim_end())
}

fn hit_of(h: index::SearchHit, explain: bool) -> DocHit {
    let why = explain.then_some(h.ranks);
    let (c, score) = (h.chunk, h.score);
    DocHit {
        why,
        snippet: snippet(&c.text),
        id: c.id,
        title: c.title,
        section_path: c.section_path,
        source_url: c.source_url,
        package: c.package,
        version: c.version,
        content_type: c.content_type.as_str().to_string(),
        score,
        page: c.page,
        entities: c.entities,
    }
}

impl Engine {
    fn text_index(&self) -> Result<&index::TextIndex, DocsError> {
        self.index.as_deref().ok_or(DocsError::NoTextIndex)
    }

    /// After a server stored `release`: brings the text index up to date on a blocking thread
    /// of the tokio runtime, if there is an index. A failure is logged; the release stays
    /// stored and answers lookups meanwhile.
    pub fn index_in_background(self: &std::sync::Arc<Self>, release: String) {
        if self.text_index_handle().is_none() {
            return;
        }
        let engine = self.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = engine.sync_index(false, &|_, _, _| {}) {
                tracing::warn!("text index not updated for {release}: {e}");
            }
        });
    }

    /// Brings the text index in line with the store: releases missing from it, indexed from an
    /// older ingest, or lacking vectors now that a model is installed are (re)indexed; releases
    /// no longer stored are dropped. `force` reindexes everything. Returns the releases indexed.
    pub fn sync_index(
        &self,
        force: bool,
        progress: &dyn Fn(&str, usize, usize),
    ) -> Result<Vec<String>, DocsError> {
        let index = self.text_index()?;
        let stored = self.releases()?;
        let indexed = index.releases()?;
        let with_vectors = index.embedder().is_some();
        let mut done = Vec::new();
        for r in &stored {
            // Shutting down: what is indexed stays; the rest waits for the next sync.
            if index.is_cancelled() {
                break;
            }
            let fresh = indexed.get(&r.release).is_some_and(|(stamp, vectors)| {
                *stamp == r.index_stamp() && (*vectors || !with_vectors)
            });
            if force || !fresh {
                self.index_release(r, &|d, t| progress(&r.release, d, t))?;
                done.push(r.release.clone());
            }
        }
        for gone in indexed.keys() {
            if !stored.iter().any(|r| &r.release == gone) {
                index.remove_release(gone)?;
            }
        }
        Ok(done)
    }

    /// (Re)indexes one release from the store.
    pub fn index_release(
        &self,
        r: &ReleaseInfo,
        progress: &dyn Fn(usize, usize),
    ) -> Result<usize, DocsError> {
        let index = self.text_index()?;
        let chunks = index::chunks::release_chunks(self.store(), r)?;
        Ok(index.replace_release(&r.release, &r.index_stamp(), &chunks, progress)?)
    }
}

/// Concept search over the text index and the pages it holds: [`Engine::docs`].
pub struct DocsService<'e> {
    pub(super) e: &'e Engine,
}

impl DocsService<'_> {
    /// The releases a search covers, and the version line that says which.
    pub fn search_scope(
        &self,
        package: Option<&str>,
        version: Option<&str>,
    ) -> Result<(Vec<ReleaseInfo>, String), DocsError> {
        match package.filter(|p| !p.trim().is_empty()) {
            Some(p) => {
                let chosen = self.e.choose(Some(p), version, None)?;
                let line = chosen.version_line();
                Ok((vec![chosen.release], line))
            }
            None if version.is_some_and(|v| !v.trim().is_empty()) => Err(DocsError::BadArgument(
                "a version needs a package: pass package too".into(),
            )),
            None => {
                let all = self.e.releases()?;
                if all.is_empty() {
                    return Err(ReleaseError::NothingIndexed.into());
                }
                // The newest release of each package (releases are sorted oldest first).
                let mut newest: Vec<ReleaseInfo> = Vec::new();
                for r in all {
                    match newest.last_mut() {
                        Some(last) if last.package == r.package => *last = r,
                        _ => newest.push(r),
                    }
                }
                let line = format!(
                    "newest indexed of each package: {}",
                    newest
                        .iter()
                        .map(|r| format!("{} {}", r.name.replace("%40", "@"), r.version))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                Ok((newest, line))
            }
        }
    }

    /// Concept search over doc sections and docstrings of the chosen releases.
    pub fn search_docs(&self, q: &DocQuery) -> Result<(DocSearch, String), DocsError> {
        self.search_docs_with(q, Mode::Fused)
    }

    pub fn search_docs_with(
        &self,
        q: &DocQuery,
        mode: Mode,
    ) -> Result<(DocSearch, String), DocsError> {
        let index = self.e.text_index()?;
        if q.query.trim().is_empty() {
            return Err(DocsError::BadArgument("query is empty".into()));
        }
        let content_type = match q.content_type.as_deref().filter(|c| !c.is_empty()) {
            None => None,
            Some(c) => Some(ContentType::parse(c).ok_or_else(|| {
                DocsError::BadArgument(format!(
                    "content_type '{c}' is not one of: {}",
                    ContentType::ALL.map(|c| c.as_str()).join(", ")
                ))
            })?),
        };
        let language = q.language.as_deref().filter(|l| !l.is_empty());
        if let Some(l) = language
            && !Ecosystem::ALL.iter().any(|e| e.language() == l)
        {
            return Err(DocsError::BadArgument(format!(
                "language '{l}' is not one of: {}",
                Ecosystem::ALL.map(Ecosystem::language).join(", ")
            )));
        }
        let (releases, line) = self.search_scope(q.package.as_deref(), q.version.as_deref())?;
        let expansions = releases
            .iter()
            .flat_map(|r| self.e.synonyms.expansions(&r.package, &q.query))
            .collect();
        // A question in Chinese is searched in English (the model and most docs read
        // English), word by word through the glossary; the English is shown with the result.
        let translation = if q.query.chars().any(crate::index::glossary::is_han) {
            index.glossary().translate(&q.query)
        } else {
            None
        };
        let query = match &translation {
            Some(t) if !t.english.trim().is_empty() => t.english.clone(),
            _ => q.query.clone(),
        };
        let mut alternatives = crate::index::glossary::thesaurus_alternatives(&query);
        if let Some(t) = &translation {
            alternatives.extend(t.alternatives.iter().cloned());
        }
        let req = SearchRequest {
            query: query.clone(),
            releases: releases.iter().map(|r| r.release.clone()).collect(),
            language: language.map(str::to_string),
            content_type,
            limit: q.limit.unwrap_or(5).clamp(1, 50),
            expansions,
            alternatives,
            vector_query: crate::index::glossary::thesaurus_gloss(&query),
        };
        // What the asker sees: the English of a Chinese question, with the long forms of
        // abbreviations beside them.
        let searched_as = match (&req.vector_query, &translation) {
            (Some(glossed), _) => Some(glossed.clone()),
            (None, Some(_)) => Some(query.clone()),
            (None, None) => None,
        };
        let mut outcome = index.search(&req, mode)?;
        // The English of a translated question is the glossary's words, not the asker's.
        let unmatched = if translation.is_some() {
            Vec::new()
        } else {
            std::mem::take(&mut outcome.unmatched)
        };
        // Releases stored but absent from the index (ingested with --no-index, or the index
        // rebuilt since) or indexed from an older ingest: say so rather than look empty.
        let mut behind: Vec<String> = Vec::new();
        for r in &releases {
            if index.stamp(&r.release)? != Some(r.index_stamp()) {
                behind.push(r.release.clone());
            }
        }
        let mut notes: Vec<String> = Vec::new();
        if !outcome.corrected.is_empty() {
            let pairs: Vec<String> = outcome
                .corrected
                .iter()
                .map(|(w, c)| format!("'{w}' as {c}…"))
                .collect();
            notes.push(format!(
                "misspelt? searched {} (the nearest word stem these releases hold)",
                pairs.join(", ")
            ));
        }
        if let Some(t) = &translation
            && !t.unknown.is_empty()
        {
            notes.push(if index.glossary().is_empty() {
                "a question in Chinese is searched in English through a glossary, and none is installed: run `refgraph model install`".to_string()
            } else {
                format!("no English found for {}", t.unknown.join(", "))
            });
        }
        if !behind.is_empty() {
            notes.push(format!(
                "the text index is behind the store for {}: run `refgraph reindex` (`refgraph serve` also catches up when it starts)",
                behind.join(", ")
            ));
        } else if outcome.abstained {
            let far = outcome
                .confidence
                .best_cosine
                .map(|c| format!(" (cosine {c:.2})"))
                .unwrap_or_default();
            let missing = if unmatched.is_empty() {
                format!(
                    "{} of the query's {} words appear nowhere in these releases",
                    outcome.confidence.unmatched, outcome.confidence.words
                )
            } else {
                format!("no part of these releases mentions {}", quoted(&unmatched))
            };
            notes.push(format!(
                "nothing relevant found: {missing}, and no text is close in meaning{far}; `closest` lists the nearest chunks, which are not answers"
            ));
        } else if outcome.nothing_relevant && !unmatched.is_empty() {
            notes.push(format!(
                "nothing relevant found: no part of these releases mentions {}; `closest` lists the nearest chunks, which are not answers",
                quoted(&unmatched)
            ));
        } else if outcome.nothing_relevant {
            notes.push("nothing relevant found: the closest chunks did not share enough of the query's words or meaning; `closest` lists them".to_string());
        } else if outcome.hits.is_empty() {
            notes.push("nothing found".to_string());
        }
        // Said whatever else is said: a search without vectors misses what only meaning links.
        if !outcome.used_vectors && mode != Mode::Bm25Only {
            notes.push("keyword and name matching only: no embedding model is installed (refgraph model install)".to_string());
        }
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        let hits: Vec<DocHit> = outcome
            .hits
            .into_iter()
            .map(|h| hit_of(h, q.explain))
            .collect();
        let (results, closest) = if outcome.abstained || outcome.nothing_relevant {
            (Vec::new(), hits)
        } else {
            (hits, Vec::new())
        };
        let search = DocSearch {
            query: q.query.clone(),
            searched_as,
            releases: releases
                .iter()
                .map(|r| format!("{}@{}", r.package, r.version))
                .collect(),
            results,
            closest,
            semantic: outcome.used_vectors,
            unmatched,
            note,
            confidence: q.explain.then_some(outcome.confidence),
        };
        Ok((search, line))
    }

    /// A whole page (every chunk with that page id, in order), or one chunk by its id.
    pub fn get_page(&self, id: &str) -> Result<DocPage, DocsError> {
        let chunks = self.e.text_index()?.page(id)?;
        let Some(first) = chunks.first() else {
            return Err(DocsError::PageNotFound(id.to_string()));
        };
        let page_title = first.page_title.clone();
        let mut markdown = String::new();
        let mut entities: Vec<EntityRef> = Vec::new();
        for c in &chunks {
            if !markdown.is_empty() {
                markdown.push_str("\n\n");
            }
            markdown.push_str(&c.text);
            for e in &c.entities {
                if !entities.contains(e) {
                    entities.push(e.clone());
                }
            }
        }
        Ok(DocPage {
            id: first.page.clone(),
            title: page_title,
            source_url: first.source_url.clone(),
            package: first.package.clone(),
            version: first.version.clone(),
            last_updated: first.last_updated.clone(),
            markdown,
            entities,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_are_flat_and_short() {
        assert_eq!(snippet("a\n\n  b"), "a b");
        let long = "word ".repeat(200);
        let s = snippet(&long);
        assert!(s.ends_with('…') && s.chars().count() <= SNIPPET_CHARS + 1);
    }
}
