#!/usr/bin/env bash
# End-to-end tests of `cuwheel probe`.
#
# 1. The probe matrix (tests/fixtures/probe, built by
#    tests/fixtures/make_probe_matrix.sh): the verdict of every library for
#    `--gpu sm_90 --driver 580.159.04` must be the one in
#    tests/fixtures/probe/expected-h200.tsv, the table measured on an H200
#    with that driver, and each verdict there must predict the launch
#    result recorded beside it (native/jit 0, no-image 209,
#    ptx-unsupported 222).
# 2. The CLI: names and compute capabilities for --gpu, --driver forms,
#    usage errors, exit statuses, JSON, unreadable inputs beside readable
#    ones, all-known.
# 3. A machine with a driver: the test's fake libcuda.so.1 /
#    libnvidia-ml.so.1 (tests/unit/fake_driver.cc, built beside cuwheel)
#    reached through LD_LIBRARY_PATH: the host report, `--gpu this`, and
#    `--load` (agreeing and disagreeing), then the driver's failure codes
#    (34 stub, 804 forward compatibility) and no driver at all.
#
# Usage: tests/e2e/probe_test.sh path/to/cuwheel
set -u
. "$(dirname "$0")/common.sh"
CUWHEEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
M=$ROOT/tests/fixtures/probe
FAKE=$(dirname "$CUWHEEL")/libcuwheel_fake_driver.so

# No driver for the static parts: an empty LD_LIBRARY_PATH folder first,
# and --gpu given, so the host's driver (if any) is not consulted.
cw() { "$CUWHEEL" "$@"; }

# expect_status WANT NAME CMD...: stdout to $WORK/out, stderr to $WORK/err.
expect_status() {
  local want=$1 name=$2
  shift 2
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$name: exit $got, want $want: $(head -c 400 "$WORK/err")"; fi
}
contains() { # NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then ok; else bad "$1: '$3' not in $(head -c 600 "$2")"; fi
}
json_get() { # FILE PYTHON-EXPR on d
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null
}

# --- 1. the matrix against the H200 table ------------------------------------
n=0
while IFS=$'\t' read -r lib want launch jit; do
  case $lib in '#'* | '') continue ;; esac
  n=$((n + 1))
  cw probe --gpu sm_90 --driver 580.159.04 --format json "$M/lib$lib.so" >"$WORK/m.json" 2>"$WORK/err"
  got=$(json_get "$WORK/m.json" 'd["inputs"][0]["verdicts"][0]["verdict"]')
  if [ "$got" = "$want" ]; then ok; else bad "matrix $lib: verdict '$got', the H200 table says '$want'"; fi
  case $want in
    native | jit) e=0 ;;
    no-image) e=209 ;;
    ptx-unsupported) e=222 ;;
    *) e=$launch ;;  # unknown: predicts no result
  esac
  if [ "$e" = "$launch" ]; then ok; else bad "matrix $lib: '$want' predicts $e, the H200 launch gave $launch"; fi
done <"$M/expected-h200.tsv"
if [ "$n" = 20 ]; then ok; else bad "matrix: $n rows in expected-h200.tsv, want 20"; fi

# The no-fallback finding, in words: the refused PTX is named, and the lower one.
expect_status 2 "m16 text" cw probe --gpu sm_90 --driver 580.159.04 "$M/libm16_ptx80_ptx90_isa91.so"
contains "m16 text" "$WORK/out" "compute_90 PTX needs PTX ISA 9.1"
contains "m16 text" "$WORK/out" "does not fall back to the lower PTX (compute_80)"
# The same library on a CUDA 13.1 driver JIT-compiles.
expect_status 1 "m16 on 13.1" cw probe --gpu sm_90 --driver 13.1 "$M/libm16_ptx80_ptx90_isa91.so"
contains "m16 on 13.1" "$WORK/out" "JIT"

