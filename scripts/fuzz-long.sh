#!/usr/bin/env bash
# fuzz-long.sh — long libFuzzer runs of chosen targets, one after the other,
# for the record in bench/results/fuzz.md (not part of `make test`, whose
# scripts/fuzz-smoke.sh runs every target for seconds).
#
# Usage: scripts/fuzz-long.sh BUILD_DIR CPU_SECONDS TARGET...
#   e.g. make fuzz-smoke && scripts/fuzz-long.sh build-test 1200 rules toml wheel
#
# Each target runs on a temporary copy of fuzz/corpus/<target>/ (the
# committed corpus is never changed) with -timeout=30 -rss_limit_mb=2048,
# until it has used CPU_SECONDS of CPU time (user + system, read from
# /proc/PID/stat every 5 s), when it is stopped with SIGINT. CPU time, not
# wall time (libFuzzer's -max_total_time), so a run on a shared machine
# still gets its full share; run it under `nice -n 19` to leave the
# machine to other work. A crash, timeout or OOM ends the run early and
# leaves its reproducer in BUILD_DIR/fuzz-artifacts/<target>/. One line
# per target is printed:
#   "<target> status=<ok|crash rc=N> wall=<s> cpu=<s> <libFuzzer's last status line>"
# where the status line gives the executions (#N), coverage (cov), corpus
# (corp) and peak RSS (rss).
set -u -o pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD_DIR CPU_SECONDS TARGET..." >&2
  exit 2
fi
build=$1 budget=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cuwheel-fuzz-long.XXXXXX")
trap 'rm -rf "$work"' EXIT
tick=$(getconf CLK_TCK)
# CPU seconds (user + system) of a running process, or nothing once gone.
cpu_of() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  # Fields after the command name, which may hold spaces: ") S ppid ...";
  # utime and stime are fields 14 and 15 of the whole line.
  stat=${stat##*) }
  set -- $stat
  echo $(((${12} + ${13}) / tick))
}
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
  "$bin" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$t/" "$work/$t" >"$work/$t.log" 2>&1 &
  pid=$!
  used=0 stopped=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    now=$(cpu_of "$pid")
    [ -n "$now" ] && used=$now
    if [ "$used" -ge "$budget" ] && [ "$stopped" = 0 ]; then
      kill -INT "$pid" 2>/dev/null
      stopped=1
    fi
  done
  wait "$pid"
  rc=$?
  end=$(date +%s)
  # Stopped by us: libFuzzer exits on SIGINT with its interrupt code; any
  # other end (a crash, a timeout, an OOM) is a finding.
  if [ "$stopped" = 1 ] && ! grep -q -E '^==[0-9]+== ERROR|^SUMMARY: |Test unit written' "$work/$t.log"; then
    result=ok
  else
    result="crash rc=$rc"
    status=1
  fi
  echo "$t status=$result wall=$((end - start)) cpu=$used $(grep -E '^#[0-9]+' "$work/$t.log" | tail -1)"
done
exit $status
