#!/usr/bin/env bash
# fuzz-long.sh — long libFuzzer runs of chosen targets, one after the other,
# for the record in bench/results/fuzz.md (not part of `make test`, whose
# scripts/fuzz-smoke.sh runs every target for seconds).
#
# Usage: scripts/fuzz-long.sh BUILD_DIR SECONDS TARGET...
#   e.g. make fuzz-smoke && scripts/fuzz-long.sh build-test 1200 rules toml wheel
#
# Each target runs on a temporary copy of fuzz/corpus/<target>/ (the
# committed corpus is never changed) with -timeout=30 -rss_limit_mb=2048;
# a crash, timeout or OOM leaves its reproducer in
# BUILD_DIR/fuzz-artifacts/<target>/. One line per target is printed:
# "<target> rc=<libFuzzer status> wall=<s> <libFuzzer's DONE line>
# executed=<runs> peak_rss_mb=<MB>". Run two at a time on two cores at most,
# so each gets a core: -max_total_time counts wall time.
set -u -o pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD_DIR SECONDS TARGET..." >&2
  exit 2
fi
build=$1 seconds=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cuwheel-fuzz-long.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
for t in "$@"; do
  bin=$build/fuzz_$t
  if [ ! -x "$bin" ] || [ ! -d "$root/fuzz/corpus/$t" ]; then
    echo "$t: no $bin or no fuzz/corpus/$t" >&2
    status=1
    continue
  fi
  cp -r "$root/fuzz/corpus/$t" "$work/$t"
  mkdir -p "$build/fuzz-artifacts/$t"
  start=$(date +%s)
  "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$t/" "$work/$t" >"$work/$t.log" 2>&1
  rc=$?
  end=$(date +%s)
  [ "$rc" = 0 ] || status=1
  echo "$t rc=$rc wall=$((end - start)) $(grep -E '^#[0-9]+.*DONE' "$work/$t.log" | tail -1)" \
    "executed=$(awk '/stat::number_of_executed_units/ {print $2}' "$work/$t.log")" \
    "peak_rss_mb=$(awk '/stat::peak_rss_mb/ {print $2}' "$work/$t.log")"
done
exit $status