# --- 2. the CLI ---------------------------------------------------------------
# Exit statuses: 0 all native, 1 JIT, 2 fails.
expect_status 0 "native exit" cw probe --gpu sm_90 "$M/libm01_sm90.so"
expect_status 1 "jit exit" cw probe --gpu sm_90 "$M/libm05_ptx90.so"
expect_status 2 "209 exit" cw probe --gpu sm_90 "$M/libm02_sm80.so"
contains "209 text" "$WORK/out" "209"
# Same major, higher minor runs the lower cubin; an 'a' cubin does not move.
expect_status 0 "sm_80 on 8.6" cw probe --gpu 8.6 "$M/libm02_sm80.so"
expect_status 2 "sm_100a on 10.3" cw probe --gpu sm_103 "$M/libm10_sm100a.so"
expect_status 0 "sm_100f on 10.3" cw probe --gpu sm_103 "$M/libm11_sm100f.so"
# Desktop cubins do not run on Tegra: sm_80 on Orin (8.7).
expect_status 2 "sm_80 on Orin" cw probe --gpu "Jetson AGX Orin" "$M/libm02_sm80.so"
# Product names, case-insensitive, and which one matched.
expect_status 0 "name" cw probe --gpu "h200" "$M/libm01_sm90.so"
contains "name matched" "$WORK/out" "h200: H200"
# A name two generations share is answered for the one it names, with a note.
expect_status 2 "ambiguous name" cw probe --gpu "RTX 6000" "$M/libm01_sm90.so"
contains "ambiguous name" "$WORK/err" "also named so: RTX 6000 Ada (8.9)"
expect_status 2 "unknown name" cw probe --gpu "GeForce Banana 9000" "$M/libm01_sm90.so"
contains "unknown name" "$WORK/err" "GeForce Banana 9000"
expect_status 2 "bad driver" cw probe --gpu sm_90 --driver "five-eighty" "$M/libm01_sm90.so"
contains "bad driver" "$WORK/err" "five-eighty"
# A compute capability outside the tables: unknown, exit 1, never "runs".
expect_status 1 "unknown cc" cw probe --gpu sm_150 "$M/libm12_ptx120f.so"
# Several GPUs and libraries; the wheel-level verdict is the weakest.
expect_status 2 "two gpus" cw probe --gpu sm_90 --gpu sm_80 --format json "$M/libm01_sm90.so" "$M/libm03_sm80_ptx80.so"
if [ "$(json_get "$WORK/out" 'len(d["inputs"]), len(d["gpus"]), d["exit"]')" = "2 2 2" ]; then ok; else bad "two gpus json: $(head -c 300 "$WORK/out")"; fi
# all-known: one row per known compute capability.
expect_status 2 "all-known" cw probe --gpu all-known --format json "$M/libm01_sm90.so"
rows=$(json_get "$WORK/out" 'len(d["gpus"])')
if [ "${rows:-0}" -ge 15 ]; then ok; else bad "all-known: $rows GPUs"; fi
expect_status 2 "all-known text" cw probe --gpu all-known "$M/libm01_sm90.so"
contains "all-known text" "$WORK/out" "sm_90"
# Unreadable input beside a readable one: exit 2, the readable one answered.
printf 'not an ELF file' >"$WORK/junk.so"
expect_status 2 "unreadable" cw probe --gpu sm_90 --format json "$WORK/junk.so" "$M/libm01_sm90.so"
if [ "$(json_get "$WORK/out" 'len(d["unreadable"]), d["inputs"][0]["verdicts"][0]["verdict"]')" = "1 native" ]; then ok; else
  bad "unreadable json: $(head -c 400 "$WORK/out")"
fi
# A truncated library is unreadable only: no verdict beside its error.
head -c 4000 "$M/libm01_sm90.so" >"$WORK/cut.so"
expect_status 2 "truncated" cw probe --gpu sm_90 --format json "$WORK/cut.so"
if [ "$(json_get "$WORK/out" 'len(d["unreadable"]), len(d["inputs"])')" = "1 0" ]; then ok; else bad "truncated json: $(head -c 400 "$WORK/out")"; fi
# A wheel with a member that cannot be read is not answered "native" by
# its other members: at best unknown, naming the member.
mkdir -p "$WORK/wh/pkg" "$WORK/wh/pkg-1.0.dist-info"
cp "$M/libm01_sm90.so" "$WORK/wh/pkg/libgood.so"
cp "$WORK/cut.so" "$WORK/wh/pkg/libcut.so"
printf 'Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n' >"$WORK/wh/pkg-1.0.dist-info/METADATA"
printf 'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-manylinux_2_28_x86_64\n' >"$WORK/wh/pkg-1.0.dist-info/WHEEL"
printf '' >"$WORK/wh/pkg-1.0.dist-info/RECORD"
(cd "$WORK/wh" && zip -qr "$WORK/pkg-1.0-py3-none-manylinux_2_28_x86_64.whl" pkg pkg-1.0.dist-info)
expect_status 2 "wheel with a cut member" cw probe --gpu sm_90 --format json "$WORK/pkg-1.0-py3-none-manylinux_2_28_x86_64.whl"
if [ "$(json_get "$WORK/out" 'd["inputs"][0]["verdicts"][0]["verdict"], d["inputs"][0]["verdicts"][0]["library"]')" = "unknown pkg/libcut.so" ]; then ok; else
  bad "wheel with a cut member: $(head -c 600 "$WORK/out")"
