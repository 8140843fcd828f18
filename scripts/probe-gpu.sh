#!/usr/bin/env bash
# Ground truth for `cuwheel probe` on a machine with an NVIDIA GPU and
# driver (docs/probe.md "The H200 matrix"). Not part of `make test`: it
# needs a GPU. Runs, and writes into OUT:
#   smi.csv, proc-version.txt   what nvidia-smi and the kernel module say
#   host.txt, host.json         `cuwheel probe` (no path)
#   hidden.txt                  `cuwheel probe` under `cuwheel run --hide-driver`
#   matrix.tsv                  per matrix library: the static verdict for
#                               `--gpu this`, a real launch, a launch with
#                               CUDA_FORCE_PTX_JIT=1, and whether the
#                               prediction matched the launch
#   load.txt, load.json         `cuwheel probe --load` on the matrix and on
#                               every extra PATH (wheels, libraries)
#   summary.txt                 the counts, and every disagreement
#
# Usage: scripts/probe-gpu.sh CUWHEEL MATRIX_DIR OUT [PATH...]
#   CUWHEEL     a cuwheel binary
#   MATRIX_DIR  the output of tests/fixtures/make_probe_matrix.sh (the
#               lib*.so and `launch`); libcudart.so.13 must be findable
#               (LD_LIBRARY_PATH) for the launches. The launches run on
#               device 0 and the static verdict read is the first GPU's:
#               use a machine with one GPU (or CUDA_VISIBLE_DEVICES=0)
# Needs python3 for reading the JSON verdicts.
set -uo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 CUWHEEL MATRIX_DIR OUT [PATH...]" >&2
  exit 2
fi
cw=$1 dir=$2 out=$3
shift 3
mkdir -p "$out"

nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader >"$out/smi.csv" 2>&1
cat /proc/driver/nvidia/version >"$out/proc-version.txt" 2>&1
"$cw" probe >"$out/host.txt" 2>&1
echo "exit $?" >>"$out/host.txt"
"$cw" probe --format json >"$out/host.json" 2>/dev/null
"$cw" run --hide-driver -- "$cw" probe >"$out/hidden.txt" 2>&1
echo "exit $?" >>"$out/hidden.txt"

# The error a verdict predicts for a launch: native and jit run (0),
# ptx-unsupported is 222, no-image 209; unknown predicts nothing.
expect() {
  case $1 in
    native | jit) echo 0 ;;
    ptx-unsupported) echo 222 ;;
    no-image) echo 209 ;;
    *) echo - ;;
  esac
}
launch() { # env... -- lib: prints the cudaError_t number of one launch
  local line
  line=$(env "$@" 2>&1 | head -n 1)
  line=${line#result=}
  echo "${line%% *}"
}

agree=0 disagree=0 uncompared=0
printf 'library\tpredicted\texpected\tlaunch\tlaunch_force_ptx_jit\tagrees\n' >"$out/matrix.tsv"
for lib in "$dir"/lib*.so; do
  name=$(basename "$lib" .so)
  pred=$("$cw" probe --gpu this --format json "$lib" 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["inputs"][0]["verdicts"][0]["verdict"])' 2>/dev/null)
  pred=${pred:-error}
  want=$(expect "$pred")
  got=$(launch CUDA_MODULE_LOADING=EAGER "$dir/launch" "$lib")
  jit=$(launch CUDA_MODULE_LOADING=EAGER CUDA_FORCE_PTX_JIT=1 CUDA_CACHE_DISABLE=1 "$dir/launch" "$lib")
  if [[ $want == - ]]; then
    ok=not-compared
    uncompared=$((uncompared + 1))
  elif [[ $want == "$got" ]]; then
    ok=yes
    agree=$((agree + 1))
  else
    ok=NO
    disagree=$((disagree + 1))
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${name#lib}" "$pred" "$want" "$got" "$jit" "$ok" >>"$out/matrix.tsv"
done

"$cw" probe --load "$dir"/lib*.so "$@" >"$out/load.txt" 2>&1
echo "exit $?" >>"$out/load.txt"
"$cw" probe --load --format json "$dir"/lib*.so "$@" >"$out/load.json" 2>/dev/null

{
  echo "matrix: $agree launches as predicted, $disagree not, $uncompared not compared (unknown)"
  awk -F'\t' 'NR > 1 && $6 == "NO" { print "  disagrees: " $0 }' "$out/matrix.tsv"
  tail -n 3 "$out/load.txt"
} >"$out/summary.txt"
cat "$out/summary.txt"
[[ $disagree -eq 0 ]]
