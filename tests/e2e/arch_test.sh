#!/usr/bin/env bash
# End-to-end tests of `cuwheel arch`: conversions between the four forms,
# the named-form refusals, validation against a CUDA release, the release
# list, JSON output, exit statuses.
#
# Usage: tests/e2e/arch_test.sh path/to/cuwheel
# Prints one line per failure and ends with "N passed, M failed".
set -u

CUWHEEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/common.sh"

run() {
  rc=0
  "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
}
expect_rc() { [ "$rc" = "$1" ] && ok || bad "$2: exit status $rc, expected $1 ($(head -c 300 "$WORK/err"))"; }
expect_out() { [ "$(cat "$WORK/out")" = "$1" ] && ok || bad "$2: stdout '$(cat "$WORK/out")', expected '$1'"; }
expect_err() { grep -qF -- "$1" "$WORK/err" && ok || bad "$2: stderr lacks '$1' ($(head -c 300 "$WORK/err"))"; }
py() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$WORK/out" 2>/dev/null && ok ||
    bad "$2: JSON check failed: $1"
}

# 1. Conversions (input form detected).
run arch "7.5;8.0;9.0+PTX;9.0a" --to cmake
expect_rc 0 "torch -> cmake"; expect_out "75-real;80-real;90;90a-real" "torch -> cmake"
run arch "75-real;80-real;90" --to torch
expect_out "7.5;8.0;9.0+PTX" "cmake -> torch"
run arch "sm_75,sm_80,compute_90" --to gencode
expect_out "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90" "list -> gencode"
run arch --to list -- "-gencode arch=compute_90,code=[sm_90,compute_90] -gencode=arch=compute_75,code=sm_75"
expect_rc 0 "gencode after --"; expect_out "sm_75,sm_90,compute_90" "gencode -> list"
echo "-gencode arch=compute_120,code=sm_120" | "$CUWHEEL" arch - --to torch >"$WORK/out" 2>"$WORK/err" && rc=0 || rc=$?
expect_rc 0 "stdin"; expect_out "12.0" "stdin gencode -> torch"
run arch --from cmake "90" --to list
expect_out "sm_90,compute_90" "--from cmake"
run arch --from list "7.5" --to list
expect_rc 2 "--from list on a torch list"
expect_err '"7.5"' "wrong form names the entry"

# 2. Named forms: a clear error, exit 2.
for n in Hopper "Ampere+Tegra" native all all-major; do
  run arch "$n"
  expect_rc 2 "named $n"
  expect_err "name the architectures explicitly" "named $n message"
  expect_err "\"$n\"" "named $n quoted"
done

# 3. Validation against a release: each entry named, exit 1.
run arch "5.0;7.5;9.0" --release 13.0
expect_rc 1 "sm_50 on 13.0"
expect_err "error[not-buildable]: sm_50: CUDA 13.0 cannot build it: it was removed in 13.0" "sm_50 removed"
[ ! -s "$WORK/out" ] && ok || bad "no list printed when an entry is rejected"
run arch "5.0;7.5;9.0" --release 12.9
expect_rc 0 "sm_50 on 12.9"
expect_err "warning[deprecated-arch]: sm_50: CUDA 12.9 deprecates it (Maxwell, deprecated since 11.0); CUDA 13.0 cannot build it" "deprecation warning"
run arch "7.5;9.0" --release 12.9
[ ! -s "$WORK/err" ] && ok || bad "no warning for current architectures: $(cat "$WORK/err")"
run arch "10.0;12.0" --release 12.6
expect_rc 1 "sm_100 on 12.6"
expect_err "sm_100: CUDA 12.6 cannot build it: it needs CUDA 12.8 or newer" "sm_100 too new"
expect_err "sm_120: CUDA 12.6 cannot build it" "sm_120 too new"
run arch "10.0f" --release 12.8
expect_rc 1 "f on 12.8"
run arch "10.0f;12.0f" --release 12.9 --to cmake
expect_rc 0 "f on 12.9"; expect_out "100f-real;120f-real" "f targets"
run arch "8.0a"
expect_rc 1 "8.0a undefined"
expect_err "error[unknown-arch]: sm_80a" "8.0a named"
run arch "9.9"
expect_rc 1 "unknown sm"
run arch "8.0" --release 12.7
expect_rc 2 "12.7"
expect_err "12.7 was never released" "12.7 message"

