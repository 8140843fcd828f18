# Shared by the end-to-end suites that source it: a temporary folder of the
# suite's own ($WORK, removed on exit), the pass/fail counters, ok/bad, and
# finish (the closing line and the exit status).
# Usage, at the top of a suite:  . "$(dirname "$0")/common.sh"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# The suites run from $WORK/root, a mirror of the source tree's top level
# (one symlink per entry) without its pyproject.toml: relative paths such as
# tests/fixtures/... work as from the root, while the policy search of
# check/matrix/release (the nearest cuwheel.toml or [tool.cuwheel]) finds
# none, so the project's own dogfood policy never applies to the fixtures.
_cw_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir "$WORK/root"
for _cw_entry in "$_cw_root"/* "$_cw_root"/.[!.]*; do
  case "$(basename "$_cw_entry")" in pyproject.toml|cuwheel.toml|.git) continue ;; esac
  [ -e "$_cw_entry" ] && ln -s "$_cw_entry" "$WORK/root/$(basename "$_cw_entry")"
done
cd "$WORK/root" || exit 2
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
}
