#!/usr/bin/env bash
# Assembles the CUDA 12 prefix the demo-cu12 plugin is built with, from
# pinned PyPI wheels, in .cache/cuda12 (ignored by git). Needs PyPI once.
#
# What PyPI has for CUDA 12, and what it lacks:
#   nvidia-cuda-runtime-cu12  headers, libcudart_static.a (the static
#                             runtime the plugin links), and License.txt,
#                             the CUDA EULA the plugin wheel ships
#   nvidia-cuda-nvcc-cu12     the crt/ headers cuda_runtime_api.h includes;
#                             ptxas, libnvvm -- but no nvcc driver and no cicc
#   nvidia-cuda-nvrtc-cu12    NVRTC: CUDA C++ to cubin or PTX, in-process
#   nvidia-nvfatbin-cu12      nvFatbin: cubins and PTX into one fat binary
# With no nvcc, tools/nvrtc_fatbin.cpp (NVRTC + nvFatbin) is the device
# compiler, and the host code is compiled by the system C++ compiler
# against these headers (CMakeLists.txt does both).
#
# Layout: .cache/cuda12/{include,lib,bin/nvrtc-fatbin,EULA.txt}
set -euo pipefail
cd "$(dirname "$0")"

pins=(nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-nvcc-cu12==12.9.86
      nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-nvfatbin-cu12==12.9.82)
prefix=.cache/cuda12
if [ -x "$prefix/bin/nvrtc-fatbin" ] && [ -f "$prefix/include/cuda.h" ] && [ -f "$prefix/lib/libcudart_static.a" ]; then
  echo "get-cuda12.sh: $prefix is ready"
  exit 0
fi
mkdir -p .cache/wheels
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
  --platform manylinux2014_x86_64 --python-version 3.11 -d .cache/wheels "${pins[@]}"

rm -rf "$prefix.tmp"
mkdir -p "$prefix.tmp"/{include,lib,bin}
python3 - .cache/wheels "$prefix.tmp" <<'PY'
import glob, os, shutil, sys, zipfile
wheels, prefix = sys.argv[1], sys.argv[2]
take = [  # (wheel, folder or file inside it, destination)
    ("nvidia_cuda_runtime_cu12-12.9.79-*.whl", "nvidia/cuda_runtime/include/", "include"),
    ("nvidia_cuda_runtime_cu12-12.9.79-*.whl", "nvidia/cuda_runtime/lib/libcudart_static.a", "lib"),
    ("nvidia_cuda_runtime_cu12-12.9.79-*.whl", "nvidia_cuda_runtime_cu12-12.9.79.dist-info/licenses/License.txt", "EULA.txt"),
    ("nvidia_cuda_nvcc_cu12-12.9.86-*.whl", "nvidia/cuda_nvcc/include/crt/", "include/crt"),
    ("nvidia_cuda_nvrtc_cu12-12.9.86-*.whl", "nvidia/cuda_nvrtc/include/", "include"),
    ("nvidia_cuda_nvrtc_cu12-12.9.86-*.whl", "nvidia/cuda_nvrtc/lib/", "lib"),
    ("nvidia_nvfatbin_cu12-12.9.82-*.whl", "nvidia/nvfatbin/include/", "include"),
    ("nvidia_nvfatbin_cu12-12.9.82-*.whl", "nvidia/nvfatbin/lib/", "lib"),
]
for pattern, inner, dest in take:
    (wheel,) = glob.glob(os.path.join(wheels, pattern))
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if not name.startswith(inner) or name.endswith("/"):
                continue
            rel = name[len(inner):]
            out = os.path.join(prefix, dest, rel) if rel else (
                os.path.join(prefix, dest) if "." in os.path.basename(dest) else os.path.join(prefix, dest, os.path.basename(name)))
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(name) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.chmod(out, 0o755 if ".so" in rel else 0o644)
PY
g++ -O2 -std=c++17 -I"$prefix.tmp/include" -o "$prefix.tmp/bin/nvrtc-fatbin" tools/nvrtc_fatbin.cpp \
  -L"$prefix.tmp/lib" -l:libnvrtc.so.12 -l:libnvfatbin.so.12 -Wl,-rpath,'$ORIGIN/../lib'
rm -rf "$prefix"
mv "$prefix.tmp" "$prefix"
"$prefix/bin/nvrtc-fatbin" --version
echo "get-cuda12.sh: CUDA 12 prefix assembled in $prefix"
