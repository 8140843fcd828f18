#!/usr/bin/env bash
# Builds the two programs of scripts/gpu-hide-driver-check.sh into OUT, on a
# machine with a C compiler and the CUDA toolkit (nvcc); the GPU machine
# that runs the check needs neither, only the driver.
#   driver_probe   dlopen("libcuda.so.1") + driver API (cc, -ldl)
#   host_report    the host layer's driver queries (host-driver-check.sh)
#   cudart_count   cudaGetDeviceCount through the static CUDA runtime
#                  (nvcc -cudart static: libcudart is linked in, so the
#                  program needs no CUDA library at run time besides the
#                  driver's libcuda.so.1, which is what is being hidden)
# With CUWHEEL (the cuwheel binary the GPU machine will run, e.g.
# build/cuwheel from `make build`), OUT also receives a copy of it without
# debug information (OUT/cuwheel; the same code, a tenth of the size) and
# its shared libraries other than glibc's (libzip, libzstd, libcurl,
# gpgme, libarchive and what they load) in OUT/cuwheel-libs.tar.gz: a GPU
# machine need not have them installed. scripts/gpu-hide-driver-check.sh
# unpacks them only when cuwheel does not start without them, and then
# starts cuwheel through the dynamic loader with --library-path, which
# changes nothing for CMD.
# Usage: scripts/gpu-check/build.sh OUT [CUWHEEL]   (e.g. build-gpucheck build/cuwheel)
set -euo pipefail
OUT=${1:?usage: scripts/gpu-check/build.sh OUT [CUWHEEL]}
CUWHEEL=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT"
${CC:-cc} -O2 -Wall -o "$OUT/driver_probe" "$HERE/driver_probe.c" -ldl
"$NVCC" -O2 -cudart static -o "$OUT/cudart_count" "$HERE/cudart_count.cu"
"$NVCC" --version | tail -n 2 >"$OUT/nvcc-version.txt"
# host_report (scripts/gpu-check/host-driver-check.sh): the host layer's
# driver queries, from a `make build` tree (BUILD, default build/), with
# the toolkit's stub libcuda.so and an empty file to load instead of it.
BUILD=${BUILD:-$HERE/../../build}
ROOT=$HERE/../..
${CXX:-g++} -O2 -std=c++20 -I"$ROOT/include" -o "$OUT/host_report" "$HERE/host_report.cc" \
  "$BUILD/libcuwheel_host.a" "$BUILD/libcuwheel_cuda.a" "$BUILD/libcuwheel_base.a" -lcrypto -ldl \
  -static-libstdc++ -static-libgcc
cp "$(dirname "$(readlink -f "$NVCC")")/../lib64/stubs/libcuda.so" "$OUT/stub-libcuda.so"
: >"$OUT/empty-libcuda.so.1"
if [ -n "$CUWHEEL" ]; then
  strip -o "$OUT/cuwheel" "$CUWHEEL" 2>/dev/null || cp "$CUWHEEL" "$OUT/cuwheel"
  libs=$(mktemp -d)
  mkdir "$libs/lib"
  # ldd prints "name => /path (addr)"; glibc's own libraries stay the GPU machine's.
  ldd "$CUWHEEL" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$libs/lib/"; done
  tar -C "$libs" -czf "$OUT/cuwheel-libs.tar.gz" lib
  echo "copied $CUWHEEL to $OUT/cuwheel, $(ls "$libs/lib" | wc -l) of its shared libraries to $OUT/cuwheel-libs.tar.gz"
  rm -rf "$libs"
fi
echo "built $OUT/driver_probe, $OUT/host_report and $OUT/cudart_count ($(tail -n 1 "$OUT/nvcc-version.txt"))"
