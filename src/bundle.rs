//! Offline bundles: `refgraph export` writes releases into one file, `refgraph import` loads
//! it on a machine that cannot reach the registries.
//!
//! A bundle is a gzipped tar. Per release it holds the N-Quads of each of its named graphs (the
//! release's own and those under it, such as `<release>/docs`) and the vectors of its text-index
//! entries, by the hash of the text each embeds; `manifest.json`, written last, names every
//! member with its sha256, size and count, the facts version of each release and the
//! refgraph that wrote it. The text-index entries themselves are derived from the facts (as
//! `refgraph reindex` derives them), so import rebuilds them from the loaded graphs and takes
//! the vectors from the bundle: a machine without the sentence model ranks as the exporting
//! one did.
//!
//! Import reads and checks everything before it writes anything: a member whose hash differs,
//! a missing member, a quad outside its graph, or a release whose facts version is not the
//! one this refgraph reads refuses the bundle whole, and every graph of every release in it
//! is then written in one transaction.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::answer::Engine;
use crate::index::embed::{DIMENSIONS, MODEL_FILES};
use crate::model::Ecosystem;
use crate::store::{ReleaseInfo, StoreError};

/// The `format` of a manifest.
pub const FORMAT: &str = "refgraph-bundle";
/// The layout this refgraph writes; it reads this one and older.
pub const BUNDLE_VERSION: u32 = 1;
const MANIFEST: &str = "manifest.json";

/// What a bundle holds, and how to check it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub bundle_version: u32,
    /// The refgraph that wrote it (`refgraph 0.1.0`).
    pub refgraph_version: String,
    pub created: String,
    /// The sentence model the vectors come from (the sha256 of its model.onnx) and their
    /// dimensions: vectors of another model are not used.
    pub vector_model: String,
    pub dimensions: usize,
    pub releases: Vec<BundledRelease>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BundledRelease {
    /// The release's IRI, e.g. `pkg:pypi/click@8.1.7`.
    pub release: String,
    pub package: String,
    pub ecosystem: Ecosystem,
    pub version: String,
    /// The facts version that wrote the release's graphs; import needs the one it reads.
    pub facts_version: i64,
    /// One member per named graph (`name` is the graph's IRI).
    pub graphs: Vec<Member>,
    /// The vectors of its text-index entries (`count` of them).
    pub vectors: Member,
}

/// One file of the bundle.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    /// Path inside the bundle.
    pub file: String,
    pub sha256: String,
    pub bytes: u64,
    /// Quads of a graph, vectors of a vectors file.
    pub count: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("{0}")]
    NotABundle(String),
    #[error("{0}")]
    Refused(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
}

/// What an export wrote.
#[derive(Debug, Clone, Serialize)]
pub struct ExportReport {
    pub file: String,
    pub releases: Vec<String>,
    pub quads: usize,
    pub vectors: usize,
    pub bytes: u64,
}

/// What an import loaded.
#[derive(Debug, Clone, Serialize)]
pub struct ImportReport {
    pub file: String,
    pub refgraph_version: String,
    pub releases: Vec<String>,
    pub quads: usize,
    /// Text-index entries built, and how many of them took a vector from the bundle.
    pub chunks: usize,
    pub vectors: usize,
    /// What could not be done, with what to do (no text index here, vectors of another model).
    pub warnings: Vec<String>,
}

