#!/usr/bin/env bash
# Assembles a CUDA 12 "toolkit" for the example's cu12 leg from PyPI wheels,
# in .cache/cuda12 (ignored by git).
#
# Why from wheels: a CUDA 13 toolkit is installed, and the round trip needs a
# second CUDA major in the same checkout. NVIDIA publishes no CUDA 12 nvcc
# on PyPI: nvidia-cuda-nvcc-cu12 ships ptxas, libnvvm, libdevice and the crt
# headers, but neither the nvcc driver nor cicc. So the cu12 leg is built
# from what PyPI does offer for CUDA 12:
#   nvidia-cuda-runtime-cu12  cuda_runtime_api.h, cuda.h, libcudart.so.12
#   nvidia-cuda-nvcc-cu12     crt/host_defines.h and the other crt headers
#                             that cuda_runtime_api.h includes
#   nvidia-cuda-nvrtc-cu12    libnvrtc.so.12: CUDA C++ -> cubin in-process;
#                             nvrtcc.cpp wraps it as the device compiler
# Host code is compiled by the system g++ against these headers. The versions
# are pinned so that the cu12 leg is the same every time.
#
# Layout made:  .cache/cuda12/include  .cache/cuda12/lib  .cache/cuda12/bin/nvrtcc
# Needs network access to PyPI (pip download); nothing is installed.
set -euo pipefail
cd "$(dirname "$0")"

RUNTIME=nvidia-cuda-runtime-cu12==12.9.79
NVCC=nvidia-cuda-nvcc-cu12==12.9.86
NVRTC=nvidia-cuda-nvrtc-cu12==12.9.86
CACHE=.cache
PREFIX=$CACHE/cuda12

if [ -x "$PREFIX/bin/nvrtcc" ] && [ -f "$PREFIX/include/cuda.h" ]; then
  echo "get-cuda12.sh: $PREFIX is ready"
  exit 0
fi

mkdir -p "$CACHE/wheels"
python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
  --python-version 3.11 -d "$CACHE/wheels" "$RUNTIME" "$NVCC" "$NVRTC"

rm -rf "$PREFIX.tmp"
mkdir -p "$PREFIX.tmp/include" "$PREFIX.tmp/lib" "$PREFIX.tmp/bin"
python3 - "$CACHE/wheels" "$PREFIX.tmp" <<'PY'
import glob, os, shutil, sys, zipfile
wheels, prefix = sys.argv[1], sys.argv[2]
# (wheel glob, folder inside the wheel, destination) -- only what the build uses.
take = [
    ("nvidia_cuda_runtime_cu12-12.9.79-*.whl", "nvidia/cuda_runtime/include/", "include"),
    ("nvidia_cuda_runtime_cu12-12.9.79-*.whl", "nvidia/cuda_runtime/lib/libcudart.so.12", "lib"),
    ("nvidia_cuda_nvcc_cu12-12.9.86-*.whl", "nvidia/cuda_nvcc/include/crt/", "include/crt"),
    ("nvidia_cuda_nvrtc_cu12-12.9.86-*.whl", "nvidia/cuda_nvrtc/lib/", "lib"),
]
for pattern, inner, dest in take:
    (wheel,) = glob.glob(os.path.join(wheels, pattern))
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if not name.startswith(inner) or name.endswith("/"):
                continue
            rel = name[len(inner):] or os.path.basename(name)
            out = os.path.join(prefix, dest, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(name) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.chmod(out, 0o755 if ".so" in rel else 0o644)
PY
# The device compiler: NVRTC 12 behind a command line (nvrtcc.cpp).
g++ -O2 -std=c++17 -o "$PREFIX.tmp/bin/nvrtcc" nvrtcc.cpp -L"$PREFIX.tmp/lib" -l:libnvrtc.so.12 \
  -Wl,-rpath,'$ORIGIN/../lib'
rm -rf "$PREFIX"
mv "$PREFIX.tmp" "$PREFIX"
"$PREFIX/bin/nvrtcc" --version
echo "get-cuda12.sh: CUDA 12 prefix assembled in $PREFIX"
