#!/usr/bin/env bash
# The seeds' whole release pipeline on the demo project, with cuwheel at
# every step (README.md walks through it):
#   1 matrix    narrow the generated build matrix; its guards on a broken one
#   2 arch      the release list of each toolkit, as nvcc flags
#   3 identity  build folders keyed by CUDA major; cu13, cu12, cu13 in one tree
#   4 toolkit   lock, download and verify a pinned, signed toolkit repository
#   5 wheels    build (or take), repair and check the three wheels; broken
#               variants fail with the named rules
#   6 smoke     install into fresh environments; CPU fallback with the driver
#               hidden (and the CUDA path where there is a GPU)
#   7 release   select, verify, split, plan for a final tag and a candidate
#
# Usage: flow.sh [--short] [--work DIR] [--cuwheel BIN] [--refresh]
#   (full)     builds the wheels from source: the core and the CUDA 13 plugin
#              with this machine's toolkit, the CUDA 12 plugin with CUDA 12
#              pieces from PyPI (get-cuda12.sh), zig's clang for glibc 2.28
#              (get-toolchain.sh), scikit-build-core from PyPI; then checks
#              that the fresh wheels read as the committed ones (wheelhouse/).
#   --short    no build, no network, no GPU: steps 1-7 on the committed
#              wheels of wheelhouse/ (what `make test` runs).
#   --refresh  (full) replace wheelhouse/ with the fresh wheels.
#   --work DIR where everything is written (default: build/flow here): a new
#              or empty folder, or one an earlier run made (it holds the
#              marker .dual-major-flow), which is emptied first; any other
#              folder is refused. The example's own files are never modified
#              (but for --refresh).
#   --cuwheel  the cuwheel binary (default: $CUWHEEL, else `cuwheel` on PATH).
# Prints the transcript; ends with "flow: N checks passed, M failed" and
# exits 1 when a check failed, 2 on a usage error.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
default_work=$here/build/flow
short=0 refresh=0 work=$default_work cw=${CUWHEEL:-}
usage() { echo "flow.sh: $1 (usage: flow.sh [--short] [--refresh] [--work DIR] [--cuwheel BIN])" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --short) short=1 ;;
    --refresh) refresh=1 ;;
    --work | --cuwheel)
      [ $# -ge 2 ] && [ -n "$2" ] || usage "$1 needs a value"
      if [ "$1" = --work ]; then work=$2; else cw=$2; fi
      shift ;;
    *) usage "unknown argument '$1'" ;;
  esac
  shift
done
[ $short = 0 ] || [ $refresh = 0 ] || usage "--refresh needs the full form (it replaces wheelhouse/ with fresh builds)"
if [ -z "$cw" ]; then
  cw=$(command -v cuwheel || true)
  [ -n "$cw" ] || usage "no cuwheel binary: pass --cuwheel BIN or set CUWHEEL"
fi
[ -x "$cw" ] && [ ! -d "$cw" ] || usage "--cuwheel $cw: no such executable"
version_line=$("$cw" --version 2>/dev/null | head -1)
case $version_line in cuwheel*) ;; *) usage "--cuwheel $cw: not cuwheel ('$cw --version' says '${version_line:-nothing}')" ;; esac
cw=$(realpath "$cw")
# The work folder is emptied first: only one this script made (it holds its
# marker) or a new or empty one, never a folder of the user's.
marker=.dual-major-flow
if [ -e "$work" ] && [ "$work" != "$default_work" ]; then
  [ -d "$work" ] || usage "--work $work: not a folder"
  if [ -n "$(ls -A "$work")" ] && [ ! -f "$work/$marker" ]; then
    usage "--work $work: a folder that flow.sh did not make and that is not empty; give a new or empty folder"
  fi
fi
rm -rf "$work"
mkdir -p "$work" || usage "--work $work: cannot create it"
work=$(realpath "$work")
: >"$work/$marker"
tree=$work/tree
version=0.3.0
start=$(date +%s)
pass=0 fail=0

