//! The Oxigraph store: one named graph per release, atomic replacement, SPARQL evaluation.

use std::path::{Path, PathBuf};
use std::time::Duration;

use oxigraph::model::{NamedNode, Quad, Term};

use crate::queries::CatalogQuery;
use oxigraph::sparql::{
    CancellationToken, PreparedSparqlQuery, QueryEvaluationError, QueryResults, QuerySolution,
};
use oxigraph::store::{StorageError, Store as OxStore};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "cannot open the store at {path}: {message} (is another refgraph process, such as `refgraph serve`, using this data directory? stop it or pass another --data-dir)"
    )]
    Open { path: PathBuf, message: String },
    #[error("storage error: {0}")]
    Storage(#[from] StorageError),
    #[error("query failed: {0}")]
    Query(#[from] QueryEvaluationError),
    #[error("the store was opened read-only; this command needs to write")]
    ReadOnly,
    #[error("update failed: {0}")]
    Update(String),
    #[error(
        "the store holds data this version of refgraph cannot read ({0}): it was written by another version; use that version or another --data-dir"
    )]
    Unreadable(String),
}

/// The embedded store, on disk (RocksDB) or in memory.
#[derive(Clone)]
pub struct Store {
    inner: OxStore,
    read_only: bool,
    /// Bumped on every write through any clone of this handle, so readers can cache safely.
    generation: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

#[cfg(feature = "rocksdb")]
fn open_on_disk(path: &Path) -> Result<OxStore, StorageError> {
    OxStore::open(path)
}

#[cfg(feature = "rocksdb")]
fn open_on_disk_read_only(path: &Path) -> Result<OxStore, StorageError> {
    OxStore::open_read_only(path)
}

#[cfg(not(feature = "rocksdb"))]
fn open_on_disk(_: &Path) -> Result<OxStore, StorageError> {
    Err(StorageError::Other(
        "this build of refgraph has no on-disk store (built without the `rocksdb` feature)".into(),
    ))
}

#[cfg(not(feature = "rocksdb"))]
fn open_on_disk_read_only(path: &Path) -> Result<OxStore, StorageError> {
    open_on_disk(path)
}

/// The error of a store that did not open, as text. The error itself is leaked, not dropped:
/// dropping the I/O error RocksDB gives when another process holds the store's lock crashes
/// the process (SIGSEGV in the allocator's free, seen with oxigraph 0.5 and mimalloc), so
/// `refgraph add` beside a running server died after printing its error, and `refgraph
/// doctor` before printing anything. A few bytes lost once per failed open.
fn open_error(path: &Path, e: StorageError) -> StoreError {
    let message = e.to_string();
    std::mem::forget(e);
    StoreError::Open {
        path: path.to_path_buf(),
        message,
    }
}

impl Store {
    pub fn in_memory() -> Self {
        Store {
            inner: OxStore::new().expect("the in-memory store cannot fail to open"),
            read_only: false,
            generation: Default::default(),
        }
    }

