#!/usr/bin/env bash
# End-to-end tests of `cuwheel matrix` on the generator outputs in
# tests/fixtures/matrix/: exit statuses, the {"include": [...]} output, the
# JSON document, guard messages, policy discovery and errors, --toolkit.
#
# Usage: tests/e2e/matrix_test.sh path/to/cuwheel
# Prints one line per failure and ends with "N passed, M failed".
set -u

CUWHEEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIX=$ROOT/tests/fixtures/matrix
. "$(dirname "$0")/common.sh"

# run ARGS...: runs cuwheel, stdout in $WORK/out, stderr in $WORK/err, status in $rc.
run() {
  rc=0
  "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
}
expect_rc() { [ "$rc" = "$1" ] && ok || bad "$2: exit status $rc, expected $1 ($(head -c 300 "$WORK/err"))"; }
expect_err() { grep -qF -- "$1" "$WORK/err" && ok || bad "$2: stderr lacks '$1' ($(head -c 300 "$WORK/err"))"; }
# py EXPR: evaluates a Python expression over d = the JSON on stdout; must be true.
py() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$WORK/out" 2>/dev/null && ok ||
    bad "$2: JSON check failed: $1"
}

P=(--policy "$FIX/policy.toml")

# 1. The release matrix: 41 generator rows -> 24 (3 trains x 4 Pythons x 2 architectures).
run matrix "${P[@]}" "$FIX/generator-linux.json"
expect_rc 0 "release matrix"
py 'len(d["include"]) == 24' "release matrix row count"
py 'sorted({r["desired_cuda"] for r in d["include"]}) == ["cu126","cu130","cu132"]' "release trains"
py 'sorted({r["python_version"] for r in d["include"]}) == ["3.10","3.11","3.12","3.13"]' "release pythons"
py 'all("jetpack" not in r["container_image"] for r in d["include"])' "no jetson rows"
py 'all(set(r) >= {"build_name","validation_runner","installation"} for r in d["include"])' "fields pass through"
[ "$(wc -l <"$WORK/out")" = 1 ] && ok || bad "text output is one line (for \$GITHUB_OUTPUT)"
expect_err "41 rows in, 24 kept, 17 dropped" "summary line"
expect_err "jetson is deliberately empty: published PyTorch stopped" "jetson reason"

# stdin, --output (atomic file), the same result.
run matrix "${P[@]}" - <"$FIX/generator-linux.json"
expect_rc 0 "stdin"
run matrix "${P[@]}" "$FIX/generator-linux.json" --output "$WORK/m.json"
expect_rc 0 "--output"
[ -s "$WORK/m.json" ] && [ ! -s "$WORK/out" ] && ok || bad "--output writes the file, not stdout"

# 2. Pull-request mode: the policy's representative row.
run matrix "${P[@]}" "$FIX/generator-linux.json" --pr
expect_rc 0 "pr"
py 'len(d["include"]) == 1 and d["include"][0]["build_name"] == "manywheel-py3_12-cuda13_0"' "pr representative"

# 3. Per-architecture workflow.
run matrix "${P[@]}" "$FIX/generator-linux.json" --arch aarch64
expect_rc 0 "aarch64"
py 'len(d["include"]) == 12 and all(r["gpu_arch_type"] == "cuda-aarch64" for r in d["include"])' "aarch64 rows"

# 4. Jetson requested: fails with its own reason, not the generic message.
run matrix "${P[@]}" "$FIX/generator-linux.json" --arch jetson
expect_rc 1 "jetson requested"
expect_err "error[empty-matrix]: $FIX/generator-linux.json: jetson rows are deliberately empty: published PyTorch" "jetson empty reason"
[ ! -s "$WORK/out" ] && ok || bad "no matrix on stdout when a guard fires"

