//! npm manifests and lockfiles: `package-lock.json` / `npm-shrinkwrap.json` (v1 to v3),
//! `pnpm-lock.yaml` (v5 to v9), `yarn.lock` (v1 and berry, by `yarn-lock-parser`), in that
//! order of precedence, and `package.json` (the manifest).

use super::{Locked, Origin, Project, Requirement, Spec, line_of};
use crate::model::PackageId;
use crate::version::ranges;

pub(super) fn read(p: &mut Project) {
    for f in ["package-lock.json", "npm-shrinkwrap.json"] {
        package_lock(p, f);
    }
    pnpm_lock(p);
    yarn_lock(p);
    package_json(p);
}

fn package(name: &str) -> PackageId {
    PackageId::new(crate::model::Ecosystem::Npm, name)
}

/// `npm:real@range` (an alias in package.json, yarn and npm v1 lockfiles): the real package
/// and the range or version.
fn alias(spec: &str) -> Option<(&str, &str)> {
    spec.strip_prefix("npm:")?
        .rsplit_once('@')
        .filter(|(real, _)| !real.is_empty())
}

/// Whether a lockfile's `resolved` URL is a registry tarball (`…/name/-/name-1.2.3.tgz`), not a
/// git checkout, a local file or a codeload archive whose version says nothing about the registry.
fn from_registry(resolved: Option<&str>) -> bool {
    match resolved.filter(|r| !r.is_empty()) {
        None => true, // lockfiles written with `omit-lockfile-registry-resolved`
        Some(r) => {
            r.starts_with("http")
                && r.contains("/-/")
                && r.split('#').next().unwrap_or(r).ends_with(".tgz")
        }
    }
}

/// The descriptor that ties a lockfile entry to the manifest key it was installed for.
pub(super) fn key_descriptor(key: &str) -> String {
    format!("key:{key}")
}

fn lock(p: &mut Project, name: &str, version: &str, origin: Origin, descriptors: Vec<String>) {
    p.locked.push(Locked {
        package: package(name),
        version: version.to_string(),
        origin,
        descriptors,
    });
}

/// npm's lockfile. v2 and v3 list installed folders under `packages` (`node_modules/x` is what
/// the project's own `require('x')` loads; nested copies belong to other packages); v1 has
/// the same under `dependencies`. Aliases (`"x": "npm:y@1"`) record the real name.
fn package_lock(p: &mut Project, file: &str) {
    let Some(text) = p.text(file) else { return };
    let doc: serde_json::Value = match serde_json::from_str(&text) {
        Ok(d) => d,
        Err(e) => return p.problem(file, e),
    };
    if let Some(packages) = doc.get("packages").and_then(|v| v.as_object()) {
        for (key, entry) in packages {
            let Some(folder) = key.strip_prefix("node_modules/") else {
                continue;
            };
            if folder.contains("/node_modules/")
                || entry.get("link").is_some()
                || !from_registry(entry.get("resolved").and_then(|r| r.as_str()))
            {
                continue;
            }
            let Some(version) = entry.get("version").and_then(|v| v.as_str()) else {
                continue;
            };
            let name = entry.get("name").and_then(|n| n.as_str()).unwrap_or(folder);
            let origin = Origin {
                file: file.to_string(),
                line: line_of(&text, &format!("\"{key}\": {{")),
            };
            lock(p, name, version, origin, vec![key_descriptor(folder)]);
        }
        return;
    }
    let Some(deps) = doc.get("dependencies").and_then(|v| v.as_object()) else {
        return p.problem(file, "neither `packages` nor `dependencies`");
    };
    for (name, entry) in deps {
        let Some(version) = entry.get("version").and_then(|v| v.as_str()) else {
            continue;
        };
        let key = name.as_str();
        let (name, version) = alias(version).unwrap_or((key, version));
        if nodejs_semver::Version::parse(version).is_err()
            || !from_registry(entry.get("resolved").and_then(|r| r.as_str()))
        {
            continue; // git and file dependencies
        }
        let origin = Origin {
            file: file.to_string(),
            line: line_of(&text, &format!("\"{key}\": {{")),
        };
        lock(p, name, version, origin, vec![key_descriptor(key)]);
    }
}

