//! The version labels people type for a release, read one way everywhere: the indexed releases
//! an answer comes from (`refgraph api --version 8.1`, every MCP tool's `version`) and a
//! registry's list (`refgraph add pkg:pypi/click@8.1`). In order of precedence:
//!
//! 1. the version itself (`8.1.7`; also `==8.1.7`, `v8.1.7`, and `8.1.7.0` for PyPI's `8.1.7`);
//! 2. a tag the registry gave a release (npm dist-tags: `next`, `beta`, `latest`);
//! 3. `latest` or `stable`: the newest release that is not a pre-release;
//! 4. a prefix: `8`, `8.1`, `8.1.*`, `8.x`: the newest non-pre-release release under it;
//! 5. a range in the ecosystem's syntax: PEP 440 (`>=2,<3`, `~=1.4`, `==8.1.*`) with Poetry's
//!    `^4.2` and `~4.2` for PyPI, npm's (`^4.2`, `~1.4`, `>=2 <3`, `1.x || 2.x`) for npm and
//!    OpenAPI specs. Pre-releases count only when the range names one, as pip and npm do.
//!
//! A label that is itself a listed version is that version: pydantic's `2.0` is release 2.0,
//! and `2.0.*` (or `2.0.x`) the newest 2.0.x. A label nothing matches is an error that says
//! why; no other version is ever put in its place.

use super::{VersionKey, ranges, version_key};
use crate::model::Ecosystem;

/// The version a label chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub version: String,
    /// How the label chose it (`the newest indexed 8.1.*`); `None` when the label is the
    /// version as listed.
    pub rule: Option<String>,
}

/// Why a label chose no version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    /// The label is a version, and it is not listed.
    #[error("version {0} is not {1}")]
    NotListed(String, String),
    /// The label reads, but no listed version matches it: why.
    #[error("{0}")]
    NoMatch(String),
    /// The label is neither a version, a keyword, a prefix nor a range of the ecosystem.
    #[error("{0}")]
    Malformed(String),
}

/// Chooses the version `label` names among `versions` (any order). `tags` are the registry's
/// tags and the versions they point to; `scope` names the list in rules and errors
/// (`indexed`, `PyPI`, `npm`).
pub fn resolve(
    ecosystem: Ecosystem,
    label: &str,
    versions: &[String],
    tags: &[(String, String)],
    scope: &str,
) -> Result<Resolved, LabelError> {
    let label = label.trim();
    if let Some(v) = versions.iter().find(|v| v.as_str() == label) {
        return Ok(exact(v));
    }
    let bare = strip_operator(ecosystem, label);
    if let Some(v) = versions.iter().find(|v| v.as_str() == bare) {
        return Ok(exact(v));
    }
    // npm's tags are case-sensitive, but `Latest` must not skip its `latest` tag for the
    // keyword's reading: the keywords are matched as tags in lower case.
    let as_tag = match label.to_ascii_lowercase().as_str() {
        k @ ("latest" | "stable") => k.to_string(),
        _ => label.to_string(),
    };
    if let Some((tag, v)) = tags
        .iter()
        .find(|(t, v)| *t == as_tag && versions.contains(v))
    {
        return Ok(Resolved {
            version: v.clone(),
            rule: Some(format!("{scope} dist-tag {tag}")),
        });
    }
    let keyed: Vec<(VersionKey, &String)> = versions
        .iter()
        .map(|v| (version_key(ecosystem, v), v))
        .collect();
    let newest = |pick: &dyn Fn(&VersionKey) -> bool| {
        keyed
            .iter()
            .filter(|(k, _)| pick(k))
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, v)| (*v).clone())
    };
    if matches!(label.to_ascii_lowercase().as_str(), "latest" | "stable") {
        return match newest(&|k| !is_prerelease(k)) {
            Some(version) => Ok(Resolved {
                version,
                rule: Some(format!("the newest {scope} final release")),
            }),
            None => Err(LabelError::NoMatch(if versions.is_empty() {
                format!("no release is {scope}")
            } else {
                format!("every {scope} release is a pre-release; ask for one by its version")
            })),
        };
    }
    if let Some(prefix) = prefix(label) {
        let shown = format!(
            "{}.*",
            prefix
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(".")
        );
        let under = |k: &VersionKey| release_parts(k).is_some_and(|r| starts_with(&r, &prefix));
        if let Some(version) = newest(&|k| under(k) && !is_prerelease(k)) {
            return Ok(Resolved {
                version,
                rule: Some(format!("the newest {scope} {shown}")),
            });
        }
        let pre: Vec<&String> = keyed
            .iter()
            .filter(|(k, _)| under(k))
            .map(|(_, v)| *v)
            .collect();
        return Err(LabelError::NoMatch(if pre.is_empty() {
            format!("no {scope} release is {shown}")
        } else {
            format!(
                "the {scope} {shown} releases are pre-releases ({}); ask for one by its version",
                join(&pre)
            )
        }));
    }
    // The version spelled another way (`8.1.7.0`, `v8.1.7`, `2.0.0-rc1` for PyPI's `2.0rc1`).
    // Only a label that is one version whole: node's semver reads `1.2.3 - 2.0.0` as 1.2.3.
    let single = match ecosystem {
        Ecosystem::Pypi => true,
        Ecosystem::Npm | Ecosystem::Generic => ranges::exact_npm(bare).is_some(),
    };
    if !single {
        return range(ecosystem, label, versions, scope);
    }
    let key = version_key(ecosystem, bare);
    if !matches!(key, VersionKey::Loose(_))
        && let Some((_, v)) = keyed.iter().find(|(k, _)| *k == key)
    {
        return Ok(Resolved {
            version: (*v).clone(),
            rule: Some(format!("{label} is the same version")),
        });
    }
    if !matches!(key, VersionKey::Loose(_)) {
        let listed = if scope == "indexed" {
            "indexed".to_string()
        } else {
            format!("on {scope}")
        };
        return Err(LabelError::NotListed(bare.to_string(), listed));
    }
    range(ecosystem, label, versions, scope)
}

