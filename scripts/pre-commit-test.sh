#!/usr/bin/env bash
# Tests cuwheel's pre-commit hooks the way a project uses them: pre-commit
# (PyPI) in a fresh environment runs `pre-commit try-repo` against a mirror
# repository made from packaging/pre-commit-mirror/ (its hooks are the main
# repository's .pre-commit-hooks.yaml), installing cuwheel from WHEEL only:
# PIP_ONLY_BINARY=cuwheel makes pip refuse to build it from source, so the
# hooks run with no compiler in the loop. In a scratch git project:
#   cuwheel-policy  passes a valid [tool.cuwheel], fails a misspelt key;
#   cuwheel-arch    passes valid lists, fails a list CUDA 13.0 cannot build
#                   (args: --release 13.0) and a malformed one;
#   cuwheel-check   (manual stage) fails a wheel with errors under dist/,
#                   passes a clean one, and is not run at the commit stage.
# Also: the mirror's hooks file is the main repository's.
#
# Usage: scripts/pre-commit-test.sh WHEEL [TOOLS_VENV]
#   WHEEL       the cuwheel wheel to install (its folder is pip's find-links)
#   TOOLS_VENV  a virtual environment to put pre-commit in (default: a new
#               one in a temporary folder); needs PyPI once for pre-commit
#               and for the mirror's build backend (setuptools).
# The last line is "N passed, M failed".
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
wheel=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tools=${2:-$tmp/tools}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if [ ! -x "$tools/bin/pre-commit" ]; then
  python3 -m venv "$tools" && "$tools/bin/pip" install -q --disable-pip-version-check 'pre-commit>=3' ||
    { echo "pre-commit-test: cannot install pre-commit from PyPI" >&2; exit 2; }
fi
version=$(basename "$wheel" | cut -d- -f2)
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.invalid GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.invalid
export PRE_COMMIT_HOME=$tmp/pre-commit-home
export PIP_FIND_LINKS=$(dirname "$wheel") PIP_ONLY_BINARY=cuwheel PIP_DISABLE_PIP_VERSION_CHECK=1

# 1. The mirror: the template with the wheel's version pinned, as a git repository.
cmp -s "$root/.pre-commit-hooks.yaml" "$root/packaging/pre-commit-mirror/.pre-commit-hooks.yaml" && ok ||
  bad "packaging/pre-commit-mirror/.pre-commit-hooks.yaml differs from the repository's .pre-commit-hooks.yaml"
# The arch hook's file patterns (pre-commit matches with re.search).
"$tools/bin/python" - "$root/.pre-commit-hooks.yaml" <<'PY' && ok || bad "cuwheel-arch's files/exclude patterns"
import re, sys, yaml
h = {x["id"]: x for x in yaml.safe_load(open(sys.argv[1]))}["cuwheel-arch"]
f, e = re.compile(h["files"]), re.compile(h["exclude"])
hit = lambda n: bool(f.search(n)) and not e.search(n)
want = ["CMakeLists.txt", "sub/dir/CMakeLists.txt", "cmake/utils.cmake", "CMakePresets.json", "setup.py",
        "Dockerfile", "docker/Dockerfile.cuda", "cuda.Dockerfile", "Containerfile.cuda", "Makefile", "makefile",
        "scripts/build.sh", ".github/workflows/build.yml", ".github/workflows/wheels.yaml",
        ".github/actions/setup-cuda/action.yml", ".gitlab-ci.yml"]
not_want = ["README.md", "Dockerfile-notes.md", "Dockerfile.dockerignore", "Dockerfile.cuda.j2", "src/k.cu",
            "CMakeLists.txt.in", "notes.txt", "setup.cfg", "docs/conf.py"]
bad = [n for n in want if not hit(n)] + [n for n in not_want if hit(n)]
print("\n".join("pattern wrong for " + n for n in bad))
sys.exit(1 if bad else 0)
PY
[ "$(grep -c 'types: \[text\]' "$root/.pre-commit-hooks.yaml")" -ge 1 ] && ok || bad "cuwheel-arch reads text files only"
mirror=$tmp/mirror
cp -r "$root/packaging/pre-commit-mirror" "$mirror"
sed -i "s/^version = .*/version = \"$version\"/; s/\"cuwheel==[^\"]*\"/\"cuwheel==$version\"/" "$mirror/pyproject.toml"
(cd "$mirror" && git init -q && git add -A && git commit -qm mirror) || { echo "pre-commit-test: git failed" >&2; exit 2; }

