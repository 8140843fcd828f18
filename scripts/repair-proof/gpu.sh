#!/usr/bin/env bash
# On the GPU machine, from the devpack of scripts/repair-install-proof.sh:
# the repaired cwkern-cu13 wheel is pip-installed into a fresh virtual
# environment with NVIDIA's runtime wheel (no index), and its kernel runs
# on GPU 0 with the pip-installed libcudart. The unrepaired input (its
# grafted copy of the runtime) runs as the contrast.
# Usage: gpu.sh DEVPACK
set -uo pipefail
P="$1"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
for kind in repaired input; do
  V="/tmp/venv-$kind"
  python3 -m venv "$V"
  if [ "$kind" = repaired ]; then w="$(ls "$P"/cwkern_cu13-*manylinux*.whl)"; else w="$(ls "$P"/cwkern_cu13-*linux_x86_64.whl | grep -v manylinux)"; fi
  echo "== $kind: $(basename "$w")"
  "$V/bin/pip" install -q --no-index --find-links "$P" "$w" && "$V/bin/pip" list 2>/dev/null | grep -iE "cwkern|nvidia"
  (cd /tmp && "$V/bin/python" -c '
import cwkern_cu13 as k
print("runtime", k.runtime_version(), "from", k.libcudart())
s = k.run(1 << 20)
print("run(1<<20) =", s, "expected", 3.0 * (1 << 20), "OK" if s == 3.0 * (1 << 20) else "WRONG")
')
  echo "exit $?"
done
