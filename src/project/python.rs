//! Python manifests and lockfiles: `uv.lock`, `poetry.lock`, `Pipfile.lock` (lockfiles, in
//! that order of precedence), `pyproject.toml` (PEP 621, PEP 735 dependency groups, Poetry),
//! `Pipfile` and `requirements*.txt` (manifests). Requirements are parsed as PEP 508 by
//! `pep508_rs`; TOML by `toml`; Pipfile.lock by `serde_json`.

use std::str::FromStr;

use super::{Locked, Origin, Project, Requirement, Spec, line_of};
use crate::model::PackageId;
use crate::version::ranges;

pub(super) fn read(p: &mut Project) {
    for lock in ["uv.lock", "poetry.lock"] {
        toml_lock(p, lock);
    }
    pipfile_lock(p);
    pyproject(p);
    pipfile(p);
    let mut reqs: Vec<String> = std::fs::read_dir(&p.dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("requirements") && n.ends_with(".txt"))
        .collect();
    // requirements.txt before requirements-dev.txt and the like.
    reqs.sort_by_key(|n| (n != "requirements.txt", n.clone()));
    let mut done = Vec::new();
    for r in reqs {
        requirements(p, &r, &mut done, 0);
    }
}

fn package(name: &str) -> PackageId {
    PackageId::new(crate::model::Ecosystem::Pypi, name)
}

/// `uv.lock` and `poetry.lock`: `[[package]]` tables with `name` and `version`. Only registry
/// releases count: uv's own project (`source = { editable = "." }`), git and path sources are
/// not releases anyone can fetch.
fn toml_lock(p: &mut Project, file: &str) {
    let Some(text) = p.text(file) else { return };
    let doc: toml::Table = match toml::from_str(&text) {
        Ok(d) => d,
        Err(e) => return p.problem(file, e.message()),
    };
    let Some(packages) = doc.get("package").and_then(|v| v.as_array()) else {
        return p.problem(file, "no [[package]] entries");
    };
    for entry in packages {
        let (Some(name), Some(version)) = (
            entry.get("name").and_then(|v| v.as_str()),
            entry.get("version").and_then(|v| v.as_str()),
        ) else {
            continue;
        };
        let from_registry = match entry.get("source") {
            None => true,
            Some(toml::Value::Table(s)) => {
                s.contains_key("registry")
                    || s.get("type").and_then(|t| t.as_str()) == Some("legacy")
            }
            Some(_) => false,
        };
        if !from_registry {
            continue;
        }
        p.locked.push(Locked {
            package: package(name),
            version: version.to_string(),
            origin: Origin {
                file: file.to_string(),
                line: line_of(&text, &format!("name = \"{name}\"")),
            },
            descriptors: Vec::new(),
        });
    }
}

/// `Pipfile.lock`: `default` and `develop` map names to `{"version": "==X"}`.
fn pipfile_lock(p: &mut Project) {
    let file = "Pipfile.lock";
    let Some(text) = p.text(file) else { return };
    let doc: serde_json::Value = match serde_json::from_str(&text) {
        Ok(d) => d,
        Err(e) => return p.problem(file, e),
    };
    for section in ["default", "develop"] {
        let Some(map) = doc.get(section).and_then(|v| v.as_object()) else {
            continue;
        };
        for (name, entry) in map {
            let Some(v) = entry
                .get("version")
                .and_then(|v| v.as_str())
                .and_then(ranges::exact_pep440)
            else {
                continue; // git, path and editable entries carry no version
            };
            p.locked.push(Locked {
                package: package(name),
                version: v,
                origin: Origin {
                    file: file.to_string(),
                    line: line_of(&text, &format!("\"{name}\": {{")),
                },
                descriptors: Vec::new(),
            });
        }
    }
}

