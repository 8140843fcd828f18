#!/usr/bin/env bash
# Proof that `cuwheel repair` output installs and imports for real (not
# part of `make test`: it downloads NVIDIA's wheels from PyPI). Builds two
# CPython extension modules (limited API, so one wheel serves 3.8+) the way
# a project's CI leaves them before its repair step, then grafted as
# `auditwheel repair` grafts the CUDA runtime:
#   cwdemo-cu12  C, NEEDs libcudart.so.12 (runtime_version(), no GPU), RUNPATH
#                /usr/local/cuda/lib64 from the build, libcudart grafted;
#   cwkern-cu13  nvcc, a vector-add kernel (sm_90 SASS + compute_90 PTX),
#                NEEDs libcudart.so.13, grafted likewise.
# Both are repaired, checked, and pip-installed into a fresh virtual
# environment from a local wheelhouse holding only NVIDIA's runtime wheels
# (pip resolves the Requires-Dist repair added), then imported; each
# reports the libcudart file the loader took. cwkern's run() needs a GPU:
# without one it must fail with a CUDA error, not at import.
# Writes OUT/results.txt and OUT/devpack/ (the repaired cwkern wheel, the
# runtime wheel and gpu.sh, for the GPU machine).
#
# Usage: scripts/repair-install-proof.sh [OUT]
#   CUWHEEL (default build/cuwheel), ELFEDIT (build/cuwheel-elfedit),
#   NVCC (nvcc), PYTHON (python3, with venv and pip)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/scripts/repair-proof"
CW="${CUWHEEL:-$ROOT/build/cuwheel}"
ED="${ELFEDIT:-$ROOT/build/cuwheel-elfedit}"
NVCC="${NVCC:-nvcc}"
PY="${PYTHON:-python3}"
OUT="${1:-$(mktemp -d)}"
WH="$OUT/wheelhouse" B="$OUT/build"
rm -rf "$OUT/in" "$OUT/repaired" "$OUT/venv" "$OUT/devpack"
mkdir -p "$WH" "$B/cu12" "$B/cu13" "$OUT/in" "$OUT/repaired" "$OUT/devpack"
exec > >(tee "$OUT/results.txt") 2>&1

echo "== NVIDIA's runtime wheels (PyPI)"
"$PY" -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --python-version 3.12 \
  -d "$WH" "nvidia-cuda-runtime-cu12==12.*" "nvidia-cuda-runtime==13.*"
ls "$WH"
unzip -o -q -j "$WH"/nvidia_cuda_runtime_cu12-*.whl 'nvidia/cuda_runtime/lib/libcudart.so.12' -d "$B/cu12"
unzip -o -q -j "$WH"/nvidia_cuda_runtime-13*.whl 'nvidia/cu13/lib/libcudart.so.13' -d "$B/cu13"

INC="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
echo "== build"
gcc -O2 -fPIC -shared -I"$INC" "$SRC/cwdemo.c" -L"$B/cu12" -l:libcudart.so.12 \
  -Wl,--enable-new-dtags,-rpath,/usr/local/cuda/lib64 -o "$B/cwdemo.so"
"$NVCC" -shared -Xcompiler -fPIC -cudart=shared -I"$INC" \
  -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
  -Xlinker --enable-new-dtags -Xlinker -rpath,/usr/local/cuda/lib64 "$SRC/cwkern.cu" -o "$B/cwkern.so"

