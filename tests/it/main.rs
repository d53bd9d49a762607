//! One integration test binary (see STYLE.md): features tested through the library and the CLI.

#[path = "../common/npm_spec.rs"]
mod npm_spec;
mod support;

mod architecture;
mod bad_input;
mod boilerplate;
mod bundle;
mod clients;
mod crash;
mod diff;
mod diff_oracle;
mod diff_rules;
mod doctor;
mod examples;
mod fuzz_corpora;
mod http;
mod inspect;
mod labels;
mod limits;
mod mcp;
mod npm_oracle;
mod npm_samples;
mod openapi;
mod oracle;
mod param_docs_oracle;
mod project;
mod samples;
mod search;
mod search_quality;
mod skim;
mod surface_oracle;
mod usage;
mod usage_oracle;