    pub fn open(path: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(path).map_err(|e| StoreError::Open {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let inner = open_on_disk(path).map_err(|e| open_error(path, e))?;
        Ok(Store {
            inner,
            read_only: false,
            generation: Default::default(),
        })
    }

    /// A read-only view of an on-disk store; works while another process holds it for writing.
    pub fn open_read_only(path: &Path) -> Result<Self, StoreError> {
        let inner = open_on_disk_read_only(path).map_err(|e| open_error(path, e))?;
        Ok(Store {
            inner,
            read_only: true,
            generation: Default::default(),
        })
    }

    /// Changes whenever a release is written or removed through this store.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }

    fn bump(&self) {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    pub fn oxigraph(&self) -> &OxStore {
        &self.inner
    }

    /// Replaces the named graph `release` with `quads` in one transaction: readers see the old
    /// release or the new one, never a mix, and a failure leaves the old one in place.
    /// Takes the quads by value: the bulk loader consumes them, and a release of 200,000 quads
    /// cloned first cost a copy of every string in it.
    pub fn replace_graph(&self, release: &NamedNode, quads: Vec<Quad>) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        if self.inner.contains_named_graph(release)? {
            // Replacing: clear and insert in one read-write transaction (slower, but atomic).
            let mut tx = self.inner.start_transaction()?;
            tx.clear_graph(release)?;
            tx.insert_named_graph(release);
            tx.extend(quads.iter());
            tx.commit()?;
        } else {
            // A new release: the bulk loader writes sorted files and ingests them in one atomic
            // step at commit, many times faster than a transaction.
            // The loader builds each batch on one thread; split the release into one batch
            // per core (its batch size is memory-in-MB * 1000 / threads quads).
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            let mut loader = self
                .inner
                .bulk_loader()
                .with_num_threads(threads)
                .with_max_memory_size_in_megabytes((quads.len() / 1000).max(1));
            loader.load_quads(quads)?;
            loader.commit()?;
        }
        self.bump();
        Ok(())
    }

    /// The named graphs of `release`: its own and those under it (`<release>/docs`), sorted.
    pub fn graphs_of(&self, release: &str) -> Result<Vec<String>, StoreError> {
        let under = format!("{release}/");
        let mut out = Vec::new();
        for g in self.inner.named_graphs() {
            if let oxigraph::model::NamedOrBlankNode::NamedNode(n) = g? {
                let name = n.as_str();
                if name == release || name.starts_with(&under) {
                    out.push(name.to_string());
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Writes the quads of the named graph `graph` to `out` as N-Quads; returns how many.
    pub fn write_graph_nquads(
        &self,
        graph: &str,
        out: &mut dyn std::io::Write,
    ) -> Result<usize, StoreError> {
        use oxigraph::io::{RdfFormat, RdfSerializer};
        let g = NamedNode::new(graph).map_err(|e| StoreError::Update(e.to_string()))?;
        let mut w = RdfSerializer::from_format(RdfFormat::NQuads).for_writer(out);
        let mut n = 0;
        for q in self
            .inner
            .quads_for_pattern(None, None, None, Some(g.as_ref().into()))
        {
            w.serialize_quad(&q?)
                .map_err(|e| StoreError::Update(e.to_string()))?;
            n += 1;
        }
        w.finish().map_err(|e| StoreError::Update(e.to_string()))?;
        Ok(n)
    }

    /// Replaces the named graphs given, each with the N-Quads text given for it (none: the
    /// graph is removed), in one transaction: every graph is read before anything is written (a broken or foreign quad
    /// refuses the whole set: each quad must be in the graph it is given for), and readers see
    /// all the old graphs or all the new ones. Returns the quads written.
    pub fn replace_graphs_nquads(&self, graphs: &[(String, Vec<u8>)]) -> Result<usize, StoreError> {
        use oxigraph::io::{RdfFormat, RdfParser};
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        let mut parsed: Vec<(NamedNode, Vec<Quad>)> = Vec::with_capacity(graphs.len());
        for (name, text) in graphs {
            let g = NamedNode::new(name.as_str())
                .map_err(|e| StoreError::Update(format!("graph name {name}: {e}")))?;
            let mut quads = Vec::new();
            for q in RdfParser::from_format(RdfFormat::NQuads).for_slice(text) {
                let q = q.map_err(|e| StoreError::Update(format!("graph {name}: {e}")))?;
                if q.graph_name != oxigraph::model::GraphName::NamedNode(g.clone()) {
                    return Err(StoreError::Update(format!(
                        "graph {name}: a quad of another graph ({})",
                        q.graph_name
                    )));
                }
                quads.push(q);
            }
            parsed.push((g, quads));
        }
        let mut tx = self.inner.start_transaction()?;
        let mut n = 0;
        for (g, quads) in &parsed {
            if quads.is_empty() {
                // Nothing given for it: the graph goes.
                tx.remove_named_graph(g)?;
                continue;
            }
            tx.clear_graph(g)?;
            tx.insert_named_graph(g);
            tx.extend(quads.iter());
            n += quads.len();
        }
        tx.commit()?;
        self.bump();
        Ok(n)
    }

    pub fn remove_graph(&self, release: &NamedNode) -> Result<bool, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        let existed = self.inner.contains_named_graph(release)?;
        let mut tx = self.inner.start_transaction()?;
        tx.remove_named_graph(release)?;
        tx.commit()?;
        self.bump();
        Ok(existed)
    }

    pub fn flush(&self) -> Result<(), StoreError> {
        // Only the on-disk store has buffers to flush.
        #[cfg(feature = "rocksdb")]
        if !self.read_only {
            self.inner.flush()?;
        }
        Ok(())
    }

    /// Every (predicate, object) of `subject` in the named graph `graph`: one index range scan,
    /// with no query to parse. The hot path of symbol lookups uses it.
    pub fn describe(&self, graph: &str, subject: &str) -> Result<Vec<(String, Term)>, StoreError> {
        let g = NamedNode::new_unchecked(graph);
        let s = NamedNode::new_unchecked(subject);
        self.inner
            .quads_for_pattern(Some(s.as_ref().into()), None, None, Some(g.as_ref().into()))
            .map(|q| {
                let q = q?;
                Ok((q.predicate.into_string(), q.object))
            })
            .collect()
    }

    /// The text of the first `predicate` value of `subject` in `graph`, if any (one index
    /// seek, no query): the derived tables (a release's names, relations) are read this way.
    pub fn text_of(
        &self,
        graph: &str,
        subject: &str,
        predicate: &str,
    ) -> Result<Option<String>, StoreError> {
        let g = NamedNode::new_unchecked(graph);
        let s = NamedNode::new_unchecked(subject);
        let p = NamedNode::new_unchecked(predicate);
        let first = self
            .inner
            .quads_for_pattern(
                Some(s.as_ref().into()),
                Some(p.as_ref()),
                None,
                Some(g.as_ref().into()),
            )
            .next()
            .transpose()?;
        Ok(first.and_then(|q| match q.object {
            Term::Literal(l) => Some(l.destruct().0),
            _ => None,
        }))
    }

    /// Whether any fact of the named graph `graph` uses `predicate` (one index seek): a
    /// lookup of a rare property skips releases that have none.
    pub fn graph_uses(&self, graph: &str, predicate: &str) -> Result<bool, StoreError> {
        let g = NamedNode::new_unchecked(graph);
        let p = NamedNode::new_unchecked(predicate);
        Ok(self
            .inner
            .quads_for_pattern(None, Some(p.as_ref()), None, Some(g.as_ref().into()))
            .next()
            .transpose()?
            .is_some())
    }

    /// Whether `subject` has any fact in the named graph `graph` (one index seek).
    pub fn has_subject(&self, graph: &str, subject: &str) -> Result<bool, StoreError> {
        let g = NamedNode::new_unchecked(graph);
        let s = NamedNode::new_unchecked(subject);
        Ok(self
            .inner
            .quads_for_pattern(Some(s.as_ref().into()), None, None, Some(g.as_ref().into()))
            .next()
            .transpose()?
            .is_some())
    }

    /// The subjects that have `predicate` with the plain string `value` in `graph`, each with
    /// its `then` values (one index range scan per subject, no query to parse).
    pub fn subjects_with(
        &self,
        graph: &str,
        predicate: &str,
        value: &str,
        then: &str,
    ) -> Result<Vec<(String, Vec<Term>)>, StoreError> {
        let g = NamedNode::new_unchecked(graph);
        let p = NamedNode::new_unchecked(predicate);
        let then = NamedNode::new_unchecked(then);
        let v = oxigraph::model::Literal::new_simple_literal(value);
        let mut out = Vec::new();
        for q in self.inner.quads_for_pattern(
            None,
            Some(p.as_ref()),
            Some(v.as_ref().into()),
            Some(g.as_ref().into()),
        ) {
            let q = q?;
            let values = self
                .inner
                .quads_for_pattern(
                    Some(q.subject.as_ref()),
                    Some(then.as_ref()),
                    None,
                    Some(g.as_ref().into()),
                )
                .map(|x| x.map(|x| x.object))
                .collect::<Result<Vec<_>, _>>()?;
            let subject = match q.subject {
                oxigraph::model::NamedOrBlankNode::NamedNode(n) => n.into_string(),
                other => other.to_string(),
            };
            out.push((subject, values));
        }
        Ok(out)
    }

    /// Runs a catalog query with bound variables and collects its solutions.
    pub fn select(
        &self,
        query: &CatalogQuery,
        bindings: &[(&str, Term)],
    ) -> Result<Vec<QuerySolution>, StoreError> {
        match query.bind(bindings).on_store(&self.inner).execute()? {
            QueryResults::Solutions(solutions) => Ok(solutions.collect::<Result<Vec<_>, _>>()?),
            _ => Ok(Vec::new()),
        }
    }

    /// [`Store::select`] cut at `timeout` (a query whose inputs come from a web request).
    pub fn select_within(
        &self,
        query: &CatalogQuery,
        bindings: &[(&str, Term)],
        timeout: Duration,
    ) -> Result<Vec<QuerySolution>, StoreError> {
        match self.execute_within(query, bindings, timeout)? {
            QueryResults::Solutions(solutions) => Ok(solutions.collect::<Result<Vec<_>, _>>()?),
            _ => Ok(Vec::new()),
        }
    }

    /// A catalog CONSTRUCT with bound variables, cut at `timeout`: its triples.
    pub fn construct_within(
        &self,
        query: &CatalogQuery,
        bindings: &[(&str, Term)],
        timeout: Duration,
    ) -> Result<Vec<oxigraph::model::Triple>, StoreError> {
        match self.execute_within(query, bindings, timeout)? {
            QueryResults::Graph(triples) => Ok(triples.collect::<Result<Vec<_>, _>>()?),
            _ => Ok(Vec::new()),
        }
    }

    /// A catalog query with bound variables, evaluating under a token cancelled at `timeout`.
    fn execute_within(
        &self,
        query: &CatalogQuery,
        bindings: &[(&str, Term)],
        timeout: Duration,
    ) -> Result<QueryResults<'_>, StoreError> {
        let token = CancellationToken::new();
        let prepared = query.bind_cancellable(bindings, token.clone());
        cancel_after(token, timeout);
        Ok(prepared.on_store(&self.inner).execute()?)
    }

    /// Evaluates a user's query (prepared with `token`) over the union of all graphs, cut at
    /// `timeout`.
    pub fn evaluate_user_query<'a>(
        &'a self,
        mut prepared: PreparedSparqlQuery,
        token: CancellationToken,
        timeout: Duration,
    ) -> Result<QueryResults<'a>, StoreError> {
        // Without FROM, the default graph is the union of every release graph.
        if prepared.dataset().is_default_dataset() {
            prepared.dataset_mut().set_default_graph_as_union();
        }
        cancel_after(token, timeout);
        Ok(prepared.on_store(&self.inner).execute()?)
    }

    /// Runs a SPARQL Update (the HTTP endpoint's, behind its token) in one transaction.
    pub fn update(
        &self,
        update: oxigraph::sparql::PreparedSparqlUpdate,
        token: CancellationToken,
        timeout: Duration,
    ) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        cancel_after(token, timeout);
        update
            .on_store(&self.inner)
            .execute()
            .map_err(|e| StoreError::Update(e.to_string()))?;
        self.bump();
        Ok(())
    }
}

/// Cancels `token` after `timeout`: a timer of the tokio runtime when there is one (the
/// servers: no thread per query), else a sleeping thread (the command line).
fn cancel_after(token: CancellationToken, timeout: Duration) {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            runtime.spawn(async move {
                tokio::time::sleep(timeout).await;
                token.cancel();
            });
        }
        Err(_) => {
            std::thread::spawn(move || {
                std::thread::sleep(timeout);
                token.cancel();
            });
        }
    }
}

