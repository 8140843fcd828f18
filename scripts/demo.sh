#!/usr/bin/env bash
# `make demo`: the main job on an embedded default.
#   1. `cuwheel show` on the project's own fixture wheel: wheel metadata, and
#      per library its soname, classified NEEDED, RUNPATH, CUDA runtime and
#      device code.
#   2. `cuwheel list` on fixture libraries: as text, and as cuobjdump would.
#   3. When a CUDA toolkit is installed, the same on a few of its libraries.
set -euo pipefail
CUWHEEL=$(cd "$(dirname "${1:-build/cuwheel}")" && pwd)/$(basename "${1:-build/cuwheel}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FIX=$ROOT/tests/fixtures/bin

if [ -t 1 ]; then
  banner() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
  banner() { printf '\n== %s\n' "$*"; }
fi

banner "cuwheel show cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl"
(cd "$FIX" && "$CUWHEEL" show cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl)

banner "cuwheel list libsuffix.so cu12_plain.so librdc.a"
(cd "$FIX" && "$CUWHEEL" list libsuffix.so cu12_plain.so librdc.a)

banner "cuwheel list --format cuobjdump --elf --ptx libsuffix.so"
(cd "$FIX" && "$CUWHEEL" list --format cuobjdump --elf --ptx libsuffix.so)

banner "cuwheel check --cuda-major 13 --sass sm_75,sm_90,sm_120 --ptx newest --gpus sm_80,sm_89 (the fixture wheel)"
# Findings are expected here: some fixture libraries lack sm_75 on purpose.
(cd "$FIX" && "$CUWHEEL" check --cuda-major 13 --sass sm_75,sm_90,sm_120 --ptx newest --gpus sm_80,sm_89 \
   cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl) || echo "(exit status $? : findings, as expected)"

# repair: a wheel that bundles libcudart and libcublas (field report 2),
# repaired into a temporary folder, and the check of the result.
REPAIR_FIX="$(cd "$(dirname "$0")/../tests/fixtures/repair" && pwd)"
repaired="$(mktemp -d)"
banner "cuwheel repair rf_math_cu12_bad-...whl -w \$TMP (bundled CUDA math libraries: depend instead)"
"$CUWHEEL" repair --ignore no-device-code "$REPAIR_FIX"/rf_math_cu12_bad-1.0-*.whl -w "$repaired" || true
banner "cuwheel check (the repaired wheel)"
"$CUWHEEL" check --ignore no-device-code "$repaired"/*.whl || true
rm -rf "$repaired"

# The installed CUDA toolkit, if any.
cuda_lib=""
if command -v nvcc >/dev/null 2>&1; then
  cuda_lib=$(cd "$(dirname "$(readlink -f "$(command -v nvcc)")")/../lib64" 2>/dev/null && pwd || true)
fi
[ -n "$cuda_lib" ] || { [ -d /usr/local/cuda/lib64 ] && cuda_lib=/usr/local/cuda/lib64; }
if [ -n "$cuda_lib" ] && [ -d "$cuda_lib" ]; then
  libs=()
  for l in libcudart.so.13 libcudart.so.12 libcufft.so.12 libcufft.so.11 libnccl.so.2 libcurand.so.10; do
    [ -e "$cuda_lib/$l" ] && libs+=("$cuda_lib/$l")
  done
  if [ ${#libs[@]} -gt 0 ]; then
    banner "cuwheel show (CUDA toolkit libraries in $cuda_lib)"
    "$CUWHEEL" show "${libs[@]}"
  fi
  if [ -e "$cuda_lib/libcublasLt.so.13" ]; then
    banner "cuwheel check --gpus sm_80,sm_90,sm_120 --min-driver 580.65.06 $cuda_lib/libcublasLt.so.13"
    "$CUWHEEL" check --select uncovered-gpu,ptx-needs-newer-driver,bundled-driver-library \
      --gpus sm_80,sm_90,sm_120 --min-driver 580.65.06 "$cuda_lib/libcublasLt.so.13"
  fi
else
  banner "no CUDA toolkit found: skipping its libraries"
fi
