//! Files the program writes beside readers that may run at the same time.

use std::io::Write as _;
use std::path::Path;

/// Writes `bytes` to `target` whole or not at all: into a temporary file of a unique name in
/// the same folder, flushed to disk, then renamed over `target`. A concurrent reader sees the
/// old file or the new one, two writers never share a temporary file, and on an error the
/// temporary file is removed.
pub(crate) fn write_atomic(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(target).map_err(|e| e.error)?;
    Ok(())
}
