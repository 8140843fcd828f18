# Shared by the end-to-end suites that source it: a temporary folder of the
# suite's own ($WORK, removed on exit), the pass/fail counters, ok/bad, and
# finish (the closing line and the exit status).
# Usage, at the top of a suite:  . "$(dirname "$0")/common.sh"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
}
