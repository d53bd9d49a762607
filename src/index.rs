//! The hybrid text index: tantivy BM25 with a code-aware tokenizer, sentence vectors, and a
//! name-match ranking, fused by weighted reciprocal rank.
//!
//! Everything here is derived from the store ([`chunks`] reads each release's symbols and doc
//! sections back from its graph), so `refgraph reindex` rebuilds it from nothing, and a release
//! re-ingested replaces all of its chunks at once (one tantivy commit deletes the old ones and
//! adds the new ones). The vectors live in the tantivy documents too, keyed by a hash of the text
//! they embed, so re-indexing unchanged text never runs the model again.

pub mod chunks;
pub mod embed;
mod fusion;
pub mod glossary;
pub mod synonyms;
mod tokenizer;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, FuzzyTermQuery, Occur, Query, TermQuery,
};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{Language, Stemmer, TextAnalyzer};
use tantivy::{
    DocAddress, DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term,
};

pub use chunks::{Chunk, ContentType, EntityRef};
pub use embed::{EmbedError, Embedder};
pub use fusion::FusionConfig;

use tokenizer::{CODE_TOKENIZER, CodeTokenizer};

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("text index at {0}: {1}")]
    Tantivy(PathBuf, tantivy::TantivyError),
    #[error("cannot create the text index directory {0}: {1}")]
    Dir(PathBuf, std::io::Error),
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// Bumped when the schema or the chunking changes: an index written by another layout is
/// rebuilt from the store instead of being misread.
const LAYOUT: &str = "refgraph-index-12";

/// The content type of the one document per release that records its stamp, so a release
/// with no chunks at all is still known to be indexed. It holds no text and is never a hit.
const MARKER: &str = "release_marker";

struct Fields {
    id: Field,
    release: Field,
    stamp: Field,
    package: Field,
    version: Field,
    language: Field,
    content_type: Field,
    title: Field,
    names: Field,
    section_path: Field,
    body: Field,
    source_url: Field,
    page: Field,
    page_title: Field,
    order: Field,
    entities: Field,
    last_updated: Field,
    embed_hash: Field,
    vector: Field,
    /// Marker documents: how many chunks of the release have no vector.
    missing_vectors: Field,
    /// `yes` on the chunks of doc pages (not the per-symbol pages): what lists the pages.
    doc_page: Field,
    /// The name-ranking keys of the chunk's entities (`fusion::name_keys`).
    name_keys: Field,
    /// Columns for the name ranking's ties: fewer entities, then a shorter title, first.
    entity_count: Field,
    title_len: Field,
    lifts: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = |stored: bool| {
        let o = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(CODE_TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        if stored { o.set_stored() } else { o }
    };
    let fields = Fields {
        id: b.add_text_field("id", STRING | STORED),
        release: b.add_text_field("release", STRING | STORED),
        stamp: b.add_text_field("stamp", STORED),
        package: b.add_text_field("package", STRING | STORED),
        version: b.add_text_field("version", STRING | STORED),
        language: b.add_text_field("language", STRING | STORED),
        content_type: b.add_text_field("content_type", STRING | STORED),
        title: b.add_text_field("title", text(true)),
        names: b.add_text_field("names", text(false)),
        section_path: b.add_text_field("section_path", text(true)),
        body: b.add_text_field("body", text(true)),
        source_url: b.add_text_field("source_url", STORED),
        page: b.add_text_field("page", STRING | STORED),
        page_title: b.add_text_field("page_title", STORED),
        order: b.add_u64_field("order", STORED),
        entities: b.add_text_field("entities", STORED),
        last_updated: b.add_text_field("last_updated", STORED),
        // Indexed: a text embedded in any release is found by its hash, and its vector reused.
        embed_hash: b.add_text_field("embed_hash", STRING | STORED),
        vector: b.add_bytes_field("vector", STORED),
        missing_vectors: b.add_u64_field("missing_vectors", STORED),
        doc_page: b.add_text_field("doc_page", STRING),
        name_keys: b.add_text_field("name_keys", STRING),
        entity_count: b.add_u64_field("entity_count", FAST),
        title_len: b.add_u64_field("title_len", FAST),
        lifts: b.add_text_field("lifts", STORED),
    };
    (b.build(), fields)
}

fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CodeTokenizer)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The hash of a chunk's embedded text, and its vector when a model is installed.
type HashedVector = (String, Option<Vec<f32>>);

/// What the vector ranking needs of one chunk. BM25 and the name ranking run on the inverted
/// index; what a hit shows stays in tantivy's store and is read for the hits only, so memory
/// grows with the releases searched recently (and only with a model), not with the index.
#[derive(Debug, Clone)]
pub(crate) struct Ranked {
    pub address: DocAddress,
    pub language: Box<str>,
    pub content_type: ContentType,
    pub vector: Box<[f32]>,
}

/// The ranking data of one release's chunks, loaded at its first search: their vectors, and
/// the chunks a hit on each lifts (see [`chunks::Chunk::lifts`]).
struct Part {
    chunks: Vec<Ranked>,
    lifts: HashMap<DocAddress, Vec<DocAddress>>,
}

/// How many releases' vectors stay loaded at least (`REFGRAPH_INDEX_RELEASES` overrides;
/// raised to the widest search): about 12 MB per 8,000 chunks.
const DEFAULT_LOADED_RELEASES: usize = 8;
/// How far down the fused list (in multiples of the limit) operations are looked for before
/// the OpenAPI schemas that ranked above them fill the remaining places.
const SCHEMA_REACH: usize = 4;

/// The index as of one commit: the releases it holds (from their markers) and, loaded on
/// demand and bounded, the ranking data of recently searched releases.
struct Snapshot {
    /// The reader generation this snapshot was loaded at.
    generation: u64,
    /// The searcher it was loaded from: BM25 must use the same one, or a commit landing in
    /// between would map doc addresses to the wrong chunks.
    searcher: tantivy::Searcher,
    /// Each release present: its stamp and whether every chunk has a vector.
    releases: HashMap<String, (String, bool)>,
    /// How many chunks (marker documents left out).
    chunks: usize,
    parts: Mutex<lru::LruCache<String, Arc<Part>>>,
}

/// A search: the query, the releases to search (empty: all), optional filters and how many hits.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub query: String,
    pub releases: Vec<String>,
    pub language: Option<String>,
    pub content_type: Option<ContentType>,
    pub limit: usize,
    /// Extra terms from the package's synonyms table, matched like words of the query.
    pub expansions: Vec<String>,
    /// Weaker words standing for a word of the query: `(word, its alternatives)`, from the
    /// thesaurus and the glossary (see [`fusion::QueryTerms::alternatives`]).
    pub alternatives: Vec<(String, Vec<String>)>,
    /// What the query's vector is computed from when it is not `query`: the query with the
    /// thesaurus's long forms beside its abbreviations (see [`glossary::thesaurus_gloss`]).
    pub vector_query: Option<String>,
}

/// One ranked chunk.
#[derive(Debug, Clone)]
pub struct SearchHit {
    pub chunk: Chunk,
    /// The fused score (weighted reciprocal rank).
    pub score: f32,
    /// Its places in the individual rankings, for explaining (`refgraph search --explain`).
    pub ranks: HitRanks,
}

/// Misspelt query words and what they were searched as: `(word as written, stemmed word)`.
pub type Corrections = Vec<(String, String)>;

/// A candidate's places in the individual rankings (1-based) and the figures the relevance
/// bar looks at, known before its chunk is read.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct HitRanks {
    pub bm25_rank: Option<usize>,
    /// The hit's share of the query's words, known for BM25 hits.
    pub coverage: Option<f32>,
    pub vector_rank: Option<usize>,
    pub cosine: Option<f32>,
    pub name_rank: Option<usize>,
    /// The score a relevant hit on a type it takes added ([`chunks::Chunk::lifts`]).
    pub lifted: Option<f32>,
}

impl std::fmt::Display for HitRanks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(r) = self.bm25_rank {
            parts.push(format!(
                "BM25 #{r} (holds {:.0}% of the query's words)",
                100.0 * self.coverage.unwrap_or(0.0)
            ));
        }
        if let Some(r) = self.vector_rank {
            parts.push(format!(
                "vector #{r} (cosine {:.3})",
                self.cosine.unwrap_or(0.0)
            ));
        }
        if let Some(r) = self.name_rank {
            parts.push(format!("name #{r}"));
        }
        if let Some(l) = self.lifted {
            parts.push(format!("lifted {l:.4} by a hit on a type it takes"));
        }
        f.write_str(&parts.join(", "))
    }
}

#[derive(Debug, Clone, Default)]
pub struct SearchOutcome {
    pub hits: Vec<SearchHit>,
    /// Whether vectors took part (a model is installed and the chunks have vectors).
    pub used_vectors: bool,
    /// Candidates were found but none cleared the relevance bar: `hits` are the closest of
    /// them, not answers.
    pub nothing_relevant: bool,
    /// Hits cleared the bar, but the search abstains ([`fusion::FusionConfig::abstains`]):
    /// `hits` are the closest chunks, not answers.
    pub abstained: bool,
    /// The query's words (as written) that no chunk of the releases searched holds, itself or
    /// through an alternative. Only a clue: half the labelled questions that have an answer
    /// hold such a word too ("a hotel guest's card"), so it does not change the ranking.
    pub unmatched: Vec<String>,
    /// Misspelt query words searched as a word of the releases one or two edits away:
    /// `(word as written, stemmed word of the index)`.
    pub corrected: Corrections,
    /// How well the best candidates answer the query, whatever their order: what the
    /// abstention rule ([`fusion::FusionConfig::abstains`]) reads.
    pub confidence: Confidence,
}