fi
expect_status 2 "missing file" cw probe --gpu sm_90 "$WORK/absent.so"
contains "missing file" "$WORK/err" "absent.so"
# A library with no device code is not a pass.
printf 'int f(void){return 1;}\n' >"$WORK/h.c"
if cc -shared -fPIC -o "$WORK/libhost.so" "$WORK/h.c" 2>/dev/null; then
  expect_status 1 "no device code" cw probe --gpu sm_90 "$WORK/libhost.so"
else
  bad "cc could not build a host library"
fi

# --- 3. a driver: the fake one ------------------------------------------------
if [ ! -f "$FAKE" ]; then
  bad "no fake driver at $FAKE (built with the tests)"
  finish
  exit $?
fi
D=$WORK/driver
mkdir -p "$D"
ln -s "$FAKE" "$D/libcuda.so.1"
ln -s "$FAKE" "$D/libnvidia-ml.so.1"
withdrv() { LD_LIBRARY_PATH=$D "$CUWHEEL" "$@"; }
expect_status 0 "host" withdrv probe
contains "host" "$WORK/out" "Fake GPU 9.0"
contains "host" "$WORK/out" "580.65.06"
expect_status 0 "host json" withdrv probe --format json
if [ "$(json_get "$WORK/out" 'd["host"]["state"], len(d["host"]["driver_api"]["devices"])')" = "ok 2" ]; then ok; else bad "host json: $(head -c 400 "$WORK/out")"; fi
# --gpu this is the default: both fake GPUs (9.0 and 8.6), the driver's CUDA 13.0.
expect_status 2 "this" withdrv probe --format json "$M/libm01_sm90.so"
if [ "$(json_get "$WORK/out" '" ".join(v["gpu"]+"="+v["verdict"] for v in d["inputs"][0]["verdicts"])')" = "sm_86=no-image sm_90=native" ]; then ok; else
  bad "this: $(head -c 600 "$WORK/out")"
