//! `config.toml`: settings that hold for every command run on one data directory.
//!
//! It lives in the data directory (`DATA/config.toml`) unless `REFGRAPH_CONFIG` names
//! another file; a missing file is no settings. Today it holds one section:
//!
//! ```toml
//! [inspect]
//! # PyPI packages whose releases `refgraph add`, `ingest` and `sync` inspect at run time
//! # without --inspect (--no-inspect turns it off for one command). A server inspects only
//! # when started with --allow-inspect, and then every Python release it fetches.
//! packages = ["astropy", "h5py"]
//! # Wall-clock budget of one module's import, in seconds (default 60).
//! seconds = 60
//! ```
//!
//! Unknown keys are refused, so a misspelt setting is an error that names it, never a
//! setting silently not applied.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::{Ecosystem, PackageId, PackageRef};

/// The settings of a data directory.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Config {
    /// Where they were read from (the file may not exist).
    pub path: PathBuf,
    /// PyPI packages whose releases are inspected at run time without `--inspect`.
    pub inspect_packages: Vec<PackageId>,
    /// `[inspect] seconds`: one module's import budget under inspection.
    pub inspect_seconds: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}; fix or remove the file (its form: `refgraph --help`, under Files)")]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    inspect: InspectSection,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct InspectSection {
    #[serde(default)]
    packages: Vec<String>,
    seconds: Option<u64>,
}

impl Config {
    /// The file the settings of data directory `data` are read from: `REFGRAPH_CONFIG`, else
    /// `DATA/config.toml`.
    pub fn path_for(data: &Path) -> PathBuf {
        std::env::var_os("REFGRAPH_CONFIG")
            .map(PathBuf::from)
            .unwrap_or_else(|| data.join("config.toml"))
    }

    /// Reads the settings of `data` ([`Config::path_for`]); no file is no settings.
    pub fn load(data: &Path) -> Result<Config, ConfigError> {
        Config::read(&Config::path_for(data))
    }

    /// Reads the settings in `path`; a missing file is no settings.
    pub fn read(path: &Path) -> Result<Config, ConfigError> {
        let fail = |message: String| ConfigError {
            path: path.to_path_buf(),
            message,
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Config {
                    path: path.to_path_buf(),
                    ..Config::default()
                });
            }
            Err(e) => return Err(fail(format!("cannot be read: {e}"))),
        };
        Config::parse(&text).map_err(fail).map(|c| Config {
            path: path.to_path_buf(),
            ..c
        })
    }

    /// The settings `text` states (`path` left empty).
    pub fn parse(text: &str) -> Result<Config, String> {
        let file: File = toml::from_str(text).map_err(|e| e.message().to_string())?;
        let mut packages = Vec::new();
        for p in &file.inspect.packages {
            let (id, version) = PackageRef::parse(p)
                .map_err(|e| format!("[inspect] packages: {e}"))?
                .or_pypi();
            if version.is_some() {
                return Err(format!(
                    "[inspect] packages: '{p}' names a release; list packages (every release \
                     of one is inspected)"
                ));
            }
            if id.ecosystem != Ecosystem::Pypi {
                return Err(format!(
                    "[inspect] packages: '{p}' is not a PyPI package; only Python releases are \
                     inspected at run time"
                ));
            }
            if !packages.contains(&id) {
                packages.push(id);
            }
        }
        if file.inspect.seconds == Some(0) {
            return Err("[inspect] seconds: give a budget of at least 1".to_string());
        }
        Ok(Config {
            path: PathBuf::new(),
            inspect_packages: packages,
            inspect_seconds: file.inspect.seconds,
        })
    }

    /// Whether releases of `id` are inspected without `--inspect`.
    pub fn inspects(&self, id: &PackageId) -> bool {
        self.inspect_packages.contains(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_are_read_as_pypi_names_and_a_misspelt_key_is_refused() {
        let c = Config::parse(
            "[inspect]\npackages = [\"AstroPy\", \"pkg:pypi/h5py\", \"astropy\"]\nseconds = 30\n",
        )
        .unwrap();
        let names: Vec<&str> = c.inspect_packages.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["astropy", "h5py"]);
        assert_eq!(c.inspect_seconds, Some(30));
        assert!(c.inspects(&PackageId::new(Ecosystem::Pypi, "astropy")));
        assert!(!c.inspects(&PackageId::new(Ecosystem::Pypi, "numpy")));

        assert!(Config::parse("").unwrap().inspect_packages.is_empty());
        let e = Config::parse("[inspect]\npackage = [\"astropy\"]\n").unwrap_err();
        assert!(e.contains("unknown field `package`"), "{e}");
        let e = Config::parse("[inspect]\npackages = [\"pkg:npm/axios\"]\n").unwrap_err();
        assert!(e.contains("not a PyPI package"), "{e}");
        let e = Config::parse("[inspect]\npackages = [\"astropy==6.1.0\"]\n").unwrap_err();
        assert!(e.contains("names a release"), "{e}");
        let e = Config::parse("[inspect]\nseconds = 0\n").unwrap_err();
        assert!(e.contains("at least 1"), "{e}");
    }

    #[test]
    fn a_missing_file_is_no_settings_and_a_broken_one_names_itself() {
        let dir = std::env::temp_dir().join(format!("refgraph-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.toml");
        let _ = std::fs::remove_file(&path);
        assert_eq!(Config::read(&path).unwrap().inspect_packages, []);
        std::fs::write(&path, "[inspect\n").unwrap();
        let e = Config::read(&path).unwrap_err().to_string();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
        assert!(e.contains("fix or remove the file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