/// A PEP 508 requirement string (`pydantic>=1.10,<2; python_version >= "3.8"`).
fn pep508(text: &str, origin: Origin) -> Result<Requirement, String> {
    let req = pep508_rs::Requirement::<pep508_rs::VerbatimUrl>::from_str(text)
        .map_err(|e| format!("'{text}': {e}"))?;
    let (written, spec) = match &req.version_or_url {
        None => (String::new(), Spec::Any),
        Some(pep508_rs::VersionOrUrl::VersionSpecifier(s)) => {
            let w = s.to_string();
            match ranges::exact_pep440(&w) {
                Some(v) => (w, Spec::Exact(v)),
                None => (w.clone(), Spec::Range(vec![w])),
            }
        }
        Some(pep508_rs::VersionOrUrl::Url(u)) => {
            (u.to_string(), Spec::Unsupported("a URL requirement".into()))
        }
    };
    Ok(Requirement {
        package: package(req.name.as_ref()),
        key: req.name.to_string(),
        written,
        spec,
        origin,
    })
}

/// `pyproject.toml`: `[project] dependencies` and `optional-dependencies` (PEP 621),
/// `[dependency-groups]` (PEP 735), and Poetry's `[tool.poetry.*dependencies]`.
fn pyproject(p: &mut Project) {
    let file = "pyproject.toml";
    let Some(text) = p.text(file) else { return };
    let doc: toml::Table = match toml::from_str(&text) {
        Ok(d) => d,
        Err(e) => return p.problem(file, e.message()),
    };
    let mut strings: Vec<&str> = Vec::new();
    if let Some(project) = doc.get("project") {
        let lists = project.get("dependencies").into_iter().chain(
            project
                .get("optional-dependencies")
                .and_then(|o| o.as_table())
                .into_iter()
                .flat_map(|t| t.values()),
        );
        strings.extend(lists.flat_map(str_items));
    }
    if let Some(groups) = doc.get("dependency-groups").and_then(|g| g.as_table()) {
        // `{include-group = "x"}` entries name another group, whose strings are read anyway.
        strings.extend(groups.values().flat_map(str_items));
    }
    for s in strings {
        let origin = Origin {
            file: file.to_string(),
            line: line_of(&text, s),
        };
        match pep508(s, origin) {
            Ok(r) => p.direct.push(r),
            Err(e) => p.problems.push(format!("{file}: {e}")),
        }
    }
    let Some(poetry) = doc
        .get("tool")
        .and_then(|t| t.get("poetry"))
        .and_then(|t| t.as_table())
    else {
        return;
    };
    let mut tables: Vec<&toml::Table> = ["dependencies", "dev-dependencies"]
        .iter()
        .filter_map(|k| poetry.get(*k).and_then(|v| v.as_table()))
        .collect();
    if let Some(groups) = poetry.get("group").and_then(|g| g.as_table()) {
        tables.extend(
            groups
                .values()
                .filter_map(|g| g.get("dependencies").and_then(|d| d.as_table())),
        );
    }
    for table in tables {
        for (name, value) in table {
            if name == "python" {
                continue;
            }
            let origin = Origin {
                file: file.to_string(),
                line: line_of(&text, &format!("{name} =")),
            };
            let constraint = match value {
                toml::Value::String(s) => Some(s.as_str()),
                toml::Value::Table(t) => t.get("version").and_then(|v| v.as_str()),
                // Several constraints by marker: the first stands for them all.
                toml::Value::Array(a) => a
                    .first()
                    .and_then(|t| t.get("version"))
                    .and_then(|v| v.as_str()),
                _ => None,
            };
            let (written, spec) = match constraint {
                None => (
                    String::new(),
                    Spec::Unsupported("a git, path or URL dependency".into()),
                ),
                Some(c) => match ranges::poetry_to_pep440(c) {
                    Ok(alts) => {
                        let exact = match alts.as_slice() {
                            [one] => ranges::exact_pep440(one),
                            _ => None,
                        };
                        let spec = match exact {
                            Some(v) => Spec::Exact(v),
                            None if alts.iter().all(String::is_empty) => Spec::Any,
                            None => Spec::Range(alts),
                        };
                        (c.to_string(), spec)
                    }
                    Err(e) => {
                        p.problems.push(format!("{file}: {name}: {e}"));
                        continue;
                    }
                },
            };
            p.direct.push(Requirement {
                package: package(name),
                key: name.clone(),
                written,
                spec,
                origin,
            });
        }
    }
}

fn str_items(v: &toml::Value) -> impl Iterator<Item = &str> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str())
}