/// pnpm's lockfile: the root importer's dependencies (`importers['.']` from v6 on with
/// workspaces and always in v9; top-level maps before). Values are `1.2.3` (v5, peers after
/// `_`), `{specifier, version}` (v6+, peers in parentheses), or `name@1.2.3` for an alias.
fn pnpm_lock(p: &mut Project) {
    let file = "pnpm-lock.yaml";
    let Some(text) = p.text(file) else { return };
    let doc: serde_yaml_ng::Value = match serde_yaml_ng::from_str(&text) {
        Ok(d) => d,
        Err(e) => return p.problem(file, e),
    };
    let v5 = doc
        .get("lockfileVersion")
        .and_then(|v| {
            v.as_f64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        })
        .is_some_and(|v| v < 6.0);
    let root = doc
        .get("importers")
        .and_then(|i| i.get("."))
        .unwrap_or(&doc);
    for section in ["dependencies", "devDependencies", "optionalDependencies"] {
        let Some(map) = root.get(section).and_then(|v| v.as_mapping()) else {
            continue;
        };
        for (name, entry) in map {
            let Some(name) = name.as_str() else { continue };
            let (version, specifier) = match entry {
                serde_yaml_ng::Value::String(s) => (s.as_str(), None),
                other => (
                    other.get("version").and_then(|v| v.as_str()).unwrap_or(""),
                    other.get("specifier").and_then(|v| v.as_str()),
                ),
            };
            let mut version = version.split('(').next().unwrap_or("");
            if v5 {
                version = version.split('_').next().unwrap_or("");
            }
            let (real, version) = match version.rsplit_once('@') {
                Some((real, v)) if !real.is_empty() => (real, v),
                _ => (name, version),
            };
            if nodejs_semver::Version::parse(version).is_err() {
                continue; // link:, file: and git dependencies
            }
            let origin = Origin {
                file: file.to_string(),
                line: line_of(&text, &format!("{name}:")),
            };
            let mut descriptors = vec![key_descriptor(name)];
            descriptors.extend(specifier.map(str::to_string));
            lock(p, real, version, origin, descriptors);
        }
    }
}

/// yarn's lockfile, classic (v1) or berry: one entry per resolved version, keyed by the
/// ranges (`lodash@^4.17.0, lodash@^4.17.21`) it satisfies.
fn yarn_lock(p: &mut Project) {
    let file = "yarn.lock";
    let Some(text) = p.text(file) else { return };
    type Entry = (String, String, String, Vec<String>);
    let entries: Vec<Entry> = match yarn_lock_parser::parse_str(&text) {
        Ok(l) => l
            .entries
            .iter()
            .map(|e| {
                (
                    e.name.to_string(),
                    e.version.to_string(),
                    e.resolved.to_string(),
                    e.descriptors.iter().map(|(_, r)| r.to_string()).collect(),
                )
            })
            .collect(),
        Err(e) => return p.problem(file, e),
    };
    for (name, version, resolved, descriptors) in entries {
        // Registry entries only: berry's descriptors say `npm:`, classic ones are bare ranges
        // with a registry `resolved`; git, file, link, patch and workspace entries are not
        // releases of the name they carry.
        let registry = descriptors.iter().all(|d| {
            ![
                "workspace:",
                "link:",
                "portal:",
                "patch:",
                "file:",
                "git",
                "http",
                "exec:",
            ]
            .iter()
            .any(|s| d.starts_with(s))
        }) && (descriptors.iter().any(|d| d.starts_with("npm:"))
            || from_registry(Some(&resolved)));
        if !registry || nodejs_semver::Version::parse(&version).is_err() {
            continue;
        }
        // An alias entry (`my-ms@npm:ms@^2.1.0`) is a release of the real package.
        let name = descriptors
            .iter()
            .find_map(|d| alias(d).map(|(real, _)| real.to_string()))
            .unwrap_or(name);
        let origin = Origin {
            file: file.to_string(),
            line: descriptors
                .first()
                .and_then(|d| line_of(&text, &format!("{name}@{d}"))),
        };
        lock(p, &name, &version, origin, descriptors);
    }
}

