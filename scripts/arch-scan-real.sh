#!/usr/bin/env bash
# Runs `cuwheel arch --scan` over the build files of real CUDA projects, as
# the cuwheel-arch pre-commit hook would see them, to look for false reports
# (docs/arch.md, "Linting a source tree"; results: docs/arch-scan-real.md).
# Not part of `make test`: it needs git clones of the projects.
#
# Usage: scripts/arch-scan-real.sh CUWHEEL GIT_DIR... [-- ARGS]
#   GIT_DIR  a clone (or bare mirror) of a project; its HEAD is scanned
#   ARGS     extra arguments for arch --scan (e.g. --release 13.0)
# For each project: the number of files the hook's patterns select, the lists
# found, and every finding, for reading by hand.
set -uo pipefail

cuwheel=$(realpath "$1"); shift
repos=(); args=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then shift; args=("$@"); break; fi
  repos+=("$1"); shift
done
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pattern=$(python3 -c "
import yaml
h = {x['id']: x for x in yaml.safe_load(open('$root/.pre-commit-hooks.yaml'))}['cuwheel-arch']
print(h['files']); print(h['exclude'])" 2>/dev/null) || { echo "arch-scan-real: needs python3-yaml" >&2; exit 2; }
files_re=$(sed -n 1p <<<"$pattern"); exclude_re=$(sed -n 2p <<<"$pattern")

printf '| project | commit | files selected | lists found | errors | warnings |\n|---|---|---:|---:|---:|---:|\n' >"$tmp/table"
for g in "${repos[@]}"; do
  gd=$(git -C "$g" rev-parse --git-dir 2>/dev/null) || { echo "arch-scan-real: $g is not a git repository" >&2; continue; }
  gd=$(cd "$g" && realpath "$gd")
  name=$(basename "$g" .git); [ "$name" = repo ] && name=$(basename "$(dirname "$g")")
  commit=$(git --git-dir="$gd" rev-parse --short HEAD)
  out=$tmp/$name; mkdir -p "$out"
  git --git-dir="$gd" ls-tree -r --name-only HEAD |
    python3 -c "import re,sys; f,e=re.compile(sys.argv[1]),re.compile(sys.argv[2]); [print(l.rstrip()) for l in sys.stdin if f.search(l.rstrip()) and not e.search(l.rstrip())]" \
      "$files_re" "$exclude_re" >"$out.list"
  while IFS= read -r p; do
    mkdir -p "$out/$(dirname "$p")"
    git --git-dir="$gd" show "HEAD:$p" >"$out/$p" 2>/dev/null
  done <"$out.list"
  n=$(wc -l <"$out.list")
  if [ "$n" -gt 0 ]; then
    (cd "$out" && xargs -d '\n' "$cuwheel" arch --scan "${args[@]}" <"$out.list") >"$out.findings" 2>"$out.err"
  else
    : >"$out.findings"; echo "cuwheel: arch --scan: 0 architecture lists" >"$out.err"
  fi
  lists=$(grep -o '[0-9]* architecture list' "$out.err" | grep -o '^[0-9]*' || echo 0)
  errors=$(grep -c ': error\[' "$out.findings"); warnings=$(grep -c ': warning\[' "$out.findings")
  printf '| %s | %s | %d | %s | %d | %d |\n' "$name" "$commit" "$n" "$lists" "$errors" "$warnings" >>"$tmp/table"
  if [ -s "$out.findings" ]; then echo "== $name"; cat "$out.findings"; fi
done
echo
cat "$tmp/table"
