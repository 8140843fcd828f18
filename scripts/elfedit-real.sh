#!/usr/bin/env bash
# elfedit-real.sh: the ELF editor on real libraries. Not run in CI (it needs
# the libraries: the CUDA toolkit's, wheels' members). For each LIBRARY it
# sets a RUNPATH long enough to need the new segment (and, with --graft, also
# renames the first CUDA NEEDED as auditwheel would and back), then checks:
#   - cuwheel show reads the output: same NEEDED, SONAME, the new RUNPATH;
#   - cuwheel list gives the same device-code listing as for the input;
#   - eu-elflint --gnu-ld reports what it reports on the input (section
#     numbers aside);
#   - readelf -d -V reads it without a warning;
#   - it loads with dlopen (Python ctypes) when the input does, before and
#     after strip (LD_LIBRARY_PATH as given, for the library's own NEEDED);
#   - editing the output again changes nothing;
# and prints one Markdown row per library with the edit's time and peak memory.
#
# Usage: scripts/elfedit-real.sh [--graft] LIBRARY...
# Environment: CUWHEEL (default build/cuwheel), ELFEDIT (default
# build/cuwheel-elfedit; built with -DCUWHEEL_TESTS=ON).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CUWHEEL=${CUWHEEL:-$repo/build/cuwheel}
ELFEDIT=${ELFEDIT:-$repo/build/cuwheel-elfedit}
graft=0
if [[ ${1:-} == --graft ]]; then graft=1; shift; fi
[[ $# -gt 0 ]] || { echo "usage: $0 [--graft] LIBRARY..." >&2; exit 2; }
for t in "$CUWHEEL" "$ELFEDIT"; do [[ -x $t ]] || { echo "missing $t (build first)" >&2; exit 2; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
loads() { python3 -c 'import ctypes,sys; ctypes.CDLL(sys.argv[1])' "$1" >/dev/null 2>&1; }
# SONAME, NEEDED names and RUNPATH as cuwheel show reads them, one JSON line.
facts() { "$CUWHEEL" show --format json "$1" 2>/dev/null | python3 -c '
import json,sys
o=json.load(sys.stdin)["inputs"][0]["objects"][0]
print(json.dumps([o.get("soname"), [n["soname"] for n in o.get("needed", [])], o.get("runpath")]))' 2>/dev/null; }
lint() { eu-elflint --gnu-ld "$1" 2>&1 | sed -E 's/section \[ *[0-9]+\]/section [N]/g; s/program header entry [0-9]+/program header entry N/g' | sort; }

echo "| library | size (MB) | edit | time (s) | peak (MB) | show | list | elflint | readelf | loads | after strip | again |"
echo "|---|---:|---|---:|---:|---|---|---|---|---|---|---|"
for lib in "$@"; do
  name=$(basename "$lib")
  out=$work/$name
  path='$ORIGIN:$ORIGIN/../../nvidia/cu13/lib:$ORIGIN/../../nvidia/cuda_runtime/lib:$ORIGIN/../../nvidia/cublas/lib'
  args=(--runpath "$path")
  edit="RUNPATH"
  first=
  if [[ $graft == 1 ]]; then
    first=$(readelf -d "$lib" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(lib[a-zA-Z_]*\.so\.[0-9]*\)\].*/\1/p' |
      grep -E '^lib(cudart|cublas|cublasLt|cufft|curand|cusparse|cusolver|nvrtc|nvJitLink|cudnn|nccl)' | head -n1)
    if [[ -n $first ]]; then
      args+=(--replace "$first" "${first%%.so*}-0123abcd.so${first#*.so}")
      edit="RUNPATH, $first grafted"
    fi
  fi
  /usr/bin/time -o "$work/time" -f '%e %M' "$ELFEDIT" "$lib" "$out" "${args[@]}" >"$work/log" 2>&1
  rc=$?
  read -r secs kb <"$work/time" 2>/dev/null || { secs=?; kb=0; }
  if [[ $rc != 0 ]]; then
    echo "| $name | | $edit | | | edit failed: $(tail -n1 "$work/log" | cut -c1-120) | | | | | | |"
    continue
  fi
  size=$(( $(stat -c %s "$lib") / 1000000 ))
  a=$(facts "$lib"); b=$(facts "$out")
  # The same SONAME; the same NEEDED but for the grafted one; the new RUNPATH.
  show=ok
  python3 - "$a" "$b" "$path" "${first:-}" <<'PY' || show=DIFF
import json,sys
a,b,p,first=json.loads(sys.argv[1] or "null"),json.loads(sys.argv[2] or "null"),sys.argv[3],sys.argv[4]
graft=lambda n: n.split(".so")[0]+"-0123abcd.so"+n.split(".so",1)[1] if n==first else n
ok = a and b and a[0]==b[0] and b[2]==p.split(":") and [graft(n) for n in a[1]]==b[1]
sys.exit(0 if ok else 1)
PY
  list=ok; cmp -s <("$CUWHEEL" list "$lib" 2>/dev/null | tail -n +2) <("$CUWHEEL" list "$out" 2>/dev/null | tail -n +2) || list=DIFF
  el=ok
  if command -v eu-elflint >/dev/null; then cmp -s <(lint "$lib") <(lint "$out") || el=DIFF; else el=n/a; fi
  re=ok; readelf -d -V -W "$out" 2>&1 >/dev/null | grep -q . && re=WARN
  ld=n/a; st=n/a
  # A grafted NEEDED is found as auditwheel leaves it: a copy of the real
  # library under that name beside the edited one ($ORIGIN comes first).
  if [[ -n $first ]]; then
    real=$(ldd "$lib" 2>/dev/null | awk -v n="$first" '$1 == n { print $3 }')
    [[ -f $real ]] && cp "$real" "$work/${first%%.so*}-0123abcd.so${first#*.so}"
  fi
  if loads "$lib"; then
    ld=ok; loads "$out" || ld=FAIL
    cp "$out" "$out.s" && strip "$out.s" 2>/dev/null
    st=ok; loads "$out.s" || st=FAIL
  fi
  # Editing the output again with the same edits changes nothing.
  again=ok; "$ELFEDIT" "$out" "$out.2" "${args[@]}" 2>&1 | grep -q ": unchanged" || again=CHANGED
  echo "| $name | $size | $edit | $secs | $((kb / 1024)) | $show | $list | $el | $re | $ld | $st | $again |"
done