/// `package.json`: `dependencies`, `devDependencies`, `optionalDependencies` and
/// `peerDependencies`, each `name: range`.
fn package_json(p: &mut Project) {
    let file = "package.json";
    let Some(text) = p.text(file) else { return };
    let doc: serde_json::Value = match serde_json::from_str(&text) {
        Ok(d) => d,
        Err(e) => return p.problem(file, e),
    };
    for section in [
        "dependencies",
        "devDependencies",
        "optionalDependencies",
        "peerDependencies",
    ] {
        let Some(map) = doc.get(section).and_then(|v| v.as_object()) else {
            continue;
        };
        for (name, value) in map {
            let Some(written) = value.as_str() else {
                p.problems
                    .push(format!("{file}: {section}.{name} is not a string"));
                continue;
            };
            let origin = Origin {
                file: file.to_string(),
                line: line_of(&text, &format!("\"{name}\":")),
            };
            let (real, range) = alias(written).unwrap_or((name.as_str(), written));
            p.direct.push(Requirement {
                package: package(real),
                key: name.clone(),
                written: written.to_string(),
                spec: npm_spec(range),
                origin,
            });
        }
    }
}

fn npm_spec(range: &str) -> Spec {
    let r = range.trim();
    if r.is_empty() || r == "*" {
        return Spec::Any;
    }
    if let Some(scheme) = [
        "workspace:",
        "file:",
        "link:",
        "git",
        "github:",
        "http:",
        "https:",
    ]
    .iter()
    .find(|s| r.starts_with(**s))
    {
        return Spec::Unsupported(format!("a {} dependency", scheme.trim_end_matches(':')));
    }
    if r.contains('/') {
        return Spec::Unsupported("a GitHub dependency".into());
    }
    if let Some(v) = ranges::exact_npm(r) {
        return Spec::Exact(v);
    }
    match nodejs_semver::Range::parse(r) {
        Ok(_) => Spec::Range(vec![r.to_string()]),
        Err(_) => Spec::Tag(r.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pnpm_v5_lockfiles_put_peers_after_an_underscore() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pnpm-lock.yaml"),
            "lockfileVersion: 5.4\n\nspecifiers:\n  commander: ^11.0.0\n  mobx-react-lite: ^3.4.0\n\n\
             dependencies:\n  commander: 11.1.0\n  mobx-react-lite: 3.4.3_mobx@6.13.5+react@18.3.1\n",
        )
        .unwrap();
        let p = crate::project::Project::load(dir.path()).unwrap();
        let got: Vec<(String, String)> = p
            .locked
            .iter()
            .map(|l| (l.package.name.clone(), l.version.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("commander".to_string(), "11.1.0".to_string()),
                ("mobx-react-lite".to_string(), "3.4.3".to_string())
            ]
        );
    }

    #[test]
    fn npm_specs() {
        assert_eq!(npm_spec("^12.1.0"), Spec::Range(vec!["^12.1.0".into()]));
        assert_eq!(npm_spec("4.17.21"), Spec::Exact("4.17.21".into()));
        assert_eq!(npm_spec("*"), Spec::Any);
        assert!(matches!(npm_spec("workspace:*"), Spec::Unsupported(_)));
        assert!(matches!(
            npm_spec("github:tj/commander.js"),
            Spec::Unsupported(_)
        ));
        assert!(matches!(
            npm_spec("expressjs/express"),
            Spec::Unsupported(_)
        ));
        assert_eq!(npm_spec("next"), Spec::Tag("next".into()));
    }
}