# 4. Release lists.
run arch --release-list --release 13.0 --to torch
expect_rc 0 "release list 13.0"; expect_out "7.5;8.0;8.6;8.9;9.0;10.0;10.3;12.0;12.1+PTX" "release list 13.0"
run arch --release-list --release 12.8 --to cmake
expect_out "75-real;80-real;86-real;89-real;90-real;100-real;120" "release list 12.8"
run arch --release-list --release cu126 --to list
expect_out "sm_52,sm_60,sm_61,sm_70,sm_75,sm_80,sm_86,sm_89,sm_90,compute_90" "release list cu126"
run arch --release-list
expect_rc 2 "release list without release"
run arch --release-list --release 13.0 "8.0"
expect_rc 2 "release list with a list"

# 5. JSON.
run arch "9.0a;10.0+PTX" --release 12.8 --format json
expect_rc 0 "json"
py 'd["schema"] == 1 and d["command"] == "arch" and d["tool"].startswith("cuwheel") and d["ok"]' "json envelope"
py 'd["forms"]["cmake"] == "90a-real;100" and d["forms"]["torch"] == "9.0a;10.0+PTX"' "json forms"
py '[t["sm"] for t in d["targets"]] == ["sm_90a","sm_100"] and d["targets"][1]["ptx"] and d["targets"][0]["family"] == "Hopper"' "json targets"
run arch "sm_50" --release 13.0 --to json
expect_rc 1 "json findings"
py 'd["ok"] is False and d["findings"][0]["rule"] == "not-buildable" and d["findings"][0]["entry"] == "sm_50"' "json finding"
run arch "compute_90" --format json
py 'd["forms"]["torch"] is None and d["forms"]["cmake"] == "90-virtual"' "json unrepresentable form is null"
run arch "compute_90" --to torch
expect_rc 2 "ptx-only as torch"
expect_err "compute_90 without sm_90" "ptx-only message"

# 6. --output writes atomically.
run arch --release-list --release 12.9 --to cmake --output "$WORK/archs.txt"
expect_rc 0 "--output"
[ "$(cat "$WORK/archs.txt")" = "75-real;80-real;86-real;89-real;90-real;100-real;103-real;120-real;121" ] && ok || bad "--output content: $(cat "$WORK/archs.txt")"

# A run that fails leaves no --output FILE (as matrix): an earlier result
# must not pass for this run's.
run arch "sm_99" --output "$WORK/archs.txt"
expect_rc 1 "--output when an entry is rejected"
[ ! -e "$WORK/archs.txt" ] && ok || bad "--output: a stale result survived a rejected list"
expect_err "removed the earlier $WORK/archs.txt" "--output removal is said"
echo stale >"$WORK/archs.txt"
run arch "8.x" --output "$WORK/archs.txt"
expect_rc 2 "--output with an unreadable list"
[ ! -e "$WORK/archs.txt" ] && ok || bad "--output: a stale result survived an unreadable list"
run arch "sm_99" --format json --output "$WORK/archs.json"
expect_rc 1 "--format json --output with a finding"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["ok"] is False else 1)' "$WORK/archs.json" &&
  ok || bad "--format json --output: the document of a failed run is the result and is written"
# Input bytes are escaped in messages: a NUL from stdin, an ESC from the command line.
printf 'sm_80\0x' >"$WORK/nul.txt"
run arch - <"$WORK/nul.txt"
expect_rc 2 "NUL in the list"
expect_err '"sm_80\x00x"' "NUL in the list escaped"
run arch "$(printf 'sm_\033[31m')"
expect_rc 2 "ESC in the list"
expect_err '"sm_\x1b[31m"' "ESC in the list escaped"
if LC_ALL=C grep -q "$(printf '\033')" "$WORK/err"; then bad "an ESC from the input reached stderr"; else ok; fi

# 7. Usage errors.
run arch
expect_rc 2 "no list"
run arch "8.0" --to yaml
expect_rc 2 "bad --to"
run arch "8.x"
expect_rc 2 "bad entry"
expect_err '"8.x"' "bad entry named"

