#!/usr/bin/env bash
# Obtains the NVIDIA tools that the fixture build needs but that a plain
# CUDA toolkit install may lack, from PyPI, reproducibly (pinned versions),
# into the repository's ignored .tools/ folder, and prints the path of the
# binary on stdout.
#
#   scripts/get-cuobjdump.sh            -> cuobjdump 13.2 (nvidia-cuda-cuobjdump==13.2.51)
#   scripts/get-cuobjdump.sh ptxas-cu12 -> ptxas 12.9     (nvidia-cuda-nvcc-cu12==12.9.86)
#   scripts/get-cuobjdump.sh cuobjdump-13.5 -> cuobjdump 13.5 (nvidia-cuda-cuobjdump==13.5.37)
#
# Environment: TOOLS_DIR (default <repo>/.tools), PIP (default "python3 -m pip").
# Needs network access to PyPI on first use; later runs reuse the cache.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools=${TOOLS_DIR:-$repo/.tools}
pip=${PIP:-python3 -m pip}
what=${1:-cuobjdump}

case "$what" in
  cuobjdump)
    pkg=nvidia-cuda-cuobjdump; ver=13.2.51; rel=nvidia/cu13/bin/cuobjdump ;;
  cuobjdump-13.5)
    pkg=nvidia-cuda-cuobjdump; ver=13.5.37; rel=nvidia/cu13/bin/cuobjdump ;;
  ptxas-cu12)
    pkg=nvidia-cuda-nvcc-cu12; ver=12.9.86; rel=nvidia/cuda_nvcc/bin/ptxas ;;
  *)
    echo "usage: $0 [cuobjdump|cuobjdump-13.5|ptxas-cu12]" >&2; exit 2 ;;
esac

dest="$tools/$pkg-$ver"
if [ ! -x "$dest/$rel" ]; then
  mkdir -p "$tools/cache"
  whl=$(ls "$tools/cache/${pkg//-/_}-$ver-"*.whl 2>/dev/null | head -n1 || true)
  if [ -z "$whl" ]; then
    $pip download --quiet --no-deps --only-binary=:all: \
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
      --platform manylinux_2_12_x86_64 --platform manylinux2010_x86_64 \
      --dest "$tools/cache" "$pkg==$ver" >&2
    whl=$(ls "$tools/cache/${pkg//-/_}-$ver-"*.whl | head -n1)
  fi
  rm -rf "$dest.tmp"
  mkdir -p "$dest.tmp"
  # Only the one binary is needed (the nvcc wheel is large).
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[3], sys.argv[2])' \
    "$whl" "$dest.tmp" "$rel"
  chmod +x "$dest.tmp/$rel"
  rm -rf "$dest"
  mv "$dest.tmp" "$dest"
fi
echo "$dest/$rel"