/// An IRI as a term, to bind a catalog query's variable.
pub(crate) fn iri(s: &str) -> Term {
    NamedNode::new_unchecked(s).into()
}

/// The lexical value of a variable in a solution, if bound.
pub(crate) fn get_str(s: &oxigraph::sparql::QuerySolution, var: &str) -> Option<String> {
    s.get(var).map(term_value)
}

/// A term's lexical value: the IRI, the literal's text, the blank node's id.
pub(crate) fn term_value(t: &Term) -> String {
    match t {
        Term::Literal(l) => l.value().to_string(),
        Term::NamedNode(n) => n.as_str().to_string(),
        Term::BlankNode(b) => b.as_str().to_string(),
        #[allow(unreachable_patterns)]
        _ => t.to_string(),
    }
}

/// One indexed release.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct ReleaseInfo {
    /// Package URL without version, e.g. `pkg:pypi/click`.
    pub package: String,
    pub ecosystem: crate::model::Ecosystem,
    pub name: String,
    pub version: String,
    /// The release's IRI and named graph, e.g. `pkg:pypi/click@8.1.7`.
    pub release: String,
    pub symbols: i64,
    pub ingested_at: String,
    pub source: String,
    /// The facts version that wrote the release's graph (0: before the property existed); a
    /// release of another version than [`crate::lower::facts_version`] gives for its
    /// ecosystem is stale, see [`ReleaseInfo::stale`].
    pub facts_version: i64,
    /// Whether another version of refgraph wrote it (its facts version is not the one
    /// [`crate::lower::facts_version`] gives for its ecosystem): its facts may differ from
    /// what this one extracts from the same files; re-ingest it to compare like with like.
    pub stale: bool,
    /// When doc pages were last added with `refgraph docs` (they live in `<release>/docs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docs_added_at: Option<String>,
}

impl ReleaseInfo {
    /// What to tell a user about a stale release, `None` when it is current.
    pub fn stale_note(&self) -> Option<String> {
        self.stale.then(|| {
            format!(
                "{}@{} was stored by another version of refgraph (facts version {}, this one writes {}): ingest it again from {} (`refgraph add` for a registry release, `refgraph ingest PATH` for files) so its facts match",
                self.package,
                self.version,
                self.facts_version,
                crate::lower::facts_version(self.ecosystem),
                self.source
            )
        })
    }

    /// What the text index records to know whether its chunks of this release are current:
    /// the ingest time, and the time doc pages were added, if they were.
    pub fn index_stamp(&self) -> String {
        match &self.docs_added_at {
            Some(d) => format!("{} docs {d}", self.ingested_at),
            None => self.ingested_at.clone(),
        }
    }
}