fi
# --load through the fake driver: libraries whose loads it models agree...
agreeing=("$M"/libm0[1-9]*.so "$M"/libm1[0-3]*.so "$M/libm17_sm89.so" "$M/libm20_sm75_sm100_ptx100.so")
expect_status 0 "load agrees" withdrv probe --load "${agreeing[@]}"
contains "load agrees" "$WORK/out" "agree"
expect_status 0 "load json" withdrv probe --load --format json "$M/libm03_sm80_ptx80.so"
if [ "$(json_get "$WORK/out" 'd["compared"] > 0 and d["compared"] == d["agreed"]')" = "True" ]; then ok; else bad "load json: $(head -c 600 "$WORK/out")"; fi
# ...and one it does not (the fake ignores the PTX ISA, so it loads PTX of
# ISA 9.1 that the prediction for a CUDA 13.0 driver refuses): exit 1.
expect_status 1 "load disagrees" withdrv probe --load "$M/libm14_ptx80_isa91.so"
contains "load disagrees" "$WORK/out" "MISMATCH"
expect_status 2 "load needs a path" withdrv probe --load
expect_status 2 "load with --driver" withdrv probe --load --driver 12.8 "$M/libm01_sm90.so"
# m18's PTX ISA is outside the tables: nothing compared, not "agree".
expect_status 1 "load not compared" withdrv probe --load "$M/libm18_ptx75_isa99.so"
contains "load not compared" "$WORK/out" "not compared"
# A failing driver is reported by --load itself, with no note before it.
FAKE_CUINIT=34 LD_LIBRARY_PATH=$D "$CUWHEEL" probe --load "$M/libm01_sm90.so" >"$WORK/out" 2>&1
if [ $? = 2 ] && ! grep -q "all-known" "$WORK/out"; then ok; else bad "load on a stub: $(head -c 400 "$WORK/out")"; fi
# Repeated and differently spelt GPUs give one row per compute capability.
expect_status 2 "one row each" withdrv probe --gpu THIS --gpu sm_90 --gpu H100 --format json "$M/libm01_sm90.so"
if [ "$(json_get "$WORK/out" 'len(d["gpus"])')" = "2" ]; then ok; else bad "one row each: $(head -c 400 "$WORK/out")"; fi
expect_status 2 "load unreadable" withdrv probe --load "$WORK/junk.so" "$M/libm01_sm90.so"
# The driver's failures: the toolkit's stub (34) and forward compatibility (804).
FAKE_CUINIT=34 withdrv probe >"$WORK/out" 2>&1
if [ $? = 1 ] && grep -qi "stub" "$WORK/out"; then ok; else bad "stub 34: $(head -c 400 "$WORK/out")"; fi
FAKE_CUINIT=804 withdrv probe >"$WORK/out" 2>&1
if [ $? = 1 ] && grep -qi "forward" "$WORK/out"; then ok; else bad "compat 804: $(head -c 400 "$WORK/out")"; fi
expect_status 2 "load without init" env FAKE_CUINIT=34 LD_LIBRARY_PATH=$D "$CUWHEEL" probe --load "$M/libm01_sm90.so"

# --- the runtime before the kernels; inputs without device code ---------------
# The dual-major example's wheels: demo (no device code), demo_cu12 (static
# 12.9 runtime, PTX ISA 8.8), demo_cu13 (static 13.0 runtime, PTX ISA 9.0).
X=examples/dual-major/wheelhouse
expect_status 2 "cu13 on a 12.8 driver" cw probe --gpu H100 --driver 12.8 $X/demo_cu13-0.3.0-cp311-abi3-linux_x86_64.whl
contains "cu13 on 12.8" "$WORK/out" "FAILS 35"
contains "cu13 on 12.8" "$WORK/out" "cudaErrorInsufficientDriver (35)"
contains "cu13 on 12.8" "$WORK/out" "presumably CUDA 13"
expect_status 0 "cu12 on a 12.8 driver" cw probe --gpu H100 --driver 12.8 $X/demo_cu12-0.3.0-cp311-abi3-linux_x86_64.whl
expect_status 0 "cu13 on a 580.65 driver" cw probe --gpu H100 --driver 580.65 $X/demo_cu13-0.3.0-cp311-abi3-linux_x86_64.whl
# The core wheel alone is unknown; beside the plugins it is named, not counted.
expect_status 1 "core alone" cw probe --gpu H100 --driver 13.0 $X/demo-0.3.0-cp311-abi3-linux_x86_64.whl
expect_status 0 "core among plugins" cw probe --gpu H100 --driver 13.0 --format json $X/demo-0.3.0-cp311-abi3-linux_x86_64.whl \
  $X/demo_cu12-0.3.0-cp311-abi3-linux_x86_64.whl $X/demo_cu13-0.3.0-cp311-abi3-linux_x86_64.whl
if [ "$(json_get "$WORK/out" 'len(d["inputs"]), d["without_device_code"], d["exit"]')" = \
  "2 ['$X/demo-0.3.0-cp311-abi3-linux_x86_64.whl'] 0" ]; then ok; else bad "core among plugins: $(head -c 600 "$WORK/out")"; fi
expect_status 0 "the wheelhouse folder" cw probe --gpu H100 --driver 13.0 $X
contains "folder note" "$WORK/err" "2 inputs without device code"
# A shared runtime: the major is read from DT_NEEDED (libcudart.so.13 of the fixture library).
expect_status 2 "shared runtime on 12.8" cw probe --gpu H100 --driver 12.8 tests/fixtures/bin/libcomp_default.so
contains "shared runtime on 12.8" "$WORK/out" "libcudart.so.13 (DT_NEEDED)"
expect_status 0 "shared runtime on 13.0" cw probe --gpu H100 --driver 13.0 tests/fixtures/bin/libcomp_default.so