fn exact(v: &str) -> Resolved {
    Resolved {
        version: v.to_string(),
        rule: None,
    }
}

/// `==8.1.7` and `===8.1.7` (PyPI), `=8.1.7` and `v8.1.7` (npm): the version they pin.
fn strip_operator(ecosystem: Ecosystem, label: &str) -> &str {
    match ecosystem {
        Ecosystem::Pypi => label
            .strip_prefix("===")
            .or_else(|| label.strip_prefix("=="))
            .unwrap_or(label)
            .trim(),
        Ecosystem::Npm | Ecosystem::Generic => label
            .strip_prefix('=')
            .unwrap_or(label)
            .trim()
            .trim_start_matches('v'),
    }
}

/// `8`, `8.1`, `8.*`, `8.1.*`, `8.x`, `8.1.x`, `v8`: the leading release numbers a prefix
/// label fixes. Three numbers are a version, not a prefix, unless a wildcard follows.
fn prefix(label: &str) -> Option<Vec<u64>> {
    let s = label.strip_prefix('v').unwrap_or(label);
    let (nums, wild) = match s
        .strip_suffix(".*")
        .or_else(|| s.strip_suffix(".x"))
        .or_else(|| s.strip_suffix(".X"))
    {
        Some(head) => (head, true),
        None => (s, false),
    };
    let parts: Vec<u64> = nums
        .split('.')
        .map(|p| {
            (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse().ok())
                .flatten()
        })
        .collect::<Option<_>>()?;
    (parts.len() <= 2 || wild).then_some(parts)
}

/// The release numbers of a version (`1.2.3` of `1.2.3rc1`); a PEP 440 version with an epoch
/// has none a prefix could match.
fn release_parts(key: &VersionKey) -> Option<Vec<u64>> {
    match key {
        VersionKey::Pep440(v) => (v.epoch() == 0).then(|| v.release().to_vec()),
        VersionKey::Semver(v) => Some(vec![v.major(), v.minor(), v.patch()]),
        VersionKey::Loose((nums, _, _)) => Some(nums.clone()),
    }
}

/// `8.1` is under `[8, 1]` and `[8]`; `8` is under `[8, 0]` (PEP 440 pads with zeros).
fn starts_with(release: &[u64], prefix: &[u64]) -> bool {
    prefix
        .iter()
        .enumerate()
        .all(|(i, p)| release.get(i).copied().unwrap_or(0) == *p)
}

fn is_prerelease(key: &VersionKey) -> bool {
    match key {
        VersionKey::Pep440(v) => v.any_prerelease(),
        VersionKey::Semver(v) => v.is_prerelease(),
        VersionKey::Loose((_, final_, _)) => !final_,
    }
}