# graft PKG EXT LIBCUDART: what auditwheel repair leaves: the runtime copied
# into PKG.libs/ as <stem>-<8 hex of its SHA-256>.<ext> with that SONAME,
# the extension's NEEDED pointed at it, RUNPATH $ORIGIN/../PKG.libs.
graft() {
  local pkg="$1" ext="$2" lib="$3" base h new
  base="$(basename "$lib")"
  h="$(sha256sum "$lib" | cut -c1-8)"
  new="${base%%.*}-$h.${base#*.}"
  mkdir -p "$B/$pkg.libs"
  "$ED" "$lib" "$B/$pkg.libs/$new" --soname "$new" >/dev/null
  "$ED" "$ext" "$B/$pkg-ext.so" --replace "$base" "$new" --runpath "\$ORIGIN/../$pkg.libs" >/dev/null
  echo "$pkg.libs/$new"
}
# pack DIST PKG EXT GRAFTED: the wheel (linux_x86_64, as built).
pack() {
  "$PY" - "$OUT/in" "$@" <<'PY'
import base64, hashlib, sys, zipfile
out, dist, pkg, ext, grafted, gpath = sys.argv[1:7]
files = [(f"{pkg}/__init__.py", b"from ._C import *\n", 0o644),
         (f"{pkg}/_C.abi3.so", open(ext, "rb").read(), 0o755),
         (grafted, open(gpath, "rb").read(), 0o755)]
di = f"{pkg}-1.0.dist-info"
files.append((f"{di}/METADATA", f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n".encode(), 0o644))
files.append((f"{di}/WHEEL", b"Wheel-Version: 1.0\nGenerator: repair-install-proof\nRoot-Is-Purelib: false\nTag: cp38-abi3-linux_x86_64\n", 0o644))
rec = "".join(f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n" for p, d, _ in files)
files.append((f"{di}/RECORD", (rec + f"{di}/RECORD,,\n").encode(), 0o644))
with zipfile.ZipFile(f"{out}/{pkg}-1.0-cp38-abi3-linux_x86_64.whl", "w", zipfile.ZIP_DEFLATED) as z:
    for p, d, mode in files:
        zi = zipfile.ZipInfo(p, (2024, 1, 1, 0, 0, 0))
        zi.external_attr = (0o100000 | mode) << 16
        zi.create_system = 3
        zi.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(zi, d)
PY
}
g12="$(graft cwdemo_cu12 "$B/cwdemo.so" "$B/cu12/libcudart.so.12")"
pack cwdemo-cu12 cwdemo_cu12 "$B/cwdemo_cu12-ext.so" "$g12" "$B/$g12"
g13="$(graft cwkern_cu13 "$B/cwkern.so" "$B/cu13/libcudart.so.13")"
pack cwkern-cu13 cwkern_cu13 "$B/cwkern_cu13-ext.so" "$g13" "$B/$g13"
ls -l "$OUT/in"

echo "== check the inputs (expected: exit 1, the grafted runtime)"
set +e
"$CW" check "$OUT"/in/*.whl | grep -E "error\[|checked"
echo "exit ${PIPESTATUS[0]}"
echo "== repair"
"$CW" repair --ignore no-device-code "$OUT"/in/cwdemo_cu12-*.whl -w "$OUT/repaired"
echo "exit $?"
"$CW" repair "$OUT"/in/cwkern_cu13-*.whl -w "$OUT/repaired"
echo "exit $?"
echo "== check the outputs"
"$CW" check --ignore no-device-code "$OUT"/repaired/cwdemo_cu12-*.whl | tail -1
"$CW" check "$OUT"/repaired/cwkern_cu13-*.whl | tail -1
for w in "$OUT"/repaired/*.whl; do echo "$(basename "$w"):"; unzip -p "$w" '*/METADATA' | grep Requires-Dist; done
set -e

echo "== pip install into a fresh virtual environment (no index: the wheelhouse only)"
"$PY" -m venv "$OUT/venv"
"$OUT/venv/bin/pip" install -q --no-index --find-links "$WH" "$OUT"/repaired/*.whl
"$OUT/venv/bin/pip" list 2>/dev/null | grep -iE "cwdemo|cwkern|nvidia"
cd "$OUT"
# One process per module, so each reports the runtime it loaded itself.
"$OUT/venv/bin/python" -c 'import cwdemo_cu12 as m; print("cwdemo_cu12: runtime", m.runtime_version(), "from", m.libcudart())'
"$OUT/venv/bin/python" - <<'PY'
import cwkern_cu13 as k
print("cwkern_cu13: imported; runtime", k.runtime_version(), "from", k.libcudart())
try:
    print("cwkern_cu13.run:", k.run(1 << 20))
except RuntimeError as e:
    print("cwkern_cu13.run without a GPU:", e)
PY

echo "== devpack for the GPU machine"
cp "$OUT"/repaired/cwkern_cu13-*.whl "$WH"/nvidia_cuda_runtime-13*.whl "$OUT"/in/cwkern_cu13-*.whl "$OUT/devpack/"
cp "$SRC/gpu.sh" "$OUT/devpack/"
ls -l "$OUT/devpack"
