#!/usr/bin/env bash
# End-to-end tests of `cuwheel repair` on the twin fixtures of
# tests/fixtures/make_repair.sh (one pair per field report): every faulty
# wheel is repaired so that `cuwheel check` passes, every clean twin comes
# out byte-identical, repairing a repaired wheel changes nothing, the inputs
# are never written; then the output's ELF facts (readelf), loading with
# the real dynamic loader (ctypes), DT_RPATH against DT_RUNPATH on the
# two-library fixture, grafting, --plat, --dry-run, --format json,
# --emit-auditwheel-args and the errors.
# Usage: tests/e2e/repair_test.sh path/to/cuwheel   (run from the repository root)
set -uo pipefail
CUWHEEL="$1"
FIX="tests/fixtures/repair"
LOADING="tests/fixtures/check/loading"
. "$(dirname "$0")/common.sh"
command -v readelf >/dev/null || { echo "readelf missing"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
export SOURCE_DATE_EPOCH=315532800
unset LD_LIBRARY_PATH

# run EXPECTED_RC ARGS...: cuwheel with stdout/stderr in $WORK/out, $WORK/err.
run() {
  local want="$1"
  shift
  "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "cuwheel $* exited $rc, expected $want: $(head -c 400 "$WORK/err") $(tail -c 600 "$WORK/out")"; fi
}
has() { if grep -qF -- "$2" "$1"; then ok; else bad "$1 lacks '$2': $(head -c 300 "$1")"; fi; }
lacks() { if grep -qF -- "$2" "$1"; then bad "$1 has '$2'"; else ok; fi; }
same() {
  if cmp -s "$1" "$2"; then ok; else
    bad "$1 and $2 differ: $(python3 -c 'import sys, zipfile
for f in sys.argv[1:]:
    print([(i.filename, i.CRC, i.compress_size, i.date_time, oct(i.external_attr >> 16)) for i in zipfile.ZipFile(f).infolist()])' "$1" "$2" 2>&1)"
  fi
}
# The fixtures claim CUDA but carry no device code (they are gcc stubs).
IGN=(--ignore no-device-code)

sha_before="$(sha256sum "$FIX"/*.whl "$FIX"/host/*)"

# 1. Every faulty wheel is repaired and passes the check; every clean twin
#    is left byte-identical; a repaired wheel repaired again is the same.
for w in "$FIX"/rf_*_bad-*.whl "$FIX"/rf_chain-*.whl "$FIX"/rf_graft-*.whl; do
  n="$(basename "$w")"
  LD_LIBRARY_PATH="$FIX/host" run 0 repair "${IGN[@]}" "$w" -w "$WORK/o1"
  has "$WORK/out" "wrote $WORK/o1/"
  out="$(ls "$WORK"/o1/"${n%%-*}"-*.whl 2>/dev/null | head -1)"
  [ -n "$out" ] && ok || { bad "$n: no output"; continue; }
  run 0 check "${IGN[@]}" "$out"
  run 0 check "${IGN[@]}" --format json "$out"
  run 1 check "${IGN[@]}" "$w"  # the input still fails: it was not written
  run 0 repair "${IGN[@]}" "$out" -w "$WORK/o2"
  has "$WORK/out" "nothing to repair"
  same "$out" "$WORK/o2/$(basename "$out")"
done
for w in "$FIX"/rf_*_good-*.whl; do
  run 0 check "${IGN[@]}" "$w"
  run 0 repair "${IGN[@]}" "$w" -w "$WORK/o3"
  same "$w" "$WORK/o3/$(basename "$w")"
done
# The same input gives the same bytes.
LD_LIBRARY_PATH="$FIX/host" run 0 repair "${IGN[@]}" "$FIX"/rf_math_cu12_bad-*.whl "$FIX"/rf_graft-*.whl -w "$WORK/o4"
for f in "$WORK"/o4/*.whl; do same "$f" "$WORK/o1/$(basename "$f")"; done

x() {  # x WHEEL DIR: unpack
  rm -rf "$2"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"
}
loads() {  # loads LIB [LD_LIBRARY_PATH]: the real loader opens it
  if LD_LIBRARY_PATH="${2:-}" python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$1" 2>"$WORK/load.err"; then ok
  else bad "$1 does not load: $(cat "$WORK/load.err")"; fi
}
EXT="_C.cpython-312-x86_64-linux-gnu.so"

# 2. Field report 1: the grafted driver copy is gone, NEEDED is libcuda.so.1.
x "$WORK"/o1/rf_driver_bad-*.whl "$WORK/x"
[ ! -e "$WORK/x/rf_driver_bad.libs" ] && ok || bad "the driver copy is still there"
readelf -d "$WORK/x/rf_driver_bad/$EXT" >"$WORK/re"
has "$WORK/re" "Shared library: [libcuda.so.1]"
lacks "$WORK/re" "libcuda-3c9a1f07"
lacks "$WORK/x/rf_driver_bad-1.0.dist-info/RECORD" "libcuda"

# 2: the bundled math libraries are removed, declared and found through
#    the per-major folders.
x "$WORK"/o1/rf_math_cu12_bad-*.whl "$WORK/x"
[ ! -e "$WORK/x/rf_math_cu12_bad/lib" ] && ok || bad "bundled libraries still shipped"
has "$WORK/x/rf_math_cu12_bad-1.0.dist-info/METADATA" "Requires-Dist: nvidia-cublas-cu12>=12,<13"
has "$WORK/x/rf_math_cu12_bad-1.0.dist-info/METADATA" "Requires-Dist: nvidia-cuda-runtime-cu12>=12,<13"
readelf -d "$WORK/x/rf_math_cu12_bad/$EXT" >"$WORK/re"
has "$WORK/re" "Library runpath: [\$ORIGIN/../nvidia/cuda_runtime/lib:\$ORIGIN/../nvidia/cublas/lib]"
# It loads once the NVIDIA packages' folders hold the libraries (stubs here).
mkdir -p "$WORK/x/nvidia/cuda_runtime/lib" "$WORK/x/nvidia/cublas/lib"
unzip -p "$FIX"/rf_math_cu12_bad-*.whl rf_math_cu12_bad/lib/libcudart.so.12 >"$WORK/x/nvidia/cuda_runtime/lib/libcudart.so.12"
unzip -p "$FIX"/rf_math_cu12_bad-*.whl rf_math_cu12_bad/lib/libcublas.so.12 >"$WORK/x/nvidia/cublas/lib/libcublas.so.12"
loads "$WORK/x/rf_math_cu12_bad/$EXT"

# 5: the renamed libcudart: NEEDED and the version needs agree again.
x "$WORK"/o1/rf_renamed_cu12_bad-*.whl "$WORK/x"
readelf -d "$WORK/x/rf_renamed_cu12_bad/$EXT" >"$WORK/re"
has "$WORK/re" "Shared library: [libcudart.so.12]"
lacks "$WORK/re" "0123abcd"
readelf -V "$WORK/x/rf_renamed_cu12_bad/$EXT" >"$WORK/rv"
has "$WORK/rv" "File: libcudart.so.12"

# 6: /usr/local/cuda is dropped from RUNPATH.
x "$WORK"/o1/rf_abs_cu12_bad-*.whl "$WORK/x"
readelf -d "$WORK/x/rf_abs_cu12_bad/$EXT" >"$WORK/re"
has "$WORK/re" "Library runpath: [\$ORIGIN:\$ORIGIN/../nvidia/cuda_runtime/lib]"
lacks "$WORK/re" "/usr/local/cuda"

# 7 and 8: nvidia/cu13/lib for nvrtc; nvidia/nccl/lib for NCCL.
x "$WORK"/o1/rf_origin_cu13_bad-*.whl "$WORK/x"
readelf -d "$WORK/x/rf_origin_cu13_bad/$EXT" >"$WORK/re"
has "$WORK/re" "[\$ORIGIN:\$ORIGIN/../nvidia/cu13/lib]"
has "$WORK/x/rf_origin_cu13_bad-1.0.dist-info/METADATA" "Requires-Dist: nvidia-cuda-nvrtc>=13,<14"
x "$WORK"/o1/rf_nccl_cu13_bad-*.whl "$WORK/x"
readelf -d "$WORK/x/rf_nccl_cu13_bad/$EXT" >"$WORK/re"
has "$WORK/re" "[\$ORIGIN/../nvidia/cu13/lib:\$ORIGIN/../nvidia/nccl/lib]"

# 18: the lost Requires-Dist is declared.
x "$WORK"/o1/rf_undeclared_cu13_bad-*.whl "$WORK/x"
has "$WORK/x/rf_undeclared_cu13_bad-1.0.dist-info/METADATA" "Requires-Dist: nvidia-cublas>=13,<14"

# 3. Grafting: libfoo.so.1 and the libbar.so.1 it needs come from
#    LD_LIBRARY_PATH, renamed as auditwheel names them; linux_x86_64 becomes
#    the most compatible manylinux tag. Without the folder nothing is written.
out="$(ls "$WORK"/o1/rf_graft-*.whl)"
case "$out" in *-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl) ok ;; *) bad "graft output $out" ;; esac
x "$out" "$WORK/x"
foo="$(ls "$WORK"/x/rf_graft.libs/libfoo-*.so.1)"
bar="$(ls "$WORK"/x/rf_graft.libs/libbar-*.so.1)"
[ -n "$foo" ] && [ -n "$bar" ] && ok || bad "grafted files missing"
readelf -d "$foo" >"$WORK/re"
has "$WORK/re" "Library soname: [$(basename "$foo")]"
has "$WORK/re" "Shared library: [$(basename "$bar")]"
readelf -d "$WORK/x/rf_graft/$EXT" >"$WORK/re"
has "$WORK/re" "Shared library: [$(basename "$foo")]"
has "$WORK/re" "Library rpath: [\$ORIGIN/../rf_graft.libs]"
has "$WORK/x/rf_graft-1.0.dist-info/WHEEL" "Tag: cp312-cp312-manylinux2014_x86_64"
loads "$WORK/x/rf_graft/$EXT"
run 1 repair "$FIX"/rf_graft-*.whl -w "$WORK/o5"
has "$WORK/out" "found neither in the wheel"
[ -z "$(ls -A "$WORK/o5" 2>/dev/null)" ] && ok || bad "a failed repair left files: $(ls -A "$WORK/o5")"

# 4. DT_RPATH against DT_RUNPATH: the extension reaches lib/libb.so, which
#    NEEDs libc2.so beside it. Kept as DT_RPATH (the extension's tag), one
#    library is edited and the RPATH serves libb.so too; as DT_RUNPATH, libb.so
#    needs its own entry, and without it the load fails.
x "$WORK"/o1/rf_chain-*.whl "$WORK/x"
readelf -d "$WORK/x/rf_chain/$EXT" >"$WORK/re"
has "$WORK/re" "Library rpath: [\$ORIGIN/lib]"
readelf -d "$WORK/x/rf_chain/lib/libb.so" >"$WORK/re"
lacks "$WORK/re" "path"
loads "$WORK/x/rf_chain/$EXT"
run 0 repair --runpath "$FIX"/rf_chain-*.whl -w "$WORK/o6"
has "$WORK/out" "added \$ORIGIN: the wheel ships libc2.so in rf_chain/lib"
x "$WORK"/o6/rf_chain-*.whl "$WORK/x"
readelf -d "$WORK/x/rf_chain/$EXT" >"$WORK/re"
has "$WORK/re" "Library runpath: [\$ORIGIN/lib]"
readelf -d "$WORK/x/rf_chain/lib/libb.so" >"$WORK/re"
has "$WORK/re" "Library runpath: [\$ORIGIN]"
loads "$WORK/x/rf_chain/$EXT"
unzip -p "$FIX"/rf_chain-*.whl rf_chain/lib/libb.so >"$WORK/x/rf_chain/lib/libb.so"
if python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$WORK/x/rf_chain/$EXT" 2>"$WORK/load.err"; then
  bad "a DT_RUNPATH extension served libb.so's NEEDED"
else
  has "$WORK/load.err" "libc2.so"
fi

# 5. --plat: allowed, and refused when the libraries need more.
LD_LIBRARY_PATH="$FIX/host" run 0 repair --plat manylinux_2_28_x86_64 "$FIX"/rf_graft-*.whl -w "$WORK/o7"
[ -f "$WORK"/o7/rf_graft-1.0-cp312-cp312-manylinux_2_28_x86_64.whl ] && ok || bad "--plat output: $(ls "$WORK/o7")"
run 1 repair --plat manylinux2014_x86_64 "$LOADING"/lw_plat-1.0-py3-none-linux_x86_64.whl -w "$WORK/o7"
has "$WORK/out" "cannot repair to manylinux2014_x86_64: the libraries need GLIBC_2.34"
run 0 repair --dry-run "$LOADING"/lw_plat-1.0-py3-none-linux_x86_64.whl
has "$WORK/out" "-> lw_plat-1.0-py3-none-manylinux_2_34_x86_64.whl"
run 1 repair --plat manylinux_2_28_aarch64 "$FIX"/rf_chain-*.whl -w "$WORK/o7"
has "$WORK/out" "it is for aarch64"
# A dry run writes the output into a temporary folder and checks it: the
# same exit status as the real run, nothing left behind.
TMPDIR="$WORK/drytmp" && mkdir -p "$TMPDIR" && export TMPDIR
run 0 repair --dry-run "${IGN[@]}" "$FIX"/rf_math_cu12_bad-*.whl
has "$WORK/out" "dry run: the output passes the check"
[ -z "$(ls -A "$WORK/drytmp")" ] && ok || bad "the dry run left $(ls -A "$WORK/drytmp")"
unset TMPDIR
for p in linux_x86_64 manylinux_2_99_x86_64 manylinux_2_0_x86_64 manylinux_2_28_x86_64.manylinux_2_17_x86_64 manylinux2014_x86_64x; do
  run 2 repair --plat "$p" "$FIX"/rf_chain-*.whl "$FIX"/rf_graft-*.whl -w "$WORK/o7"
  [ "$(grep -c "error" "$WORK/err")" = 1 ] && ok || bad "--plat $p: not one error: $(cat "$WORK/err")"
done
# Plugins do not set the tag they are not held to (platform-tag: a warning).
run 0 repair "$FIX"/rf_plugin-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl -w "$WORK/o7"
has "$WORK/out" "kept: only plugins need symbol versions"
run 0 repair --dry-run "$FIX"/rf_plugin-1.0-cp312-cp312-linux_x86_64.whl
has "$WORK/out" "-> rf_plugin-1.0-cp312-cp312-manylinux_2_34_x86_64.whl"
run 0 check "$FIX"/rf_plugin-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
has "$WORK/out" "warning[platform-tag]"

# 6. --dry-run writes nothing; --format json is the documented document.
run 0 repair --dry-run "${IGN[@]}" "$FIX"/rf_math_cu12_bad-*.whl -w "$WORK/o8"
[ ! -e "$WORK/o8" ] && ok || bad "--dry-run created $WORK/o8"
has "$WORK/out" "remove   rf_math_cu12_bad/lib/libcublas.so.12"
run 0 repair --dry-run --format json "${IGN[@]}" "$FIX"/rf_math_cu12_bad-*.whl
python3 - "$WORK/out" <<'PY' && ok || bad "repair --format json: $(head -c 400 "$WORK/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["command"] == "repair" and d["exit"] == 0, d
w = d["wheels"][0]
assert w["changes"] is True
assert sorted(r["member"] for r in w["removed"]) == ["rf_math_cu12_bad/lib/libcublas.so.12", "rf_math_cu12_bad/lib/libcudart.so.12"]
assert {r["requirement"] for r in w["requirements"]} == {"nvidia-cublas-cu12>=12,<13", "nvidia-cuda-runtime-cu12>=12,<13"}
kinds = {(n["needed"], n["kind"]) for n in w["needed"]}
assert ("libcudart.so.12", "cuda") in kinds and ("libc.so.6", "system") in kinds, kinds
assert w["search_paths"][0]["tag"] == "DT_RUNPATH"
assert w["platform_tags"] == ["manylinux_2_17_x86_64", "manylinux2014_x86_64"]
PY
run 0 repair --format json "${IGN[@]}" "$FIX"/rf_driver_bad-*.whl -w "$WORK/o8"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=d["wheels"][0]; assert w["written"] and w["check"]["errors"]==0, w' "$WORK/out" && ok || bad "json written"

# 7. --emit-auditwheel-args: the real sonames, for projects that keep auditwheel.
run 0 repair --emit-auditwheel-args "$FIX"/rf_math_cu12_bad-*.whl "$FIX"/rf_driver_bad-*.whl "$FIX"/rf_nccl_cu13_bad-*.whl
python3 - "$WORK/out" <<'PY' && ok || bad "--emit-auditwheel-args: $(cat "$WORK/out")"
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines == ["--exclude libcublas.so.12 --exclude libcudart.so.12", "--exclude libcuda.so.1",
                 "--exclude libcudart.so.13 --exclude libnccl.so.2"], lines
PY

# 8. A plan that leaves a problem is not written (exit 1, the problem), and
#    neither is one whose input fails a rule repair does not address; the
#    dry run says the same (a preflight).
run 1 repair "$LOADING"/lw_needed_cu13-1.0-py3-none-manylinux_2_36_x86_64.whl -w "$WORK/o9"
has "$WORK/out" "problem  lw_needed_cu13/lib/libmiss.so: DT_NEEDED libmissing.so.1 is found neither"
has "$WORK/out" "not written: the plan leaves 1 problem"
run 1 repair --dry-run "$LOADING"/lw_needed_cu13-1.0-py3-none-manylinux_2_36_x86_64.whl
run 1 repair --exclude 'libcudart.so.*' "${IGN[@]}" "$FIX"/rf_math_cu12_bad-*.whl -w "$WORK/o9"
has "$WORK/out" "kept by --exclude: rf_math_cu12_bad/lib/libcudart.so.12 stays bundled"
run 1 repair "$LOADING"/lw_bundled-1.0-py3-none-manylinux_2_36_x86_64.whl -w "$WORK/o9"
has "$WORK/out" "not repaired: not-redistributable on lw_bundled/bin/ptxas"
[ -z "$(ls -A "$WORK/o9")" ] && ok || bad "a failed repair left files: $(ls -A "$WORK/o9")"
# A wheel renamed by hand (WHEEL says linux_x86_64): WHEEL's Tag lines follow the name.
run 0 repair "${IGN[@]}" tests/fixtures/check/wheel/cwfix_tag-1.0.0-py3-none-manylinux_2_28_x86_64.whl -w "$WORK/o9c"
has "$WORK/out" "WHEEL's Tag lines rewritten"
run 0 check "$WORK"/o9c/cwfix_tag-1.0.0-py3-none-manylinux_2_28_x86_64.whl

# 9. Errors: exit 2, a message naming the file; the other inputs still run.
run 2 repair "$WORK/missing.whl" "$FIX"/rf_driver_good-*.whl -w "$WORK/o10"
has "$WORK/err" "missing.whl: cannot open"
[ -f "$WORK/o10/$(basename "$FIX"/rf_driver_good-*.whl)" ] && ok || bad "the good input after a missing one was not repaired"
echo "not a zip" >"$WORK/bad-1.0-py3-none-any.whl"
run 2 repair "$WORK/bad-1.0-py3-none-any.whl" -w "$WORK/o10"
has "$WORK/err" "bad-1.0-py3-none-any.whl"
run 2 repair "$FIX"/rf_driver_good-*.whl
has "$WORK/err" "-w DIR is required"
cp "$FIX"/rf_driver_good-*.whl "$FIX"/rf_driver_bad-*.whl "$WORK/"
run 0 repair "$WORK"/rf_driver_good-*.whl -w "$WORK"
has "$WORK/out" "left as it is"
run 2 repair "$WORK"/rf_driver_bad-*.whl -w "$WORK"
has "$WORK/err" "is the input"
# Two inputs of one output name: the second is not written over the first.
mkdir -p "$WORK/dup"
cp "$FIX"/rf_driver_good-*.whl "$WORK/dup/"
run 1 repair "$FIX"/rf_driver_good-*.whl "$WORK"/dup/rf_driver_good-*.whl -w "$WORK/o11"
has "$WORK/err" "another input of this run was written as"
# SOURCE_DATE_EPOCH that is no number: said, and the default used.
SOURCE_DATE_EPOCH=-1 run 0 repair "$FIX"/rf_chain-*.whl -w "$WORK/o12"
has "$WORK/err" "SOURCE_DATE_EPOCH"
same "$WORK"/o12/rf_chain-*.whl "$WORK"/o1/rf_chain-*.whl
# A pure-tagged wheel that ships ELF libraries is not retagged by guess.
python3 - "$WORK" "$FIX" <<'PY'
import sys, zipfile
work, fix = sys.argv[1:]
import glob
src = zipfile.ZipFile(glob.glob(fix + "/rf_chain-*.whl")[0])
with zipfile.ZipFile(work + "/rf_chain-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
    for i in src.infolist():
        d = src.read(i)
        if i.filename.endswith("/WHEEL"):
            d = b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        if i.filename.endswith("/RECORD"):
            import base64, hashlib
            w = b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
            h = base64.urlsafe_b64encode(hashlib.sha256(w).digest()).rstrip(b"=")
            d = b"".join((l.split(b",")[0] + b",sha256=" + h + b"," + str(len(w)).encode() if b"/WHEEL," in l else l) + b"\n"
                         for l in d.splitlines())
        z.writestr(i, d)
PY
run 1 repair --dry-run "$WORK"/rf_chain-1.0-py3-none-any.whl
has "$WORK/out" "ships ELF libraries for Linux x86_64"
run 2 repair --ignore no-such-rule "$FIX"/rf_driver_good-*.whl -w "$WORK/o10"
has "$WORK/err" "unknown rule"
run 2 repair --rpath --runpath "$FIX"/rf_driver_good-*.whl -w "$WORK/o10"

# JSON: an entry for every input, the unreadable ones with their error.
run 2 repair --format json "$WORK/missing.whl" "$FIX"/rf_chain-*.whl -w "$WORK/o13"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=d["wheels"]; assert len(w)==2 and "error" in w[0] and w[1]["written"], w' "$WORK/out" && ok || bad "json entries: $(cat "$WORK/out")"

# 10. Every other fixture wheel of the project (hostile names, zip bombs,
#     broken archives, the check fixtures): a plan or a named error, never a
#     crash (exit 0, 1 or 2; the sanitizers abort with another status).
find tests/fixtures -name '*.whl' -not -path "$FIX/*" | sort >"$WORK/all"
while read -r w; do
  "$CUWHEEL" repair --dry-run "$w" >"$WORK/out" 2>"$WORK/err"
  rc=$?
  case $rc in 0 | 1 | 2) ok ;; *) bad "repair --dry-run $w exited $rc: $(tail -c 300 "$WORK/err")" ;; esac
done <"$WORK/all"

# The inputs were only read.
[ "$sha_before" = "$(sha256sum "$FIX"/*.whl "$FIX"/host/*)" ] && ok || bad "an input changed"
finish