# 5. Every row guard on the broken generator output.
run matrix "${P[@]}" "$FIX/generator-broken.json" --arch x86_64 --format sarif
expect_rc 1 "broken rows, sarif"
py '{"CW503", "CW504"} <= {r["ruleId"] for r in d["runs"][0]["results"]} and all(r["id"].startswith("CW5") for r in d["runs"][0]["tool"]["driver"]["rules"])' "broken rows, sarif"
py 'any(l.get("logicalLocations", [{}])[0].get("name") == "row 2" for r in d["runs"][0]["results"] for l in r["locations"])' "broken rows, sarif row"
run matrix "${P[@]}" "$FIX/generator-broken.json" --arch x86_64 --format github
expect_rc 1 "broken rows, github"
grep -qF "::error file=$FIX/generator-broken.json,title=missing-python::" "$WORK/out" && ok || bad "broken rows, github: $(head -c 300 "$WORK/out")"
run matrix "${P[@]}" "$FIX/generator-linux.json" --format sarif -o "$WORK/m.json"
expect_rc 0 "release matrix, sarif"
py 'd["runs"][0]["results"] == []' "release matrix, sarif: no results"
python3 -c 'import json,sys; sys.exit(0 if len(json.load(open(sys.argv[1]))["include"]) == 24 else 1)' "$WORK/m.json" && ok ||
  bad "release matrix, sarif: -o FILE lacks the 24 rows"
run matrix "${P[@]}" "$FIX/generator-linux.json" --format github -o -
expect_rc 2 "github report and matrix both on stdout"
expect_err "writes its report on stdout" "github report and matrix both on stdout"
for o in /dev/fd/1 /proc/self/fd/1; do
  run matrix "${P[@]}" "$FIX/generator-linux.json" --format sarif -o "$o"
  expect_rc 2 "sarif report and matrix both on stdout ($o)"
done
run matrix "${P[@]}" "$FIX/generator-broken.json" --arch x86_64
expect_rc 1 "broken rows"
expect_err "error[missing-cuda-version]: $FIX/generator-broken.json: row 2 (manywheel-py3_11-cuda13_0): no desired_cuda" "missing cuda version"
expect_err "error[missing-python]: $FIX/generator-broken.json: row 3 (manywheel-py3_10-cuda13_0): no python_version" "missing python"
expect_err "error[python-not-allowed]: $FIX/generator-broken.json: row 4 (manywheel-py3_9-cuda13_0): python 3.9 is not in the allowlist" "python allowlist"
expect_err "error[unknown-build]: $FIX/generator-broken.json: row 5" "unknown build"
expect_err "error[cuda-version-mismatch]: $FIX/generator-broken.json: row 6" "version mismatch"
expect_err "error[missing-combination]: $FIX/generator-broken.json: the generator no longer offers x86_64 cu132 for python 3.10, 3.11, 3.12, 3.13" "missing combination"

# 6. cpu, cpu-aarch64, rocm6.2, cu118, cu125: each classified, none a guard.
run matrix --trains x86_64=cu126,cu130 --python 3.10,3.12 "$FIX/generator-all-builds.json" -v
expect_rc 0 "all builds"
py 'sorted(r["desired_cuda"] for r in d["include"]) == ["cu126","cu126","cu130","cu130"]' "only cu126/cu130 kept"
expect_err "4 x CPU build" "cpu and cpu-aarch64 rows"
expect_err "2 x train cu118 is not built for x86_64" "cu118"
expect_err "2 x train cu125 is not built for x86_64" "cu125"
expect_err "2 x ROCm build rocm6.2" "rocm"
grep -q '"pu"\|train pu' "$WORK/err" && bad "cpu must never become pu" || ok

# 7. JSON document.
run matrix "${P[@]}" "$FIX/generator-broken.json" --format json
expect_rc 1 "json findings"
py 'd["schema"] == 1 and d["tool"].startswith("cuwheel") and d["command"] == "matrix" and d["ok"] is False' "json envelope"
py '{f["rule"] for f in d["findings"]} >= {"missing-cuda-version","missing-python","python-not-allowed","missing-combination"}' "json findings"
py 'any(f["row"] == 4 for f in d["findings"] if f["rule"] == "python-not-allowed")' "json finding row"
run matrix "${P[@]}" "$FIX/generator-linux.json" --format json
expect_rc 0 "json ok"
py 'd["ok"] and d["rows_in"] == 41 and d["rows_kept"] == 24 and len(d["matrix"]["include"]) == 24 and len(d["dropped"]) == 17' "json counts"