# 8. One exit-status rule: 2 = not readable as an architecture, 1 = well-formed but no such
#    architecture or not buildable by --release.
for a in sm_0 sm_5 sm_99 compute_1000 0.5 99-real sm_80a; do
  run arch "$a"
  expect_rc 1 "well-formed but unknown $a"
  expect_err "error[unknown-arch]" "$a is reported as unknown-arch"
done
run arch sm_0 --format json
expect_rc 1 "sm_0 json"
py 'd["ok"] is False and d["findings"][0]["rule"] == "unknown-arch" and d["findings"][0]["entry"] == "sm_0"' "sm_0 json finding"
run arch -- "-arch=sm_0"
expect_rc 1 "-arch=sm_0"
run arch sm_90 --release 11.7
expect_rc 1 "sm_90 on 11.7 (not buildable)"
expect_err "error[not-buildable]: sm_90: CUDA 11.7 cannot build it" "not-buildable named"
for a in sm_x sm_090 sm_ "8.x" 9x-real; do
  run arch "$a"
  expect_rc 2 "unreadable $a"
  expect_err "\"$a\"" "unreadable $a named"
done
run arch --help
expect_rc 0 "--help"
grep -q "Exit status: 0 ok; 1 an entry is well-formed" "$WORK/out" && ok || bad "--help states the exit-status rule"

# 9. Spelling is the consumer's: a wrong case is refused with the spelling to write.
run arch "8.0;9.0+ptx" --to cmake
expect_rc 2 "9.0+ptx"
expect_err "TORCH_CUDA_ARCH_LIST entry \"9.0+ptx\"" "9.0+ptx named"
expect_err "write '9.0+PTX'" "9.0+ptx hint"
[ ! -s "$WORK/out" ] && ok || bad "no list printed for 9.0+ptx"
run arch "9.0A"
expect_rc 2 "9.0A"; expect_err "write '9.0a'" "9.0A hint"
run arch "80;90-REAL"
expect_rc 2 "90-REAL"; expect_err "write '90-real'" "90-REAL hint"
run arch "120-Virtual"
expect_rc 2 "120-Virtual"; expect_err "write '120-virtual'" "120-Virtual hint"
run arch "SM_90A"
expect_rc 2 "SM_90A"; expect_err "write 'sm_90a'" "SM_90A hint"
# nvcc: "Incompatible code generation requested" for an 'a' PTX to another SASS.
run arch --to list -- "-gencode arch=compute_90a,code=sm_90"
expect_rc 2 "gencode compute_90a -> sm_90"
expect_err '"arch=compute_90a,code=sm_90": arch=compute_90a compiles only to sm_90a, not sm_90' "gencode compute_90a -> sm_90"
[ ! -s "$WORK/out" ] && ok || bad "gencode compute_90a -> sm_90 printed a list"
run arch --to list -- "-gencode arch=compute_100f,code=sm_120f"
expect_rc 2 "gencode compute_100f -> sm_120f"
expect_err "compiles only to its own family" "gencode compute_100f -> sm_120f"
run arch --to list -- "-gencode arch=compute_100f,code=[sm_100,sm_103f]"
expect_rc 0 "gencode compute_100f -> its family"; expect_out "sm_100,sm_103f" "gencode compute_100f -> its family"
run arch -- "-gencode arch=COMPUTE_90,code=SM_90"
expect_rc 2 "gencode upper case"; expect_err "write 'arch=compute_90,code=sm_90'" "gencode hint"
run arch "9.0+PTX;9.0a" --to cmake
expect_rc 0 "exact spellings"; expect_out "90;90a-real" "exact spellings convert"

