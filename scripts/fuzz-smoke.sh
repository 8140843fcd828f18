#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for a bounded time, as part of
# `make test` (style practice 10: fuzz every parser).
#
# Usage: scripts/fuzz-smoke.sh BUILD_DIR SECONDS
#
# For each BUILD_DIR/fuzz_<name> binary the corpus is fuzz/corpus/<name>/. It
# is copied to a temporary directory first, so that new inputs libFuzzer
# finds during the run do not modify the committed corpus. A target fails
# when libFuzzer exits non-zero (crash, sanitizer report, timeout, OOM, leak)
# or when its corpus directory is missing; the reproducer libFuzzer writes
# is kept in BUILD_DIR/fuzz-artifacts/<name>/ and its path is printed. One
# summary line per target gives the executions run (targets run one per core,
# FUZZ_JOBS to change it); the last line is
# "N passed, M failed" and the exit status is 0 only when M is 0.
set -u -o pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$1
seconds=$2
root=$(cd "$(dirname "$0")/.." && pwd)
corpus_root=$root/fuzz/corpus

shopt -s nullglob
targets=("$build"/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz-smoke: no fuzz_* binaries in $build (configure with -DCUWHEEL_FUZZ=ON)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/cuwheel-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=${FUZZ_JOBS:-$(nproc)}

# fuzz_one BIN: runs one target; its report goes to $work/<target>.result,
# whose first word is ok or FAIL.
fuzz_one() {
  local bin=$1 name target corpus artifacts log rc execs cov
  name=$(basename "$bin")
  target=${name#fuzz_}
  if [ ! -d "$corpus_root/$target" ]; then
    echo "FAIL $name: no corpus directory fuzz/corpus/$target" >"$work/$target.result"
    return
  fi
  corpus=$work/$target
  cp -r "$corpus_root/$target" "$corpus"
  artifacts=$build/fuzz-artifacts/$target
  mkdir -p "$artifacts"
  log=$work/$target.log
  # -timeout: one input running longer is a hang; -rss_limit_mb: an input
  # that needs more memory is an unbounded allocation; -malloc_limit_mb: one
  # allocation of 512 MiB from a fuzz-sized input means a size was trusted. The fuzz build's
  # UBSan checks recover by default; halt_on_error makes each report a failure.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    echo "ok   $name: ${execs:-?} executions in ${seconds}s (${cov:-cov: ?})" >"$work/$target.result"
  else
    {
      echo "FAIL $name: exit status $rc after ${execs:-?} executions"
      grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)|Test unit written to' "$log" | head -5 | sed 's/^/     /'
      cp "$log" "$artifacts/log.txt"
      echo "     full log: $artifacts/log.txt"
    } >"$work/$target.result"
  fi
}

# The targets run $jobs at a time (FUZZ_JOBS, default: one per core); each
# writes its own result file, printed in name order once all are done.
running=0
for bin in "${targets[@]}"; do
  [ -x "$bin" ] && [ -f "$bin" ] || continue
  fuzz_one "$bin" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

passed=0
failed=0
for bin in "${targets[@]}"; do
  [ -x "$bin" ] && [ -f "$bin" ] || continue
  target=$(basename "$bin")
  target=${target#fuzz_}
  if [ ! -f "$work/$target.result" ]; then
    echo "FAIL fuzz_$target: no result (the run did not finish)"
    failed=$((failed + 1))
    continue
  fi
  cat "$work/$target.result"
  if [ "$(head -c 2 "$work/$target.result")" = "ok" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
if [ $((passed + failed)) -eq 0 ]; then
  echo "fuzz-smoke: no fuzz target ran" >&2
  exit 2
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
