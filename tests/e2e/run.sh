#!/usr/bin/env bash
# End-to-end tests of the cuwheel command line.
#
# 1. Golden listings: for every fixture in tests/fixtures/bin/ and every mode
#    recorded in tests/golden/<fixture>/, `cuwheel list --format cuobjdump`
#    must reproduce cuobjdump's stdout, stderr and exit status byte for byte
#    (goldens were recorded with cuobjdump 13.2; see tests/golden/README.md).
#    The extra cases of tests/golden/_cases (paths with directories, absolute
#    paths, odd names, missing files) are replayed the same way.
# 2. CLI behaviour: exit statuses, one bad input among good ones, text and
#    JSON output of `list` and `show` on the fixture wheel, usage errors.
#
# Usage: tests/e2e/run.sh path/to/cuwheel
# Prints one line per failure and ends with "N passed, M failed".
set -u

CUWHEEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$ROOT/tests/fixtures/bin
GOLDEN=$ROOT/tests/golden
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# Outside the source tree: the policy search (cuwheel.toml, [tool.cuwheel])
# must not find the project's own dogfood policy. Commands that name the
# fixtures by relative path run in $BINLINKS, a real folder of symlinks to
# them (a cd into the tree itself would search from there).
cd "$WORK" || exit 2
BINLINKS=$WORK/binlinks
mkdir "$BINLINKS"
for _e in "$BIN"/*; do ln -s "$_e" "$BINLINKS/$(basename "$_e")"; done

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# cuobjdump flags -> cuwheel flags.
to_cuwheel_flags() {
  local out=() a
  for a in "$@"; do
    case "$a" in
      -lelf) out+=(--elf) ;;
      -lptx) out+=(--ptx) ;;
      -all) out+=(--all) ;;
      *) out+=("$a") ;;
    esac
  done
  printf '%s\n' "${out[@]}"
}

# compare_golden GOLDEN_PREFIX CWD ARGS... : runs cuwheel in CWD and compares.
# Each call is counted in $compared.
compared=0
compare_golden() {
  local prefix=$1 cwd=$2; shift 2
  compared=$((compared + 1))
  local flags=() a
  while IFS= read -r a; do flags+=("$a"); done < <(to_cuwheel_flags "$@")
  local rc=0
  (cd "$cwd" && "$CUWHEEL" list --format cuobjdump "${flags[@]}") >"$WORK/out" 2>"$WORK/err" || rc=$?
  sed "s|@CWD@|$cwd|g" "$prefix.stdout" >"$WORK/exp.out"
  sed "s|@CWD@|$cwd|g" "$prefix.stderr" >"$WORK/exp.err"
  local want_rc
  want_rc=$(cat "$prefix.rc")
  if cmp -s "$WORK/out" "$WORK/exp.out" && cmp -s "$WORK/err" "$WORK/exp.err" && [ "$rc" = "$want_rc" ]; then
    ok
  else
    bad "golden ${prefix#"$GOLDEN"/}: cuwheel list --format cuobjdump ${flags[*]} (in $cwd)"
    diff "$WORK/exp.out" "$WORK/out" | head -5
    diff "$WORK/exp.err" "$WORK/err" | head -5
    [ "$rc" = "$want_rc" ] || echo "  exit status $rc, want $want_rc"
  fi
}

# --- 1. golden listings per fixture --------------------------------------
declare -A MODE_FLAGS=(
  [lelf]="-lelf" [lptx]="-lptx" [lelf-lptx]="-lelf -lptx"
  [all-lelf-lptx]="-all -lelf -lptx" [all-lelf]="-all -lelf" [all-lptx]="-all -lptx"
)
for dir in "$GOLDEN"/*/; do
  fixture=$(basename "$dir")
  [ "$fixture" = "_cases" ] && continue
  for mode in "${!MODE_FLAGS[@]}"; do
    [ -f "$dir/$mode.rc" ] || continue
    # shellcheck disable=SC2086
    compare_golden "$dir/$mode" "$BIN" ${MODE_FLAGS[$mode]} "$fixture"
  done
done
# Every per-fixture golden was compared (a mode missing from MODE_FLAGS, or an
# empty or missing folder, fails), and no fewer than the 300 recorded today.
fixture_goldens=$(find "$GOLDEN" -mindepth 2 -maxdepth 2 -name '*.rc' -not -path "$GOLDEN/_cases/*" -not -path "$GOLDEN/abi8/*" -not -path "$GOLDEN/datafatbin/*" -not -path "$GOLDEN/refusals/*" | wc -l)
if [ "$compared" -eq "$fixture_goldens" ] && [ "$compared" -ge 300 ]; then
  ok
else
  bad "golden listings: $compared compared, $fixture_goldens per-fixture goldens in ${GOLDEN#"$ROOT"/}, at least 300 expected"
fi
fixture_compared=$compared