# 8. Generator spelling: "enabled" is not "enable".
run matrix "${P[@]}" "$FIX/generator-linux.json" --generator-input with-cuda=enabled
expect_rc 1 "enabled spelling"
expect_err 'error[generator-spelling]' "spelling guard"
expect_err 'with-cuda = "enabled"' "spelling names the input"

# 9. Field renames.
run matrix --trains x86_64=cu126,cu130 --python 3.11,3.12 "$FIX/generator-renamed.json" \
  --field desired_cuda=cuda_version --field python_version=python
expect_rc 0 "renamed fields"
py 'len(d["include"]) == 4' "renamed rows kept"
run matrix --trains x86_64=cu126,cu130 --python 3.11,3.12 "$FIX/generator-renamed.json"
expect_rc 1 "without renames"
expect_err "no desired_cuda" "without renames names the field"
run matrix --trains x86_64=cu126 --python 3.12 "$FIX/generator-renamed.json" --field cuda=x
expect_rc 2 "bad --field"

# 10. Policy discovery: [tool.cuwheel.matrix] in pyproject.toml, [matrix] in cuwheel.toml.
mkdir -p "$WORK/proj/sub"
printf '[project]\nname = "x"\n[tool.cuwheel.matrix]\npython = ["3.11", "3.12"]\ntrains = { x86_64 = ["cu130"] }\n' >"$WORK/proj/pyproject.toml"
(cd "$WORK/proj/sub" && "$CUWHEEL" matrix "$FIX/generator-renamed.json" --field desired_cuda=cuda_version --field python_version=python >"$WORK/out" 2>"$WORK/err") && rc=0 || rc=$?
expect_rc 0 "pyproject discovery"
py 'len(d["include"]) == 2' "pyproject policy applied"
printf '[matrix]\npyhton = ["3.12"]\n' >"$WORK/proj/cuwheel.toml"
(cd "$WORK/proj/sub" && "$CUWHEEL" matrix "$FIX/generator-linux.json" >"$WORK/out" 2>"$WORK/err") && rc=0 || rc=$?
expect_rc 2 "bad cuwheel.toml"
expect_err "cuwheel.toml:2: unknown key \"pyhton\" in [matrix] (did you mean \"python\"?)" "did you mean"

