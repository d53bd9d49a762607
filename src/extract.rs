//! Extractors: bytes in, facts and diagnostics out. No IO, no store.

pub mod python;

/// One source file of a release, path relative to the release root with `/` separators.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: String,
    pub text: Vec<u8>,
}