# --- extra cases ------------------------------------------------------------
C=$GOLDEN/_cases
FIX=$ROOT/tests/fixtures
compare_golden "$C/dir-lelf-lptx" "$FIX" -lelf -lptx bin/libplain.so
compare_golden "$C/dir-cubin-lelf-lptx" "$FIX" -lelf -lptx bin/a.cubin
compare_golden "$C/dotdir-lelf-lptx" "$BIN" -lelf -lptx ./../bin/librdc_linked.so
compare_golden "$C/dir-archive-lelf" "$FIX" -lelf bin/librdc.a
compare_golden "$C/dir-ident-lelf" "$FIX" -lelf bin/ident.fatbin
compare_golden "$C/missing-file-lelf" "$BIN" -lelf does_not_exist.so
compare_golden "$C/missing-dir-lelf" "$BIN" -lelf nodir/does_not_exist.so
compare_golden "$C/lptx-lelf" "$BIN" -lptx -lelf libsuffix.so
compare_golden "$C/lelf-twice" "$BIN" -lelf -lelf libplain.so
# The absolute-path case: the golden has the fixture directory as @CWD@.
compare_golden "$C/abs-cubin-lelf-lptx" "$BIN" -lelf -lptx "$BIN/a.cubin"
N=$WORK/names
mkdir -p "$N"
cp "$BIN/a.fatbin" "$N/a b.fatbin"; cp "$BIN/a.fatbin" "$N/.hidden"
cp "$BIN/a.fatbin" "$N/noext"; cp "$BIN/a.fatbin" "$N/trail."
cp "$BIN/librdc.a" "$N/my lib.a"
compare_golden "$C/name-space-lptx" "$N" -lptx "a b.fatbin"
compare_golden "$C/name-hidden-lptx" "$N" -lptx .hidden
compare_golden "$C/name-noext-lptx" "$N" -lptx noext
compare_golden "$C/name-trailing-dot-lptx" "$N" -lptx trail.
compare_golden "$C/name-archive-space-lptx" "$N" -lptx "my lib.a"
# Recorded by tests/fixtures/build.sh but not compared: there cuobjdump
# prints its usage (two files, no arguments) or fails ("Memory allocation
# failure" for a folder) where cuwheel lists the inputs or names the error.
NOT_COMPARED=(directory-lelf no-args two-files-lelf)
case_goldens=$(find "$C" -maxdepth 1 -name '*.rc' | wc -l)
case_compared=$((compared - fixture_compared))
if [ "$case_compared" -eq 15 ] && [ $((case_compared + ${#NOT_COMPARED[@]})) -eq "$case_goldens" ]; then
  ok
else
  bad "golden cases: $case_compared compared (15 expected) + ${#NOT_COMPARED[@]} not compared, $case_goldens in ${C#"$ROOT"/}"
fi
for c in "${NOT_COMPARED[@]}"; do
  [ -f "$C/$c.rc" ] && ok || bad "golden cases: $c.rc is gone; update NOT_COMPARED"
done
echo "golden: $fixture_compared listings and $case_compared extra cases compared"

# ABI v8 'a' (tests/fixtures/make_abi8_cubins.sh, goldens from cuobjdump 13.5):
# ptxas 12.9 cubins carry 'a' in e_flags bit 0x8, ptxas 13 ones in
# .nv.compat attribute 0x09 (at every record position), patched notes.
A8=$ROOT/tests/fixtures/abi8
before=$compared
for g in "$GOLDEN"/abi8/*.lelf.rc; do
  f=$(basename "$g" .lelf.rc)
  compare_golden "$GOLDEN/abi8/$f.lelf" "$A8" -lelf "$f"
done
abi8_files=$(find "$A8" -maxdepth 1 -type f | wc -l)
if [ $((compared - before)) -eq "$abi8_files" ] && [ "$abi8_files" -ge 19 ]; then ok; else
  bad "abi8 goldens: $((compared - before)) compared for $abi8_files fixtures (at least 19)"; fi

# Device code outside the fatbin sections (tests/fixtures/make_data_fatbin.sh):
# cuobjdump 13.5 lists only .nv_fatbin, with and without -all.
DF=$ROOT/tests/fixtures/datafatbin
before=$compared
for g in "$GOLDEN"/datafatbin/*.rc; do
  b=$(basename "$g" .rc); f=${b%.*}; m=${b##*.}
  if [ "$m" = all-lelf-lptx ]; then compare_golden "$GOLDEN/datafatbin/$b" "$DF" -all -lelf -lptx "$f"
  else compare_golden "$GOLDEN/datafatbin/$b" "$DF" -lelf -lptx "$f"; fi
done
if [ $((compared - before)) -eq 8 ]; then ok; else bad "datafatbin goldens: $((compared - before)) compared, 8 expected"; fi

# What cuobjdump 13.5 refuses (tests/fixtures/make_cuobjdump_refusals.sh): an
# entry architecture below 50, a cubin whose SHT_RELA is not linked to the
# symbol table; the listing stops there. Goldens name the folder as @CWD@.
RF=$ROOT/tests/fixtures/refusals
before=$compared
for g in "$GOLDEN"/refusals/*.rc; do
  b=$(basename "$g" .rc); f=${b%.*}; m=${b##*.}
  case $m in
    lelf-lptx) fl=(-lelf -lptx) ;; lelf) fl=(-lelf) ;; lptx) fl=(-lptx) ;; all-lelf-lptx) fl=(-all -lelf -lptx) ;;
  esac
  compare_golden "$GOLDEN/refusals/$b" "$RF" "${fl[@]}" "$f"
done
rf_files=$(find "$RF" -maxdepth 1 -type f | wc -l)
if [ $((compared - before)) -eq $((rf_files * 4)) ] && [ "$rf_files" -ge 13 ]; then ok; else
  bad "refusal goldens: $((compared - before)) compared for $rf_files fixtures x 4 modes"; fi

# --- 2. CLI behaviour --------------------------------------------------------
# expect_rc WANT CMD... : runs cuwheel CMD..., checks the exit status; output in $WORK/out, $WORK/err.
expect_rc() {
  local want=$1; shift
  local rc=0
  (cd "$BINLINKS" && "$CUWHEEL" "$@") >"$WORK/out" 2>"$WORK/err" || rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "cuwheel $* exited $rc, want $want"; head -3 "$WORK/err"; fi
}
# expect_out PATTERN [FILE] : the last output matches an extended regex.
expect_out() {
  local pat=$1 file=${2:-$WORK/out}
  if grep -Eq -- "$pat" "$file"; then ok; else bad "output lacks /$pat/ ($(basename "$file"))"; head -5 "$file"; fi
}

# A CUDA 12.9 sm_100a/sm_120a library (sgl-kernel's case): show names the
# 'a', check knows the cubins cannot run on sm_103 or sm_121.
expect_rc 0 show "$A8/libcu129_sm100a.so"
expect_out '^  sass +sm_100a sm_120a$'
expect_rc 0 list --format json "$A8/cu129_sm_120a.cubin"
expect_out '"suffix": "a"'
expect_rc 1 check --gpus sm_103,sm_121 "$A8/libcu129_sm100a.so"
expect_out 'error\[uncovered-gpu\].*sm_103'
expect_out 'error\[uncovered-gpu\].*sm_121'
expect_rc 0 check --gpus sm_100,sm_120 "$A8/libcu129_sm100a.so"
expect_rc 1 check --gpus sm_103 "$A8/compat_a_at4.cubin"
expect_rc 0 check --gpus sm_103 "$A8/compat_plain_at6.cubin"
# show and check count the container a library keeps in .rodata/.data;
# list names it on the head line; a decoy magic is no container.
expect_rc 0 show "$DF/libown_rodata.so"
expect_out '^  sass +sm_75 sm_90$'
expect_out '^  ptx +compute_90 \(ISA 9\.0\)$'
expect_out '^  loaded itself 1 container in \.rodata'
expect_out '^  runs on +sm_75 sm_90 natively; sm_100 sm_103 sm_120 sm_121 \(compute_90\) by JIT$'
expect_out '^  no image for +sm_80 sm_86 sm_89$'
expect_rc 0 show --format json "$DF/libown_rodata.so"
expect_out '"code": "compute_90"'
expect_rc 0 show "$DF/libown_data.so"
expect_out '^  loaded itself 1 container in \.data '
expect_rc 0 show "$DF/libown_decoy.so"
expect_out '^  sass +sm_75$'
if grep -q 'loaded itself' "$WORK/out"; then bad "decoy: a container was found"; else ok; fi
expect_rc 0 list "$DF/libown_rodata.so"
expect_out '; --all adds 1 SASS, 1 PTX in \.rodata$'
expect_rc 0 list --all --format json "$DF/libown_rodata.so"
expect_out '"origin": "data"'
expect_rc 0 check --gpus sm_90,sm_100 "$DF/libown_rodata.so"
expect_rc 1 check --gpus sm_90 "$DF/libown_none.so"
expect_out 'error\[uncovered-gpu\]'
# check --deps: a dependency wheel says what its distribution provides; a
# path that is not there, or not a wheel, is unreadable input.
DP=$ROOT/tests/fixtures/check/deps
expect_rc 0 check "$DP/dp_torchext-1.0-py3-none-manylinux_2_36_x86_64.whl"
expect_out '^1 input checked: 0 errors, 0 warnings, 4 notes'
expect_out 'note\[unresolved-needed\]: DT_NEEDED libtorch.so is found once torch'
expect_rc 1 check --deps "$DP/torch" "$DP/dp_torchext_cu12-1.0-py3-none-manylinux_2_36_x86_64.whl"
expect_out 'loads libcudart.so.13, not libcudart.so.12'
expect_rc 0 check --format github "$DP/dp_torchext-1.0-py3-none-manylinux_2_36_x86_64.whl"
expect_out '^::notice file=.*title=unresolved-needed'
expect_rc 0 check --format sarif "$DP/dp_torchext-1.0-py3-none-manylinux_2_36_x86_64.whl"
expect_out '"level": "note"'
expect_rc 2 check --deps "$DP/nope" "$DP/dp_torchext-1.0-py3-none-manylinux_2_36_x86_64.whl"
expect_rc 2 check --deps "$BIN/libplain.so" "$DP/dp_torchext-1.0-py3-none-manylinux_2_36_x86_64.whl"
expect_out 'takes wheels or an installed environment; this is neither'
expect_rc 2 check --deps "" "$DP/dp_torchext-1.0-py3-none-manylinux_2_36_x86_64.whl"

# Review regressions: a library cut inside its section header table, a raw
# fatbin or cubin that lies, are unreadable for show and check as for list;
# a --deps wheel with no METADATA or a hostile Name cannot provide anything.
head -c 53414 "$BIN/libmulti.so" > "$WORK/cutshdr.so"
expect_rc 2 check "$WORK/cutshdr.so"
expect_out 'cutshdr.so: error\[unreadable\]: truncated ELF file'
expect_rc 2 show "$WORK/cutshdr.so"
head -c 6710 "$BIN/a.fatbin" > "$WORK/cut.fatbin"
expect_rc 2 show "$WORK/cut.fatbin"
head -c 2567 "$ROOT/tests/fixtures/abi8/cu130_sm_100a.cubin" > "$WORK/cut.cubin"
expect_rc 2 show "$WORK/cut.cubin"
expect_rc 2 check "$WORK/cut.cubin"
python3 - "$DP/torch/torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl" "$WORK" <<'PY'
import sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as zi:
    items = [(i, zi.read(i)) for i in zi.infolist()]
def write(name, fix):
    with zipfile.ZipFile(f"{out}/{name}", "w") as zo:
        for i, d in items:
            d = fix(i.filename, d)
            if d is not None:
                zo.writestr(i, d)
write("nometa-1.0-py3-none-any.whl", lambda n, d: None if n.endswith("METADATA") else d)
write("badname-1.0-py3-none-any.whl",
      lambda n, d: d.replace(b"Name: torch", b"Name: ::error file=x::INJ\x1b[2J") if n.endswith("METADATA") else d)
PY
expect_rc 2 check --deps "$WORK/nometa-1.0-py3-none-any.whl" "$DP/dp_torchext-1.0-py3-none-manylinux_2_36_x86_64.whl"
expect_out 'nometa-1.0-py3-none-any.whl: error\[unreadable\]: .*no readable METADATA'
expect_rc 2 check --format github --deps "$WORK/badname-1.0-py3-none-any.whl" "$DP/dp_torchext-1.0-py3-none-manylinux_2_36_x86_64.whl"
if grep -q '^::error file=x' "$WORK/out" || grep -q $'\x1b' "$WORK/out"; then bad "a hostile --deps Name reached the output raw"; else ok; fi
expect_out 'is not a valid project name'

# Error lines quote a bounded prefix of what they name: a 1 MB policy value,
# a 5,000-byte path.
python3 -c "import sys; open(sys.argv[1],'w').write('[tool.cuwheel]\nmin-driver = \"' + '1'*1000000 + '\"\n')" "$WORK/bigvalue.toml"
expect_rc 2 check --policy "$WORK/bigvalue.toml" "$BIN/libplain.so"
expect_out 'min-driver: "1{64}"\.\.\. \(1000000 bytes\) is not an NVIDIA driver version' "$WORK/err"
if [ "$(wc -c < "$WORK/err")" -lt 400 ]; then ok; else bad "a 1 MB policy value gave a $(wc -c < "$WORK/err")-byte error"; fi
expect_rc 2 list "$WORK/$(python3 -c "print('x' * 5000)")"
if [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$WORK/err")" -le 2100 ]; then ok; else bad "an error line over 2,100 bytes"; fi

# unsafe-path: a component over 255 bytes cannot be installed; 255 can.
python3 - "$BIN/cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl" "$WORK" <<'PY'
import sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as zi:
    items = [(i, zi.read(i)) for i in zi.infolist()]
for n in (255, 256):
    name = f"cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    import os
    os.makedirs(f"{out}/long{n}", exist_ok=True)
    with zipfile.ZipFile(f"{out}/long{n}/{name}", "w") as zo:
        for i, d in items:
            zo.writestr(i, d)
        zo.writestr("cuwheel_demo/" + "x" * (n - 3) + ".py", b"# long\n")
PY
expect_rc 1 check --select unsafe-path "$WORK/long256/cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl"
expect_out 'error\[unsafe-path\]: member name has a component of 256 bytes \(at most 255 on Linux\)'
expect_rc 0 check --select unsafe-path "$WORK/long255/cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl"

# Text and JSON keep listing what cuobjdump refuses, with one warning.
expect_rc 0 list "$RF/arch35_e2.so"
expect_out '^.*arch35_e2.so: 6 SASS, 1 PTX'
expect_out 'warning: .*1 entry names sm_35 .*below sm_50' "$WORK/err"
expect_rc 0 list --format json "$RF/rela_e5.so"
expect_out '"arch": "sm_90"'
expect_out 'warning: .*1 cubin has an SHT_RELA section not linked to the symbol table .*Invalid ELF' "$WORK/err"
expect_rc 0 show "$RF/rela_e5.so"
expect_out '^  warning +1 cubin has an SHT_RELA section'

WHEEL=cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl

expect_rc 0 list libplain.so
expect_out '^libplain.so: 6 SASS, 1 PTX in 2 containers$'
expect_out '^  sass +sm_120 '
expect_rc 0 list --ptx libsuffix.so
expect_out 'compute_100a'
expect_out 'compute_120f'

# One unreadable input among good ones: every input is processed, exit 2.
expect_rc 2 list libplain.so does_not_exist.so a.cubin
expect_out '^a.cubin: 1 SASS'
expect_out "^cuwheel: error: does_not_exist.so: no such file or directory" "$WORK/err"
expect_rc 2 list notelf.so libplain.so
expect_out '^libplain.so: '
expect_out 'notelf.so: not a wheel, ELF file, static archive, fatbin or cubin' "$WORK/err"
expect_rc 2 list truncated.fatbin
expect_out 'truncated.fatbin: fatbin container at 0x0' "$WORK/err"

# Usage errors exit 2.
expect_rc 2 list
expect_rc 2 list --format yaml libplain.so
expect_rc 2 frobnicate

# Wheels: members listed under their archive path.
expect_rc 0 list "$WHEEL"
expect_out "^$WHEEL:cuwheel_demo/lib/libplain.so: "
expect_rc 0 list --format cuobjdump --elf "$WHEEL"
expect_out "^member $BINLINKS/$WHEEL:cuwheel_demo/lib/libplain.so:$"
expect_out '^ELF file    1: libplain.1.sm_75.cubin$'
for v in 1datadesc 2zip64; do
  expect_rc 0 list "cuwheel_demo-1.0.0-$v-cp312-cp312-manylinux_2_28_x86_64.whl"
  expect_out "libplain.so: 6 SASS, 1 PTX"
done
expect_rc 2 list cuwheel_demo-1.0.0-3truncated-cp312-cp312-manylinux_2_28_x86_64.whl

# JSON: valid, versioned, with the documented fields.
expect_rc 0 list --format json libplain.so "$WHEEL"
if python3 - "$WORK/out" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == 1 and doc["command"] == "list"
objs = doc["inputs"][0]["objects"]
e = objs[0]["entries"]
assert [x["arch"] for x in e if x["kind"] == "sass"] == ["sm_75", "sm_90", "sm_120"] * 2, e
assert [(x["arch"], x["ptx_isa"]) for x in e if x["kind"] == "ptx"] == [("compute_120", "9.0")]
assert doc["inputs"][1]["kind"] == "wheel"
EOF
then ok; else bad "list --format json content"; fi

expect_rc 0 show --format json "$WHEEL"
if python3 - "$WORK/out" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == 1 and doc["command"] == "show"
inp = doc["inputs"][0]
w = inp["wheel"]
assert w["name"] == "cuwheel_demo" or w["name"] == "cuwheel-demo", w["name"]
assert w["version"] == "1.0.0"
assert "cp312-cp312-manylinux_2_28_x86_64" in w["wheel_tags"]
assert any(r.startswith("nvidia-cuda-runtime") for r in w["requires_dist"]), w["requires_dist"]
libplain = [o for o in inp["objects"] if o["path"].endswith("/libplain.so")][0]
classes = {n["soname"]: n["class"] for n in libplain["needed"]}
assert classes["libcudart.so.13"] == "cuda-toolkit", classes
assert classes["libc.so.6"] == "system", classes
assert libplain["cuda_runtime"] == {"kind": "shared", "major": 13, "soname": "libcudart.so.13"}, libplain["cuda_runtime"]
dc = libplain["device_code"]
assert dc["sass"] == ["sm_75", "sm_90", "sm_120"], dc
assert dc["ptx"] == [{"arch": "compute_120", "isa": "9.0"}], dc
assert dc["kernels"] == 2, dc
EOF
then ok; else bad "show --format json content"; fi

expect_rc 0 show libsuffix.so
expect_out '^  sass +sm_90a sm_100a sm_100f sm_120f$'
expect_out '^  ptx +compute_100a \(ISA 9.0\), compute_120f \(ISA 9.0\)$'
expect_rc 0 show cu12_plain.so
expect_out '^  sass +sm_80'
expect_rc 0 show noshdr.so
expect_out '^  needed +libcudart.so.13'

# A library cut short is one error, in the words show and check use, with
# no warnings about the tables it lost and no "no device code" line.
head -c 100 "$BIN/libplain.so" > "$WORK/cut100.so"
expect_rc 2 list "$WORK/cut100.so"
expect_out '^cuwheel: error: .*cut100.so: truncated ELF file: section header table at 0x[0-9a-f]+ ends past the end of the file \(0x64 bytes\)$' "$WORK/err"
if grep -q warning "$WORK/err" || [ -s "$WORK/out" ]; then bad "list of a cut library: $(cat "$WORK/err" "$WORK/out")"; else ok; fi
expect_rc 2 show "$WORK/cut100.so"
expect_out '^cuwheel: error: .*cut100.so: truncated ELF file: section header table' "$WORK/err"
# A raw cubin cut short lists what it could read and exits 2.
head -c 2000 "$BIN/a.cubin" > "$WORK/trunc.cubin"
expect_rc 2 list "$WORK/trunc.cubin"
expect_out 'trunc.cubin: truncated ELF file: section header table at 0x[0-9a-f]+ ends past the end of the file \(0x7d0 bytes\)' "$WORK/err"
# A directory with nothing to read is an input error (status 2), never a
# silent empty report or a passing check.
expect_rc 2 list "$BIN/../src"
expect_out 'src: no ELF files found in this directory' "$WORK/err"
mkdir -p "$WORK/empty"
expect_rc 2 show "$WORK/empty"
expect_out 'empty: no ELF files found in this directory' "$WORK/err"
expect_rc 2 check "$WORK/empty"
expect_out 'error\[unreadable\]: no wheels or ELF files found in this directory'
# A directory is walked; files keep their relative paths.
mkdir -p "$WORK/env/pkg/lib" "$WORK/env/pkg-1.0.dist-info"
cp "$BIN/libplain.so" "$BIN/libsuffix.so" "$WORK/env/pkg/lib/"
printf 'pkg/lib/libplain.so,,\npkg/lib/libsuffix.so,,\n' > "$WORK/env/pkg-1.0.dist-info/RECORD"
expect_rc 0 show --format json "$WORK/env"
expect_out '"distribution": "pkg"'
expect_rc 0 list "$WORK/env"
expect_out "^$WORK/env:pkg/lib/libsuffix.so: "
# A bad file in a directory is reported and the rest still listed.
cp "$BIN/truncated.fatbin" "$WORK/env/pkg/lib/bad.fatbin"
expect_rc 2 list "$WORK/env"
expect_out "^$WORK/env:pkg/lib/libplain.so: "
expect_out "bad.fatbin: fatbin container" "$WORK/err"

# Progress never pollutes piped output.
expect_rc 0 list libplain.so
if grep -q $'\r' "$WORK/out" "$WORK/err"; then bad "progress line written to a pipe"; else ok; fi

# check: exit 1 on an error-level finding, 2 on unreadable input or policy.
expect_rc 1 check --select unsafe-path cuwheel_demo-1.0.0-4dotdot-cp312-cp312-manylinux_2_28_x86_64.whl
expect_out 'error\[unsafe-path\]: member name has a `\.\.` component'
expect_rc 0 check --select unsafe-path "$WHEEL"
expect_out '^1 input checked: 0 errors, 0 warnings'
expect_rc 2 check --select unsafe-path does_not_exist.whl "$WHEEL"
expect_out 'does_not_exist.whl: error\[unreadable\]'
expect_rc 2 check --select unsafe-paht "$WHEEL"
expect_out 'did you mean "unsafe-path"' "$WORK/err"
printf 'cuda-major = 11\n' > "$WORK/bad.toml"
expect_rc 2 check --policy "$WORK/bad.toml" "$WHEEL"
expect_out 'bad.toml:1: cuda-major must be 12 or 13' "$WORK/err"
expect_rc 0 check --select unsafe-path --format json "$WHEEL"
expect_out '"command": "check"'
expect_rc 1 check --select unsafe-path --format sarif cuwheel_demo-1.0.0-5absolute-cp312-cp312-manylinux_2_28_x86_64.whl
expect_out '"ruleId": "CW301"'
expect_rc 1 check --select unsafe-path --format github cuwheel_demo-1.0.0-5absolute-cp312-cp312-manylinux_2_28_x86_64.whl
expect_out '^::error file=cuwheel_demo'
expect_rc 0 rules
expect_out '^CW301 +unsafe-path'
expect_rc 0 rule unsafe-path
expect_out '^## Why is this bad\?'
expect_rc 2 rule no-such-rule

# Found by a review as a new user: each of these once passed or hung.
mkfifo "$WORK/fifo"
expect_rc 2 list "$WORK/fifo" a.cubin
expect_out '^a.cubin: 1 SASS'
expect_out 'fifo: not a regular file or directory' "$WORK/err"
cp "$BIN/libplain.so" "$WORK/$(printf 'bad\xff.so')"
expect_rc 0 list --format json "$WORK/$(printf 'bad\xff.so')" a.cubin
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out"; then ok; else bad "JSON with a non-UTF-8 file name"; fi
head -c 8805 "$BIN/libsuffix.so" > "$WORK/trunc.so"
expect_rc 2 check "$WORK/trunc.so"
expect_out 'trunc.so: error\[unreadable\]: truncated ELF file: section header table'
expect_rc 2 check libtextmember.a
expect_out 'libtextmember.a:notes.txt: error\[unreadable\]'
expect_rc 2 check --sass sm_8x libplain.so
expect_out 'sass: "sm_8x" is not an architecture' "$WORK/err"
expect_rc 2 check --ptx latest libplain.so
expect_rc 2 check --policy "$WORK" libplain.so
mkdir -p "$WORK/proj"
printf '[tool.cuwheel]\nsass = [sm_80\n' > "$WORK/proj/pyproject.toml"
rc=0; (cd "$WORK/proj" && "$CUWHEEL" check "$BIN/libplain.so") >/dev/null 2>"$WORK/err" || rc=$?
if [ "$rc" = 2 ] && grep -q 'pyproject.toml:2:' "$WORK/err"; then ok; else bad "broken pyproject.toml was not reported (rc $rc)"; fi

# --max-installed-size and --entry-point (the policy keys as flags).
CW="$BIN/../check/wheel"
expect_rc 1 check --select size-budget --max-installed-size 10kB "$CW/cwfix_big-1.0.0-py3-none-any.whl"
expect_out 'error\[size-budget\]'
expect_rc 0 check --select size-budget --max-installed-size 10MB "$CW/cwfix_big-1.0.0-py3-none-any.whl"
expect_rc 2 check --max-installed-size 10XB "$CW/cwfix-1.0.0-py3-none-any.whl"
expect_out 'max-installed-size.*10XB' "$WORK/err"
expect_rc 0 check --select missing-entry-point --entry-point console_scripts:cwfix "$CW/cwfix-1.0.0-py3-none-any.whl"
expect_rc 0 check --select missing-entry-point --entry-point cwfix "$CW/cwfix-1.0.0-py3-none-any.whl"
expect_rc 1 check --select missing-entry-point --entry-point console_scripts:cwfix --entry-point gui_scripts:cwfix "$CW/cwfix-1.0.0-py3-none-any.whl"
expect_out 'error\[missing-entry-point\].*gui_scripts'
expect_rc 2 check --entry-point 'console_scripts:' "$CW/cwfix-1.0.0-py3-none-any.whl"
expect_out 'entry-point.*GROUP:NAME' "$WORK/err"

# --- A wheel member at the wheel's root lists under its own file name --------
# (cuobjdump of the extracted member names entries after the file, not
# "w.whl:member": autoawq-kernels keeps its extensions at the root.)
mkdir -p "$WORK/rootwheel" && cp "$BIN/libcomp_default.so" "$WORK/rootwheel/" &&
  (cd "$WORK/rootwheel" && python3 -c "import zipfile; zipfile.ZipFile('rw-1.0-py3-none-any.whl','w').write('libcomp_default.so')")
expect_rc 0 list --format cuobjdump "$WORK/rootwheel/rw-1.0-py3-none-any.whl"
expect_out '^ELF file    1: libcomp_default\.1\.sm_'
if grep -q 'whl:libcomp_default\.1' "$WORK/out"; then bad "entry named after the wheel path"; else ok; fi

# --- Outputs the user names: written through, never renamed over ------------
# (-o /dev/null as root used to replace the device node with a file.)
expect_rc 0 arch --release 13.0 -o - 9.0
expect_out '^sm_90'
expect_rc 0 arch --release 13.0 -o /dev/null 9.0
[ -c /dev/null ] && ok || bad "/dev/null is no longer a character device"
echo old > "$WORK/arch-target.txt"
ln -sf "$WORK/arch-target.txt" "$WORK/arch-link.txt"
expect_rc 0 arch --release 13.0 -o "$WORK/arch-link.txt" 9.0
[ -L "$WORK/arch-link.txt" ] && grep -q '^sm_90' "$WORK/arch-target.txt" && ok || bad "-o through a symlink did not write its target"
# /dev/stdout when stdout is a pipe, and when it is a file opened for append.
if (cd "$BINLINKS" && "$CUWHEEL" arch --release 13.0 -o /dev/stdout 9.0 | cat) | grep -q '^sm_90'; then ok; else bad "-o /dev/stdout into a pipe"; fi
printf 'line1\n' > "$WORK/arch-log.txt"
(cd "$BINLINKS" && "$CUWHEEL" arch --release 13.0 -o /dev/stdout 9.0 >> "$WORK/arch-log.txt") || true
if [ "$(head -n1 "$WORK/arch-log.txt")" = line1 ] && grep -q '^sm_90' "$WORK/arch-log.txt"; then ok; else bad "-o /dev/stdout >> log lost the log"; fi
# A failed run removes the stale result a link points at, never /dev/stdout.
echo stale > "$WORK/arch-target.txt"
expect_rc 1 arch --release 13.0 -o "$WORK/arch-link.txt" sm_99
[ -L "$WORK/arch-link.txt" ] && [ ! -e "$WORK/arch-target.txt" ] && ok || bad "a failed run kept the stale target"
expect_rc 1 arch --release 13.0 -o /dev/stdout sm_99
[ -e /dev/stdout ] && ok || bad "a failed run removed /dev/stdout"
ln -sf "$WORK/nowhere" "$WORK/arch-dangling"
expect_rc 2 arch --release 13.0 -o "$WORK/arch-dangling" 9.0
expect_out 'symbolic link to nothing' "$WORK/err"

# --- Usage rules shared by every subcommand ---------------------------------
# An empty option value (what an unset CI variable becomes) is a usage error,
# never "not given": a guard must not switch itself off.
expect_rc 2 arch --release '' 9.0
expect_out 'release: an empty value is not allowed' "$WORK/err"
expect_rc 2 diff --max-growth '' a.whl b.whl
expect_rc 2 identity show --toolkit ''
expect_rc 2 check --sass '' libplain.so
expect_rc 2 toolkit check somewhere --release ''
# Numbers are decimal: "012" is not octal 10, "0x0c" not 12.
expect_rc 2 identity show --cuda-major 012
expect_out 'leading zero' "$WORK/err"
expect_rc 2 identity show --cuda-major 0x0c
expect_rc 2 check --cuda-major 0x0c libplain.so
expect_rc 0 identity show --cuda-major 12 --format name
expect_out '^cu12$'
# run --hide-driver refuses to cover the root folder (the plan and the run must agree).
expect_rc 2 run --hide-driver --dry-run --also / -- true
expect_out 'cannot cover the root folder' "$WORK/err"

# --- review fixes: escaping, unreadable payloads, SARIF, folders, values --------
R=$WORK/review
mkdir -p "$R"
# A wheel whose member names carry a newline + workflow command and an ESC.
python3 - "$BIN/$WHEEL" "$R/$WHEEL" <<'PY'
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
    for i in zi.infolist():
        zo.writestr(i, zi.read(i))
    plain = zi.read("cuwheel_demo/lib/libplain.so")
    zo.writestr("cuwheel_demo/a\n::error file=x::INJECTED.so", plain)
    zo.writestr("cuwheel_demo/b\x1b[2J.so", plain)
PY
# no_injected_line FILE : no line starts a workflow command of its own, no ESC byte.
no_injected_line() {
  if grep -q '^::error file=x' "$1"; then bad "a line of $(basename "$1") starts with ::error file=x"; else ok; fi
  if grep -q $'\x1b' "$1"; then bad "$(basename "$1") carries a raw ESC"; else ok; fi
}
for cmd in "list" "show" "check" "check --format github"; do
  # shellcheck disable=SC2086
  (cd "$BINLINKS" && "$CUWHEEL" $cmd "$R/$WHEEL") >"$WORK/out" 2>"$WORK/err"
  no_injected_line "$WORK/out"
  no_injected_line "$WORK/err"
done
expect_rc 1 check "$R/$WHEEL"
expect_out '^  in: +2 members: cuwheel_demo/a\\x0a::error file=x::INJECTED.so, cuwheel_demo/b\\x1b\[2J.so$'
expect_rc 1 check --format github "$R/$WHEEL"
expect_out '^::error file=.*title=unsafe-path in cuwheel_demo/b\\x1b\[2J.so::'
expect_rc 1 check --format json "$R/$WHEEL"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out"; then ok; else bad "check --format json: not JSON"; fi

# A compressed payload that does not decode: show and check exit 2, naming file and offset.
python3 - "$BIN/libsuffix.so" "$R/zcorrupt.so" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.find(bytes([0x28, 0xB5, 0x2F, 0xFD]))  # the first ZSTD frame
for k in range(i + 12, i + 60):
    d[k] ^= 0x5A
open(sys.argv[2], "wb").write(d)
PY
expect_rc 2 show "$R/zcorrupt.so"
expect_out 'zcorrupt.so: entry at 0x[0-9a-f]+: ZSTD frame' "$WORK/err"
expect_rc 2 check --sass sm_90a "$R/zcorrupt.so"
expect_out 'zcorrupt.so: error\[unreadable\]: entry at 0x[0-9a-f]+: ZSTD frame'
expect_rc 0 list "$R/zcorrupt.so"   # list reads entry headers only, by design

# SARIF: invocations says whether every input was read.
expect_rc 2 check --format sarif empty.so
expect_out '"executionSuccessful": false'
expect_out '"toolExecutionNotifications"'
expect_rc 0 check --format sarif a.fatbin
expect_out '"executionSuccessful": true'

# An unreadable wheel in a folder: the same report as naming it.
mkdir -p "$R/d"
cp "$BIN"/cuwheel_demo-1.0.0-3truncated-*.whl "$R/d/"
expect_rc 2 check "$R/d"
expect_out '^0 inputs checked: 0 errors, 0 warnings, 1 unreadable'
if grep -q 'metadata-invalid' "$WORK/out"; then bad "check DIR: metadata-invalid for an unreadable wheel"; else ok; fi

# Values: one validator for flag and file, empty list items, lines in errors.
for v in 9999999999999999999999.1 1.2.3.4.5 0.0 580; do
  expect_rc 2 check --min-driver "$v" libplain.so
  expect_out "--min-driver: \"$v\" is not an NVIDIA driver version" "$WORK/err"
done
expect_rc 0 check --min-driver 580.65.06 libplain.so
for flag in --sass --ptx --gpus --exports --license-file --select --ignore; do
  expect_rc 2 check "$flag" ',,,' libplain.so
  expect_out "^cuwheel: error: $flag: item 1 of" "$WORK/err"
done
expect_rc 2 check --select missing-sass,,unsafe-path libplain.so
printf 'cuda-major = 13\nsass = ["sm_8x"]\n' >"$R/badsass.toml"
expect_rc 2 check --policy "$R/badsass.toml" libplain.so
expect_out 'badsass.toml:2: sass: "sm_8x"' "$WORK/err"
printf 'ignore = ["CW999"]\n' >"$R/badignore.toml"
expect_rc 2 check --policy "$R/badignore.toml" libplain.so
expect_out 'badignore.toml:1: ignore: unknown rule "CW999"' "$WORK/err"

# A 64-bit library with EI_CLASS flipped to 32 is unreadable, not "no device code".
python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[4]=1; open(sys.argv[2],'wb').write(d)" \
  "$BIN/libplain.so" "$R/c32.so"
expect_rc 2 list "$R/c32.so"
expect_out 'e_ehsize [0-9]+ at offset 0x28 is not the ELFCLASS32 header size 52' "$WORK/err"
expect_rc 2 check "$R/c32.so"
expect_out 'error\[unreadable\]: e_ehsize'

# A symlink loop is named by its errno.
ln -s l1 "$R/l2"; ln -s l2 "$R/l1"
expect_rc 2 list "$R/l1"
expect_out 'too many levels of symbolic links' "$WORK/err"
expect_rc 2 check "$R/l1"
expect_out 'too many levels of symbolic links'

# list --elf keeps the true counts and says what it lists.
expect_rc 0 list --elf libplain.so
expect_out '^libplain.so: 6 SASS, 1 PTX in 2 containers \(listing SASS only\)$'
if grep -q '^  ptx ' "$WORK/out"; then bad "list --elf printed a PTX line"; else ok; fi

# check takes a raw fatbin; `rule unreadable` explains the pseudo-rule.
expect_rc 0 check a.fatbin
expect_out '^1 input checked: 0 errors'
expect_rc 0 rule unreadable
expect_out 'exits 2'

# Second review: a policy key refuses what its flag refuses (FILE:LINE), and
# a cuwheel.toml with keys both at the top level and in [tool.cuwheel] is refused.
printf 'entry-points = [":"]\n' >"$R/ep.toml"
expect_rc 2 check --policy "$R/ep.toml" libplain.so
expect_out 'ep.toml:1: entry-points: ":" must be GROUP:NAME or NAME' "$WORK/err"
expect_rc 2 check --entry-point : libplain.so
expect_out 'entry-point: ":" must be GROUP:NAME or NAME' "$WORK/err"
printf 'max-size = 1e3\n' >"$R/ms.toml"
expect_rc 2 check --policy "$R/ms.toml" libplain.so
expect_out 'ms.toml:1: max-size must be a size .*not a float' "$WORK/err"
printf 'cuda-major = 13.0\n' >"$R/cm.toml"
expect_rc 2 check --policy "$R/cm.toml" libplain.so
expect_out 'cm.toml:1: cuda-major must be 12 or 13 \(an integer, not a float\)' "$WORK/err"
printf 'max-size = 100000000\ncuda-major = 13\n' >"$R/okvals.toml"
expect_rc 0 check --policy "$R/okvals.toml" --select size-budget libplain.so
mkdir -p "$R/both"
printf 'sass = "sm_80"\n[tool.cuwheel]\nsass = "sm_75"\n' >"$R/both/cuwheel.toml"
expect_rc 2 check --policy "$R/both/cuwheel.toml" --select missing-sass libsuffix.so
expect_out 'cuwheel.toml:1: "sass" is at the top level, but this file also has a \[tool.cuwheel\] table \(line 2\)' "$WORK/err"

# Second review: a folder whose only *.whl is a FIFO names the FIFO as when
# it is given directly.
mkdir -p "$R/fifo" && mkfifo "$R/fifo/a-0.1-py3-none-any.whl"
expect_rc 2 check "$R/fifo"
expect_out 'a-0.1-py3-none-any.whl: error\[unreadable\]: not a regular file'
if grep -q 'no wheels or ELF files' "$WORK/out"; then bad "check of a FIFO-only folder said no wheels"; else ok; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
