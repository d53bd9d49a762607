//! Per-package synonyms: user-editable files that map phrases to identifiers.
//!
//! `DATA/synonyms/<ecosystem>/<name>.txt` (for example `synonyms/pypi/click.txt` or
//! `synonyms/npm/@aws-sdk/client-s3.txt`), one mapping per line:
//!
//! ```text
//! # phrase = identifier, identifier
//! 上传文件 = upload_file
//! yes or no question = confirm
//! ```
//!
//! A query containing a phrase (case-insensitively) is searched with the identifiers too. The
//! file is read again when it changes, so maintainers can edit it while a server runs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

type Table = Vec<(String, Vec<String>)>;
/// Each table file's modification time when read, and its parsed table.
type Cache = HashMap<PathBuf, (Option<SystemTime>, std::sync::Arc<Table>)>;

#[derive(Default)]
pub struct Synonyms {
    dir: Option<PathBuf>,
    cache: Mutex<Cache>,
}

/// `pkg:npm/%40aws-sdk/client-s3` → `npm/@aws-sdk/client-s3.txt`.
fn file_of(package: &str) -> Option<PathBuf> {
    let rest = package.strip_prefix("pkg:")?;
    let (eco, name) = rest.split_once('/')?;
    let name = name.replace("%40", "@");
    if name
        .split('/')
        .any(|p| p.is_empty() || p == "." || p == "..")
    {
        return None;
    }
    Some(PathBuf::from(eco).join(format!("{name}.txt")))
}

pub(crate) fn parse(text: &str) -> Table {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            if l.is_empty() || l.starts_with('#') {
                return None;
            }
            let (phrase, ids) = l.split_once('=')?;
            let ids: Vec<String> = ids
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            let phrase = phrase.trim().to_lowercase();
            (!phrase.is_empty() && !ids.is_empty()).then_some((phrase, ids))
        })
        .collect()
}

impl Synonyms {
    pub fn new(dir: Option<PathBuf>) -> Self {
        Synonyms {
            dir,
            cache: Mutex::default(),
        }
    }

    /// Where the table of `package` lives (whether or not it exists yet).
    pub fn path_for(&self, package: &str) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(file_of(package)?))
    }

    fn table(&self, path: &Path) -> std::sync::Arc<Table> {
        let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((m, t)) = cache.get(path)
            && *m == mtime
        {
            return t.clone();
        }
        let table = std::sync::Arc::new(
            std::fs::read_to_string(path)
                .map(|t| parse(&t))
                .unwrap_or_default(),
        );
        cache.insert(path.to_path_buf(), (mtime, table.clone()));
        table
    }

    /// The identifiers whose phrases occur in `query`.
    pub fn expansions(&self, package: &str, query: &str) -> Vec<String> {
        let Some(path) = self.path_for(package) else {
            return Vec::new();
        };
        let q = query.to_lowercase();
        let table = self.table(&path);
        let mut out = Vec::new();
        for (phrase, ids) in table.iter() {
            if q.contains(phrase.as_str()) {
                for id in ids {
                    if !out.contains(id) {
                        out.push(id.clone());
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_parse_and_expand() {
        let dir = tempfile::tempdir().unwrap();
        let s = Synonyms::new(Some(dir.path().to_path_buf()));
        let path = s.path_for("pkg:npm/%40acme/storage").unwrap();
        assert!(path.ends_with("npm/@acme/storage.txt"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            "# comment\n上传文件 = upload_file, put\nYes or No = confirm\nbad line\n",
        )
        .unwrap();
        assert_eq!(
            s.expansions("pkg:npm/%40acme/storage", "如何上传文件"),
            vec!["upload_file", "put"]
        );
        assert_eq!(
            s.expansions("pkg:npm/%40acme/storage", "ask yes or no"),
            vec!["confirm"]
        );
        assert!(s.expansions("pkg:pypi/other", "上传文件").is_empty());
        assert!(file_of("pkg:npm/../x").is_none());
    }
}