/// `Pipfile`: `[packages]` and `[dev-packages]`, each `name = "spec"` or `{version = "spec"}`
/// with PEP 440 specifiers (`"*"` for any).
fn pipfile(p: &mut Project) {
    let file = "Pipfile";
    let Some(text) = p.text(file) else { return };
    let doc: toml::Table = match toml::from_str(&text) {
        Ok(d) => d,
        Err(e) => return p.problem(file, e.message()),
    };
    for section in ["packages", "dev-packages"] {
        let Some(table) = doc.get(section).and_then(|v| v.as_table()) else {
            continue;
        };
        for (name, value) in table {
            let origin = Origin {
                file: file.to_string(),
                line: line_of(&text, &format!("{name} =")),
            };
            let spec_text = match value {
                toml::Value::String(s) => Some(s.as_str()),
                toml::Value::Table(t) => t.get("version").and_then(|v| v.as_str()),
                _ => None,
            };
            let req = match spec_text {
                None => Requirement {
                    package: package(name),
                    key: name.clone(),
                    written: String::new(),
                    spec: Spec::Unsupported("a git, path or editable dependency".into()),
                    origin,
                },
                Some("*") | Some("") => Requirement {
                    package: package(name),
                    key: name.clone(),
                    written: "*".into(),
                    spec: Spec::Any,
                    origin,
                },
                Some(s) => match pep508(&format!("{name}{s}"), origin) {
                    Ok(r) => r,
                    Err(e) => {
                        p.problems.push(format!("{file}: {e}"));
                        continue;
                    }
                },
            };
            p.direct.push(req);
        }
    }
}

/// `requirements*.txt` (pip's format): one PEP 508 requirement per line, `\` continuations,
/// `#` comments, `--hash` options; `-r other.txt` is followed (within the project folder),
/// other options (`-e`, `-c`, `--index-url`) are skipped.
fn requirements(p: &mut Project, file: &str, done: &mut Vec<String>, depth: usize) {
    if done.iter().any(|d| d == file) || depth > 8 {
        return;
    }
    done.push(file.to_string());
    // `-r` may point anywhere; only files inside the project folder are read (after
    // resolving `..` and symbolic links).
    let inside = match (p.dir.join(file).canonicalize(), p.dir.canonicalize()) {
        (Ok(f), Ok(d)) => f.starts_with(d),
        _ => !file.contains("..") && !file.starts_with('/'),
    };
    if !inside {
        p.problems.push(format!(
            "{file}: only requirement files inside the project are read"
        ));
        return;
    }
    let Some(text) = p.text(file) else {
        if depth > 0 {
            p.problems
                .push(format!("{file}: included with -r but missing"));
        }
        return;
    };
    let mut logical = String::new();
    let mut start = 0;
    for (i, raw) in text.lines().enumerate() {
        if logical.is_empty() {
            start = i + 1;
        }
        let line = match raw.find(" #") {
            Some(at) => &raw[..at],
            None if raw.trim_start().starts_with('#') => "",
            None => raw,
        };
        if let Some(cont) = line.trim_end().strip_suffix('\\') {
            logical.push_str(cont);
            logical.push(' ');
            continue;
        }
        logical.push_str(line);
        let stmt = std::mem::take(&mut logical);
        let stmt = stmt.trim();
        if stmt.is_empty() {
            continue;
        }
        if let Some(inc) = stmt
            .strip_prefix("-r ")
            .or_else(|| stmt.strip_prefix("--requirement "))
            .or_else(|| stmt.strip_prefix("--requirement="))
        {
            // Relative to the including file, as pip reads it.
            let base = std::path::Path::new(file)
                .parent()
                .map(|d| d.join(inc.trim()))
                .unwrap_or_else(|| inc.trim().into());
            requirements(p, &base.to_string_lossy(), done, depth + 1);
            continue;
        }
        if stmt.starts_with('-') {
            continue;
        }
        // Per-requirement options (`--hash=...`) follow the requirement.
        let req = stmt.split(" --").next().unwrap_or(stmt).trim();
        let origin = Origin {
            file: file.to_string(),
            line: Some(start),
        };
        match pep508(req, origin) {
            Ok(r) => p.direct.push(r),
            Err(e) => p.problems.push(format!("{file}:{start}: {e}")),
        }
    }
}
