#!/usr/bin/env bash
# Builds the two programs of tools/gpu-hide-driver-check.sh into OUT, on a
# machine with a C compiler and the CUDA toolkit (nvcc); the GPU machine
# that runs the check needs neither, only the driver.
#   driver_probe   dlopen("libcuda.so.1") + driver API (cc, -ldl)
#   cudart_count   cudaGetDeviceCount through the static CUDA runtime
#                  (nvcc -cudart static: libcudart is linked in, so the
#                  program needs no CUDA library at run time besides the
#                  driver's libcuda.so.1, which is what is being hidden)
# Usage: tools/gpu-check/build.sh OUT   (e.g. build-gpucheck)
set -euo pipefail
OUT=${1:?usage: tools/gpu-check/build.sh OUT}
HERE=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT"
${CC:-cc} -O2 -Wall -o "$OUT/driver_probe" "$HERE/driver_probe.c" -ldl
"$NVCC" -O2 -cudart static -o "$OUT/cudart_count" "$HERE/cudart_count.cu"
"$NVCC" --version | tail -n 2 >"$OUT/nvcc-version.txt"
echo "built $OUT/driver_probe and $OUT/cudart_count ($(tail -n 1 "$OUT/nvcc-version.txt"))"
