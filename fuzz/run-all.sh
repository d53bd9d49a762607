#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 600), JOBS at a time (default 1), and prints
# a Markdown table: executions, final corpus size, and whether it found a failure.
#   fuzz/run-all.sh [SECONDS] [JOBS]
# Needs the nightly toolchain and cargo-fuzz (fuzz/README.md).
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
jobs=${2:-1}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR_FUZZ:-$HOME/.cache/refgraph/fuzz-target}
targets=(openapi python javascript package_json docs archive sparql)
# Release code with debug assertions on (cargo-fuzz's default), so overflows fail too.
cargo +nightly fuzz build >"${TMPDIR:-/tmp}/refgraph-fuzz-build.log" 2>&1 || {
  tail -30 "${TMPDIR:-/tmp}/refgraph-fuzz-build.log"; exit 1; }
logs=$(mktemp -d)
run() {
  cargo +nightly fuzz run "$1" -- -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 >"$logs/$1.log" 2>&1
  echo $? >"$logs/$1.rc"
}
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  run "$t" &
done
wait
echo "| target | seconds | executions | exec/s | corpus inputs | result |"
echo "|---|---|---|---|---|---|"
for t in "${targets[@]}"; do
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$logs/$t.log" | grep -o '[0-9]*$')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$logs/$t.log" | grep -o '[0-9]*$')
  inputs=$(ls "corpus/$t" | wc -l)
  if [ "$(cat "$logs/$t.rc")" = 0 ]; then result="no failure"; else
    result="FAILED: $(grep -m1 -o 'artifacts/[^ ]*' "$logs/$t.log")"; fi
  echo "| $t | $secs | ${execs:-?} | ${rate:-?} | $inputs | $result |"
done
echo "logs: $logs" >&2
