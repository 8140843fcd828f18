#!/usr/bin/env bash
# `make demo`: the main job on an embedded default.
#   1. `cuwheel show` on the project's own fixture wheel: wheel metadata, and
#      per library its soname, classified NEEDED, RUNPATH, CUDA runtime and
#      device code.
#   2. `cuwheel list` on fixture libraries: as text, and as cuobjdump would.
#   3. `cuwheel check` of the fixture wheel against a release policy.
#   4. `cuwheel repair` of a wheel that bundles CUDA libraries, and the check
#      of what it wrote.
#   5. When a CUDA toolkit is installed, `show` and `check` on a few of its
#      libraries.
# Each step prints the exact command it runs (paths relative to the folder
# named above it), so it can be pasted into a shell.
set -euo pipefail
CUWHEEL=$(cd "$(dirname "${1:-build/cuwheel}")" && pwd)/$(basename "${1:-build/cuwheel}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FIX=$ROOT/tests/fixtures/bin
REPAIR_FIX=$ROOT/tests/fixtures/repair

if [ -t 1 ]; then
  bold=$'\033[1m'
  plain=$'\033[0m'
else
  bold=""
  plain=""
fi

# run DIR EXPECT CMD...: prints "(in DIR)" and the command as typed, with
# `cuwheel` for the binary, then runs it in DIR. EXPECT "findings" accepts
# exit status 1 (findings reported), and says so.
run() {
  local dir=$1 expect=$2
  shift 2
  local shown="cuwheel"
  for a in "${@:2}"; do
    if [[ $a =~ ^[A-Za-z0-9_./,=:@%+-]+$ ]]; then shown+=" $a"; else shown+=" '${a//\'/\'\\\'\'}'"; fi
  done
  printf '\n%s$ %s%s\n' "$bold" "$shown" "$plain"
  printf '  (in %s)\n' "${dir/#$ROOT\//}"
  local rc=0
  (cd "$dir" && "$@") || rc=$?
  if [ "$rc" -ne 0 ]; then
    if [ "$expect" = findings ] && [ "$rc" -eq 1 ]; then
      echo "(exit status 1: findings, as expected)"
    else
      echo "(exit status $rc)"
      return "$rc"
    fi
  fi
}

demo_wheel=cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl
run "$FIX" ok "$CUWHEEL" show "$demo_wheel"
run "$FIX" ok "$CUWHEEL" list libsuffix.so cu12_plain.so librdc.a
run "$FIX" ok "$CUWHEEL" list --format cuobjdump --elf --ptx libsuffix.so
# Findings are expected here: some fixture libraries lack sm_75 on purpose.
run "$FIX" findings "$CUWHEEL" check --cuda-major 13 --sass sm_75,sm_90,sm_120 --ptx newest --gpus sm_80,sm_89 "$demo_wheel"

# repair: a wheel that bundles libcudart and libcublas (field report 2),
# repaired into a temporary folder, and the check of the result. The
# fixtures are gcc stubs without device code, hence --ignore no-device-code.
repaired=$(mktemp -d "${TMPDIR:-/tmp}/cuwheel-demo.XXXXXX")
trap 'rm -rf "$repaired"' EXIT
bad=$(cd "$REPAIR_FIX" && echo rf_math_cu12_bad-1.0-*.whl)
run "$REPAIR_FIX" ok "$CUWHEEL" repair --ignore no-device-code "$bad" -w "$repaired"
run "$repaired" ok "$CUWHEEL" check --ignore no-device-code "$(cd "$repaired" && echo ./*.whl)"

# The installed CUDA toolkit, if any.
cuda_lib=""
if command -v nvcc >/dev/null 2>&1; then
  cuda_lib=$(cd "$(dirname "$(readlink -f "$(command -v nvcc)")")/../lib64" 2>/dev/null && pwd || true)
fi
[ -n "$cuda_lib" ] || { [ -d /usr/local/cuda/lib64 ] && cuda_lib=/usr/local/cuda/lib64; }
if [ -n "$cuda_lib" ] && [ -d "$cuda_lib" ]; then
  libs=()
  for l in libcudart.so.13 libcudart.so.12 libcufft.so.12 libcufft.so.11 libnccl.so.2 libcurand.so.10; do
    [ -e "$cuda_lib/$l" ] && libs+=("$l")
  done
  if [ ${#libs[@]} -gt 0 ]; then
    run "$cuda_lib" ok "$CUWHEEL" show "${libs[@]}"
  fi
  if [ -e "$cuda_lib/libcublasLt.so.13" ]; then
    run "$cuda_lib" ok "$CUWHEEL" check --select uncovered-gpu,ptx-needs-newer-driver,bundled-driver-library \
      --gpus sm_80,sm_90,sm_120 --min-driver 580.65.06 libcublasLt.so.13
  fi
else
  echo
  echo "no CUDA toolkit found: skipping its libraries"
fi
