# Sourced by the scripts: one build cache outside the clone, so every checkout (and CI) rebuilds
# incrementally instead of recompiling RocksDB (about 20 minutes on 2 cores).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/refgraph/target}"
export REFGRAPH_TEST_CACHE="${REFGRAPH_TEST_CACHE:-$HOME/.cache/refgraph/test-cache}"
# The sentence-embedding model for concept search (`refgraph model install` puts it there).
export REFGRAPH_MODEL_DIR="${REFGRAPH_MODEL_DIR:-$REFGRAPH_TEST_CACHE/model}"
mkdir -p "$CARGO_TARGET_DIR" "$REFGRAPH_TEST_CACHE"
# `target` in the checkout points at that cache, so `target/release/refgraph` (the path the
# README and ../shared/eval use) is the binary `cargo build --release` just built.
_refgraph_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ -e "$_refgraph_root/target" ] || [ -L "$_refgraph_root/target" ] || ln -s "$CARGO_TARGET_DIR" "$_refgraph_root/target"
unset _refgraph_root