# --- helpers -----------------------------------------------------------------
section() { printf '\n## %s\n' "$*"; }
# The command as a reader would type it: cuwheel for the binary, paths
# relative to the project tree.
shown() {
  local s="" a
  for a in "$@"; do
    case $a in *[[:space:]\;\'\"]*) a="'$a'" ;; esac
    s="$s $a"
  done
  s=${s# }; s=${s//$cw/cuwheel}; s=${s//$tree\//}; s=${s//$work/\$WORK}
  printf '$ %s\n' "$s"
}
# run RC CMD...: runs CMD in the tree, prints it and its output (the
# transcript), keeps the output in $work/out, checks the exit status.
run() {
  local want=$1 rc=0
  shift
  shown "$@"
  (cd "$tree" && "$@") >"$work/out" 2>&1 || rc=$?
  sed -e "s#$tree/##g" -e "s#$work#\$WORK#g" "$work/out"
  if [ "$rc" = "$want" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: exit $rc, expected $want"; fi
}
# quiet RC CMD...: as run, output kept but not printed.
quiet() {
  local want=$1 rc=0
  shift
  (cd "$tree" && "$@") >"$work/out" 2>&1 || rc=$?
  if [ "$rc" = "$want" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); shown "$@"; tail -20 "$work/out"; echo "FAIL: exit $rc, expected $want"; fi
}
has() { if grep -qF -- "$1" "$work/out"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: output lacks '$1'"; fi; }
lacks() { if grep -qF -- "$1" "$work/out"; then fail=$((fail + 1)); echo "FAIL: output has '$1'"; else pass=$((pass + 1)); fi; }
assert() {  # assert CONDITION-TEXT COMMAND...: passes when COMMAND succeeds
  local what=$1
  shift
  if "$@"; then pass=$((pass + 1)); echo "ok: $what"; else fail=$((fail + 1)); echo "FAIL: $what"; fi
}
py() { python3 - "$@"; }

# The project tree: the example's sources, copied, so nothing is written
# into the checkout.
mkdir -p "$tree"
(cd "$here" && cp -r CMakeLists.txt pyproject.toml LICENSE src python plugin matrix smoke.py make_broken.py "$tree/")

cuda13=${CUDA13_HOME:-}
if [ -z "$cuda13" ] && command -v nvcc >/dev/null; then cuda13=$(dirname "$(dirname "$(realpath "$(command -v nvcc)")")"); fi
[ -n "$cuda13" ] || [ ! -d /usr/local/cuda ] || cuda13=/usr/local/cuda

# --- 1. matrix ---------------------------------------------------------------
section "1. cuwheel matrix: which rows of the generated matrix to build"
echo "The generator offers x86_64/aarch64 x cu126/cu129/cu130 x Python 3.10-3.13t (32 rows);"
echo "[tool.cuwheel.matrix] in pyproject.toml keeps cu129 and cu130 for Python 3.11-3.13."
run 0 "$cw" matrix matrix/generated.json -o "$work/matrix.json"
assert "12 rows kept" py "$work/matrix.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["include"]
assert len(rows) == 12, len(rows)
assert {r["desired_cuda"] for r in rows} == {"cu129", "cu130"}
assert {r["python_version"] for r in rows} == {"3.11", "3.12", "3.13"}
PY
run 0 "$cw" matrix --pr matrix/generated.json
has '"build_name":"manywheel-py3_12-cu130-x86_64"'
echo "A generator update that drops a row, mislabels a CUDA version, misspells a"
echo "train and adds Python 3.9 must not pass as a green matrix:"
run 1 "$cw" matrix matrix/generated-broken.json
for guard in missing-combination cuda-version-mismatch unknown-build python-not-allowed; do has "error[$guard]"; done
has "no matrix written"
printf '#define CUDA_VERSION 12090\n' >"$work/cuda.h"
run 1 "$cw" matrix --arch x86_64 --trains x86_64=cu130 --toolkit "$work/cuda.h" matrix/generated.json
has "error[toolkit-mismatch]"

# --- 2. arch -------------------------------------------------------------------
section "2. cuwheel arch: the release list of each toolkit, as nvcc flags"
list129=$("$cw" arch --release 12.9 --release-list)
list130=$("$cw" arch --release 13.0 --release-list)
run 0 "$cw" arch --release 13.0 --release-list
run 0 "$cw" arch --release 13.0 --to gencode "$list130"
has "-gencode arch=compute_121,code=compute_121"
run 0 "$cw" arch --release 12.9 --to cmake "$list129"
gencode130=$("$cw" arch --release 13.0 --to gencode "$list130")
assert "the release list ends with its PTX entry" test "${list130##*,}" = compute_121
echo "A list the toolkit cannot build is refused before any compiler runs:"
run 1 "$cw" arch --release 12.9 "sm_70;sm_130"

# --- 3. identity ---------------------------------------------------------------
section "3. cuwheel identity: build folders keyed by the CUDA configuration"
stamp=build/plugin/.build-identity
run 0 "$cw" identity show --cuda-major 13 --generated-root build/plugin/build
has "cu13"
run 1 "$cw" identity check --cuda-major 13 --stamp "$stamp"
run 0 "$cw" identity stamp --cuda-major 13 --stamp "$stamp"
run 0 "$cw" identity check --cuda-major 13 --stamp "$stamp"
run 1 "$cw" identity check --cuda-major 12 --stamp "$stamp"
has "rebuild"
rm -rf "$tree/build"

# --- 4. toolkit ----------------------------------------------------------------
section "4. cuwheel toolkit: the toolkit pinned file by file, signatures checked"
server=
if command -v rpmbuild >/dev/null && command -v createrepo_c >/dev/null && command -v gpg >/dev/null &&
  bash "$here/../../tests/fixtures/make_rpm_repo.sh" "$work/rpmrepo" >"$work/rpmrepo.log" 2>&1; then
  echo "(a signed test repository laid out like NVIDIA's RHEL 8 repository, served on loopback;"
  echo " against NVIDIA's: --repo https://developer.download.nvidia.com/compute/cuda/repos/rhel8/x86_64/"
  echo " --key-url .../D42D0685.pub --key-fingerprint 610C7B14E068A878070DA4E99CD0A493D42D0685)"
  coproc SERVER { exec python3 "$here/../../tests/fixtures/serve_http.py" "$work/rpmrepo"; }
  server=$SERVER_PID
  read -r port <&"${SERVER[0]}"
  url=http://127.0.0.1:$port/repo/
  fpr=$(cat "$work/rpmrepo/fingerprint")
  pkgs=cuda-nvcc,cuda-cudart-devel,cuda-cuobjdump,cuda-documentation
  run 0 "$cw" toolkit lock --repo "$url" --release 12.9 --packages "$pkgs" --name cu12 \
    --key-url "$url${fpr: -8}.pub" --key-fingerprint "$fpr" --lock "$work/toolkits.lock"
  has "cu12 = CUDA 12.9"
  run 0 "$cw" toolkit lock --repo "$url" --release 13.0 --packages "$pkgs" --name cu13 \
    --key-url "$url${fpr: -8}.pub" --key-fingerprint "$fpr" --lock "$work/toolkits.lock"
  run 0 "$cw" toolkit download --lock "$work/toolkits.lock" --name cu13 --dest "$work/rpms"
  run 0 "$cw" toolkit verify "$work/rpms" --lock "$work/toolkits.lock" --name cu13 --signatures
  rpm=$(ls "$work/rpms"/cuda-nvcc-*.rpm | head -1)
  printf 'X' | dd of="$rpm" bs=1 seek=200 conv=notrunc status=none
  echo "(one byte of $(basename "$rpm") changed)"
  run 1 "$cw" toolkit verify "$work/rpms" --lock "$work/toolkits.lock" --name cu13
  has "$(basename "$rpm")"
  kill "$server" 2>/dev/null
else
  echo "SKIP: rpmbuild, createrepo_c or gpg missing: the signed test repository cannot be built"
fi

# --- 5. wheels -----------------------------------------------------------------
section "5. the wheels: build, cuwheel repair, cuwheel check"
mkdir -p "$tree/dist"
"$cw" arch --release 12.9 --release-list >/dev/null
(cd "$tree" && python3 plugin/render.py --major 12 --archs "$list129" --policy-only policy-cu12.toml &&
  python3 plugin/render.py --major 13 --archs "$list130" --policy-only policy-cu13.toml) || { echo "FAIL: render.py"; fail=$((fail + 1)); }
if [ $short = 1 ]; then
  echo "(--short: the committed wheels of wheelhouse/, built by the full flow)"
  cp "$here"/wheelhouse/*.whl "$here"/wheelhouse/*.tar.gz "$tree/dist/"
  (cd "$tree/dist" && ls -1)
else
  if bash "$here/build-wheels.sh" "$tree" "$cw" "$work"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: build-wheels.sh"; fi
  if [ $refresh = 1 ] && [ "$fail" = 0 ]; then
    rm -f "$here"/wheelhouse/*.whl "$here"/wheelhouse/*.tar.gz
    cp "$tree"/dist/*.whl "$tree"/dist/*.tar.gz "$here/wheelhouse/"
    echo "wheelhouse/ refreshed"
  fi
fi
core_raw=$(ls "$tree"/dist/demo-$version-*.whl)
run 0 "$cw" repair --plat manylinux_2_28_x86_64 --policy pyproject.toml -w repaired "dist/$(basename "$core_raw")"
for m in 12 13; do
  run 0 "$cw" repair --plat manylinux_2_28_x86_64 --policy "policy-cu$m.toml" -w repaired \
    "dist/$(basename "$(ls "$tree"/dist/demo_cu$m-$version-*.whl)")"
  has "(checked: no errors)"
done
run 0 "$cw" check --policy pyproject.toml "repaired/demo-$version-cp311-abi3-manylinux_2_28_x86_64.whl"
has "0 errors, 0 warnings"
for m in 12 13; do
  run 0 "$cw" check --policy "policy-cu$m.toml" "repaired/demo_cu$m-$version-cp311-abi3-manylinux_2_28_x86_64.whl"
  has "0 errors, 0 warnings"
done
run 0 "$cw" show "repaired/demo_cu13-$version-cp311-abi3-manylinux_2_28_x86_64.whl"
has "cuda runtime  static"
lacks "libcudart"
lacks "libcuda.so"
echo
echo "The broken variants: each is a good wheel with one thing wrong (make_broken.py)."
elf=()
if [ -n "$cuda13" ] && [ -x "$cuda13/bin/nvcc" ] && command -v c++ >/dev/null; then
  cp "$tree"/dist/demo_cu13-$version-*-linux_x86_64.whl "$tree/repaired/" 2>/dev/null
  elf=(--elf --cuda-root "$cuda13" --archs "$list130")
else
  echo "(no nvcc or C++ compiler: the variants whose library is rebuilt are skipped)"
fi
quiet 0 python3 make_broken.py repaired broken "${elf[@]}"
rm -f "$tree"/repaired/demo_cu13-*-linux_x86_64.whl
while IFS=$'\t' read -r variant policy rules; do
  [ "$policy" = core ] && pfile=pyproject.toml || pfile=policy-$policy.toml
  whl=$(cd "$tree" && ls broken/"$variant"/*.whl)
  run 1 "$cw" check -q --policy "$pfile" "$whl"
  "$cw" check --format json --policy "$tree/$pfile" "$tree/$whl" >"$work/variant.json" 2>/dev/null
  assert "$variant fails with exactly: $rules" py "$work/variant.json" "$rules" <<'PY'
import json, sys
found = {f["rule"] for f in json.load(open(sys.argv[1]))["findings"] if f["severity"] == "error"}
want = set(sys.argv[2].split(","))
if found != want:
    print(f"  found {sorted(found)}, want {sorted(want)}")
    sys.exit(1)
PY
done <"$tree/broken/variants.tsv"

# --- 6. smoke ------------------------------------------------------------------
section "6. install into fresh environments and run the smoke test"
venv() { python3 -m venv "$work/env-$1" && "$work/env-$1/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$tree/repaired" "${@:2}"; }
quiet 0 venv core "demo==$version"
run 0 "$work/env-core/bin/python" smoke.py --expect fallback --reason "no CUDA plugin is installed"
quiet 0 venv cu13 "demo[cu13]==$version"
quiet 0 "$work/env-cu13/bin/pip" list --format freeze
has "demo-cu13==$version"
quiet 0 venv cu12 "demo[cu12]==$version"
for m in 13 12; do
  run 0 "$cw" run --hide-driver -- "$work/env-cu$m/bin/python" smoke.py --expect fallback --reason "no CUDA driver" --plugin "demo-cu$m"
  has "smoke: PASS"
done
echo
echo "Which GPUs and drivers each wheel runs on, from the bytes alone (cuwheel probe); the release"
echo "list leaves out the Tegra parts, so a Jetson gets no kernel image (209):"
run 2 "$cw" probe --gpu H100 --gpu "RTX 5090" --gpu "Jetson AGX Orin" --driver 13.0 repaired
has "1 input without device code"
has "FAILS 209"
echo "A driver for CUDA 12.8 starts no CUDA 13 runtime: the cu13 plugin falls back there, the cu12 one runs:"
run 2 "$cw" probe --gpu H100 --driver 12.8 repaired
has "FAILS 35"
"$cw" probe --gpu H100 --driver 12.8 --format json "$tree/repaired" >"$work/probe.json" 2>/dev/null
assert "cu12 runs natively on a 12.8 driver, cu13 needs 13.0 (cudaErrorInsufficientDriver)" py "$work/probe.json" <<'PY'
import json, sys
by = {i["path"].rsplit("/", 1)[-1].split("-")[0]: i["verdicts"][0] for i in json.load(open(sys.argv[1]))["inputs"]}
assert by["demo_cu12"]["verdict"] == "native", by
assert by["demo_cu13"]["verdict"] == "driver-too-old" and by["demo_cu13"]["cuda_error"] == 35, by
PY
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  for m in 13 12; do
    run 0 "$work/env-cu$m/bin/python" smoke.py --expect cuda --plugin "demo-cu$m"
  done
  run 0 "$cw" probe "repaired/demo_cu13-$version-cp311-abi3-manylinux_2_28_x86_64.whl"
else
  echo "(no GPU here: the CUDA path runs on a GPU machine, gpu-run.sh; see README.md)"
fi

# --- 7. release ----------------------------------------------------------------
section "7. cuwheel release: select, verify, split, plan"
mkdir -p "$tree/release"
cp "$tree"/repaired/*.whl "$tree"/dist/demo-$version.tar.gz "$tree/release/"
run 0 "$cw" release select --tag v$version
has "demo-cu12"
run 0 "$cw" release select --tag v0.2.1
has "no plugins"
run 0 "$cw" release verify release --version v$version
run 0 "$cw" release split release "$work/upload" --version v$version
assert "one folder per distribution" test -f "$work/upload/demo/demo-$version.tar.gz" -a \
  -f "$work/upload/demo-cu12/demo_cu12-$version-cp311-abi3-manylinux_2_28_x86_64.whl" -a -d "$work/upload/demo-cu13"
run 0 "$cw" release plan --tag v$version
"$cw" release plan --tag v$version --format json --policy "$tree/pyproject.toml" >"$work/plan.json"
assert "the plugins before the core on each index, the test index first" py "$work/plan.json" <<'PY'
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
order = [(s["index"], s["distribution"]) for s in steps]
assert order == [("testpypi", "demo-cu12"), ("testpypi", "demo-cu13"), ("testpypi", "demo"),
                 ("pypi", "demo-cu12"), ("pypi", "demo-cu13"), ("pypi", "demo")], order
by_id = {s["id"]: s for s in steps}
assert set(by_id["testpypi-demo"]["needs"]) == {"testpypi-demo-cu12", "testpypi-demo-cu13"}
assert by_id["pypi-demo"]["needs"] and all(by_id[n]["index"] == "pypi" for n in by_id["pypi-demo"]["needs"])
PY
echo
echo "The release candidate: its own files (built from the same source with version ${version}rc1),"
echo "repaired and checked like the final's, to the test index only:"
rcv=${version}rc1
mkdir -p "$tree/release-rc"
for w in "$tree"/dist/*-$rcv-*.whl; do
  case $(basename "$w") in demo_cu12-*) p=policy-cu12.toml ;; demo_cu13-*) p=policy-cu13.toml ;; *) p=pyproject.toml ;; esac
  quiet 0 "$cw" repair --plat manylinux_2_28_x86_64 --policy "$p" -w release-rc "dist/$(basename "$w")"
  has "(checked: no errors)"
done
cp "$tree/dist/demo-$rcv.tar.gz" "$tree/release-rc/"
run 0 "$cw" release select --tag v$rcv
has "test index only"
run 0 "$cw" release verify release-rc --version v$rcv
run 0 "$cw" release split release-rc "$work/upload-rc" --version v$rcv
run 0 "$cw" release plan --tag v$rcv
has "testpypi"
lacks " pypi-cu13"
echo "A release folder with a plugin missing and a plugin sdist fails:"
mkdir -p "$tree/release-bad"
cp "$tree"/release/* "$tree/release-bad/"
rm "$tree"/release-bad/demo_cu12-*.whl
cp "$tree/dist/demo-$version.tar.gz" "$tree/release-bad/demo_cu13-$version.tar.gz"
run 1 "$cw" release verify release-bad --version v$version
has "error[missing]"
has "error[extra]"
echo "The final's files are not the candidate's:"
run 1 "$cw" release verify release --version v${version}rc1
has "version"

took=$(($(date +%s) - start))
echo
echo "flow: $pass checks passed, $fail failed ($( [ $short = 1 ] && echo short || echo full ) form, ${took} s)"
[ "$fail" = 0 ]
