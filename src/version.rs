//! The order of a package's releases: the one its registry's tools use. PEP 440 for PyPI
//! (`packaging.version.Version`), semver for npm (`semver.compare`); checked against both on
//! real release lists in tests/it/project.rs.

pub mod label;
pub mod ranges;

use std::str::FromStr;

use crate::model::Ecosystem;

/// A version's place in its package's order. Versions of one package compare as their
/// ecosystem orders them; a version that ecosystem cannot read (a pre-PEP 440 upload, a
/// `pkg:generic` spec's `2023-10-16`) is [`VersionKey::Loose`] and sorts before every one it
/// can, by numeric parts with pre-releases first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum VersionKey {
    Loose((Vec<u64>, bool, String)),
    Pep440(pep440_rs::Version),
    Semver(nodejs_semver::Version),
}

/// The key that orders `version` among the releases of a package of `ecosystem`. `generic`
/// (OpenAPI specs) takes semver where it reads, as spec versions mostly are.
pub fn version_key(ecosystem: Ecosystem, version: &str) -> VersionKey {
    let parsed = match ecosystem {
        Ecosystem::Pypi => pep440_rs::Version::from_str(version)
            .ok()
            .map(VersionKey::Pep440),
        Ecosystem::Npm | Ecosystem::Generic => nodejs_semver::Version::parse(version)
            .ok()
            .map(VersionKey::Semver),
    };
    parsed.unwrap_or_else(|| VersionKey::Loose(loose_key(version)))
}

/// Numeric parts numerically, and a pre-release (`1.0rc1`, `1.0.0-beta`) before its final
/// release: where PEP 440 and semver agree, for versions neither reads.
fn loose_key(v: &str) -> (Vec<u64>, bool, String) {
    let v = v.trim_start_matches('v');
    let mut nums = Vec::new();
    let mut rest = "";
    for (i, part) in v.split('.').enumerate() {
        let digits: String = part.chars().take_while(|c| c.is_ascii_digit()).collect();
        if digits.is_empty() {
            rest = &v[v
                .split('.')
                .take(i)
                .map(|p| p.len() + 1)
                .sum::<usize>()
                .min(v.len())..];
            break;
        }
        nums.push(digits.parse().unwrap_or(u64::MAX));
        if digits.len() < part.len() {
            let offset: usize = v.split('.').take(i).map(|p| p.len() + 1).sum();
            rest = &v[offset + digits.len()..];
            break;
        }
    }
    while nums.last() == Some(&0) && nums.len() > 1 {
        nums.pop();
    }
    // A pre-release is named by letters (`rc1`, `-beta.2`, `.dev3`), not by more numbers
    // (`2023-10-16`, a spec versioned by date, is a final release).
    let named = rest
        .trim_start_matches(['-', '.', '_'])
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic());
    let pre =
        named && !rest.starts_with(".post") && !rest.starts_with("post") && !rest.starts_with('+');
    (nums, !pre, rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::version_key;
    use crate::model::Ecosystem;

    fn sorted(ecosystem: Ecosystem, versions: &[&str]) -> Vec<String> {
        let mut v: Vec<&str> = versions.to_vec();
        v.sort_by_key(|x| version_key(ecosystem, x));
        v.into_iter().map(String::from).collect()
    }

    #[test]
    fn versions_order_as_their_registry_orders_them() {
        // PEP 440: dev < pre < final < post; `1.0` == `1.0.0`; local versions after.
        assert_eq!(
            sorted(
                Ecosystem::Pypi,
                &[
                    "10.0",
                    "2.0.0",
                    "2.0.0rc1",
                    "1.10.13",
                    "1.9",
                    "2.0.post1",
                    "2.0.0.dev3",
                    "2.0b2"
                ]
            ),
            [
                "1.9",
                "1.10.13",
                "2.0.0.dev3",
                "2.0b2",
                "2.0.0rc1",
                "2.0.0",
                "2.0.post1",
                "10.0"
            ]
        );
        // semver: numeric pre-release identifiers compare as numbers.
        assert_eq!(
            sorted(
                Ecosystem::Npm,
                &[
                    "5.0.0",
                    "5.0.0-beta.10",
                    "5.0.0-beta.2",
                    "4.9.5",
                    "5.0.0-rc.0"
                ]
            ),
            [
                "4.9.5",
                "5.0.0-beta.2",
                "5.0.0-beta.10",
                "5.0.0-rc.0",
                "5.0.0"
            ]
        );
        // What neither reads sorts before what it reads, and among itself numerically.
        assert_eq!(
            sorted(Ecosystem::Generic, &["1.2.0", "2023-10-16", "2022-11-15"]),
            ["2022-11-15", "2023-10-16", "1.2.0"]
        );
    }
}
