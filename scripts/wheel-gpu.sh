#!/usr/bin/env bash
# Runs the manylinux wheel (packaging/build-wheel.sh) on another machine, one
# with an NVIDIA GPU and driver, and records what it did: pip install into a
# fresh virtual environment (no index: the wheel needs nothing else), the
# binary's needs against that machine's glibc, `cuwheel --version` and
# `python -m cuwheel`, `probe` of the machine and of the probe fixtures with
# --load (the driver dlopen'ed by the static binary), `run --hide-driver`,
# `check` and `list` of fixtures, and start-up time.
#
# Usage: scripts/wheel-gpu.sh WHEEL OUT_DIR
# Every step's output goes to OUT_DIR/<step>.txt and a summary to
# OUT_DIR/summary.txt; the exit status is 1 when a step that must succeed
# failed.
set -uo pipefail

wheel=$(realpath "$1")
out=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
failed=0

# step NAME EXPECTED_RC COMMAND...: runs it, output to NAME.txt, one summary line.
step() {
  local name=$1 want=$2 rc=0
  shift 2
  { echo "\$ $*"; "$@"; } >"$out/$name.txt" 2>&1 || rc=$?
  echo "exit $rc" >>"$out/$name.txt"
  if [ "$want" = any ] || [ "$rc" = "$want" ]; then
    printf 'ok    %-22s exit %s\n' "$name" "$rc" >>"$summary"
  else
    printf 'FAIL  %-22s exit %s (expected %s)\n' "$name" "$rc" "$want" >>"$summary"
    failed=1
  fi
}

{
  echo "wheel: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
  echo "machine: $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -m), kernel $(uname -r)"
  echo "glibc: $(ldd --version 2>&1 | head -1)"
  echo "python: $(python3 --version 2>&1)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
} >>"$summary"

venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
if python3 -m venv "$venv/env" >/dev/null 2>&1; then
  py=$venv/env/bin/python
  step install 0 "$py" -m pip install --no-index --disable-pip-version-check "$wheel"
  bin=$venv/env/bin/cuwheel
else
  # No venv module: pip's --target puts the package and the script aside.
  step install 0 python3 -m pip install --no-index --disable-pip-version-check --target "$venv/t" "$wheel"
  py=python3
  export PYTHONPATH=$venv/t
  bin=$venv/t/bin/cuwheel
fi
step version 0 "$bin" --version
step python-m 0 "$py" -m cuwheel --version
step api 0 "$py" -c "import cuwheel, json; r = cuwheel.show('$root/tests/fixtures/bin/libplain.so'); print(json.dumps(r)[:300])"
step ldd 0 ldd "$bin"
step symbols 0 bash -c "readelf --version-info --wide '$bin' 2>/dev/null | grep -o 'Name: GLIBC[A-Z]*_[0-9.]*' | sort -uV | tail -3 || objdump -T '$bin' | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -3"
step probe-host any "$bin" probe
step probe-fixtures any "$bin" probe --load "$root/tests/fixtures/probe"
step hide-driver any "$bin" run --hide-driver -- "$bin" probe
step check-fixture any "$bin" check "$root/tests/fixtures/bin/cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl"
step list-fixture 0 "$bin" list "$root/tests/fixtures/bin/libplain.so"
step rules 0 "$bin" rule arch/invalid-arch-list
step startup 0 "$py" -c "
import os, time
b = '$bin'
fa = [(os.POSIX_SPAWN_DUP2, os.open(os.devnull, os.O_WRONLY), 1)]
for args in ([b, '--version'], [b, 'list', '$root/tests/fixtures/bin/libplain.so']):
    t = time.perf_counter()
    for _ in range(300):
        os.waitpid(os.posix_spawn(b, args, os.environ, file_actions=fa), 0)
    print('%-10s %.3f ms per run (300 runs)' % (args[1], (time.perf_counter() - t) / 300 * 1000))
"
cat "$summary"
exit $failed
