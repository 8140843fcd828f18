#!/usr/bin/env bash
# Output snapshots of `list`, `show` and `check` on every committed fixture:
# stdout, stderr and exit status of each run, compared byte for byte with
# tests/golden/cli/<command>.txt. They were recorded before the library was
# split into layers (docs/architecture.md) and guard every later move that
# is meant to keep behaviour: a difference fails with a unified diff.
#
# Usage: tests/e2e/snapshot_test.sh path/to/cuwheel            (compare)
#        tests/e2e/snapshot_test.sh path/to/cuwheel --update   (re-record)
# Run from the repository root; fixture paths are relative, so the output
# does not depend on where the checkout lives.
set -uo pipefail
CUWHEEL="$1"
MODE="${2:-compare}"
GOLDEN="tests/golden/cli"
. "$(dirname "$0")/common.sh"  # $WORK, and the run from $WORK/root (no dogfood policy)

mapfile -t FIXTURES < <(find tests/fixtures/bin tests/fixtures/check -type f \
  \( -name '*.so' -o -name '*.so.*' -o -name '*.o' -o -name '*.a' -o -name '*.cubin' \
     -o -name '*.fatbin' -o -name '*.ptx' -o -name '*.bin' -o -name '*.whl' \) | LC_ALL=C sort)
if [ "${#FIXTURES[@]}" -lt 80 ]; then
  echo "FAIL: found ${#FIXTURES[@]} fixtures, expected at least 80 (run from the repository root)"
  exit 1
fi

# record FILE ARGS...: appends one run of cuwheel ARGS to FILE.
runs=0
record() {
  local file="$1"
  shift
  {
    printf '### cuwheel %s\n' "$*"
    "$CUWHEEL" "$@" 2>"$WORK/err"
    printf '### exit %d\n' "$?"
    if [ -s "$WORK/err" ]; then printf '### stderr\n'; cat "$WORK/err"; fi
  } >>"$file"
  runs=$((runs + 1))
}

for kind in list show check; do : >"$WORK/$kind.txt"; done
for f in "${FIXTURES[@]}"; do
  record "$WORK/list.txt" list "$f"
  record "$WORK/list.txt" list --format json "$f"
  record "$WORK/show.txt" show "$f"
  record "$WORK/show.txt" show --format json "$f"
  # check runs under the built-in policy: no policy file is searched for
  # above a fixture (tests/fixtures has none), so the result is the same
  # wherever the checkout lives.
  record "$WORK/check.txt" check "$f"
  record "$WORK/check.txt" check --format json "$f"
done
# The fixture folders as inputs (walked member by member, RECORD owners).
for d in tests/fixtures/check/loading tests/fixtures/check/wheel tests/fixtures/check/device; do
  record "$WORK/check.txt" check "$d"
  record "$WORK/show.txt" show "$d"
done
expected_runs=$((6 * ${#FIXTURES[@]} + 6))
if [ "$runs" -ne "$expected_runs" ]; then
  echo "FAIL: made $runs runs, expected $expected_runs"
  exit 1
fi

if [ "$MODE" = "--update" ]; then
  mkdir -p "$GOLDEN"
  for kind in list show check; do cp "$WORK/$kind.txt" "$GOLDEN/$kind.txt"; done
  echo "recorded $runs runs of ${#FIXTURES[@]} fixtures into $GOLDEN"
  exit 0
fi

pass=0
fail=0
for kind in list show check; do
  n=$(grep -c '^### cuwheel ' "$GOLDEN/$kind.txt" 2>/dev/null || echo 0)
  m=$(grep -c '^### cuwheel ' "$WORK/$kind.txt")
  if [ "$n" -ne "$m" ]; then
    echo "FAIL: $GOLDEN/$kind.txt holds $n runs, this run made $m (re-record with --update if fixtures changed)"
    fail=$((fail + 1))
  elif diff -u "$GOLDEN/$kind.txt" "$WORK/$kind.txt" >"$WORK/$kind.diff"; then
    pass=$((pass + 1))
  else
    echo "FAIL: cuwheel $kind output differs from $GOLDEN/$kind.txt:"
    head -n 60 "$WORK/$kind.diff"
    fail=$((fail + 1))
  fi
done
echo "snapshot: $runs runs of ${#FIXTURES[@]} fixtures compared"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