/// Figures of a search that tell an answer from the closest text to a question the releases
/// cannot answer, each known before any chunk is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Confidence {
    /// The query's content words (stop words dropped), and how many of them no chunk in reach
    /// holds, itself, through an alternative or as a corrected misspelling.
    pub words: usize,
    pub unmatched: usize,
    /// The cosine of the vector ranking's first chunk (none without vectors).
    pub best_cosine: Option<f32>,
    /// How far it stands above the vector ranking's tenth.
    pub cosine_margin: Option<f32>,
    /// The largest share of the query's words a BM25 candidate holds.
    pub best_coverage: f32,
    /// Whether a chunk's entity is named in the query.
    pub named: bool,
}

/// Which rankings to use; the benchmark and the labelled query set compare them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Fused,
    Bm25Only,
    VectorOnly,
}

pub struct TextIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    dir: Option<PathBuf>,
    writer: Mutex<Option<IndexWriter>>,
    snapshot: RwLock<Option<Arc<Snapshot>>>,
    /// How many releases' vectors a snapshot keeps loaded: the configured number, raised to
    /// the widest search seen (a search without a package spans the newest release of every
    /// package, and must not evict what it is about to use).
    loaded_releases: std::sync::atomic::AtomicUsize,
    model_dir: Option<PathBuf>,
    embedder: OnceLock<Option<Arc<Embedder>>>,
    glossary: OnceLock<glossary::Glossary>,
    english: OnceLock<HashSet<String>>,
    pub fusion: FusionConfig,
    query_vectors: Mutex<lru::LruCache<String, Arc<Vec<f32>>>>,
    /// Recent results by request, valid for one index generation (a commit invalidates them).
    results: Mutex<lru::LruCache<String, (u64, SearchOutcome)>>,
    /// Set at shutdown: embedding stops after the batch it is in ([`TextIndex::cancel`]).
    cancelled: std::sync::atomic::AtomicBool,
}

