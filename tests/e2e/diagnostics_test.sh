#!/usr/bin/env bash
# End-to-end tests of the diagnostic registry's commands (docs/diagnostics.md):
# `cuwheel rules --all` lists every id of every command, `cuwheel rule`
# prints the page of an id, a code or a bare name (and names the other
# command's id of a shared name), and refuses an unknown one with a
# suggestion. The commands' SARIF and GitHub output is tested in their own
# suites (matrix, arch, release, toolkit_fetch).
#
# Usage: tests/e2e/diagnostics_test.sh path/to/cuwheel
set -u
CUWHEEL=$1
. "$(dirname "$0")/common.sh"

run() {
  rc=0
  "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
}
has_out() { grep -qF -- "$1" "$WORK/out" && ok || bad "$2: stdout lacks '$1' ($(head -c 300 "$WORK/out"))"; }
has_err() { grep -qF -- "$1" "$WORK/err" && ok || bad "$2: stderr lacks '$1' ($(head -c 300 "$WORK/err"))"; }
status() { [ "$rc" = "$1" ] && ok || bad "$2: exit status $rc, expected $1"; }

# The version, long and short.
run --version
status 0 "--version"
has_out "cuwheel " "--version"
cp "$WORK/out" "$WORK/version"
run -V
status 0 "-V"
cmp -s "$WORK/out" "$WORK/version" && ok || bad "-V prints what --version prints"

run rules --all
status 0 "rules --all"
n_all=$(wc -l <"$WORK/out")
for id in CW101 CW401 "CW502  matrix   matrix/empty-matrix" "CW607  release  release/tag-mismatch" \
          "CW703  arch     arch/deprecated-arch" "CW809  toolkit  toolkit/sums-missing-file" \
          "CW814  toolkit  toolkit/lock-out-of-date" "CW901  identity identity/stale-build" "CW913  diff     diff/duplicate-member"; do
  has_out "$id" "rules --all"
done
run rules
n_check=$(wc -l <"$WORK/out")
# One id per page of docs/rules/<command>/ (the unit tests hold pages and ids together).
n_pages=$(ls docs/rules/*/*.md | wc -l)
[ "$n_pages" -ge 44 ] && ok || bad "docs/rules/*/*.md: $n_pages pages (run from the repository root)"
[ "$n_all" -eq $((n_check + n_pages)) ] && ok || bad "rules --all: $n_all lines, expected the $n_check check rules + $n_pages"

# An id, its code and its bare name print the same page.
for name in matrix/empty-matrix CW502 empty-matrix; do
  run rule "$name"
  status 0 "rule $name"
  [ "$(head -1 "$WORK/out")" = "# empty-matrix (CW502)" ] && ok || bad "rule $name: first line '$(head -1 "$WORK/out")'"
  has_out "## How to fix" "rule $name"
done

# A name of two commands: check's page, and a note naming the other id.
run rule tag-mismatch
status 0 "rule tag-mismatch"
[ "$(head -1 "$WORK/out")" = "# tag-mismatch (CW302)" ] && ok ||
  bad "rule tag-mismatch: first line '$(head -1 "$WORK/out")'"
has_err "release/tag-mismatch (CW607)" "rule tag-mismatch"
run rule release/tag-mismatch
[ "$(head -1 "$WORK/out")" = "# tag-mismatch (CW607)" ] && ok || bad "rule release/tag-mismatch: '$(head -1 "$WORK/out")'"
[ ! -s "$WORK/err" ] && ok || bad "rule release/tag-mismatch: stderr '$(cat "$WORK/err")'"
run rule unreadable
status 0 "rule unreadable"
has_out "unreadable (input error, not a rule)" "rule unreadable"
has_err "release/unreadable (CW611)" "rule unreadable"

# Unknown: exit 2 with the nearest id.
run rule matrix/empty-matrx
status 2 "unknown id"
has_err 'unknown rule "matrix/empty-matrx" (did you mean "matrix/empty-matrix"?)' "unknown id"

finish