fn model_id() -> String {
    MODEL_FILES
        .iter()
        .find(|f| f.name == "model.onnx")
        .map_or(String::new(), |f| f.sha256.to_string())
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Vectors as records of the text's hash (64 hex digits) then its little-endian f32s.
fn encode_vectors(vectors: &[(String, Vec<f32>)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(vectors.len() * (64 + DIMENSIONS * 4));
    for (h, v) in vectors {
        out.extend_from_slice(h.as_bytes());
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

fn decode_vectors(bytes: &[u8], dims: usize) -> Result<HashMap<String, Vec<f32>>, String> {
    if dims != DIMENSIONS {
        return Err(format!("{dims} dimensions, not {DIMENSIONS}"));
    }
    let record = 64 + dims * 4;
    if !bytes.len().is_multiple_of(record) {
        return Err(format!(
            "{} bytes is not a whole number of {record}-byte vector records",
            bytes.len()
        ));
    }
    let mut out = HashMap::new();
    for r in bytes.chunks_exact(record) {
        let hash = std::str::from_utf8(&r[..64])
            .ok()
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or("a vector record without a text hash")?;
        let v = r[64..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        out.insert(hash.to_string(), v);
    }
    Ok(out)
}

/// Writes `releases` (with their text-index vectors when `engine` has a text index) to
/// `out`, whole or not at all. `progress(release, done, total)` after each release.
pub fn export(
    engine: &Engine,
    releases: &[ReleaseInfo],
    out: &Path,
    progress: &dyn Fn(&str, usize, usize),
) -> Result<ExportReport, BundleError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BundleError::Io { path, source }
    };
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(io(out))?;
    let gz = flate2::write::GzEncoder::new(tmp, flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    let append = |tar: &mut tar::Builder<_>, file: &str, bytes: &[u8]| {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_cksum();
        tar.append_data(&mut h, file, bytes).map_err(io(out))
    };
    let index = engine.text_index_handle();
    let mut manifest = Manifest {
        format: FORMAT.into(),
        bundle_version: BUNDLE_VERSION,
        refgraph_version: format!("refgraph {}", env!("CARGO_PKG_VERSION")),
        created: crate::ingest::now_rfc3339(),
        vector_model: model_id(),
        dimensions: DIMENSIONS,
        releases: Vec::new(),
    };
    let (mut quads, mut vector_count) = (0, 0);
    for (i, r) in releases.iter().enumerate() {
        let mut graphs = Vec::new();
        for (j, g) in engine.store().graphs_of(&r.release)?.iter().enumerate() {
            let mut text = Vec::new();
            let n = engine.store().write_graph_nquads(g, &mut text)?;
            let file = format!("releases/{i}/graph-{j}.nq");
            append(&mut tar, &file, &text)?;
            graphs.push(Member {
                name: g.clone(),
                file,
                sha256: sha256_hex(&text),
                bytes: text.len() as u64,
                count: n,
            });
            quads += n;
        }
        let vectors = match &index {
            Some(ix) => ix.release_vectors(&r.release)?,
            None => Vec::new(),
        };
        let bytes = encode_vectors(&vectors);
        let file = format!("releases/{i}/vectors.bin");
        append(&mut tar, &file, &bytes)?;
        vector_count += vectors.len();
        manifest.releases.push(BundledRelease {
            release: r.release.clone(),
            package: r.package.clone(),
            ecosystem: r.ecosystem,
            version: r.version.clone(),
            facts_version: r.facts_version,
            graphs,
            vectors: Member {
                name: "vectors".into(),
                file,
                sha256: sha256_hex(&bytes),
                bytes: bytes.len() as u64,
                count: vectors.len(),
            },
        });
        progress(&r.release, i + 1, releases.len());
    }
    let text = serde_json::to_vec_pretty(&manifest).expect("a manifest serialises");
    append(&mut tar, MANIFEST, &text)?;
    let gz = tar.into_inner().map_err(io(out))?;
    let tmp = gz.finish().map_err(io(out))?;
    tmp.as_file().sync_all().map_err(io(out))?;
    tmp.persist(out).map_err(|e| BundleError::Io {
        path: out.to_path_buf(),
        source: e.error,
    })?;
    // A temporary file is private (0600); a bundle is made to be copied.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(out, std::fs::Permissions::from_mode(0o644)).map_err(io(out))?;
    }
    let bytes = std::fs::metadata(out).map_err(io(out))?.len();
    Ok(ExportReport {
        file: out.display().to_string(),
        releases: releases.iter().map(|r| r.release.clone()).collect(),
        quads,
        vectors: vector_count,
        bytes,
    })
}

/// A bundle read and checked: its manifest and every member's bytes.
struct Opened {
    manifest: Manifest,
    members: HashMap<String, Vec<u8>>,
}

/// Reads the whole bundle and checks it against its manifest and this refgraph, writing
/// nothing. `max_bytes` bounds what it unpacks.
fn open(file: &Path, max_bytes: u64) -> Result<Opened, BundleError> {
    let not = |why: String| {
        BundleError::NotABundle(format!(
            "{} is not a refgraph bundle ({why}); make one with `refgraph export`",
            file.display()
        ))
    };
    let f = std::fs::File::open(file).map_err(|source| BundleError::Io {
        path: file.to_path_buf(),
        source,
    })?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(std::io::BufReader::new(f)));
    let mut members = HashMap::new();
    let mut total = 0u64;
    for entry in tar.entries().map_err(|e| not(e.to_string()))? {
        let mut entry = entry.map_err(|e| not(format!("truncated or damaged: {e}")))?;
        let path = entry
            .path()
            .map_err(|e| not(e.to_string()))?
            .to_string_lossy()
            .into_owned();
        let too_big = || {
            BundleError::Refused(format!(
                "{} unpacks to more than {max_bytes} bytes; raise --max-total-bytes to import it",
                file.display()
            ))
        };
        // The header's size is not trusted for memory: what is read is counted as it comes.
        let room = max_bytes.saturating_sub(total);
        let mut bytes = Vec::new();
        (&mut entry)
            .take(room.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| not(format!("truncated or damaged: {e}")))?;
        total += bytes.len() as u64;
        if total > max_bytes {
            return Err(too_big());
        }
        if members.insert(path.clone(), bytes).is_some() {
            return Err(not(format!("{path} is in it twice")));
        }
    }
    let text = members
        .get(MANIFEST)
        .ok_or_else(|| not(format!("no {MANIFEST}: the file may be cut short")))?;
    let manifest: Manifest =
        serde_json::from_slice(text).map_err(|e| not(format!("{MANIFEST}: {e}")))?;
    if manifest.format != FORMAT {
        return Err(not(format!("its format is '{}'", manifest.format)));
    }
    if manifest.bundle_version > BUNDLE_VERSION {
        return Err(BundleError::Refused(format!(
            "{} was written by {} in bundle layout {}; this refgraph reads layout {BUNDLE_VERSION} \
             and older: import it with a refgraph as new as that one",
            file.display(),
            manifest.refgraph_version,
            manifest.bundle_version
        )));
    }
    let mut files = std::collections::HashSet::new();
    for r in &manifest.releases {
        // The release is the one its package and version name, and its graphs are its own and
        // its doc pages': nothing in a bundle can write another release's graph.
        let purl = format!("{}@{}", r.package, r.version);
        if r.release != purl
            || !r
                .package
                .starts_with(&format!("pkg:{}/", r.ecosystem.as_str()))
        {
            return Err(not(format!(
                "release {} is not {} of {}",
                r.release, r.version, r.package
            )));
        }
        let docs = crate::lower::docs_graph(&r.release);
        for g in &r.graphs {
            if g.name != r.release && g.name != docs {
                return Err(not(format!(
                    "{} names graph {}, not one of its own",
                    r.release, g.name
                )));
            }
        }
        for m in r.graphs.iter().chain(std::iter::once(&r.vectors)) {
            if !files.insert(m.file.as_str()) {
                return Err(not(format!("{} is named twice in {MANIFEST}", m.file)));
            }
        }
        let reads = crate::lower::facts_version(r.ecosystem);
        if r.facts_version != reads {
            return Err(BundleError::Refused(format!(
                "{} holds {} with facts version {}, and this refgraph reads facts version {reads} \
                 for {} releases: export it again with this refgraph's version on the machine \
                 that made it (after `refgraph add` or `ingest` there re-reads the release), or \
                 import it with {}",
                file.display(),
                r.release,
                r.facts_version,
                r.ecosystem.as_str(),
                manifest.refgraph_version
            )));
        }
        for m in r.graphs.iter().chain(std::iter::once(&r.vectors)) {
            let bytes = members
                .get(&m.file)
                .ok_or_else(|| not(format!("{} names {}, which is missing", MANIFEST, m.file)))?;
            if bytes.len() as u64 != m.bytes || sha256_hex(bytes) != m.sha256 {
                return Err(BundleError::Refused(format!(
                    "{}: {} of {} does not match its sha256 in the manifest: the file is damaged; \
                     copy it again",
                    file.display(),
                    m.file,
                    r.release
                )));
            }
        }
    }
    Ok(Opened { manifest, members })
}

/// Loads the bundle at `file` into `engine`'s store, every release in one transaction, then
/// builds their text-index entries with the bundle's vectors. Nothing is written unless the
/// whole bundle checks out. `progress(release, done, total)` while indexing.
pub fn import(
    engine: &Engine,
    file: &Path,
    max_bytes: u64,
    progress: &dyn Fn(&str, usize, usize),
) -> Result<ImportReport, BundleError> {
    let Opened {
        manifest,
        mut members,
    } = open(file, max_bytes)?;
    let same_model = manifest.vector_model == model_id() && manifest.dimensions == DIMENSIONS;
    let mut graphs = Vec::new();
    let mut vectors: HashMap<String, HashMap<String, Vec<f32>>> = HashMap::new();
    for r in &manifest.releases {
        for g in &r.graphs {
            let text = members.remove(&g.file).unwrap_or_default();
            graphs.push((g.name.clone(), text));
        }
        let bytes = members.remove(&r.vectors.file).unwrap_or_default();
        if !same_model {
            vectors.insert(r.release.clone(), HashMap::new());
            continue;
        }
        let v = decode_vectors(&bytes, manifest.dimensions).or_else(|e| {
            if bytes.is_empty() {
                Ok(HashMap::new())
            } else {
                Err(BundleError::Refused(format!(
                    "{}: the vectors of {}: {e}",
                    file.display(),
                    r.release
                )))
            }
        })?;
        vectors.insert(r.release.clone(), v);
    }
    // A release's graphs the bundle does not carry (doc pages added here before) go too: the
    // imported release replaces the stored one whole.
    let mut cleared = Vec::new();
    for r in &manifest.releases {
        for g in engine.store().graphs_of(&r.release)? {
            if !graphs.iter().any(|(name, _)| *name == g) {
                cleared.push((g, Vec::new()));
            }
        }
    }
    graphs.extend(cleared);
    let quads = engine.store().replace_graphs_nquads(&graphs)?;
    engine.store().flush()?;
    let mut report = ImportReport {
        file: file.display().to_string(),
        refgraph_version: manifest.refgraph_version.clone(),
        releases: manifest
            .releases
            .iter()
            .map(|r| r.release.clone())
            .collect(),
        quads,
        chunks: 0,
        vectors: 0,
        warnings: Vec::new(),
    };
    let index = match engine.text_index_handle() {
        Some(ix) => ix,
        None => {
            report.warnings.push(
                "no text index is open: concept search has none of these releases until \
                 `refgraph reindex`"
                    .into(),
            );
            return Ok(report);
        }
    };
    if !same_model {
        report.warnings.push(format!(
            "the bundle's vectors come from another sentence model ({}); they are not used",
            manifest.vector_model
        ));
    }
    let stored = engine.releases()?;
    let total = manifest.releases.len();
    for (i, r) in manifest.releases.iter().enumerate() {
        let Some(info) = stored.iter().find(|s| s.release == r.release) else {
            report
                .warnings
                .push(format!("{} is not listed after loading", r.release));
            continue;
        };
        let chunks = crate::index::chunks::release_chunks(engine.store(), info)?;
        let given = match vectors.remove(&r.release) {
            Some(v) if same_model => v,
            _ => HashMap::new(),
        };
        report.vectors += chunks
            .iter()
            .filter(|c| {
                given.contains_key(&crate::index::embed::sha256_hex(c.embed_text.as_bytes()))
            })
            .count();
        report.chunks += index.replace_release_with(
            &r.release,
            &info.index_stamp(),
            &chunks,
            &given,
            &|_, _| {},
        )?;
        progress(&r.release, i + 1, total);
    }
    Ok(report)
}

/// Reads a bundle's manifest after checking the whole file: what `import --check` prints.
pub fn inspect(file: &Path, max_bytes: u64) -> Result<Manifest, BundleError> {
    open(file, max_bytes).map(|o| o.manifest)
}
