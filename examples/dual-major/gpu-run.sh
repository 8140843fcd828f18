#!/usr/bin/env bash
# The example's run on a machine with an NVIDIA GPU and driver, from built
# wheels alone (no index is reached): the smoke test with the CUDA path for
# each plugin, the same with the driver hidden (the CPU fallback, one
# warning), with no GPU visible (CUDA_VISIBLE_DEVICES=), the core alone (no
# plugin), and `cuwheel probe` on the wheels, predicted and with --load
# (each image handed to the driver).
#
#   gpu-run.sh WHEELHOUSE CUWHEEL_WHEEL OUT_DIR
#
# WHEELHOUSE holds demo, demo_cu12 and demo_cu13 wheels of one version;
# CUWHEEL_WHEEL is cuwheel's own wheel (pip installed into a virtual
# environment here). Each step's output goes to OUT_DIR/<step>.txt and one
# line per step to OUT_DIR/summary.txt; exit status 1 when a step that must
# pass failed.
set -uo pipefail
house=$(realpath "$1")
cw_wheel=$(realpath "$2")
out=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
failed=0
step() {  # step NAME EXPECTED_RC COMMAND...
  local name=$1 want=$2 rc=0 t0 t1
  shift 2
  t0=$(date +%s.%N)
  { echo "\$ $*"; "$@"; } >"$out/$name.txt" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  echo "exit $rc" >>"$out/$name.txt"
  if [ "$want" = any ] || [ "$rc" = "$want" ]; then
    printf 'ok    %-26s exit %s  %6.2f s\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" >>"$summary"
  else
    printf 'FAIL  %-26s exit %s (expected %s)\n' "$name" "$rc" "$want" >>"$summary"
    failed=1
  fi
}
{
  echo "machine: $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -m), glibc $(ldd --version 2>&1 | head -1 | grep -o '[0-9.]*$')"
  echo "python: $(python3 --version 2>&1)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  (cd "$house" && ls -l *.whl | awk '{print "wheel: " $NF " (" $5 " bytes)"}')
} >>"$summary"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
venv() {  # venv NAME WHEEL...: a fresh environment with these wheels, no index
  python3 -m venv "$tmp/$1" && "$tmp/$1/bin/pip" install -q --disable-pip-version-check --no-index "${@:2}"
}
step install-cuwheel 0 venv cw "$cw_wheel"
cw=$tmp/cw/bin/cuwheel
core=$(ls "$house"/demo-*.whl)
cu12=$(ls "$house"/demo_cu12-*.whl)
cu13=$(ls "$house"/demo_cu13-*.whl)
step install-core 0 venv core "$core"
step install-cu13 0 venv cu13 "$core" "$cu13"
step install-cu12 0 venv cu12 "$core" "$cu12"

step smoke-core-alone 0 "$tmp/core/bin/python" "$here/smoke.py" --expect fallback --reason "no CUDA plugin is installed"
step smoke-cu13-cuda 0 "$tmp/cu13/bin/python" "$here/smoke.py" --expect cuda --plugin demo-cu13
step smoke-cu12-cuda 0 "$tmp/cu12/bin/python" "$here/smoke.py" --expect cuda --plugin demo-cu12
step smoke-cu13-hidden 0 "$cw" run --hide-driver -- "$tmp/cu13/bin/python" "$here/smoke.py" --expect fallback --reason "no CUDA driver" --plugin demo-cu13
step smoke-cu12-hidden 0 "$cw" run --hide-driver -- "$tmp/cu12/bin/python" "$here/smoke.py" --expect fallback --reason "no CUDA driver" --plugin demo-cu12
# No GPU visible to CUDA: the driver loads, the runtime finds no device.
step smoke-cu13-no-gpu 0 env CUDA_VISIBLE_DEVICES= "$tmp/cu13/bin/python" "$here/smoke.py" --expect fallback --reason "no CUDA GPU" --plugin demo-cu13
step probe-machine 0 "$cw" probe
step probe-wheels 0 "$cw" probe "$cu12" "$cu13" "$core"
step probe-house 0 "$cw" probe "$house"
step probe-wheels-load 0 "$cw" probe --load "$cu12" "$cu13"
step probe-all-known any "$cw" probe --gpu all-known "$cu13"
step probe-installed 0 "$cw" probe "$tmp/cu13/lib/python3"*/site-packages
cat "$summary"
exit $failed