fn join(versions: &[&String]) -> String {
    versions
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A range in the ecosystem's syntax; for PyPI, a Poetry `^`/`~` constraint is read as the
/// PEP 440 range it stands for.
fn range(
    ecosystem: Ecosystem,
    label: &str,
    versions: &[String],
    scope: &str,
) -> Result<Resolved, LabelError> {
    let malformed = |what: &str| {
        LabelError::Malformed(format!(
            "'{label}' is not a version, `latest`, `stable`, a prefix such as 8.1, or {what}"
        ))
    };
    let (syntax, alternatives) = match ecosystem {
        Ecosystem::Pypi => {
            let pep440 = |s: &str| {
                use std::str::FromStr;
                pep440_rs::VersionSpecifiers::from_str(s).is_ok()
            };
            if pep440(label) {
                (Ecosystem::Pypi, vec![label.to_string()])
            } else if label.starts_with(['^', '~']) && !label.starts_with("~=") {
                let alts = ranges::poetry_to_pep440(label)
                    .map_err(|_| malformed("a PEP 440 range (>=2,<3, ~=1.4)"))?;
                (Ecosystem::Pypi, alts)
            } else {
                return Err(malformed("a PEP 440 range (>=2,<3, ~=1.4)"));
            }
        }
        // Spec versions are mostly semver; npm's range syntax reads them.
        Ecosystem::Npm | Ecosystem::Generic => {
            if nodejs_semver::Range::parse(label).is_err() {
                return Err(malformed("an npm range (^4.2, >=2 <3)"));
            }
            (Ecosystem::Npm, vec![label.to_string()])
        }
    };
    match ranges::newest_matching(syntax, &alternatives, versions) {
        Ok(Some(version)) => Ok(Resolved {
            version,
            rule: Some(format!("the newest {scope} release matching {label}")),
        }),
        Ok(None) => Err(LabelError::NoMatch(format!(
            "no {scope} release matches {label}{}",
            if versions
                .iter()
                .any(|v| is_prerelease(&version_key(ecosystem, v)))
            {
                " (pre-releases count only when the range names one)"
            } else {
                ""
            }
        ))),
        Err(e) => Err(LabelError::Malformed(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn pick(eco: Ecosystem, label: &str, versions: &[String]) -> Result<Resolved, LabelError> {
        resolve(eco, label, versions, &[], "indexed")
    }

    fn chosen(eco: Ecosystem, label: &str, versions: &[String]) -> String {
        pick(eco, label, versions).unwrap().version
    }

    #[test]
    fn python_labels_pick_the_newest_release_they_admit() {
        let click = v(&["7.1.2", "8.0.0", "8.1.3", "8.1.7", "8.2.0rc1", "8.1.8"]);
        let py = Ecosystem::Pypi;
        // The version itself, as written or pinned.
        assert_eq!(pick(py, "8.1.7", &click).unwrap().rule, None);
        assert_eq!(pick(py, "==8.1.7", &click).unwrap().rule, None);
        // Prefixes: the newest final release under them, never the pre-release.
        assert_eq!(chosen(py, "8.1", &click), "8.1.8");
        assert_eq!(chosen(py, "8", &click), "8.1.8");
        assert_eq!(chosen(py, "8.1.*", &click), "8.1.8");
        assert_eq!(chosen(py, "8.x", &click), "8.1.8");
        assert_eq!(chosen(py, "7", &click), "7.1.2");
        assert_eq!(
            pick(py, "8.1", &click).unwrap().rule.as_deref(),
            Some("the newest indexed 8.1.*")
        );
        // Keywords skip pre-releases.
        assert_eq!(chosen(py, "latest", &click), "8.1.8");
        assert_eq!(chosen(py, "Stable", &click), "8.1.8");
        // PEP 440 ranges, and Poetry's caret and tilde.
        assert_eq!(chosen(py, ">=8,<8.1.5", &click), "8.1.3");
        assert_eq!(chosen(py, "~=8.0", &click), "8.1.8");
        assert_eq!(chosen(py, "==8.0.*", &click), "8.0.0");
        assert_eq!(chosen(py, "^7.1", &click), "7.1.2");
        assert_eq!(chosen(py, "~8.1.4", &click), "8.1.8");
        // A pre-release when the range names one.
        assert_eq!(chosen(py, ">=8.2.0rc1", &click), "8.2.0rc1");
        // The same version spelled another way.
        let r = pick(py, "8.1.7.0", &click).unwrap();
        assert_eq!(r.version, "8.1.7");
        assert_eq!(r.rule.as_deref(), Some("8.1.7.0 is the same version"));
        // Labels that match nothing say why; none falls back to another version.
        assert_eq!(
            pick(py, "8.1.9", &click),
            Err(LabelError::NotListed("8.1.9".into(), "indexed".into()))
        );
        for (label, why) in [
            ("9", "no indexed release is 9.*"),
            ("8.3", "no indexed release is 8.3.*"),
            (">=9", "no indexed release matches >=9"),
        ] {
            match pick(py, label, &click) {
                Err(LabelError::NoMatch(m)) => assert!(m.starts_with(why), "{label}: {m}"),
                other => panic!("{label}: {other:?}"),
            }
        }
        assert!(matches!(
            pick(py, "8.2", &click),
            Err(LabelError::NoMatch(m)) if m.contains("8.2.0rc1") && m.contains("pre-release")
        ));
        assert!(matches!(
            pick(py, "the new one", &click),
            Err(LabelError::Malformed(_))
        ));
        // Only pre-releases indexed: `latest` is refused, not answered with one of them.
        assert!(matches!(
            pick(py, "latest", &v(&["2.0b1", "2.0rc1"])),
            Err(LabelError::NoMatch(m)) if m.contains("pre-release")
        ));
    }

    #[test]
    fn npm_labels_follow_semver_and_the_registry_tags() {
        let commander = v(&["8.3.0", "12.0.0", "12.1.0", "13.0.0-beta.1"]);
        let npm = Ecosystem::Npm;
        assert_eq!(chosen(npm, "12", &commander), "12.1.0");
        assert_eq!(chosen(npm, "12.0", &commander), "12.0.0");
        assert_eq!(chosen(npm, "12.x", &commander), "12.1.0");
        assert_eq!(chosen(npm, "^8.1", &commander), "8.3.0");
        assert_eq!(chosen(npm, ">=9 <12.1", &commander), "12.0.0");
        assert_eq!(chosen(npm, "8.x || 12.0.x", &commander), "12.0.0");
        // Ranges that start with a whole version are ranges, not that version.
        assert_eq!(chosen(npm, "8.3.0 - 12.0.0", &commander), "12.0.0");
        assert_eq!(chosen(npm, "12.0.0 || 8.3.0", &commander), "12.0.0");
        assert_eq!(chosen(npm, "8.3.0 || 12.1.0", &commander), "12.1.0");
        assert_eq!(chosen(npm, "latest", &commander), "12.1.0");
        assert_eq!(pick(npm, "v12.1.0", &commander).unwrap().rule, None);
        assert_eq!(pick(npm, "=12.1.0", &commander).unwrap().rule, None);
        assert_eq!(chosen(npm, "13.0.0-beta.1", &commander), "13.0.0-beta.1");
        assert!(matches!(
            pick(npm, "13", &commander),
            Err(LabelError::NoMatch(m)) if m.contains("13.0.0-beta.1")
        ));
        assert!(matches!(
            pick(npm, "^14", &commander),
            Err(LabelError::NoMatch(_))
        ));
        // Tags point at releases; a tag whose release is not listed matches nothing.
        let tags = vec![
            ("next".to_string(), "13.0.0-beta.1".to_string()),
            ("latest".to_string(), "12.0.0".to_string()),
            ("legacy".to_string(), "7.2.0".to_string()),
        ];
        let tagged = |label: &str| resolve(npm, label, &commander, &tags, "npm");
        let r = tagged("next").unwrap();
        assert_eq!(r.version, "13.0.0-beta.1");
        assert_eq!(r.rule.as_deref(), Some("npm dist-tag next"));
        assert_eq!(tagged("latest").unwrap().version, "12.0.0");
        assert!(tagged("legacy").is_err());
    }

    #[test]
    fn spec_versions_take_prefixes_and_semver_ranges() {
        let specs = v(&["2022-11-15", "1.0.0", "1.2.0", "2.0.0"]);
        let g = Ecosystem::Generic;
        assert_eq!(chosen(g, "1", &specs), "1.2.0");
        assert_eq!(chosen(g, "latest", &specs), "2.0.0");
        assert_eq!(chosen(g, "<2", &specs), "1.2.0");
        assert_eq!(pick(g, "2022-11-15", &specs).unwrap().rule, None);
        // A spec dated instead of numbered is a final release, not a pre-release.
        let dated = v(&["2022-11-15", "2023-10-16", "2023-02-01"]);
        assert_eq!(chosen(g, "latest", &dated), "2023-10-16");
        assert_eq!(chosen(g, "2023", &dated), "2023-10-16");
    }
}