# 11. Unreadable input and usage errors: exit 2, the file named.
run matrix "${P[@]}" "$WORK/missing.json"
expect_rc 2 "missing input"
expect_err "missing.json" "missing input named"
printf '{"include": [' >"$WORK/trunc.json"
run matrix "${P[@]}" "$WORK/trunc.json"
expect_rc 2 "truncated JSON"
expect_err "trunc.json: not JSON" "truncated named"
printf '[1, 2]' >"$WORK/ints.json"
run matrix "${P[@]}" "$WORK/ints.json"
expect_rc 2 "rows not objects"
expect_err "row 0 is not an object" "row index"
# A key written twice in one row: the file, the row and the key are named.
printf '[{"desired_cuda": "cu130", "python_version": "3.12"},\n {"desired_cuda": "cu130", "gpu_arch_type": "cuda", "gpu_arch_version": "13.0", "python_version": "3.12", "desired_cuda": "cpu"}]\n' >"$WORK/dup.json"
run matrix "${P[@]}" "$WORK/dup.json"
expect_rc 2 "duplicate key"
expect_err "dup.json: row 1: duplicate key \"desired_cuda\"" "duplicate key named with its row"
[ ! -s "$WORK/out" ] && ok || bad "no matrix on stdout for a duplicate key"
run matrix "${P[@]}" --format json "$WORK/dup.json"
expect_rc 2 "duplicate key (json)"
py 'd["ok"] is False and d["unreadable"][0]["where"].endswith("dup.json") and "include" not in d' "unreadable input in JSON"
# ... and as reports (matrix/unreadable, CW511): SARIF says the run failed.
run matrix "${P[@]}" --format github "$WORK/trunc.json"
expect_rc 2 "truncated JSON (github)"
grep -q "^::error file=$WORK/trunc.json,title=unreadable::$WORK/trunc.json: not JSON" "$WORK/out" && ok || bad "unreadable annotation: $(head -c 300 "$WORK/out")"
run matrix "${P[@]}" --format sarif "$WORK/missing.json"
expect_rc 2 "missing input (sarif)"
py 'd["runs"][0]["invocations"][0]["executionSuccessful"] is False and [r["ruleId"] for r in d["runs"][0]["results"]] == ["CW511"]' "unreadable input in SARIF"
run matrix "$FIX/generator-linux.json" --python 3.12 --format github
expect_rc 2 "no trains (github)"
[ ! -s "$WORK/out" ] && ok || bad "a usage error printed a report: $(head -c 300 "$WORK/out")"
printf '[matrix]\npython = ["3.12"]\ntrains = { x86_64 = ["cu130"] }\npython = ["3.13"]\n' >"$WORK/dup.toml"
run matrix --policy "$WORK/dup.toml" "$FIX/generator-linux.json"
expect_rc 2 "duplicate policy key"
expect_err "dup.toml:4:" "duplicate policy key names its line"
run matrix "$FIX/generator-linux.json" --python 3.12
expect_rc 2 "no trains"
run matrix "${P[@]}" "$FIX/generator-linux.json" --format yaml
expect_rc 2 "bad format"

# 12. --toolkit: a cuda.h folder and a fake nvcc; the major must match the row.
mkdir -p "$WORK/cuda13/include" "$WORK/cuda12/bin"
echo '#define CUDA_VERSION 13000' >"$WORK/cuda13/include/cuda.h"
printf '#!/bin/sh\necho "Cuda compilation tools, release 12.6, V12.6.85"\n' >"$WORK/cuda12/bin/nvcc"
chmod +x "$WORK/cuda12/bin/nvcc"
ROW='{"python_version":"3.12","gpu_arch_type":"cuda","gpu_arch_version":"13.0","desired_cuda":"cu130","container_image":"pytorch/manylinux2_28-builder:cuda13.0"}'
echo "$ROW" >"$WORK/row.json"
run matrix "${P[@]}" --toolkit "$WORK/cuda13" "$WORK/row.json"
expect_rc 0 "toolkit 13 for a cu130 row"
run matrix "${P[@]}" --toolkit "$WORK/cuda12" "$WORK/row.json"
expect_rc 1 "toolkit 12 for a cu130 row"
expect_err "error[toolkit-mismatch]" "toolkit guard"
expect_err "is CUDA 12.6" "toolkit version named"
run matrix --trains x86_64=cu130 --python 3.12 --toolkit "$WORK/nowhere" "$WORK/row.json"
expect_rc 2 "toolkit missing"
expect_err "$WORK/nowhere: no such file or folder" "toolkit missing named"
# The same readers as `cuwheel identity`: CUDA_VERSION 0 is malformed, not CUDA 0.0.
mkdir -p "$WORK/cuda0/include"
echo '#define CUDA_VERSION 0' >"$WORK/cuda0/include/cuda.h"
run matrix "${P[@]}" --toolkit "$WORK/cuda0" "$WORK/row.json"
expect_rc 2 "CUDA_VERSION 0"
expect_err "$WORK/cuda0/include/cuda.h: #define CUDA_VERSION 0: not of the form major*1000 + minor*10" "CUDA_VERSION 0 named"
run identity show --toolkit "$WORK/cuda0"
[ "$rc" != 0 ] && ok || bad "identity refuses CUDA_VERSION 0 too"
run matrix "${P[@]}" --toolkit "$WORK/cuda12/bin/nvcc" "$WORK/row.json"
expect_rc 1 "toolkit given as the nvcc executable"
expect_err "$WORK/cuda12/bin/nvcc --version is CUDA 12.6" "nvcc source named"

