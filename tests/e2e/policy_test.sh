#!/usr/bin/env bash
# End-to-end tests of `cuwheel policy`: valid and invalid policies in
# pyproject.toml and cuwheel.toml, the [matrix] and [release] tables read by
# their own loaders, a pyproject.toml without [tool.cuwheel], the search
# from the current folder, every file validated in one run.
#
# Usage: tests/e2e/policy_test.sh path/to/cuwheel
# Prints one line per failure and ends with "N passed, M failed".
set -u

CUWHEEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
FIXTURES=$(cd "$(dirname "$0")/../fixtures" && pwd)
. "$(dirname "$0")/common.sh"

run() {
  rc=0
  "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
}
expect_rc() { [ "$rc" = "$1" ] && ok || bad "$2: exit status $rc, expected $1 ($(head -c 300 "$WORK/err"))"; }
expect_out() { grep -qF -- "$1" "$WORK/out" && ok || bad "$2: stdout lacks '$1' ($(head -c 300 "$WORK/out"))"; }
expect_err() { grep -qF -- "$1" "$WORK/err" && ok || bad "$2: stderr lacks '$1' ($(head -c 300 "$WORK/err"))"; }

mkdir -p "$WORK/good" "$WORK/good/sub" "$WORK/plain" "$WORK/typo" "$WORK/matrix" "$WORK/badmatrix" "$WORK/value"
printf '[project]\nname = "k"\n\n[tool.cuwheel]\ncuda-major = 12\nsass = ["sm_80", "sm_90"]\nmin-driver = "525.60.13"\n' \
  >"$WORK/good/pyproject.toml"
printf '[project]\nname = "plain"\n' >"$WORK/plain/pyproject.toml"
printf 'cuda-major = 12\nsas = ["sm_80"]\n' >"$WORK/typo/cuwheel.toml"
printf '[tool.cuwheel]\nmin-driver = "1.2.3.4"\n' >"$WORK/value/pyproject.toml"
cp "$FIXTURES/matrix/policy.toml" "$WORK/matrix/cuwheel.toml"
sed 's/^python = /pythn = /' "$FIXTURES/matrix/policy.toml" >"$WORK/badmatrix/cuwheel.toml"

run policy "$WORK/good/pyproject.toml"
expect_rc 0 "a valid policy"; expect_out "pyproject.toml: valid policy (check)" "a valid policy is said so"
run policy "$WORK/plain/pyproject.toml"
expect_rc 0 "no [tool.cuwheel]"; expect_err "no [tool.cuwheel] table (nothing to validate)" "nothing to validate is said"
[ ! -s "$WORK/out" ] && ok || bad "no [tool.cuwheel]: nothing on stdout claims a valid policy"
run policy "$WORK/typo/cuwheel.toml"
expect_rc 2 "an unknown key"; expect_err 'cuwheel.toml:2: unknown key "sas" (did you mean "sass"?)' "the key, line and suggestion"
run policy "$WORK/value/pyproject.toml"
expect_rc 2 "a bad value"; expect_err "1.2.3.4" "the value is named"
run policy "$WORK/matrix/cuwheel.toml"
expect_rc 0 "a matrix table"; expect_out "valid policy (check, matrix)" "the matrix table is validated"
run policy "$WORK/badmatrix/cuwheel.toml"
expect_rc 2 "a bad matrix table"; expect_err 'unknown key "pythn" in [matrix]' "matrix's own loader"
# Every file in one run, the bad ones named, the good one still reported.
run policy "$WORK/typo/cuwheel.toml" "$WORK/missing.toml" "$WORK/good/pyproject.toml"
expect_rc 2 "several files"; expect_err "missing.toml: not a policy file" "the missing file"
expect_out "good/pyproject.toml: valid policy" "later files still validated"
# No file: the one check would use, searched from the current folder up.
rc=0; (cd "$WORK/good/sub" && "$CUWHEEL" policy >"$WORK/out" 2>"$WORK/err") || rc=$?
expect_rc 0 "search from a subfolder"; expect_out "good/pyproject.toml: valid policy" "the parent's policy is found"
rc=0; (cd "$WORK/plain" && "$CUWHEEL" policy >"$WORK/out" 2>"$WORK/err") || rc=$?
expect_rc 0 "no policy anywhere"; expect_err "the built-in policy applies" "no policy is said"
# Tables that are not tables: refused as check, matrix and release refuse them.
mkdir -p "$WORK/types1" "$WORK/types2" "$WORK/types3"
printf 'release = "x"\n' >"$WORK/types1/cuwheel.toml"
run policy "$WORK/types1/cuwheel.toml"
expect_rc 2 "release not a table"; expect_err "cuwheel.toml:1: release must be a table" "release named"
printf '[tool]\ncuwheel = 5\n' >"$WORK/types2/pyproject.toml"
run policy "$WORK/types2/pyproject.toml"
expect_rc 2 "tool.cuwheel not a table"; expect_err "pyproject.toml:2: tool.cuwheel must be a table" "tool.cuwheel named"
printf '[tool.cuwheel]\nmatrix = 3\n' >"$WORK/types3/pyproject.toml"
run policy "$WORK/types3/pyproject.toml"
expect_rc 2 "matrix not a table"; expect_err "matrix must be a table ([tool.cuwheel.matrix])" "matrix named"
# Over 16 MiB: refused, also when the search finds it (it was skipped, and
# the built-in policy used as if there were none).
mkdir -p "$WORK/huge"
python3 -c "import sys; open(sys.argv[1], 'w').write('[tool.cuwheel]\ncuda-major = 13\n' + ('#' + 'y' * 99 + '\n') * 170000)" \
  "$WORK/huge/pyproject.toml"
run policy "$WORK/huge/pyproject.toml"
expect_rc 2 "a policy over 16 MiB"; expect_err "a policy file is at most 16 MiB" "the size is named"
rc=0; (cd "$WORK/huge" && "$CUWHEEL" check "$FIXTURES/bin/libplain.so" >"$WORK/out" 2>"$WORK/err") || rc=$?
expect_rc 2 "check finds the policy over 16 MiB"; expect_err "a policy file is at most 16 MiB" "check names it"
rm -f "$WORK/huge/pyproject.toml"
# Hostile: not TOML, a folder, binary bytes.
printf '[tool.cuwheel\n' >"$WORK/broken.toml"
run policy "$WORK/broken.toml"
expect_rc 2 "not TOML"; expect_err "broken.toml" "the file is named"
run policy "$WORK/good"
expect_rc 2 "a folder"
head -c 300 /dev/urandom >"$WORK/random.toml"
run policy "$WORK/random.toml"
expect_rc 2 "random bytes"

finish
