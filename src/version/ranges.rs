//! Version ranges: PEP 440 specifiers (pep440_rs) for PyPI, npm's semver ranges (nodejs-semver)
//! for npm, and Poetry's caret/tilde constraints rewritten into PEP 440.

use std::str::FromStr;

use crate::model::Ecosystem;

/// The newest of `versions` that `range` admits, or `None`. Pre-releases only count when the
/// range names one itself (PEP 440 and npm agree on that). `range` alternatives are a union
/// (Poetry's `||`); npm ranges carry their own `||`.
pub fn newest_matching(
    ecosystem: Ecosystem,
    alternatives: &[String],
    versions: &[String],
) -> Result<Option<String>, String> {
    match ecosystem {
        Ecosystem::Pypi => {
            let mut best: Option<(pep440_rs::Version, &String)> = None;
            for alt in alternatives {
                let specs = pep440_rs::VersionSpecifiers::from_str(alt)
                    .map_err(|e| format!("'{alt}' is not a PEP 440 version range: {e}"))?;
                let pre_ok = specs.iter().any(|s| s.any_prerelease());
                for v in versions {
                    let Ok(parsed) = pep440_rs::Version::from_str(v) else {
                        continue;
                    };
                    if (parsed.any_prerelease() && !pre_ok) || !specs.contains(&parsed) {
                        continue;
                    }
                    if best.as_ref().is_none_or(|(b, _)| parsed > *b) {
                        best = Some((parsed, v));
                    }
                }
            }
            Ok(best.map(|(_, v)| v.clone()))
        }
        Ecosystem::Npm => {
            let parsed: Vec<(nodejs_semver::Version, &String)> = versions
                .iter()
                .filter_map(|v| Some((nodejs_semver::Version::parse(v).ok()?, v)))
                .collect();
            let mut best: Option<&(nodejs_semver::Version, &String)> = None;
            for alt in alternatives {
                let range = nodejs_semver::Range::parse(alt)
                    .map_err(|e| format!("'{alt}' is not an npm version range: {e}"))?;
                for p in &parsed {
                    if range.satisfies(&p.0) && best.is_none_or(|b| p.0 > b.0) {
                        best = Some(p);
                    }
                }
            }
            Ok(best.map(|(_, v)| (*v).clone()))
        }
        Ecosystem::Generic => Err("no version ranges for pkg:generic packages".into()),
    }
}

/// Whether `version` is a single exact version in the ecosystem's syntax (`==1.2.3` already
/// stripped; npm `1.2.3`, `=1.2.3`, `v1.2.3`).
pub fn exact_npm(spec: &str) -> Option<String> {
    let s = spec.trim().trim_start_matches('=').trim_start_matches('v');
    nodejs_semver::Version::parse(s)
        .ok()
        .filter(|_| {
            let core = s.split(['-', '+']).next().unwrap_or(s);
            !core.contains(['x', 'X', '*']) && !s.contains([' ', '|', '<', '>', '^', '~'])
        })
        .map(|_| s.to_string())
}

/// A PEP 440 specifier set that admits exactly one version (`==1.2.3`, `===1.2.3`): that version.
pub fn exact_pep440(spec: &str) -> Option<String> {
    let s = spec.trim();
    let v = s
        .strip_prefix("===")
        .or_else(|| s.strip_prefix("=="))?
        .trim();
    (!v.is_empty() && !v.contains([',', '*', ';', ' '])).then(|| v.to_string())
}

/// Poetry's constraint syntax as PEP 440 specifier sets, one per `||` alternative:
/// `^1.2.3` → `>=1.2.3,<2.0.0`, `~1.2` → `>=1.2,<1.3`, `1.2.3` → `==1.2.3`, `*` → any.
pub fn poetry_to_pep440(constraint: &str) -> Result<Vec<String>, String> {
    // `>= 1.2, < 2.0`: an operator and its version belong together.
    let mut joined = String::with_capacity(constraint.len());
    for c in constraint.chars() {
        if c == ' ' && joined.ends_with(['<', '>', '=', '!', '~', '^']) {
            continue;
        }
        joined.push(c);
    }
    let mut out = Vec::new();
    for alt in joined.split("||") {
        let mut parts = Vec::new();
        // Poetry allows `>=1.2,<2` and `>=1.2 <2`.
        for piece in alt
            .split([',', ' '])
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            parts.push(poetry_piece(piece)?);
        }
        out.push(parts.into_iter().flatten().collect::<Vec<_>>().join(","));
    }
    Ok(out)
}