# 12. The review's cases.
# A second --trains for one architecture is a usage error naming both.
run matrix "${P[@]}" --trains x86_64=cu130 --trains x86_64=cu126 "$FIX/generator-linux.json"
expect_rc 2 "--trains twice for one architecture"
expect_err 'error: --trains: "x86_64=cu130" and "x86_64=cu126" both give the trains of x86_64: give one --trains per architecture, e.g. x86_64=cu130,cu126' "--trains twice for one architecture"
run matrix "${P[@]}" --trains x86_64=cu130,cu126 --trains aarch64=cu130 --arch x86_64 "$FIX/generator-linux.json" --format json
expect_rc 0 "--trains once per architecture"
py 'sorted({r["desired_cuda"] for r in d["matrix"]["include"]}) == ["cu126","cu130"]' "--trains once per architecture: both trains"
# A NUL (or any control byte) from the input is escaped, not a cut message.
printf '[{"desired_cuda":"cu130\\u0000x","gpu_arch_type":"cuda","gpu_arch_version":"13.0","python_version":"3.12","build_name":"b\\u001b[31m"}]' >"$WORK/nul.json"
run matrix "${P[@]}" "$WORK/nul.json"
expect_rc 1 "NUL in desired_cuda"
expect_err 'row 0 (b\x1b[31m): desired_cuda "cu130\x00x" names no build: expected cuNNN' "NUL in desired_cuda"
if LC_ALL=C grep -q "$(printf '\033')" "$WORK/err"; then bad "an ESC from the input reached stderr"; else ok; fi
run matrix "${P[@]}" "$WORK/nul.json" --format json
py 'd["findings"][0]["message"].startswith("row 0 (b\\x1b[31m): desired_cuda \"cu130\\x00x\"")' "NUL in desired_cuda: JSON message"
# The summary accounts for every row: kept + dropped + failed a guard.
run matrix "${P[@]}" "$FIX/generator-broken.json"
expect_rc 1 "summary with guards"
python3 - "$WORK/err" <<'PY' && ok || bad "summary does not add up: $(grep 'rows in' "$WORK/err")"
import re, sys
m = re.search(r"matrix: (\d+) rows in, (\d+) kept, (\d+) dropped, (\d+) failed a guard", open(sys.argv[1]).read())
assert m and int(m[1]) == int(m[2]) + int(m[3]) + int(m[4]) and int(m[4]) > 0
PY
run matrix "${P[@]}" "$FIX/generator-broken.json" --format json
py 'd["rows_in"] == d["rows_kept"] + d["rows_dropped"] + d["rows_failed"] and d["rows_failed"] >= 5' "json counts add up"
# -o FILE: a failed run leaves no FILE (a guard, or unreadable input).
echo '{"include": ["stale"]}' >"$WORK/m.json"
run matrix "${P[@]}" "$FIX/generator-linux.json" --arch jetson -o "$WORK/m.json"
expect_rc 1 "-o when a guard fires"
[ ! -e "$WORK/m.json" ] && ok || bad "-o: a stale matrix survived a guard"
expect_err "removed the earlier $WORK/m.json" "-o when a guard fires says so"
echo '{"include": ["stale"]}' >"$WORK/m.json"
run matrix "${P[@]}" "$WORK/missing.json" -o "$WORK/m.json"
expect_rc 2 "-o with unreadable input"
[ ! -e "$WORK/m.json" ] && ok || bad "-o: a stale matrix survived unreadable input"
# An expected combination the policy does not build is a policy error with its line.
for bad_expect in 'arch = "sparc", train = "cu130", python = "3.12"' 'arch = "x86_64", train = "cu999", python = "3.12"' \
                  'arch = "x86_64", train = "cu130", python = "2.7"'; do
  sed "s/^representative = .*/&\nexpect = [{ $bad_expect }]/" "$FIX/policy.toml" >"$WORK/expect.toml"
  line=$(grep -n '^expect = ' "$WORK/expect.toml" | cut -d: -f1)
  run matrix --policy "$WORK/expect.toml" "$FIX/generator-linux.json"
  expect_rc 2 "expect { $bad_expect }"
  expect_err "error: $WORK/expect.toml:$line: expect " "expect { $bad_expect } names its line"