impl TextIndex {
    /// Opens (or creates) the index in `dir`. An index of another layout is wiped: it is
    /// derived data, and the caller reindexes what the store holds.
    pub fn open(dir: &Path, model_dir: Option<PathBuf>) -> Result<Self, IndexError> {
        let err = |e| IndexError::Tantivy(dir.to_path_buf(), e);
        let layout_file = dir.join("LAYOUT");
        let dir_err = |e| IndexError::Dir(dir.to_path_buf(), e);
        // Two processes that find an index of an old layout (both started by a new build)
        // must not both wipe it: the second would delete what the first began to rebuild.
        // The check and the wipe hold an exclusive lock on a file beside the index; whoever
        // comes second finds the new layout written.
        let lock_path = dir.with_extension("lock");
        if let Some(parent) = lock_path.parent() {
            std::fs::create_dir_all(parent).map_err(dir_err)?;
        }
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| IndexError::Dir(lock_path.clone(), e))?;
        lock.lock()
            .map_err(|e| IndexError::Dir(lock_path.clone(), e))?;
        // Only a missing file means "no index of this layout": an index that cannot be read
        // is an error to report, not a reason to delete it.
        let current = match std::fs::read_to_string(&layout_file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(dir_err(e)),
        };
        if current.trim() != LAYOUT {
            if dir.exists() {
                std::fs::remove_dir_all(dir).map_err(dir_err)?;
            }
            std::fs::create_dir_all(dir).map_err(dir_err)?;
            // Written whole or not at all, and only here: every `refgraph search` opens the
            // index, and one that read a file another was rewriting in place took it for a
            // layout change and wiped the index.
            crate::fsutil::write_atomic(&layout_file, LAYOUT.as_bytes()).map_err(dir_err)?;
        }
        drop(lock);
        let (schema, fields) = schema();
        // Random access: the kernel reads no pages ahead of the ones a search touches, so the
        // mapped index adds to the server's RSS only what searches read.
        let directory = tantivy::directory::MmapDirectory::open_with_madvice(
            dir,
            tantivy::directory::Advice::Random,
        )
        .map_err(|e| err(tantivy::TantivyError::from(e)))?;
        let index = Index::open_or_create(directory, schema).map_err(err)?;
        Self::with_index(index, fields, Some(dir.to_path_buf()), model_dir)
    }

    /// An index in memory, for tests and one-shot runs.
    pub fn in_memory(model_dir: Option<PathBuf>) -> Result<Self, IndexError> {
        let (schema, fields) = schema();
        Self::with_index(Index::create_in_ram(schema), fields, None, model_dir)
    }

    fn with_index(
        index: Index,
        fields: Fields,
        dir: Option<PathBuf>,
        model_dir: Option<PathBuf>,
    ) -> Result<Self, IndexError> {
        index.tokenizers().register(CODE_TOKENIZER, analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e| IndexError::Tantivy(dir.clone().unwrap_or_default(), e))?;
        Ok(TextIndex {
            index,
            reader,
            fields,
            dir,
            writer: Mutex::new(None),
            snapshot: RwLock::new(None),
            loaded_releases: std::sync::atomic::AtomicUsize::new(
                std::env::var("REFGRAPH_INDEX_RELEASES")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .filter(|n| *n > 0)
                    .unwrap_or(DEFAULT_LOADED_RELEASES),
            ),
            model_dir,
            embedder: OnceLock::new(),
            glossary: OnceLock::new(),
            english: OnceLock::new(),
            fusion: FusionConfig::default(),
            query_vectors: Mutex::new(lru::LruCache::new(
                std::num::NonZeroUsize::new(256).expect("nonzero"),
            )),
            results: Mutex::new(lru::LruCache::new(
                std::num::NonZeroUsize::new(256).expect("nonzero"),
            )),
            cancelled: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Stops the embedding under way after its current batch, for a clean shutdown: the
    /// release being indexed is written with the vectors made so far (the others are made at
    /// the next sync, which sees vectors missing), and no further release is started.
    pub fn cancel(&self) {
        self.cancelled
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether [`TextIndex::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn err(&self, e: tantivy::TantivyError) -> IndexError {
        IndexError::Tantivy(self.dir.clone().unwrap_or_default(), e)
    }

    /// The Chinese-English glossary, read from the model directory at first use (empty when
    /// `refgraph model install` has not derived it).
    pub fn glossary(&self) -> &glossary::Glossary {
        self.glossary.get_or_init(|| {
            let dir = embed::model_dir(self.model_dir.as_deref());
            let g = glossary::Glossary::load(dir.as_deref());
            if g.is_empty() {
                tracing::warn!(
                    "no Chinese-English glossary in the model directory: run `refgraph model install`"
                );
            }
            g
        })
    }

    /// English words, read at first use from the whole words of the embedding model's
    /// vocabulary (about 20,000; none without a model): a query word found there is no
    /// misspelling, however far it is from the releases' words.
    fn english(&self) -> &HashSet<String> {
        self.english.get_or_init(|| {
            let Some(dir) = embed::model_dir(self.model_dir.as_deref()) else {
                return HashSet::new();
            };
            let vocab: Option<HashSet<String>> = std::fs::read(dir.join("tokenizer.json"))
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                .and_then(|t| {
                    t["model"]["vocab"].as_object().map(|v| {
                        v.keys()
                            .filter(|w| w.len() > 1 && w.chars().all(|c| c.is_ascii_lowercase()))
                            .cloned()
                            .collect()
                    })
                });
            vocab.unwrap_or_default()
        })
    }

    /// The embedding model, loaded at first use. Without one, says so once and returns None.
    pub fn embedder(&self) -> Option<Arc<Embedder>> {
        self.embedder
            .get_or_init(|| {
                let dir = embed::model_dir(self.model_dir.as_deref())?;
                match Embedder::load(&dir) {
                    Ok(e) => Some(Arc::new(e)),
                    Err(e) => {
                        tracing::warn!("text search without vectors (BM25 and names only): {e}");
                        None
                    }
                }
            })
            .clone()
    }

    /// Replaces every chunk of `release` with `chunks` in one commit. Texts already embedded
    /// (in any release) reuse their vectors; the rest are embedded in batches, reporting
    /// `progress(done, total)`.
    pub fn replace_release(
        &self,
        release: &str,
        stamp: &str,
        chunks: &[Chunk],
        progress: &dyn Fn(usize, usize),
    ) -> Result<usize, IndexError> {
        self.replace_release_with(release, stamp, chunks, &HashMap::new(), progress)
    }

    /// [`TextIndex::replace_release`] with vectors already made, by the hash of the text they
    /// embed (a bundle's): those are used as they are, with or without a model here.
    pub fn replace_release_with(
        &self,
        release: &str,
        stamp: &str,
        chunks: &[Chunk],
        given: &HashMap<String, Vec<f32>>,
        progress: &dyn Fn(usize, usize),
    ) -> Result<usize, IndexError> {
        let vectors = self.vectors_for(chunks, given, progress)?;
        let mut guard = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(self.index.writer(64 << 20).map_err(|e| self.err(e))?);
        }
        let writer = guard.as_mut().expect("set above");
        let result = self.write_release(writer, release, stamp, chunks, vectors);
        if result.is_err() {
            // Never leave this release's pending delete for another release's commit to apply.
            let _ = writer.rollback();
        }
        result
    }

    fn write_release(
        &self,
        writer: &mut IndexWriter,
        release: &str,
        stamp: &str,
        chunks: &[Chunk],
        vectors: Vec<HashedVector>,
    ) -> Result<usize, IndexError> {
        let f = &self.fields;
        writer.delete_term(Term::from_field_text(f.release, release));
        if !stamp.is_empty() {
            let mut d = TantivyDocument::default();
            d.add_text(f.id, format!("{release}#"));
            d.add_text(f.release, release);
            d.add_text(f.stamp, stamp);
            d.add_text(f.content_type, MARKER);
            // Chunks with nothing to embed have no vector by design, not for want of a model.
            let missing = chunks
                .iter()
                .zip(&vectors)
                .filter(|(c, (_, v))| v.is_none() && !c.embed_text.is_empty())
                .count();
            d.add_u64(f.missing_vectors, missing as u64);
            writer.add_document(d).map_err(|e| self.err(e))?;
        }
        for (c, (hash, v)) in chunks.iter().zip(vectors) {
            let mut d = TantivyDocument::default();
            d.add_text(f.id, &c.id);
            d.add_text(f.release, release);
            d.add_text(f.stamp, stamp);
            d.add_text(f.package, &c.package);
            d.add_text(f.version, &c.version);
            d.add_text(f.language, &c.language);
            d.add_text(f.content_type, c.content_type.as_str());
            d.add_text(f.title, &c.title);
            d.add_u64(f.title_len, c.title.len() as u64);
            // A symbol's chunk is about its first entity; the others are symbols its docstring
            // mentions, whose names its text already holds: they link, they do not rank.
            let about = if c.page == c.id {
                &c.entities[..c.entities.len().min(1)]
            } else {
                &c.entities[..]
            };
            d.add_u64(f.entity_count, about.len() as u64);
            let mut keys = HashSet::new();
            for e in about {
                d.add_text(f.names, &e.qualified_name);
                keys.extend(fusion::name_keys(&e.qualified_name));
            }
            for k in keys {
                d.add_text(f.name_keys, k);
            }
            d.add_text(f.section_path, &c.section_path);
            d.add_text(f.body, &c.text);
            d.add_text(f.source_url, &c.source_url);
            d.add_text(f.page, &c.page);
            if c.page != c.id {
                d.add_text(f.doc_page, "yes");
            }
            d.add_text(f.page_title, &c.page_title);
            d.add_u64(f.order, c.order as u64);
            d.add_text(
                f.entities,
                serde_json::to_string(&c.entities).unwrap_or_default(),
            );
            d.add_text(f.last_updated, &c.last_updated);
            d.add_text(f.embed_hash, &hash);
            for l in &c.lifts {
                d.add_text(f.lifts, l);
            }
            if let Some(v) = v {
                d.add_bytes(f.vector, &embed::to_bytes(&v));
            }
            writer.add_document(d).map_err(|e| self.err(e))?;
        }
        writer.commit().map_err(|e| self.err(e))?;
        self.reader.reload().map_err(|e| self.err(e))?;
        Ok(chunks.len())
    }

    /// The vectors of `release`'s chunks by the hash of the text each embeds, one per text:
    /// what a bundle carries so that another machine ranks as this one does.
    pub fn release_vectors(&self, release: &str) -> Result<Vec<(String, Vec<f32>)>, IndexError> {
        let searcher = self.reader.searcher();
        let q = TermQuery::new(
            Term::from_field_text(self.fields.release, release),
            IndexRecordOption::Basic,
        );
        let mut addrs: Vec<DocAddress> = searcher
            .search(&q, &DocSetCollector)
            .map_err(|e| self.err(e))?
            .into_iter()
            .collect();
        addrs.sort();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for addr in addrs {
            let doc: TantivyDocument = searcher.doc(addr).map_err(|e| self.err(e))?;
            let hash = doc
                .get_first(self.fields.embed_hash)
                .and_then(|v| v.as_str());
            let vector = doc
                .get_first(self.fields.vector)
                .and_then(|v| v.as_bytes())
                .and_then(embed::from_bytes);
            if let (Some(h), Some(v)) = (hash, vector)
                && seen.insert(h.to_string())
            {
                out.push((h.to_string(), v));
            }
        }
        Ok(out)
    }

    /// Removes every chunk of `release`.
    pub fn remove_release(&self, release: &str) -> Result<(), IndexError> {
        self.replace_release(release, "", &[], &|_, _| {})
            .map(|_| ())
    }

    /// The vector of each chunk's `embed_text` (None when no model is installed, or when the
    /// text is empty: that chunk takes no part in the vector ranking) with the text's hash.
    fn vectors_for(
        &self,
        chunks: &[Chunk],
        given: &HashMap<String, Vec<f32>>,
        progress: &dyn Fn(usize, usize),
    ) -> Result<Vec<HashedVector>, IndexError> {
        let hashes: Vec<String> = chunks
            .iter()
            .map(|c| embed::sha256_hex(c.embed_text.as_bytes()))
            .collect();
        let Some(embedder) = self.embedder() else {
            return Ok(hashes
                .into_iter()
                .map(|h| {
                    let v = given.get(&h).cloned();
                    (h, v)
                })
                .collect());
        };
        // Texts embedded before, in any release, found by their hash.
        let searcher = self.reader.searcher();
        let mut known: HashMap<&str, Vec<f32>> = HashMap::new();
        for (h, c) in hashes.iter().zip(chunks) {
            if c.embed_text.is_empty() || known.contains_key(h.as_str()) {
                continue;
            }
            if let Some(v) = given.get(h) {
                known.insert(h.as_str(), v.clone());
                continue;
            }
            let q = TermQuery::new(
                Term::from_field_text(self.fields.embed_hash, h),
                IndexRecordOption::Basic,
            );
            let top = searcher
                .search(&q, &TopDocs::with_limit(4).order_by_score())
                .map_err(|e| self.err(e))?;
            for (_, addr) in top {
                let doc: TantivyDocument = searcher.doc(addr).map_err(|e| self.err(e))?;
                if let Some(v) = doc
                    .get_first(self.fields.vector)
                    .and_then(|v| v.as_bytes())
                    .and_then(embed::from_bytes)
                {
                    known.insert(h.as_str(), v);
                    break;
                }
            }
        }
        let mut todo: Vec<usize> = Vec::new();
        let mut seen = HashSet::new();
        for (i, h) in hashes.iter().enumerate() {
            if !chunks[i].embed_text.is_empty()
                && !known.contains_key(h.as_str())
                && seen.insert(h.as_str())
            {
                todo.push(i);
            }
        }
        // Shortest first: batches of similar length pad less.
        todo.sort_by_key(|&i| chunks[i].embed_text.len());
        let texts: Vec<&str> = todo
            .iter()
            .map(|&i| embed_input(&chunks[i].embed_text))
            .collect();
        let embedded = embed_batches(
            &texts,
            &|batch| embedder.embed(batch),
            &self.cancelled,
            progress,
        );
        if !embedded.failed.is_empty() {
            let (first, why) = &embedded.failed[0];
            tracing::warn!(
                "{} of {} texts could not be embedded and are indexed without a vector \
                 (BM25 and names still find them), first {}: {why}",
                embedded.failed.len(),
                texts.len(),
                chunks[todo[*first]].id
            );
        }
        if embedded.cancelled {
            tracing::info!(
                "embedding stopped at shutdown after {} of {} texts; what was embedded is kept \
                 and the rest is embedded at the next sync",
                embedded.vectors.iter().flatten().count(),
                texts.len()
            );
        }
        let mut fresh: HashMap<&str, Vec<f32>> = HashMap::new();
        for (&i, v) in todo.iter().zip(embedded.vectors) {
            if let Some(v) = v {
                fresh.insert(hashes[i].as_str(), v);
            }
        }
        Ok(hashes
            .iter()
            .map(|h| {
                // An empty text was neither looked up nor embedded: no vector.
                let v = fresh
                    .get(h.as_str())
                    .cloned()
                    .or_else(|| known.get(h.as_str()).cloned());
                (h.clone(), v)
            })
            .collect())
    }

    /// The index as of the last commit: the releases its markers record. Cheap: the chunks
    /// themselves are read per release, at its first search ([`TextIndex::part`]).
    fn snapshot(&self) -> Result<Arc<Snapshot>, IndexError> {
        let searcher = self.reader.searcher();
        let generation = searcher.generation().generation_id();
        if let Some(s) = self
            .snapshot
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            && s.generation == generation
        {
            return Ok(s.clone());
        }
        let f = &self.fields;
        let markers = searcher
            .search(
                &TermQuery::new(
                    Term::from_field_text(f.content_type, MARKER),
                    IndexRecordOption::Basic,
                ),
                &DocSetCollector,
            )
            .map_err(|e| self.err(e))?;
        let mut releases = HashMap::new();
        for addr in &markers {
            let doc: TantivyDocument = searcher.doc(*addr).map_err(|e| self.err(e))?;
            let s = |field: Field| text_of(&doc, field).to_string();
            let missing = doc
                .get_first(f.missing_vectors)
                .and_then(|v| v.as_u64())
                .unwrap_or(0);
            releases.insert(s(f.release), (s(f.stamp), missing == 0));
        }
        let snap = Arc::new(Snapshot {
            generation,
            chunks: (searcher.num_docs() as usize).saturating_sub(markers.len()),
            searcher: searcher.clone(),
            releases,
            parts: Mutex::new(lru::LruCache::new(
                std::num::NonZeroUsize::new(
                    self.loaded_releases
                        .load(std::sync::atomic::Ordering::Relaxed),
                )
                .expect("nonzero"),
            )),
        });
        *self.snapshot.write().unwrap_or_else(|p| p.into_inner()) = Some(snap.clone());
        Ok(snap)
    }

    /// The ranking data (vectors, lifts) of one release's chunks in `snap`, loaded at first
    /// use and kept for the most recently searched releases.
    fn part(&self, snap: &Snapshot, release: &str) -> Result<Arc<Part>, IndexError> {
        if let Some(p) = snap
            .parts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(release)
        {
            return Ok(p.clone());
        }
        let f = &self.fields;
        let mut addresses: Vec<DocAddress> = snap
            .searcher
            .search(
                &TermQuery::new(
                    Term::from_field_text(f.release, release),
                    IndexRecordOption::Basic,
                ),
                &DocSetCollector,
            )
            .map_err(|e| self.err(e))?
            .into_iter()
            .collect();
        addresses.sort();
        let mut chunks = Vec::with_capacity(addresses.len());
        let mut by_id: HashMap<String, DocAddress> = HashMap::new();
        let mut lift_ids: Vec<(DocAddress, Vec<String>)> = Vec::new();
        for address in addresses {
            let doc: TantivyDocument = snap.searcher.doc(address).map_err(|e| self.err(e))?;
            let s = |field: Field| text_of(&doc, field);
            if s(f.content_type) == MARKER {
                continue;
            }
            by_id.insert(s(f.id).to_string(), address);
            let lifts = stored_lifts(&doc, f.lifts);
            if !lifts.is_empty() {
                lift_ids.push((address, lifts));
            }
            let Some(vector) = doc
                .get_first(f.vector)
                .and_then(|v| v.as_bytes())
                .and_then(embed::from_bytes)
            else {
                continue;
            };
            chunks.push(Ranked {
                address,
                language: s(f.language).into(),
                content_type: ContentType::parse(s(f.content_type)).unwrap_or(ContentType::Concept),
                vector: vector.into_boxed_slice(),
            });
        }
        let lifts = lift_ids
            .into_iter()
            .map(|(a, ids)| {
                (
                    a,
                    ids.iter().filter_map(|i| by_id.get(i).copied()).collect(),
                )
            })
            .collect();
        let part = Arc::new(Part { chunks, lifts });
        snap.parts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(release.to_string(), part.clone());
        Ok(part)
    }

    /// The chunk stored at `address`, as a hit shows it.
    fn chunk_at(
        &self,
        searcher: &tantivy::Searcher,
        address: DocAddress,
    ) -> Result<Chunk, IndexError> {
        let doc: TantivyDocument = searcher.doc(address).map_err(|e| self.err(e))?;
        Ok(self.chunk_of(&doc))
    }

    fn chunk_of(&self, doc: &TantivyDocument) -> Chunk {
        let f = &self.fields;
        let s = |field: Field| text_of(doc, field).to_string();
        Chunk {
            id: s(f.id),
            release: s(f.release),
            package: s(f.package),
            version: s(f.version),
            language: s(f.language),
            content_type: ContentType::parse(&s(f.content_type)).unwrap_or(ContentType::Concept),
            title: s(f.title),
            section_path: s(f.section_path),
            text: s(f.body),
            source_url: s(f.source_url),
            page: s(f.page),
            page_title: s(f.page_title),
            order: doc.get_first(f.order).and_then(|v| v.as_u64()).unwrap_or(0) as usize,
            entities: serde_json::from_str(&s(f.entities)).unwrap_or_default(),
            last_updated: s(f.last_updated),
            embed_text: String::new(),
            lifts: stored_lifts(doc, f.lifts),
        }
    }

    /// The chunks whose `field` is `value`, read from the store.
    fn chunks_where(&self, field: Field, value: &str) -> Result<Vec<Chunk>, IndexError> {
        let searcher = self.reader.searcher();
        let found = searcher
            .search(
                &TermQuery::new(
                    Term::from_field_text(field, value),
                    IndexRecordOption::Basic,
                ),
                &DocSetCollector,
            )
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for address in found {
            let doc: TantivyDocument = searcher.doc(address).map_err(|e| self.err(e))?;
            if text_of(&doc, self.fields.content_type) != MARKER {
                out.push(self.chunk_of(&doc));
            }
        }
        Ok(out)
    }

    /// Each indexed release with the stamp it was indexed at and whether all its chunks have
    /// vectors: what `sync` compares with the store.
    pub fn releases(&self) -> Result<HashMap<String, (String, bool)>, IndexError> {
        Ok(self.snapshot()?.releases.clone())
    }

    /// The stamp `release` was indexed at, if it is indexed (no copy of the whole table).
    pub fn stamp(&self, release: &str) -> Result<Option<String>, IndexError> {
        Ok(self
            .snapshot()?
            .releases
            .get(release)
            .map(|(s, _)| s.clone()))
    }

    /// The chunks of one page, in page order: `id` is a page id or the id of any chunk of it.
    pub fn page(&self, id: &str) -> Result<Vec<Chunk>, IndexError> {
        let f = &self.fields;
        let mut chunks = self.chunks_where(f.page, id)?;
        if chunks.is_empty()
            && let Some(c) = self.chunks_where(f.id, id)?.into_iter().next()
        {
            chunks = self.chunks_where(f.page, &c.page)?;
        }
        chunks.sort_by_key(|c| c.order);
        Ok(chunks)
    }

    /// Every doc page (not the per-symbol pages): its first chunk, in page id order.
    pub fn doc_pages(&self) -> Result<Vec<Chunk>, IndexError> {
        let mut firsts: std::collections::BTreeMap<String, Chunk> = Default::default();
        for c in self.chunks_where(self.fields.doc_page, "yes")? {
            match firsts.get(&c.page) {
                Some(e) if e.order <= c.order => {}
                _ => {
                    firsts.insert(c.page.clone(), c);
                }
            }
        }
        Ok(firsts.into_values().collect())
    }

    /// Number of live chunks.
    pub fn len(&self) -> Result<usize, IndexError> {
        Ok(self.snapshot()?.chunks)
    }

    pub fn is_empty(&self) -> Result<bool, IndexError> {
        Ok(self.len()? == 0)
    }

    /// The query's vector, cached (queries repeat).
    fn query_vector(&self, embedder: &Embedder, query: &str) -> Result<Arc<Vec<f32>>, IndexError> {
        let mut cache = self.query_vectors.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = cache.get(query) {
            return Ok(v.clone());
        }
        drop(cache);
        let v = Arc::new(
            embedder
                .embed(&[query])?
                .into_iter()
                .next()
                .unwrap_or_default(),
        );
        self.query_vectors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(query.to_string(), v.clone());
        Ok(v)
    }

    /// Ranks chunks for `req`: BM25, vectors and names, fused.
    pub fn search(&self, req: &SearchRequest, mode: Mode) -> Result<SearchOutcome, IndexError> {
        let generation = self.reader.searcher().generation().generation_id();
        let key = format!("{req:?}|{mode:?}");
        if let Some((g, hit)) = self
            .results
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            && *g == generation
        {
            return Ok(hit.clone());
        }
        let outcome = self.search_uncached(req, mode)?;
        self.results
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(key, (generation, outcome.clone()));
        Ok(outcome)
    }

    fn search_uncached(
        &self,
        req: &SearchRequest,
        mode: Mode,
    ) -> Result<SearchOutcome, IndexError> {
        let snap = self.snapshot()?;
        let depth = self.fusion.candidates;
        let mut terms = fusion::query_terms(&req.query, &req.expansions, &req.alternatives);
        let (unmatched, corrected) = self.unmatched(&snap, &mut terms, req)?;
        // One numbering for the chunks any ranking returns.
        let mut ids: Vec<DocAddress> = Vec::new();
        let mut numbers: HashMap<DocAddress, usize> = HashMap::new();
        let mut number = |a: DocAddress| {
            *numbers.entry(a).or_insert_with(|| {
                ids.push(a);
                ids.len() - 1
            })
        };

        let bm25_addresses: Vec<DocAddress> = if mode == Mode::VectorOnly {
            Vec::new()
        } else {
            self.bm25(&snap, &terms, req, depth)?
        };
        let bm25: Vec<usize> = bm25_addresses.iter().map(|a| number(*a)).collect();
        let parts = self.parts_for(&snap, req, mode)?;
        let mut cosines: HashMap<usize, f32> = HashMap::new();
        let mut used_vectors = false;
        let vector: Vec<usize> = match (mode, self.embedder()) {
            (Mode::Bm25Only, _) | (_, None) => Vec::new(),
            (_, Some(embedder)) => {
                let q =
                    self.query_vector(&embedder, req.vector_query.as_ref().unwrap_or(&req.query))?;
                let mut scored: Vec<(DocAddress, f32)> = parts
                    .iter()
                    .flat_map(|p| &p.chunks)
                    .filter(|c| {
                        req.language.as_deref().is_none_or(|x| &*c.language == x)
                            && req.content_type.is_none_or(|x| c.content_type == x)
                    })
                    .map(|c| (c.address, embed::dot(&q, &c.vector)))
                    .collect();
                // The model ranked whatever chunks have vectors (perhaps none: a release of
                // undocumented symbols): vectors were used, not missing.
                used_vectors = true;
                scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                scored.truncate(depth);
                scored
                    .into_iter()
                    .map(|(a, c)| {
                        let i = number(a);
                        cosines.insert(i, c);
                        i
                    })
                    .collect()
            }
        };
        let names: Vec<usize> = if mode == Mode::Fused {
            self.name_ranking(&snap, &terms, req, depth)?
                .into_iter()
                .map(&mut number)
                .collect()
        } else {
            Vec::new()
        };
        // Each BM25 hit's share of the query's words: its trust in fusion, then its relevance.
        let covered = self.coverage(&snap, &bm25_addresses, &terms)?;
        let trust: Vec<f32> = covered
            .iter()
            .map(|c| c.powf(self.fusion.trust_power))
            .collect();
        let fused = self.fusion.fuse(&bm25, &trust, &vector, &names);
        let confidence = Self::confidence(
            &terms,
            &unmatched,
            &vector,
            &cosines,
            &covered,
            !names.is_empty(),
        );
        let rank = |list: &[usize], i: usize| list.iter().position(|&x| x == i).map(|p| p + 1);
        let ranks_of = |i: usize| {
            let bm25_rank = rank(&bm25, i);
            HitRanks {
                bm25_rank,
                coverage: bm25_rank.map(|r| covered[r - 1]),
                vector_rank: rank(&vector, i),
                cosine: cosines.get(&i).copied(),
                name_rank: rank(&names, i),
                lifted: None,
            }
        };
        let reach = req.limit.max(1) * SCHEMA_REACH;
        let (fused, lifted) = self.lift(fused, &parts, &mut ids, &mut numbers, reach, |i| {
            self.fusion.relevant(&ranks_of(i), used_vectors)
        });
        let mut hits: Vec<SearchHit> = Vec::new();
        // Each hit's twin key (`twin_of`), computed once.
        let mut twins: Vec<Option<String>> = Vec::new();
        // OpenAPI schemas that ranked among the operations: what a search asks for is the
        // operation to call, so they come after the operations found within the same reach.
        // Only in a search of one release: across packages, a schema moved down would pass
        // below other packages' weaker hits, and the list would no longer follow the scores.
        let defer_schemas = req.releases.len() == 1;
        let mut schemas = Vec::new();
        // The first candidates the bar turned away: what the search shows as the closest
        // chunks when none clears it.
        let mut rejected: Vec<(usize, f32, HitRanks)> = Vec::new();
        for (seen, (i, score)) in fused.into_iter().enumerate() {
            if seen >= reach && !schemas.is_empty() {
                break;
            }
            let ranks = HitRanks {
                lifted: lifted.get(&i).copied(),
                ..ranks_of(i)
            };
            if !self.fusion.relevant(&ranks, used_vectors) {
                if rejected.len() < req.limit.max(1) {
                    rejected.push((i, score, ranks));
                }
                continue;
            }
            let hit = SearchHit {
                chunk: self.chunk_at(&snap.searcher, ids[i])?,
                score,
                ranks,
            };
            if defer_schemas
                && &*hit.chunk.language == "openapi"
                && hit
                    .chunk
                    .entities
                    .first()
                    .is_some_and(|e| e.kind == "schema")
            {
                schemas.push(hit);
                continue;
            }
            // A synchronous and an asynchronous twin (`Client.get`, `AsyncClient.get`) are one
            // answer: the later one joins the earlier hit's entities and leaves its place to
            // the next result. So does a second chunk of the same symbol.
            let key = twin_of(&hit);
            if let Some(k) = &key
                && let Some(first) = twins
                    .iter()
                    .position(|t| t.as_ref() == Some(k))
                    .map(|at| &mut hits[at])
            {
                let mut at = 1;
                for e in hit.chunk.entities {
                    if !first.chunk.entities.contains(&e) {
                        first
                            .chunk
                            .entities
                            .insert(at.min(first.chunk.entities.len()), e);
                        at += 1;
                    }
                }
                continue;
            }
            twins.push(key);
            hits.push(hit);
            if hits.len() >= req.limit.max(1) {
                break;
            }
        }
        let room = req.limit.max(1).saturating_sub(hits.len());
        hits.extend(schemas.into_iter().take(room));
        let nothing_relevant = hits.is_empty() && !rejected.is_empty();
        if nothing_relevant {
            for (i, score, ranks) in rejected {
                hits.push(SearchHit {
                    chunk: self.chunk_at(&snap.searcher, ids[i])?,
                    score,
                    ranks,
                });
            }
        }
        Ok(SearchOutcome {
            abstained: !nothing_relevant && !hits.is_empty() && self.fusion.abstains(&confidence),
            nothing_relevant,
            hits,
            used_vectors,
            unmatched,
            corrected,
            confidence,
        })
    }

    /// The ranking data of the releases `req` asks for (all when none), loaded on demand, and
    /// only when something uses them: the vectors, or the lifts.
    fn parts_for(
        &self,
        snap: &Snapshot,
        req: &SearchRequest,
        mode: Mode,
    ) -> Result<Vec<Arc<Part>>, IndexError> {
        let mut releases: Vec<&String> = if req.releases.is_empty() {
            snap.releases.keys().collect()
        } else {
            req.releases
                .iter()
                .filter(|r| snap.releases.contains_key(*r))
                .collect()
        };
        releases.sort();
        releases.dedup();
        let wanted = self
            .loaded_releases
            .fetch_max(releases.len(), std::sync::atomic::Ordering::Relaxed)
            .max(releases.len());
        {
            let mut parts = snap.parts.lock().unwrap_or_else(|p| p.into_inner());
            if parts.cap().get() < wanted {
                parts.resize(std::num::NonZeroUsize::new(wanted).expect("nonzero"));
            }
        }
        // Read only when something uses them: the vectors, or the lifts.
        if self.fusion.lift > 0.0 || (mode != Mode::Bm25Only && self.embedder().is_some()) {
            releases.iter().map(|r| self.part(snap, r)).collect()
        } else {
            Ok(Vec::new())
        }
    }

    /// How well the best candidates answer the query ([`Confidence`]).
    fn confidence(
        terms: &fusion::QueryTerms,
        unmatched: &[String],
        vector: &[usize],
        cosines: &HashMap<usize, f32>,
        covered: &[f32],
        named: bool,
    ) -> Confidence {
        let cosine_at = |r: usize| vector.get(r).and_then(|i| cosines.get(i)).copied();
        Confidence {
            words: terms.surface.len(),
            unmatched: unmatched.len(),
            best_cosine: cosine_at(0),
            cosine_margin: cosine_at(0)
                .zip(cosine_at(9).or_else(|| cosine_at(vector.len().saturating_sub(1))))
                .map(|(a, b)| a - b),
            best_coverage: covered.iter().copied().fold(0.0, f32::max),
            named,
        }
    }

    /// A relevant hit among the first `reach` of `fused` on a type (a class, a property of
    /// one, an OpenAPI request body's schema) lifts the callables that take it, each by an
    /// even share of `lift` times its score ([`chunks::Chunk::lifts`]); a callable lifted by
    /// several hits keeps the largest. Returns `fused` with the lifts added, re-sorted, and
    /// each lifted candidate's lift; a candidate met only through a lift is numbered in
    /// `ids` and `numbers`.
    fn lift(
        &self,
        fused: Vec<(usize, f32)>,
        parts: &[Arc<Part>],
        ids: &mut Vec<DocAddress>,
        numbers: &mut HashMap<DocAddress, usize>,
        reach: usize,
        relevant: impl Fn(usize) -> bool,
    ) -> (Vec<(usize, f32)>, HashMap<usize, f32>) {
        let mut lifted: HashMap<usize, f32> = HashMap::new();
        if self.fusion.lift <= 0.0 {
            return (fused, lifted);
        }
        // Only hits within the reach of the answer lift: a candidate far down the list, however
        // relevant, is no evidence for what the question is about.
        for &(i, score) in fused.iter().take(reach) {
            let Some(takers) = parts.iter().find_map(|p| p.lifts.get(&ids[i])) else {
                continue;
            };
            if takers.is_empty() || !relevant(i) {
                continue;
            }
            let share = score * self.fusion.lift / takers.len() as f32;
            for t in takers.iter() {
                let j = *numbers.entry(*t).or_insert_with(|| {
                    ids.push(*t);
                    ids.len() - 1
                });
                // A class and its properties lift the same callables: the best of them counts,
                // not their sum.
                let l = lifted.entry(j).or_default();
                *l = l.max(share);
            }
        }
        if lifted.is_empty() {
            return (fused, lifted);
        }
        let mut scores: HashMap<usize, f32> = fused.into_iter().collect();
        for (j, l) in &lifted {
            *scores.entry(*j).or_default() += l;
        }
        let mut fused: Vec<(usize, f32)> = scores.into_iter().collect();
        fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        (fused, lifted)
    }

    /// Whether any chunk in reach of `req` holds one of `words` (stemmed) in its text or
    /// symbol names.
    fn held(
        &self,
        snap: &Snapshot,
        words: &[&str],
        req: &SearchRequest,
    ) -> Result<bool, IndexError> {
        let f = &self.fields;
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in words {
            for field in [f.title, f.names, f.section_path, f.body] {
                should.push((
                    Occur::Should,
                    Box::new(TermQuery::new(
                        Term::from_field_text(field, t),
                        IndexRecordOption::Basic,
                    )),
                ));
            }
        }
        let mut must: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
        must.extend(self.filters(req));
        // The first live match answers: no need to count them all (a common word is in
        // thousands of chunks, and every search asks this of each of its words).
        let weight = BooleanQuery::new(must)
            .weight(tantivy::query::EnableScoring::disabled_from_searcher(
                &snap.searcher,
            ))
            .map_err(|e| self.err(e))?;
        for segment in snap.searcher.segment_readers() {
            let mut scorer = weight.scorer(segment, 1.0).map_err(|e| self.err(e))?;
            let alive = segment.alive_bitset();
            let mut doc = scorer.doc();
            while doc != tantivy::TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    return Ok(true);
                }
                doc = scorer.advance();
            }
        }
        Ok(false)
    }

    /// The query's own words that no chunk in reach of `req` holds, neither the word nor one
    /// of its alternatives. A misspelt one (`subscripton`) that is one edit from a word of
    /// those releases (two for a word of eight letters or more) takes that word as an
    /// alternative in `terms` and is returned as corrected; the others as unmatched, as the
    /// query wrote them.
    fn unmatched(
        &self,
        snap: &Snapshot,
        terms: &mut fusion::QueryTerms,
        req: &SearchRequest,
    ) -> Result<(Vec<String>, Corrections), IndexError> {
        let (mut unmatched, mut corrected) = (Vec::new(), Vec::new());
        for i in 0..terms.surface.len() {
            let word = terms.stemmed[i].clone();
            let words: Vec<&str> = std::iter::once(word.as_str())
                .chain(
                    terms
                        .alternatives
                        .iter()
                        .filter(|(_, at)| *at == i)
                        .map(|(t, _)| t.as_str()),
                )
                .collect();
            if self.held(snap, &words, req)? {
                continue;
            }
            let surface = terms.surface[i].clone();
            let known = self.english().contains(&surface.to_lowercase());
            if !known && let Some(fix) = self.correction(snap, &word, req)? {
                corrected.push((surface, fix.clone()));
                terms.alternatives.push((fix, i));
            } else if !unmatched.contains(&surface) {
                // A word the code tokenizer splits (`get_templte`) is named once.
                unmatched.push(surface);
            }
        }
        Ok((unmatched, corrected))
    }

    /// The word of the releases in reach of `req` nearest to `word` (a stemmed word of five
    /// letters or more, no digits): one edit away (a swap of two letters is one), or two for
    /// a word of eight letters or more; of several, the one most chunks hold.
    fn correction(
        &self,
        snap: &Snapshot,
        word: &str,
        req: &SearchRequest,
    ) -> Result<Option<String>, IndexError> {
        let letters = word.chars().count();
        if letters < 5 || !word.chars().all(|c| c.is_alphabetic()) {
            return Ok(None);
        }
        let f = &self.fields;
        let most = if letters >= 8 { 2 } else { 1 };
        for distance in 1..=most {
            let automaton =
                FuzzyTermQuery::new(Term::from_field_text(f.body, word), distance, true)
                    .automaton()
                    .map_err(|e| self.err(e))?;
            let mut found: HashMap<String, u32> = HashMap::new();
            for segment in snap.searcher.segment_readers() {
                let inverted = segment.inverted_index(f.body).map_err(|e| self.err(e))?;
                let mut stream = inverted
                    .terms()
                    .search(&automaton)
                    .into_stream()
                    .map_err(|e| self.err(e.into()))?;
                while stream.advance() {
                    if let Ok(t) = std::str::from_utf8(stream.key()) {
                        *found.entry(t.to_string()).or_default() += stream.value().doc_freq;
                    }
                }
            }
            let mut found: Vec<(String, u32)> = found.into_iter().collect();
            found.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for (t, _) in found {
                if t != word && self.held(snap, &[t.as_str()], req)? {
                    return Ok(Some(t));
                }
            }
        }
        Ok(None)
    }

    /// Each hit's share of the query's content words, read from the postings of the fields
    /// BM25 ranks (the words are stemmed as the index stems them), not by re-reading texts.
    fn coverage(
        &self,
        snap: &Snapshot,
        hits: &[DocAddress],
        terms: &fusion::QueryTerms,
    ) -> Result<Vec<f32>, IndexError> {
        let stemmed = &terms.stemmed;
        if stemmed.is_empty() || hits.is_empty() {
            return Ok(vec![0.0; hits.len()]);
        }
        let f = &self.fields;
        // Which query words each hit holds, itself or through one of its alternatives.
        let mut holds = vec![vec![false; stemmed.len()]; hits.len()];
        let words = stemmed
            .iter()
            .enumerate()
            .map(|(i, t)| (t, i))
            .chain(terms.alternatives.iter().map(|(t, i)| (t, *i)));
        let segments = snap.searcher.segment_readers();
        let mut by_segment: HashMap<u32, Vec<(tantivy::DocId, usize)>> = HashMap::new();
        for (k, a) in hits.iter().enumerate() {
            by_segment
                .entry(a.segment_ord)
                .or_default()
                .push((a.doc_id, k));
        }
        for (ord, mut docs) in by_segment {
            docs.sort_unstable();
            let segment = &segments[ord as usize];
            // The text a reader sees (not the names of the symbols a section mentions).
            let mut fields = Vec::new();
            for field in [f.title, f.section_path, f.body] {
                fields.push((
                    field,
                    segment.inverted_index(field).map_err(|e| self.err(e))?,
                ));
            }
            for (t, word) in words.clone() {
                let mut has = vec![false; docs.len()];
                for (field, inverted) in &fields {
                    let Some(mut postings) = inverted
                        .read_postings(&Term::from_field_text(*field, t), IndexRecordOption::Basic)
                        .map_err(|e| self.err(e.into()))?
                    else {
                        continue;
                    };
                    for (j, &(doc, _)) in docs.iter().enumerate() {
                        // seek only forward: its contract is target >= the current doc.
                        let mut at = postings.doc();
                        if at < doc {
                            at = postings.seek(doc);
                        }
                        if at == doc {
                            has[j] = true;
                        }
                    }
                }
                for (j, &(_, k)) in docs.iter().enumerate() {
                    holds[k][word] |= has[j];
                }
            }
        }
        Ok(holds
            .into_iter()
            .map(|h| h.iter().filter(|&&x| x).count() as f32 / stemmed.len() as f32)
            .collect())
    }

    /// The request's filters (releases, language, content type) as clauses that score nothing.
    fn filters(&self, req: &SearchRequest) -> Vec<(Occur, Box<dyn Query>)> {
        let f = &self.fields;
        let any_of = |field: Field, values: &mut dyn Iterator<Item = &str>| -> Box<dyn Query> {
            let any = BooleanQuery::new(
                values
                    .map(|v| {
                        (
                            Occur::Should,
                            Box::new(TermQuery::new(
                                Term::from_field_text(field, v),
                                IndexRecordOption::Basic,
                            )) as Box<dyn Query>,
                        )
                    })
                    .collect(),
            );
            Box::new(ConstScoreQuery::new(Box::new(any), 0.0))
        };
        let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if !req.releases.is_empty() {
            must.push((
                Occur::Must,
                any_of(f.release, &mut req.releases.iter().map(String::as_str)),
            ));
        }
        if let Some(l) = &req.language {
            must.push((
                Occur::Must,
                any_of(f.language, &mut std::iter::once(l.as_str())),
            ));
        }
        if let Some(c) = req.content_type {
            must.push((
                Occur::Must,
                any_of(f.content_type, &mut std::iter::once(c.as_str())),
            ));
        }
        must
    }

    /// Chunks whose entity is named in the query, looked up in the `name_keys` terms: a whole
    /// qualified name scores 3, its export path or `Class.member` 2, a short name of three
    /// characters or more 1; ties go to the chunk with fewer entities (the entity's own chunk
    /// before doc sections that mention it among others), then to the shorter title.
    fn name_ranking(
        &self,
        snap: &Snapshot,
        terms: &fusion::QueryTerms,
        req: &SearchRequest,
        depth: usize,
    ) -> Result<Vec<DocAddress>, IndexError> {
        let names = fusion::ranked_names(terms);
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let f = &self.fields;
        let mut best: HashMap<DocAddress, u8> = HashMap::new();
        for level in [3u8, 2, 1] {
            let should: Vec<(Occur, Box<dyn Query>)> = names
                .iter()
                .map(|n| {
                    let q = TermQuery::new(
                        Term::from_field_text(f.name_keys, &fusion::name_key(level, n)),
                        IndexRecordOption::Basic,
                    );
                    (Occur::Should, Box::new(q) as Box<dyn Query>)
                })
                .collect();
            let mut must: Vec<(Occur, Box<dyn Query>)> =
                vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
            must.extend(self.filters(req));
            let found = snap
                .searcher
                .search(&BooleanQuery::new(must), &DocSetCollector)
                .map_err(|e| self.err(e))?;
            for a in found {
                let e = best.entry(a).or_insert(level);
                *e = (*e).max(level);
            }
        }
        let segments = snap.searcher.segment_readers();
        let mut columns = HashMap::new();
        let mut scored: Vec<(u8, u64, u64, DocAddress)> = Vec::with_capacity(best.len());
        for (a, level) in best {
            let (count, title) = match columns.entry(a.segment_ord) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let ff = segments[a.segment_ord as usize].fast_fields();
                    let count = ff.u64("entity_count").map_err(|e| self.err(e))?;
                    let title = ff.u64("title_len").map_err(|e| self.err(e))?;
                    e.insert((count, title))
                }
            };
            scored.push((
                level,
                count.first(a.doc_id).unwrap_or(0),
                title.first(a.doc_id).unwrap_or(0),
                a,
            ));
        }
        scored.sort_by(|x, y| {
            y.0.cmp(&x.0)
                .then(x.1.cmp(&y.1))
                .then(x.2.cmp(&y.2))
                .then(x.3.cmp(&y.3))
        });
        scored.truncate(depth);
        Ok(scored.into_iter().map(|(_, _, _, a)| a).collect())
    }

    fn bm25(
        &self,
        snap: &Snapshot,
        terms: &fusion::QueryTerms,
        req: &SearchRequest,
        depth: usize,
    ) -> Result<Vec<DocAddress>, IndexError> {
        if terms.stemmed.is_empty() {
            return Ok(Vec::new());
        }
        let f = &self.fields;
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let weighted = terms.stemmed.iter().map(|t| (t, 1.0)).chain(
            terms
                .alternatives
                .iter()
                .map(|(t, _)| (t, fusion::ALTERNATIVE_WEIGHT)),
        );
        for (t, weight) in weighted {
            for (field, boost) in [
                (f.title, 2.0),
                (f.names, 2.0),
                (f.section_path, 1.0),
                (f.body, 1.0),
            ] {
                let q = TermQuery::new(
                    Term::from_field_text(field, t),
                    IndexRecordOption::WithFreqs,
                );
                should.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(q), boost * weight)),
                ));
            }
        }
        let mut must: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
        must.extend(self.filters(req));
        let top = snap
            .searcher
            .search(
                &BooleanQuery::new(must),
                &TopDocs::with_limit(depth).order_by_score(),
            )
            .map_err(|e| self.err(e))?;
        Ok(top.into_iter().map(|(_, addr)| addr).collect())
    }
}

/// What [`embed_batches`] made: a vector per text (None where it failed or was not reached),
/// the texts that failed alone with why, and whether it stopped for a cancel.
struct Embedded {
    vectors: Vec<Option<Vec<f32>>>,
    failed: Vec<(usize, String)>,
    cancelled: bool,
}

/// Texts embedded in one batch at a time.
const EMBED_BATCH: usize = 64;

/// A model's batch call: one vector per text.
type EmbedFn<'a> = dyn Fn(&[&str]) -> Result<Vec<Vec<f32>>, embed::EmbedError> + 'a;

/// Embeds `texts` in batches of [`EMBED_BATCH`]. One bad batch does not stop the rest: a batch
/// that fails is tried again one text at a time, and a text that still fails gets no vector
/// (it is reported in `failed`). `cancelled` is read between batches: once set, the texts not
/// yet reached get no vector and what was embedded is returned.
fn embed_batches(
    texts: &[&str],
    embed: &EmbedFn,
    cancelled: &std::sync::atomic::AtomicBool,
    progress: &dyn Fn(usize, usize),
) -> Embedded {
    let mut out = Embedded {
        vectors: vec![None; texts.len()],
        failed: Vec::new(),
        cancelled: false,
    };
    let mut done = 0;
    for (b, batch) in texts.chunks(EMBED_BATCH).enumerate() {
        if cancelled.load(std::sync::atomic::Ordering::SeqCst) {
            out.cancelled = true;
            break;
        }
        let start = b * EMBED_BATCH;
        match embed(batch) {
            Ok(vs) if vs.len() == batch.len() => {
                for (k, v) in vs.into_iter().enumerate() {
                    out.vectors[start + k] = Some(v);
                }
            }
            whole => {
                let why = match whole {
                    Err(e) => e.to_string(),
                    Ok(vs) => format!("{} vectors for {} texts", vs.len(), batch.len()),
                };
                tracing::debug!(
                    "a batch of {} texts failed ({why}); one at a time",
                    batch.len()
                );
                for (k, text) in batch.iter().enumerate() {
                    match embed(std::slice::from_ref(text)) {
                        Ok(mut v) if v.len() == 1 => out.vectors[start + k] = v.pop(),
                        Ok(v) => out
                            .failed
                            .push((start + k, format!("{} vectors for 1 text", v.len()))),
                        Err(e) => out.failed.push((start + k, e.to_string())),
                    }
                }
            }
        }
        done += batch.len();
        progress(done, texts.len());
    }
    out
}

/// The key an API reference hit shares with its sync or async twin in the same release
/// ([`chunks::twin_key`]).
fn twin_of(hit: &SearchHit) -> Option<String> {
    (hit.chunk.content_type == ContentType::ApiReference)
        .then(|| hit.chunk.entities.first())
        .flatten()
        .map(|e| {
            format!(
                "{}\u{0}{}\u{0}{}",
                hit.chunk.release,
                e.kind,
                chunks::twin_key(&e.qualified_name)
            )
        })
}

/// The chunk ids a stored chunk lifts ([`chunks::Chunk::lifts`]).
fn stored_lifts(doc: &TantivyDocument, field: Field) -> Vec<String> {
    doc.get_all(field)
        .filter_map(|v| v.as_str())
        .map(str::to_string)
        .collect()
}

/// The first text value of `field` in a stored document ("" when it has none).
fn text_of(doc: &TantivyDocument, field: Field) -> &str {
    doc.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
}

/// The model reads at most 256 tokens; cutting long texts first saves tokenizing them whole.
fn embed_input(text: &str) -> &str {
    const MAX_BYTES: usize = 1600;
    if text.len() <= MAX_BYTES {
        return text;
    }
    let mut end = MAX_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in model: a text's vector is its length; a batch holding "poison" fails, and
    /// so does "poison" alone; a batch holding "flaky" fails whole but "flaky" alone works.
    fn fake_embed(batch: &[&str]) -> Result<Vec<Vec<f32>>, embed::EmbedError> {
        if batch.contains(&"poison") || (batch.len() > 1 && batch.contains(&"flaky")) {
            return Err(embed::EmbedError::Embed(
                "Non-zero status code returned while running Add node".into(),
            ));
        }
        Ok(batch.iter().map(|t| vec![t.len() as f32]).collect())
    }

    #[test]
    fn a_failing_batch_is_retried_one_text_at_a_time_and_the_rest_go_on() {
        let mut texts: Vec<String> = (0..150).map(|i| format!("text {i}")).collect();
        texts[3] = "flaky".into();
        texts[70] = "poison".into();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let seen = std::sync::Mutex::new(Vec::new());
        let out = embed_batches(
            &texts,
            &fake_embed,
            &std::sync::atomic::AtomicBool::new(false),
            &|done, total| seen.lock().unwrap().push((done, total)),
        );
        assert!(!out.cancelled);
        // Only the text that fails alone lacks a vector, and it is reported with the reason.
        assert_eq!(out.failed.len(), 1);
        assert_eq!(out.failed[0].0, 70);
        assert!(out.failed[0].1.contains("Add node"), "{:?}", out.failed);
        for (i, (t, v)) in texts.iter().zip(&out.vectors).enumerate() {
            if i == 70 {
                assert!(v.is_none());
            } else {
                assert_eq!(v.as_deref(), Some(&[t.len() as f32][..]), "text {i}");
            }
        }
        assert_eq!(*seen.lock().unwrap(), [(64, 150), (128, 150), (150, 150)]);
    }

    #[test]
    fn a_cancel_keeps_what_was_embedded_and_starts_no_further_batch() {
        let texts: Vec<String> = (0..200).map(|i| format!("text {i}")).collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let cancelled = std::sync::atomic::AtomicBool::new(false);
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let out = embed_batches(
            &texts,
            &|batch| {
                // Shutdown is asked for while the second batch runs.
                if calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 1 {
                    cancelled.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                fake_embed(batch)
            },
            &cancelled,
            &|_, _| {},
        );
        assert!(out.cancelled);
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
        assert_eq!(out.vectors.iter().flatten().count(), 128);
        assert!(out.vectors[128..].iter().all(Option::is_none));
        assert!(out.failed.is_empty());
    }

    /// Several openers of an index of an old layout at once (as processes of a new build
    /// are): one wipes it, the others find the new layout and keep what was written since.
    #[test]
    fn concurrent_openers_of_an_old_layout_wipe_it_once() {
        for round in 0..10 {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("index");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("LAYOUT"), "refgraph-index-0").unwrap();
            let barrier = std::sync::Barrier::new(6);
            std::thread::scope(|s| {
                for t in 0..6 {
                    let (dir, barrier) = (&dir, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        TextIndex::open(dir, None).unwrap();
                        std::fs::write(dir.join(format!("opened-{t}")), "").unwrap();
                    });
                }
            });
            for t in 0..6 {
                assert!(
                    dir.join(format!("opened-{t}")).exists(),
                    "round {round}: opener {t}'s file was wiped by a later opener"
                );
            }
        }
    }

    fn chunk(release: &str, id: &str, title: &str, text: &str) -> Chunk {
        Chunk {
            id: format!("{release}#{id}"),
            release: release.into(),
            package: "pkg:pypi/x".into(),
            version: release.rsplit('@').next().unwrap_or("").into(),
            language: "python".into(),
            content_type: ContentType::Concept,
            title: title.into(),
            section_path: title.into(),
            text: text.into(),
            source_url: String::new(),
            page: format!("{release}#{id}"),
            page_title: title.into(),
            order: 0,
            entities: vec![EntityRef {
                id: id.into(),
                qualified_name: format!("x.{id}"),
                kind: "function".into(),
            }],
            last_updated: String::new(),
            embed_text: String::new(),
            lifts: Vec::new(),
        }
    }

    /// A release with no chunks is still known as indexed (its marker), the marker is never a
    /// chunk or a hit, and removing the release removes it.
    #[test]
    fn releases_without_chunks_are_known_and_markers_never_surface() {
        let index = TextIndex::in_memory(Some(PathBuf::from("/nonexistent"))).unwrap();
        index
            .replace_release("pkg:pypi/empty@1", "t1", &[], &|_, _| {})
            .unwrap();
        index
            .replace_release(
                "pkg:pypi/x@1",
                "t2",
                &[chunk(
                    "pkg:pypi/x@1",
                    "a",
                    "Upload files",
                    "Retry a failed upload.",
                )],
                &|_, _| {},
            )
            .unwrap();
        let releases = index.releases().unwrap();
        assert_eq!(
            releases.get("pkg:pypi/empty@1"),
            Some(&("t1".to_string(), true))
        );
        assert_eq!(releases["pkg:pypi/x@1"].0, "t2");
        assert_eq!(index.len().unwrap(), 1);
        let req = SearchRequest {
            query: "release marker upload".into(),
            limit: 10,
            ..Default::default()
        };
        let hits = index.search(&req, Mode::Bm25Only).unwrap().hits;
        assert!(hits.iter().all(|h| !h.chunk.id.ends_with('#')), "{hits:?}");
        index.remove_release("pkg:pypi/empty@1").unwrap();
        assert!(!index.releases().unwrap().contains_key("pkg:pypi/empty@1"));
    }

    /// Opening an index is what every `refgraph search` does, and several may run at once
    /// (or beside `serve`): none of them may take another's half-written layout file for an
    /// index of another layout and wipe it.
    #[test]
    fn opening_an_index_many_times_at_once_loses_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        {
            let index = TextIndex::open(&path, None).unwrap();
            index
                .replace_release(
                    "pkg:pypi/x@1",
                    "t1",
                    &[chunk(
                        "pkg:pypi/x@1",
                        "a",
                        "Upload",
                        "Retry a failed upload.",
                    )],
                    &|_, _| {},
                )
                .unwrap();
        }
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..200 {
                        TextIndex::open(&path, None).unwrap();
                    }
                });
            }
        });
        let index = TextIndex::open(&path, None).unwrap();
        assert_eq!(index.releases().unwrap()["pkg:pypi/x@1"].0, "t1");
        assert_eq!(index.len().unwrap(), 1);
    }

    /// Coverage is read from postings: across segments (one per commit), in any of the text
    /// fields, for hits in any order, never from the names of mentioned symbols.
    #[test]
    fn coverage_counts_the_query_words_each_hit_holds() {
        let index = TextIndex::in_memory(Some(PathBuf::from("/nonexistent"))).unwrap();
        index
            .replace_release(
                "pkg:pypi/x@1",
                "s",
                &[
                    chunk(
                        "pkg:pypi/x@1",
                        "a",
                        "Upload files",
                        "Retry a failed upload.",
                    ),
                    chunk("pkg:pypi/x@1", "b", "Buckets", "Create a bucket."),
                ],
                &|_, _| {},
            )
            .unwrap();
        index
            .replace_release(
                "pkg:pypi/x@2",
                "s",
                &[
                    chunk("pkg:pypi/x@2", "c", "Other", "Nothing of interest."),
                    chunk("pkg:pypi/x@2", "retry", "Downloads", "Resume a download."),
                ],
                &|_, _| {},
            )
            .unwrap();
        let snap = index.snapshot().unwrap();
        let terms = fusion::query_terms("retry failed upload", &[], &[]);
        let req = SearchRequest {
            query: "retry failed upload".into(),
            limit: 10,
            ..Default::default()
        };
        let addresses: Vec<DocAddress> = index
            .bm25(&snap, &terms, &req, 10)
            .unwrap()
            .into_iter()
            .rev()
            .collect();
        let covered = index.coverage(&snap, &addresses, &terms).unwrap();
        let ids: Vec<String> = addresses
            .iter()
            .map(|a| index.chunk_at(&snap.searcher, *a).unwrap().id)
            .collect();
        let by_id: HashMap<&str, f32> = ids
            .iter()
            .zip(&covered)
            .map(|(i, &c)| (i.as_str(), c))
            .collect();
        assert_eq!(by_id.get("pkg:pypi/x@1#a"), Some(&1.0), "{by_id:?}");
        // Matched only through its symbol's name (x.retry), which coverage does not count.
        assert_eq!(by_id.get("pkg:pypi/x@2#retry"), Some(&0.0), "{by_id:?}");
        assert!(!by_id.contains_key("pkg:pypi/x@1#b"));
        assert_eq!(
            index.coverage(&snap, &[], &terms).unwrap(),
            Vec::<f32>::new()
        );
        // An alternative stands for its query word: "resume" covers "retry"; one for a word
        // the query does not have ("lost") is dropped.
        let alternatives = vec![
            ("retry".to_string(), vec!["resume".to_string()]),
            ("lost".to_string(), vec!["download".to_string()]),
        ];
        let terms = fusion::query_terms("retry failed upload", &[], &alternatives);
        assert_eq!(terms.alternatives, [("resum".to_string(), 0)]);
        let addresses = index.bm25(&snap, &terms, &req, 10).unwrap();
        let covered = index.coverage(&snap, &addresses, &terms).unwrap();
        let at = addresses
            .iter()
            .position(|a| index.chunk_at(&snap.searcher, *a).unwrap().id == "pkg:pypi/x@2#retry")
            .expect("found through the alternative");
        assert!((covered[at] - 1.0 / 3.0).abs() < 1e-6, "{covered:?}");
    }

    /// A query word no chunk of the releases searched holds, in any field, itself or through
    /// an alternative, is unmatched, named as the query wrote it.
    #[test]
    fn words_found_nowhere_in_the_releases_searched_are_unmatched() {
        let index = TextIndex::in_memory(Some(PathBuf::from("/nonexistent"))).unwrap();
        for (release, id, title, text) in [
            (
                "pkg:pypi/x@1",
                "a",
                "Upload files",
                "Retry a failed upload.",
            ),
            (
                "pkg:pypi/x@2",
                "resume",
                "Downloads",
                "Get a file. Resume a download.",
            ),
        ] {
            index
                .replace_release(release, "s", &[chunk(release, id, title, text)], &|_, _| {})
                .unwrap();
        }
        let snap = index.snapshot().unwrap();
        let unmatched = |query: &str, releases: &[&str], alternatives: &[(&str, &str)]| {
            let alternatives: Vec<(String, Vec<String>)> = alternatives
                .iter()
                .map(|(w, a)| (w.to_string(), vec![a.to_string()]))
                .collect();
            let req = SearchRequest {
                query: query.into(),
                releases: releases.iter().map(|r| r.to_string()).collect(),
                limit: 5,
                alternatives: alternatives.clone(),
                ..Default::default()
            };
            let mut terms = fusion::query_terms(query, &[], &alternatives);
            let (unmatched, corrected) = index.unmatched(&snap, &mut terms, &req).unwrap();
            assert!(corrected.is_empty(), "{corrected:?}");
            unmatched
        };
        let one = ["pkg:pypi/x@1"];
        assert_eq!(
            unmatched("Retry uploads with WebSockets!", &one, &[]),
            ["WebSockets"]
        );
        // Found through its alternative.
        assert!(
            unmatched(
                "retry uploads with websockets",
                &one,
                &[("websockets", "failed")]
            )
            .is_empty()
        );
        // "resume" is in x@2 only: unmatched in x@1, matched across both.
        assert_eq!(unmatched("resume an upload", &one, &[]), ["resume"]);
        assert!(unmatched("resume an upload", &[], &[]).is_empty());
        // Stop words are no query words.
        assert!(unmatched("how do I retry", &one, &[]).is_empty());

        // A misspelt word one edit (here a swap) from a word of the release is searched as it
        // too; a short one is not corrected, nor one whose neighbour is in another release.
        let corrections = |query: &str, releases: &[&str]| {
            let req = SearchRequest {
                query: query.into(),
                releases: releases.iter().map(|r| r.to_string()).collect(),
                limit: 5,
                ..Default::default()
            };
            let mut terms = fusion::query_terms(query, &[], &[]);
            let (unmatched, corrected) = index.unmatched(&snap, &mut terms, &req).unwrap();
            (unmatched, corrected, terms.alternatives)
        };
        let (unmatched, corrected, alternatives) = corrections("retry uplaods", &one);
        assert!(unmatched.is_empty(), "{unmatched:?}");
        assert_eq!(corrected, [("uplaods".to_string(), "upload".to_string())]);
        assert_eq!(alternatives, [("upload".to_string(), 1)]);
        assert_eq!(corrections("get a flie", &one).1, []);
        let (unmatched, corrected, _) = corrections("resmue an upload", &one);
        assert_eq!((unmatched, corrected), (vec!["resmue".to_string()], vec![]));
    }
}