# The entries' report through the shared renderers (SARIF, GitHub).
run arch "5.0;7.0;9.0;9.9" --from torch --release 13.0 --format sarif
expect_rc 1 "sarif report"
py 'sorted(r["ruleId"] for r in d["runs"][0]["results"]) == ["CW701", "CW702", "CW702"] and all(r["id"].startswith("CW7") for r in d["runs"][0]["tool"]["driver"]["rules"])' "sarif report"
py '"physicalLocation" not in d["runs"][0]["results"][0]["locations"][0]' "sarif report: no file for an argument list"
run arch "7.0;7.5;9.0" --release 12.8 --format github -o "$WORK/list.txt"
expect_rc 0 "github report, deprecated"
expect_out "::warning title=deprecated-arch::sm_70: CUDA 12.8 deprecates it (Volta, deprecated since 12.8); CUDA 13.0 cannot build it" "github report, deprecated"
[ "$(cat "$WORK/list.txt")" = "sm_70,sm_75,sm_90" ] && ok || bad "github report: -o FILE holds '$(cat "$WORK/list.txt")'"
run arch "9.0" --format sarif --to json
expect_rc 2 "sarif with --to json"; expect_err "the JSON document is --format json" "sarif with --to json"
run arch "9.0" --format github -o /dev/stdout
expect_rc 2 "github with -o stdout"; expect_err "writes its report on stdout" "github with -o stdout"

# 8. --scan: lists found in build files, FILE:LINE:COL findings, every file
# scanned though one is missing, nothing found said rather than passed.
mkdir -p "$WORK/src"
cat >"$WORK/src/CMakeLists.txt" <<'EOF'
project(k LANGUAGES CXX CUDA)
# set(CMAKE_CUDA_ARCHITECTURES 35)
set(CMAKE_CUDA_ARCHITECTURES 75 80 86 90)
set_target_properties(k PROPERTIES CUDA_ARCHITECTURES "${ARCHS}")
EOF
cat >"$WORK/src/build.sh" <<'EOF'
export TORCH_CUDA_ARCH_LIST="7.0;8.0;9.0+PTX"
nvcc -gencode arch=compute_100,code=sm_100 -c k.cu
EOF
printf 'TORCH_CUDA_ARCH_LIST: "8.0 9.9"\nCMAKE_CUDA_ARCHITECTURES: native\nTORCH_CUDA_ARCH_LIST: "8.0;9.0+ptx"\n' >"$WORK/src/ci.yml"
printf 'echo nothing here\n' >"$WORK/src/plain.sh"
run arch --scan "$WORK/src/CMakeLists.txt" "$WORK/src/build.sh"
expect_rc 0 "scan of valid lists"; expect_out "" "scan of valid lists prints no finding"
expect_err "3 architecture lists in 2 of 2 files" "scan counts the lists (the variable one skipped)"
run arch --scan --release 13.0 "$WORK/src/CMakeLists.txt" "$WORK/src/build.sh"
expect_rc 0 "scan against 13.0: a list for another release is a warning"
grep -q "build.sh:1:[0-9]*: warning\[not-buildable\]: sm_70: CUDA 13.0 cannot build it" "$WORK/out" && ok ||
  bad "scan names FILE:LINE:COL and the rule ($(cat "$WORK/out"))"
run arch --scan "$WORK/src/ci.yml" "$WORK/src/missing.txt" "$WORK/src/plain.sh"
expect_rc 2 "scan with a missing file"
expect_err "missing.txt" "the missing file is named"
grep -q "ci.yml:1:.*error\[unknown-arch\]: sm_99" "$WORK/out" && ok || bad "other files still scanned ($(cat "$WORK/out"))"
grep -q "ci.yml:2:.*warning\[arch-list-not-explicit\]" "$WORK/out" && ok || bad "native is a warning"
grep -q "ci.yml:3:.*error\[invalid-arch-list\]" "$WORK/out" && ok || bad "a malformed list is an error"
run arch --scan "$WORK/src/plain.sh"
expect_rc 0 "scan with nothing to check"; expect_err "(nothing to check)" "nothing found is said"
run arch --scan --format sarif "$WORK/src/ci.yml"
expect_rc 1 "scan sarif"
py "any(r['ruleId']=='CW701' and r['locations'][0]['physicalLocation']['region']['startLine']==1 for r in d['runs'][0]['results'])" "scan sarif has the line"
run arch --scan
expect_rc 2 "scan without files"
run arch --scan --to cmake "$WORK/src/build.sh"
expect_rc 2 "scan refuses --to"

finish