# 2. A project with good and bad files.
proj=$tmp/proj
mkdir -p "$proj/sub" "$proj/dist"
printf '[project]\nname = "k"\n\n[tool.cuwheel]\ncuda-major = 13\nsass = ["sm_80", "sm_90"]\n' >"$proj/pyproject.toml"
printf 'cuda-major = 13\nsas = ["sm_80"]\n' >"$proj/sub/cuwheel.toml"
printf 'project(k LANGUAGES CXX CUDA)\nset(CMAKE_CUDA_ARCHITECTURES 75 80 90)\n' >"$proj/CMakeLists.txt"
printf 'export TORCH_CUDA_ARCH_LIST="7.0;8.0;9.0+PTX"\n' >"$proj/build.sh"
printf 'TORCH_CUDA_ARCH_LIST="8.0;9.0+ptx"\n' >"$proj/broken.sh"
(cd "$proj" && git init -q && git add -A && git commit -qm proj) || exit 2

# try HOOK FILES...: pre-commit try-repo of one hook; output in $tmp/out.
try() {
  local hook=$1
  shift
  rc=0
  (cd "$proj" && "$tools/bin/pre-commit" try-repo "$mirror" "$hook" "$@") >"$tmp/out" 2>&1 || rc=$?
}
expect() {  # expect RC TEXT WHAT
  if [ "$rc" = "$1" ] && grep -qF -- "$2" "$tmp/out"; then ok; else
    bad "$3: exit $rc (expected $1), output lacks '$2':"; tail -15 "$tmp/out"
  fi
}

try cuwheel-policy --files pyproject.toml
expect 0 "Passed" "cuwheel-policy on a valid policy"
try cuwheel-policy --files pyproject.toml sub/cuwheel.toml
expect 1 'unknown key "sas" (did you mean "sass"?)' "cuwheel-policy on a misspelt key"
try cuwheel-arch --files CMakeLists.txt build.sh
expect 0 "Passed" "cuwheel-arch on valid lists"
try cuwheel-arch --files broken.sh
expect 1 "error[invalid-arch-list]" "cuwheel-arch on a malformed list"
# With --release, as a project configures it (args), on a copy of the hook.
cat >"$proj/.pre-commit-config.yaml" <<EOF
repos:
  - repo: $mirror
    rev: $(cd "$mirror" && git rev-parse HEAD)
    hooks:
      - id: cuwheel-arch
        args: [--release, "13.0"]
        verbose: true
      - id: cuwheel-check
EOF
rc=0
(cd "$proj" && "$tools/bin/pre-commit" run cuwheel-arch --files build.sh) >"$tmp/out" 2>&1 || rc=$?
expect 0 "warning[not-buildable]: sm_70: CUDA 13.0 cannot build it" "cuwheel-arch with --release 13.0 (a warning)"
# The hook ran the wheel's binary (pip was not allowed to build cuwheel),
# in the environment pre-commit keeps for the configured repository.
env_bin=$(find "$PRE_COMMIT_HOME" -path '*/py_env-*/bin/cuwheel' 2>/dev/null | head -1)
if [ -n "$env_bin" ]; then ok; else bad "no cuwheel in pre-commit's environment"; find "$PRE_COMMIT_HOME" -maxdepth 3 | head; fi
[ -n "$env_bin" ] && "$env_bin" --version | grep -qF "cuwheel $version" && ok || bad "the hook's cuwheel is not $version"


# cuwheel-check: manual stage only, on dist/.
cp "$root/tests/fixtures/bin/cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl" "$proj/dist/"
rc=0
(cd "$proj" && "$tools/bin/pre-commit" run --all-files) >"$tmp/out" 2>&1 || rc=$?
if grep -q "cuwheel check" "$tmp/out"; then bad "cuwheel-check ran at the commit stage"; cat "$tmp/out"; else ok; fi
rc=0
(cd "$proj" && "$tools/bin/pre-commit" run cuwheel-check --hook-stage manual) >"$tmp/out" 2>&1 || rc=$?
expect 1 "error[unresolved-needed]" "cuwheel-check on a wheel with errors"
rm "$proj"/dist/*
cp "$root/tests/fixtures/check/wheel/cwfix-1.0.0-py3-none-any.whl" "$proj/dist/"
printf '[project]\nname = "k"\n' >"$proj/pyproject.toml"  # the built-in policy
# Committed: pre-commit stashes unstaged changes to tracked files while it runs.
(cd "$proj" && git add pyproject.toml .pre-commit-config.yaml && git commit -qm "built-in policy")
rc=0
(cd "$proj" && "$tools/bin/pre-commit" run cuwheel-check --hook-stage manual) >"$tmp/out" 2>&1 || rc=$?
expect 0 "Passed" "cuwheel-check on a clean wheel"
rm "$proj"/dist/*
rc=0
(cd "$proj" && "$tools/bin/pre-commit" run cuwheel-check --hook-stage manual) >"$tmp/out" 2>&1 || rc=$?
expect 1 "no wheels or ELF files found" "cuwheel-check with an empty dist/ does not pass"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