# Backends chosen at run time by the CUDA version (bitsandbytes' layout):
# the cuda13 backend on a 12.8 driver does not decide the wheel's answer
# while its cuda12 sibling starts there, and does when nothing names the
# libraries as alternatives. The cuda12 backend is the fixture library with
# its runtime renamed to libcudart.so.12 (every occurrence, same length).
mkwheel() { # OUT WITH_LOADER
  python3 - "$ROOT/tests/fixtures/bin/libcomp_default.so" "$1" "$2" <<'PY'
import base64, hashlib, sys, zipfile
lib13 = open(sys.argv[1], "rb").read()
lib12 = lib13.replace(b"libcudart.so.13", b"libcudart.so.12")
members = {"multi/libmulti_cuda12.so": lib12, "multi/libmulti_cuda13.so": lib13}
if sys.argv[3] == "1":
    members["multi/__init__.py"] = (b"import ctypes, os\nmajor = 12\n"
                                    b"lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), f\"libmulti_cuda{major}.so\"))\n")
members["multi-1.0.dist-info/METADATA"] = b"Metadata-Version: 2.1\nName: multi\nVersion: 1.0\n"
members["multi-1.0.dist-info/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-linux_x86_64\n"
rec = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n" for n, d in members.items())
members["multi-1.0.dist-info/RECORD"] = (rec + "multi-1.0.dist-info/RECORD,,\n").encode()
with zipfile.ZipFile(sys.argv[2], "w") as z:
    for n, d in members.items():
        z.writestr(n, d)
PY
}
mkdir -p "$WORK/multi" "$WORK/multi-noloader"
mkwheel "$WORK/multi/multi-1.0-py3-none-linux_x86_64.whl" 1
mkwheel "$WORK/multi-noloader/multi-1.0-py3-none-linux_x86_64.whl" 0
expect_status 0 "backends, 12.8 driver" cw probe --gpu H100 --driver 12.8 "$WORK/multi/multi-1.0-py3-none-linux_x86_64.whl"
contains "backends, 12.8 driver" "$WORK/out" "a backend chosen at run time"
contains "backends, 12.8 driver" "$WORK/out" "FAILS 35"
expect_status 2 "no loader, 12.8 driver" cw probe --gpu H100 --driver 12.8 "$WORK/multi-noloader/multi-1.0-py3-none-linux_x86_64.whl"
contains "no loader, 12.8 driver" "$WORK/out" "FAILS 35  multi/libmulti_cuda13.so"
expect_status 0 "backends, 13.0 driver" cw probe --gpu H100 --driver 13.0 "$WORK/multi/multi-1.0-py3-none-linux_x86_64.whl"
expect_status 0 "backends, JSON" cw probe --gpu H100 --driver 12.8 --format json "$WORK/multi/multi-1.0-py3-none-linux_x86_64.whl"
if [ "$(json_get "$WORK/out" '[(l["member"], l["not_counted"]) for l in d["inputs"][0]["libraries"]]')" = \
  "[('multi/libmulti_cuda12.so', []), ('multi/libmulti_cuda13.so', ['sm_90'])]" ]; then ok; else bad "backends JSON: $(head -c 600 "$WORK/out")"; fi

# No driver at all: an LD_LIBRARY_PATH with nothing, and only when this
# machine has no libcuda of its own to find.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  mkdir -p "$WORK/none"
  LD_LIBRARY_PATH=$WORK/none "$CUWHEEL" probe >"$WORK/out" 2>&1
  if [ $? = 1 ] && grep -qi "no NVIDIA driver" "$WORK/out"; then ok; else bad "no driver: $(head -c 400 "$WORK/out")"; fi
  # Without a driver and without --gpu: the all-known table, with a note.
  LD_LIBRARY_PATH=$WORK/none "$CUWHEEL" probe "$M/libm01_sm90.so" >"$WORK/out" 2>"$WORK/err"
  if [ $? = 2 ] && grep -q "all-known" "$WORK/err"; then ok; else bad "no driver, a path: $(head -c 400 "$WORK/err")"; fi
fi

finish