done
sed 's/^representative = .*/&\nexpect = [{ arch = "aarch64", train = "cu132", python = "3.13" }]/' "$FIX/policy.toml" >"$WORK/expect.toml"
run matrix --policy "$WORK/expect.toml" "$FIX/generator-linux.json"
expect_rc 0 "an expect the policy builds"

# 13. Inputs are never modified.
sum1=$(sha256sum "$FIX/generator-linux.json" "$FIX/policy.toml")
run matrix "${P[@]}" "$FIX/generator-linux.json"
[ "$sum1" = "$(sha256sum "$FIX/generator-linux.json" "$FIX/policy.toml")" ] && ok || bad "inputs modified"

# Inputs through pipes: process substitution gives /dev/fd/N.
run matrix --policy <(cat "$FIX/policy.toml") <(cat "$FIX/generator-linux.json")
expect_rc 0 "policy and matrix through pipes"
# A Python version written as a JSON number is named as such.
echo '[{"desired_cuda": "cu130", "gpu_arch_type": "cuda", "gpu_arch_version": "13.0", "python_version": 3.12}]' >"$WORK/num.json"
run matrix "${P[@]}" "$WORK/num.json"
expect_rc 1 "python_version as a number"
expect_err 'python_version is not a string' "python_version as a number"

# Nesting deeper than 128 levels is refused before any recursive code runs
# (80,000 levels used to overflow the stack: exit 139), and -o is removed.
python3 -c "print('[' + '{\"a\":'*80000 + '1' + '}'*80000 + ']')" >"$WORK/deep.json"
echo '{"include":[{"stale":1}]}' >"$WORK/deep-out.json"
run matrix "${P[@]}" -o "$WORK/deep-out.json" "$WORK/deep.json"
expect_rc 2 "80,000 nested levels"
expect_err "deep.json: nested deeper than 128 levels at byte 636" "80,000 nested levels names the byte"
[ ! -e "$WORK/deep-out.json" ] && ok || bad "-o: a stale matrix survived a too-deep input"
# Brackets inside strings do not count.
python3 -c "import json; print(json.dumps([{'desired_cuda':'cu130','gpu_arch_type':'cuda','gpu_arch_version':'13.0','python_version':'3.12','x':'['*500}]))" >"$WORK/brackets.json"
run matrix "${P[@]}" "$WORK/brackets.json"
[ "$rc" != 2 ] && ok || bad "brackets inside a string counted as nesting ($(head -c 300 "$WORK/err"))"

# -o naming the input (same path, or the same file through a link) is a
# usage error before anything is read or written: the input survives.
cp "$FIX/generator-linux.json" "$WORK/in.json"
sum_in=$(sha256sum <"$WORK/in.json")
run matrix "${P[@]}" --toolkit /nonexistent -o "$WORK/in.json" "$WORK/in.json"
expect_rc 2 "-o naming the input"
expect_err "is the matrix input" "-o naming the input"
ln -s in.json "$WORK/in-link.json"
run matrix "${P[@]}" -o "$WORK/in-link.json" "$WORK/in.json"
expect_rc 2 "-o naming the input through a link"
[ "$sum_in" = "$(sha256sum <"$WORK/in.json")" ] && ok || bad "-o naming the input: the input was changed or removed"
cp "$FIX/policy.toml" "$WORK/pol.toml"
run matrix --policy "$WORK/pol.toml" -o "$WORK/pol.toml" "$FIX/generator-linux.json"
expect_rc 2 "-o naming the policy"
[ -s "$WORK/pol.toml" ] && ok || bad "-o naming the policy: the policy was removed"

finish
