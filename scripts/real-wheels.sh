#!/usr/bin/env bash
# real-wheels.sh — runs `cuwheel check` with the built-in policy on real CUDA
# wheels from PyPI and prints, per wheel, the findings by severity and rule,
# the CPU time and peak memory of the check, and the CPU time of
# `unzip -p WHEEL > /dev/null` on the same wheel (the floor for reading
# every member once), as a Markdown table. Not run in CI: it needs network
# access to PyPI on first use and several GB of disk.
#
# The findings themselves are read by hand: docs/check-real-wheels.md is
# the classification (real / harmless by design, with the mechanism /
# wrong) of what this script reports.
#
# How to run
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build
#   scripts/real-wheels.sh > /tmp/real-wheels.md      # the table
#   FINDINGS=1 scripts/real-wheels.sh                  # also every finding's first line
#   CACHED=1 RUNS=3 scripts/real-wheels.sh             # speed: every wheel already in WHEEL_CACHE,
#                                                      # check and unzip alternating 3 times each
#
# Environment
#   CUWHEEL      cuwheel binary (default build/cuwheel)
#   WHEEL_CACHE  folder of downloaded wheels (default .cache/wheels); a wheel
#                already there is not downloaded again
#   WHEELS       space-separated pinned pip specs (default: the list below)
#   DEPS         a folder of dependency wheels passed as --deps (optional)
#   PLATFORM     pip --platform (default manylinux_2_28_x86_64, with the
#                older manylinux tags it implies)
#   CACHED       1: check every *.whl in WHEEL_CACHE instead of WHEELS (no download)
#   RUNS         runs of each command per wheel (default 1), `check` and `unzip -p`
#                alternating so that load from other work hits both alike; the
#                CPU columns are each command's minimum user+sys over the runs,
#                the peak column the largest peak RSS of the check runs
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CUWHEEL=${CUWHEEL:-$repo/build/cuwheel}
WHEEL_CACHE=${WHEEL_CACHE:-$repo/.cache/wheels}
PLATFORM=${PLATFORM:-manylinux_2_28_x86_64}
# NVIDIA's and others' (framework extensions, RAPIDS, multi-backend wheels,
# auditwheel-repaired wheels), pinned so that reruns read the same bytes.
WHEELS=${WHEELS:-"torch==2.15.0 torch==2.8.0 torchvision==0.29.2 torchaudio==2.11.1 torchao==0.18.0 \
xformers==0.0.35 vllm==0.34.0 sgl-kernel==0.3.21 flashinfer-cubin==0.6.13 fbgemm-gpu==1.9.0 lmdeploy==0.18.0 \
autoawq-kernels==0.0.9 bitsandbytes==0.50.2 triton==3.9.0 tensorflow==2.21.0 paddlepaddle-gpu==2.6.2 \
jax-cuda13-plugin==0.12.1 jax-cuda13-pjrt==0.12.1 jax-cuda12-plugin==0.12.0.1 cupy-cuda12x==14.2.0 cupy-cuda13x==14.2.0 \
onnxruntime-gpu==1.31.1 faiss-gpu-cu12==1.14.1.post1 ctranslate2==4.8.5 xgboost==3.4.1 catboost==1.2.10 \
spconv-cu126==2.3.8 cumm-cu126==0.8.2 gpu4pyscf-cuda12x==1.9.2 \
librmm-cu12==26.10.0 libraft-cu12==26.10.0 libkvikio-cu12==26.10.0 libcudf-cu12==26.10.2 libcuvs-cu12==26.10.0 \
pylibraft-cu12==26.10.0 cudf-cu12==26.10.2 rapids-logger==0.3.0 warp-lang==1.19.0 \
nvidia-cublas==13.10.0.20 nvidia-nccl-cu13==2.32.6 nvidia-cusparse==12.9.4.2 nvidia-cudnn-cu13==9.28.1.4 \
nvidia-curand==10.4.5.25 nvidia-nvshmem-cu13==3.8.0"}

[ -x "$CUWHEEL" ] || { echo "real-wheels: no cuwheel binary at $CUWHEEL (build first)" >&2; exit 2; }
mkdir -p "$WHEEL_CACHE"
plat_args=(--platform "$PLATFORM" --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64
           --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
deps_args=()
[ -n "${DEPS:-}" ] && deps_args=(--deps "$DEPS")

# /usr/bin/time -f '%U %S %M' writes "Command exited with non-zero status N"
# first when the command fails: the figures are on the last line.
cpu_of() { tail -n1 "$1" | awk '{printf "%.2f", $1 + $2}'; }
rss_of() { tail -n1 "$1" | awk '{printf "%.0f", $3 / 1024}'; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| wheel | size (MB) | errors | warnings | notes | findings by rule | check CPU (s) | unzip CPU (s) | ratio | check peak (MB) |"
echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
runs=${RUNS:-1}
if [ -n "${CACHED:-}" ]; then
  specs=$(ls "$WHEEL_CACHE"/*.whl)
else
  specs=$WHEELS
fi
for spec in $specs; do
  if [ -n "${CACHED:-}" ]; then
    f=$spec
  else
  name=${spec%%==*}; ver=${spec#*==}
  norm=$(echo "$name" | tr 'A-Z-.' 'a-z__')
  f=$(ls "$WHEEL_CACHE/$norm-$ver-"*.whl 2>/dev/null | head -n1 || true)
  if [ -z "$f" ]; then
    python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
      "${plat_args[@]}" -d "$WHEEL_CACHE" "$spec" >&2
    f=$(ls "$WHEEL_CACHE/$norm-$ver-"*.whl | head -n1)
  fi
  fi
  cc=; uc=; rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%U %S %M' -o "$work/t.check" "$CUWHEEL" check "${deps_args[@]}" --format json "$f" \
      > "$work/out.json" 2> "$work/err" || true
    /usr/bin/time -f '%U %S %M' -o "$work/t.unzip" unzip -p "$f" > /dev/null
    c=$(cpu_of "$work/t.check"); u=$(cpu_of "$work/t.unzip"); r=$(rss_of "$work/t.check")
    cc=$(awk -v a="$c" -v b="$cc" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }')
    uc=$(awk -v a="$u" -v b="$uc" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }')
    [ "$r" -gt "$rss" ] && rss=$r
  done
  read -r errors warnings notes rules < <(python3 - "$work/out.json" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
c = collections.Counter(f'{f["rule"]} ({f["severity"]})' for f in d["findings"])
print(s["errors"], s["warnings"], s.get("notes", 0), ", ".join(f"{k} x{v}" for k, v in sorted(c.items())) or "-")
PY
)
  size=$(du -Lm "$f" | cut -f1)
  ratio=$(awk -v a="$cc" -v b="$uc" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
  echo "| $(basename "$f") | $size | $errors | $warnings | $notes | $rules | $cc | $uc | $ratio | $rss |"
  if [ -n "${FINDINGS:-}" ]; then
    python3 - "$work/out.json" <<'PY' >&2
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    print(f'  {f["severity"]}[{f["rule"]}] {f["member"]}: {f["message"][:200]}')
PY
  fi
done
