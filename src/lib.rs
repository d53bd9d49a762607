//! refgraph: a knowledge-graph API reference engine.
//!
//! Extractors turn a release's sources into plain facts ([`model`]); [`lower`] turns facts into
//! RDF quads in the release's own named graph of the Oxigraph [`store`]; [`answer`] answers
//! questions with the SPARQL catalog in [`queries`], and concept questions with the text
//! [`index`] derived from the store; [`mcp`] serves those answers to assistants, [`http`] to
//! browsers, SPARQL clients and MCP clients over HTTP, and the `refgraph` binary to people.

pub mod answer;
pub mod bundle;
pub mod config;
pub mod diff;
pub mod doctor;
pub mod extract;
pub mod fetch;
mod fsutil;
#[doc(hidden)]
pub mod fuzz;
mod html;
pub mod http;
pub mod index;
pub mod ingest;
pub mod inspect;
pub mod lower;
pub mod mcp;
pub mod model;
pub mod project;
pub mod queries;
pub mod store;
pub mod version;
pub mod vocab;
