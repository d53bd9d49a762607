//! npm manifests and lockfiles: `package-lock.json` / `npm-shrinkwrap.json` (v1 to v3),
//! `pnpm-lock.yaml` (v5 to v9), `yarn.lock` (v1 and berry, by `yarn-lock-parser`), in that
//! order of precedence, and `package.json` (the manifest).

use super::{Locked, Origin, Project, Requirement, Spec, line_of, ranges};
use crate::model::PackageId;

pub(super) fn read(p: &mut Project) {
    for f in ["package-lock.json", "npm-shrinkwrap.json"] {
        package_lock(p, f);
    }
    pnpm_lock(p);
    yarn_lock(p);
    package_json(p);
}

fn package(name: &str) -> PackageId {
    PackageId::new("npm", name)
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
            if folder.contains("/node_modules/") || entry.get("link").is_some() {
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
            lock(p, name, version, origin, Vec::new());
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
        let (name, version) = match version.strip_prefix("npm:") {
            Some(alias) => match alias.rsplit_once('@') {
                Some((real, v)) if !real.is_empty() => (real, v),
                _ => continue,
            },
            None => (name.as_str(), version),
        };
        if nodejs_semver::Version::parse(version).is_err() {
            continue; // git and file dependencies record a URL
        }
        let origin = Origin {
            file: file.to_string(),
            line: line_of(&text, &format!("\"{name}\": {{")),
        };
        lock(p, name, version, origin, Vec::new());
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
            lock(
                p,
                real,
                version,
                origin,
                specifier.map(str::to_string).into_iter().collect(),
            );
        }
    }
}

/// yarn's lockfile, classic (v1) or berry: one entry per resolved version, keyed by the
/// ranges (`lodash@^4.17.0, lodash@^4.17.21`) it satisfies.
fn yarn_lock(p: &mut Project) {
    let file = "yarn.lock";
    let Some(text) = p.text(file) else { return };
    let entries: Vec<(String, String, Vec<String>)> = match yarn_lock_parser::parse_str(&text) {
        Ok(l) => l
            .entries
            .iter()
            .map(|e| {
                (
                    e.name.to_string(),
                    e.version.to_string(),
                    e.descriptors.iter().map(|(_, r)| r.to_string()).collect(),
                )
            })
            .collect(),
        Err(e) => return p.problem(file, e),
    };
    for (name, version, descriptors) in entries {
        if descriptors
            .iter()
            .any(|d| d.starts_with("workspace:") || d.starts_with("link:"))
        {
            continue;
        }
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
            let (real, range) = match written.strip_prefix("npm:") {
                Some(alias) => match alias.rsplit_once('@') {
                    Some((real, r)) if !real.is_empty() => (real, r),
                    _ => (alias, "*"),
                },
                None => (name.as_str(), written),
            };
            p.direct.push(Requirement {
                package: package(real),
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
        Err(_) => Spec::Unsupported(format!("the dist-tag '{r}'")),
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
        assert!(matches!(npm_spec("next"), Spec::Unsupported(_)));
    }
}