fn poetry_piece(piece: &str) -> Result<Vec<String>, String> {
    let nums = |v: &str| -> Result<Vec<u64>, String> {
        v.split('.')
            .map(|n| {
                n.parse::<u64>()
                    .map_err(|_| format!("'{piece}' is not a Poetry version constraint"))
            })
            .collect()
    };
    let join = |n: &[u64]| n.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
    if piece == "*" {
        return Ok(Vec::new());
    }
    if let Some(v) = piece.strip_prefix('^') {
        let n = nums(v)?;
        // The upper bound bumps the first non-zero component (`^0.2.3` → `<0.3.0`).
        let first = n.iter().position(|&x| x != 0).unwrap_or(n.len() - 1);
        let mut upper: Vec<u64> = n[..=first].to_vec();
        upper[first] += 1;
        return Ok(vec![format!(">={v}"), format!("<{}", join(&upper))]);
    }
    if let Some(v) = piece.strip_prefix('~').filter(|v| !v.starts_with('=')) {
        let n = nums(v)?;
        let mut upper: Vec<u64> = if n.len() == 1 {
            vec![n[0]]
        } else {
            n[..2].to_vec()
        };
        *upper.last_mut().expect("one component") += 1;
        return Ok(vec![format!(">={v}"), format!("<{}", join(&upper))]);
    }
    if piece.starts_with(['<', '>', '=', '!', '~']) {
        // Already PEP 440 (`>=1.2`, `!=1.3`, `~=1.4`, `==1.*`).
        return Ok(vec![piece.to_string()]);
    }
    if piece.ends_with(".*") {
        return Ok(vec![format!("=={piece}")]);
    }
    Ok(vec![format!("=={piece}")])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pep440_ranges_skip_prereleases_unless_asked() {
        let versions = v(&["1.9.0", "1.10.13", "2.0.0b1", "2.0.0", "2.5.3", "3.0.0a1"]);
        let best = |r: &str| newest_matching(Ecosystem::Pypi, &[r.to_string()], &versions).unwrap();
        assert_eq!(best(">=1.10,<2").as_deref(), Some("1.10.13"));
        assert_eq!(best("~=2.0").as_deref(), Some("2.5.3"));
        assert_eq!(best(">=2.6").as_deref(), None);
        assert_eq!(best(">=3.0.0a1").as_deref(), Some("3.0.0a1"));
        assert!(newest_matching(Ecosystem::Pypi, &["=>1".into()], &versions).is_err());
    }

    #[test]
    fn npm_ranges_follow_node_semver() {
        let versions = v(&["11.1.0", "12.0.0", "12.1.0", "13.0.0-beta.1", "13.0.0"]);
        let best = |r: &str| newest_matching(Ecosystem::Npm, &[r.to_string()], &versions).unwrap();
        assert_eq!(best("^12.0.0").as_deref(), Some("12.1.0"));
        assert_eq!(best("~12.0.0").as_deref(), Some("12.0.0"));
        assert_eq!(best("12.x || 11").as_deref(), Some("12.1.0"));
        assert_eq!(best("11.0.0 - 12.0.0").as_deref(), Some("12.0.0"));
        assert_eq!(best("*").as_deref(), Some("13.0.0"));
        assert_eq!(best(">=14").as_deref(), None);
    }

    #[test]
    fn poetry_constraints_become_pep440() {
        assert_eq!(poetry_to_pep440("^1.2.3").unwrap(), [">=1.2.3,<2"]);
        assert_eq!(poetry_to_pep440("^0.2.3").unwrap(), [">=0.2.3,<0.3"]);
        assert_eq!(poetry_to_pep440("~1.2.3").unwrap(), [">=1.2.3,<1.3"]);
        assert_eq!(poetry_to_pep440("~1").unwrap(), [">=1,<2"]);
        assert_eq!(poetry_to_pep440("1.10.13").unwrap(), ["==1.10.13"]);
        assert_eq!(poetry_to_pep440(">=1.2,<2.0").unwrap(), [">=1.2,<2.0"]);
        assert_eq!(poetry_to_pep440(">= 1.2, < 2.0").unwrap(), [">=1.2,<2.0"]);
        assert_eq!(poetry_to_pep440("*").unwrap(), [""]);
        assert_eq!(
            poetry_to_pep440("^1.0 || ^2.0").unwrap(),
            [">=1.0,<2", ">=2.0,<3"]
        );
        assert!(poetry_to_pep440("^x").is_err());
    }

    #[test]
    fn exact_versions() {
        assert_eq!(exact_pep440("==1.10.13").as_deref(), Some("1.10.13"));
        assert_eq!(exact_pep440("==1.*"), None);
        assert_eq!(exact_pep440(">=1"), None);
        assert_eq!(exact_npm("4.17.21").as_deref(), Some("4.17.21"));
        assert_eq!(exact_npm("=4.17.21").as_deref(), Some("4.17.21"));
        assert_eq!(exact_npm("^4.17.21"), None);
        assert_eq!(exact_npm("4.x"), None);
        assert_eq!(exact_npm("15.0.0-next.1").as_deref(), Some("15.0.0-next.1"));
    }
}
