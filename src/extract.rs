//! Extractors: bytes in, facts and diagnostics out. No IO, no store.

use crate::model::{PackageId, ReleaseFacts};

pub mod openapi;
pub mod python;

/// One source file of a release, path relative to the release root with `/` separators.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: String,
    pub text: Vec<u8>,
}

/// Which extractor reads a release. Chosen from the package's ecosystem: a release of
/// `pkg:pypi/...` is Python source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    /// An OpenAPI 3.0 or 3.1 document, JSON or YAML.
    OpenApi,
}

impl Language {
    pub fn for_package(package: &PackageId) -> Result<Language, String> {
        match package.ecosystem.as_str() {
            "pypi" => Ok(Language::Python),
            "generic" => Ok(Language::OpenApi),
            other => Err(format!(
                "no extractor for '{other}' packages yet: use pkg:pypi/NAME, or pkg:generic/NAME for an OpenAPI document"
            )),
        }
    }

    /// Whether a file of a release tree or archive is read at all.
    pub fn reads(self, path: &str) -> bool {
        match self {
            Language::Python => path.ends_with(".py") || path.ends_with(".pyi"),
            Language::OpenApi => {
                path.ends_with(".json") || path.ends_with(".yaml") || path.ends_with(".yml")
            }
        }
    }

    /// What a user should pass when a release yields no symbols.
    pub fn layout_hint(self) -> &'static str {
        match self {
            Language::Python => {
                "pass the folder that holds the import package (for click, the folder containing click/__init__.py), a wheel or an sdist"
            }
            Language::OpenApi => {
                "pass an OpenAPI 3.0 or 3.1 document (.json, .yaml or .yml) or a folder holding one"
            }
        }
    }

    pub fn extract(self, files: &[SourceFile]) -> ReleaseFacts {
        match self {
            Language::Python => python::extract(files),
            Language::OpenApi => openapi::extract(files),
        }
    }
}
