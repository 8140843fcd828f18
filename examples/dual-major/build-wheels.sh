#!/usr/bin/env bash
# Builds demo's three wheels and its sdist from source into TREE/dist (and
# those of the release candidate 0.3.0rc1, from a copy of the tree), and
# runs the build identity round trip: the plugin built for CUDA 13, then
# CUDA 12, then CUDA 13 again in one tree (TREE/build/plugin), the last
# wheel byte-identical to the first. Called by flow.sh (full form).
#
#   build-wheels.sh TREE CUWHEEL WORK
#
# Needs PyPI the first time (scikit-build-core, zig, the CUDA 12 wheels; kept
# in .cache here) and the CUDA 13 toolkit (CUDA13_HOME, nvcc on PATH, or
# /usr/local/cuda). Exit status 0 when every wheel was built and the round
# trip ended byte-identical.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tree=$(realpath "$1")
cw=$2
work=$3
cache=$here/.cache

cuda13=${CUDA13_HOME:-}
if [ -z "$cuda13" ] && command -v nvcc >/dev/null; then cuda13=$(dirname "$(dirname "$(realpath "$(command -v nvcc)")")"); fi
[ -n "$cuda13" ] || cuda13=/usr/local/cuda
[ -x "$cuda13/bin/nvcc" ] || { echo "build-wheels.sh: no CUDA 13 toolkit (set CUDA13_HOME)" >&2; exit 1; }

echo "(setting up: scikit-build-core and ninja in .cache/venv, zig's clang for glibc 2.28, the CUDA 12 prefix)"
if [ ! -x "$cache/venv/bin/python" ]; then python3 -m venv "$cache/venv"; fi
"$cache/venv/bin/pip" install -q --disable-pip-version-check scikit-build-core==1.1.2 ninja==1.13.0
toolchain=$(bash "$here/get-toolchain.sh")
bash "$here/get-cuda12.sh" >/dev/null
cuda12=$cache/cuda12
export PATH=$cache/venv/bin:$PATH CC=$toolchain/cc CXX=$toolchain/c++
# Reproducible archives: the same timestamps in every zip member.
export SOURCE_DATE_EPOCH=1767225600

wheel() {  # wheel DIR OUT: pip wheel of the project in DIR into OUT
  (cd "$1" && pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps -w "$2" . >"$work/pip.log" 2>&1) ||
    { tail -40 "$work/pip.log"; return 1; }
}
say() { printf '$ %s\n' "$*"; }

say "pip wheel --no-build-isolation -w dist .   # the core, demo"
wheel "$tree" "$tree/dist"
say "python -m scikit_build_core.build sdist   # the core's sdist"
(cd "$tree" && python -c 'from scikit_build_core.build import build_sdist; print(build_sdist("dist"))')

echo
echo "The plugin, three times in one tree (build/plugin): cu13, cu12, cu13."
list129=$("$cw" arch --release 12.9 --release-list)
list130=$("$cw" arch --release 13.0 --release-list)
gencode130=$("$cw" arch --release 13.0 --to gencode "$list130")
stamp=build/plugin/.build-identity  # relative to the tree: the commands run there
leg=0
for major in 13 12 13; do
  leg=$((leg + 1))
  if [ $major = 13 ]; then root=$cuda13 list=$list130 gencode=$gencode130; else root=$cuda12 list=$list129 gencode=; fi
  id=$("$cw" identity show --toolkit "$root" --format name)
  echo
  echo "leg $leg: $id"
  say "cuwheel identity check --toolkit ${root/#$here\//} --stamp build/plugin/.build-identity"
  (cd "$tree" && "$cw" identity check --toolkit "$root" --stamp "$stamp") || true
  say "python plugin/render.py --major $major --identity $id --out build/plugin ...   # build dir build/plugin/build/$id"
  (cd "$tree" && python3 plugin/render.py --major $major --cuda-root "$root" --archs "$list" --gencode "$gencode" \
    --identity "$id" --out build/plugin)
  say "(cd build/plugin && pip wheel --no-build-isolation -w \$WORK/leg$leg .)"
  t0=$(date +%s)
  wheel "$tree/build/plugin" "$work/leg$leg"
  echo "built in $(($(date +%s) - t0)) s: $(cd "$work/leg$leg" && ls)"
  (cd "$tree" && "$cw" identity stamp --toolkit "$root" --stamp "$stamp")
done
sha() { sha256sum "$1" | cut -c1-16; }
w1=$(ls "$work"/leg1/*.whl) w3=$(ls "$work"/leg3/*.whl)
echo
echo "leg 1 $(basename "$w1") sha256 $(sha "$w1")..."
echo "leg 3 $(basename "$w3") sha256 $(sha "$w3")..."
if ! cmp -s "$w1" "$w3"; then
  echo "FAIL: the cu13 wheel of leg 3 differs from leg 1's"
  exit 1
fi
echo "ok: leg 3's wheel is byte-identical to leg 1's"
cp "$work"/leg2/*.whl "$work"/leg3/*.whl "$tree/dist/"

# The release candidate of the same source, for flow.sh's step 7: the
# version (and the pins that name it) set to 0.3.0rc1 in a copy of the tree.
rc=0.3.0rc1
rctree=$work/tree-$rc
rm -rf "$rctree"
mkdir -p "$rctree"
(cd "$here" && cp -r CMakeLists.txt pyproject.toml LICENSE src python plugin "$rctree/")
sed -i "s/\"0\.3\.0\"/\"$rc\"/; s/==0\.3\.0\"/==$rc\"/g" "$rctree/pyproject.toml" "$rctree/python/demo/__init__.py"
echo
echo "The release candidate $rc (the same source, the version set in a copy of the tree):"
wheel "$rctree" "$tree/dist"
(cd "$rctree" && python -c 'from scikit_build_core.build import build_sdist; build_sdist("'"$tree/dist"'")' >/dev/null)
for major in 13 12; do
  if [ $major = 13 ]; then root=$cuda13 list=$list130 gencode=$gencode130; else root=$cuda12 list=$list129 gencode=; fi
  (cd "$rctree" && python3 plugin/render.py --major $major --cuda-root "$root" --archs "$list" --gencode "$gencode" \
    --identity "cu$major" --out build/plugin)
  wheel "$rctree/build/plugin" "$tree/dist"
done
(cd "$tree/dist" && ls -1 *"$rc"*)

echo
echo "The fresh wheels against the committed ones (wheelhouse/):"
for f in "$tree"/dist/*.whl "$tree"/dist/*.tar.gz; do
  old=$here/wheelhouse/$(basename "$f")
  if [ ! -f "$old" ]; then
    echo "  $(basename "$f"): not in wheelhouse/ (run flow.sh --refresh)"
  elif cmp -s "$f" "$old"; then
    echo "  $(basename "$f"): byte-identical"
  elif [ "${f%.whl}" != "$f" ] &&
    diff <("$cw" show "$f" | sed "s#$tree/dist/##g") <("$cw" show "$old" | sed "s#$here/wheelhouse/##g") >/dev/null; then
    echo "  $(basename "$f"): bytes differ; the same libraries, device code and load facts (cuwheel show)"
  else
    echo "  $(basename "$f"): differs from the committed file (run flow.sh --refresh after review)"
  fi
done
