#!/usr/bin/env bash
# GPU check of `cuwheel run --hide-driver`, for a machine with an NVIDIA GPU
# and its driver: a CUDA program must see the GPU outside and none inside.
#
# Why a separate script: CI has no GPU, so the e2e suite proves the hiding
# with a fake libcuda.so.1; only a real driver shows that nothing else (a
# second copy of the driver, the device nodes, the static CUDA runtime's
# own search) still reaches the GPU. This script records that once, in a
# transcript meant to be committed (docs/hide-driver.md quotes it).
#
# It builds nothing that needs the network or a CUDA toolkit: the two probe
# programs come prebuilt from CHECK_DIR (scripts/gpu-check/build.sh CHECK_DIR,
# run where nvcc is installed); when CHECK_DIR lacks them and nvcc is
# present, they are built into OUTDIR/bin.
#
# Usage: scripts/gpu-hide-driver-check.sh BUILD_DIR OUTDIR [CHECK_DIR]
#   BUILD_DIR  holds the cuwheel binary (e.g. build, from `make build`)
#   OUTDIR     receives hide-driver-gpu.txt (the transcript)
#   CHECK_DIR  holds driver_probe and cudart_count (default build-gpucheck)
# Exit status: 0 when outside the driver loads and sees >= 1 GPU, and
# inside dlopen("libcuda.so.1") fails and no program sees a GPU; 1 when
# any of that does not hold; 2 on a usage error or missing binaries.
set -u

BUILD_DIR=${1:?usage: scripts/gpu-hide-driver-check.sh BUILD_DIR OUTDIR [CHECK_DIR]}
OUTDIR=${2:?usage: scripts/gpu-hide-driver-check.sh BUILD_DIR OUTDIR [CHECK_DIR]}
CHECK_DIR=${3:-build-gpucheck}
CUWHEEL=$BUILD_DIR/cuwheel
TRANSCRIPT=$OUTDIR/hide-driver-gpu.txt
HERE=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$OUTDIR" || exit 2
if [ ! -x "$CUWHEEL" ]; then
  echo "gpu-hide-driver-check: $CUWHEEL is missing (build it with make build)" >&2
  exit 2
fi
if [ ! -x "$CHECK_DIR/driver_probe" ] || [ ! -x "$CHECK_DIR/cudart_count" ]; then
  if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    bash "$HERE/gpu-check/build.sh" "$OUTDIR/bin" >&2 || exit 2
    CHECK_DIR=$OUTDIR/bin
  else
    echo "gpu-hide-driver-check: $CHECK_DIR/driver_probe and cudart_count are missing and nvcc is not installed;" \
      "build them elsewhere with scripts/gpu-check/build.sh $CHECK_DIR" >&2
    exit 2
  fi
fi
# cuwheel's own shared libraries (libzip, gpgme, ...) may be missing on the
# GPU machine; build.sh OUT CUWHEEL packs them into
# CHECK_DIR/cuwheel-libs.tar.gz. They are unpacked into a temporary folder
# only when cuwheel does not start without them, and the dynamic loader's
# --library-path applies them to cuwheel alone, not to CMD.
CW=("$CUWHEEL")
CW_SHOWN=$CUWHEEL
LIBTMP=
trap '[ -n "$LIBTMP" ] && rm -rf "$LIBTMP"' EXIT
if ! "$CUWHEEL" --version >/dev/null 2>&1 && [ -f "$CHECK_DIR/cuwheel-libs.tar.gz" ]; then
  LIBTMP=$(mktemp -d)
  tar -C "$LIBTMP" -xzf "$CHECK_DIR/cuwheel-libs.tar.gz" || exit 2
  for ldso in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
    if [ -x "$ldso" ]; then
      CW=("$ldso" --library-path "$LIBTMP/lib" "$CUWHEEL")
      CW_SHOWN="$ldso --library-path <$CHECK_DIR/cuwheel-libs.tar.gz> $CUWHEEL"
      break
    fi
  done
fi
if ! "${CW[@]}" --version >/dev/null 2>&1; then
  echo "gpu-hide-driver-check: $CUWHEEL does not start here: $("${CW[@]}" --version 2>&1 | head -n 1)" >&2
  echo "  copy its libraries along: scripts/gpu-check/build.sh $CHECK_DIR $CUWHEEL" >&2
  exit 2
fi
# Paths stay as given (relative ones against this folder, which CMD keeps),
# so the transcript names no machine-specific folder.
case $CHECK_DIR in /* | ./* | ../*) ;; *) CHECK_DIR=./$CHECK_DIR ;; esac
PROBE=$CHECK_DIR/driver_probe
CUDART=$CHECK_DIR/cudart_count
PY=$(command -v python3 || true)

: >"$TRANSCRIPT" || exit 2
log() { printf '%s\n' "$*" | tee -a "$TRANSCRIPT"; }
# step NAME CMD...: prints "$ CMD", its output and "[exit N]"; sets $rc and $out.
step() {
  local name=$1
  shift
  log ""
  log "## $name"
  local shown="$*"
  [ -n "$LIBTMP" ] && shown=${shown//"$LIBTMP"\/lib/<$CHECK_DIR\/cuwheel-libs.tar.gz>}
  log "\$ $shown"
  out=$("$@" 2>&1)
  rc=$?
  [ -n "$out" ] && log "$out"
  log "[exit $rc]"
}

failures=()
verdict() {  # verdict CONDITION-TEXT OK?
  if [ "$2" = yes ]; then log "PASS: $1"; else
    log "FAIL: $1"
    failures+=("$1")
  fi
}

log "# cuwheel run --hide-driver on a GPU machine"
log "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "kernel: $(uname -srm)"
log "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
log "user: $(id)"
log "cuwheel: $("${CW[@]}" --version 2>&1) (run as: $CW_SHOWN)"
log "probes: $CHECK_DIR ($(cat "$CHECK_DIR/nvcc-version.txt" 2>/dev/null | tail -n 1))"
log "user.max_user_namespaces: $(cat /proc/sys/user/max_user_namespaces 2>/dev/null)"

step "the GPU, as nvidia-smi sees it" nvidia-smi -L
step "driver version" nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
step "device nodes outside" sh -c 'ls -l /dev/nvidia* 2>&1'
step "where the loader finds the driver outside" sh -c 'ldconfig -p | grep -E "libcuda|libnvidia-ml" ; echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"'

step "outside: dlopen libcuda.so.1 and the driver API" "$PROBE"
out_probe_rc=$rc
out_probe_devices=$(printf '%s\n' "$out" | sed -n 's/^cuDeviceGetCount: \([0-9]*\).*/\1/p')
step "outside: cudaGetDeviceCount (static CUDA runtime)" "$CUDART"
out_cudart=$out
out_cudart_devices=$(printf '%s\n' "$out" | sed -n 's/^cudaGetDeviceCount: \([0-9]*\).*/\1/p')
if [ -n "$PY" ]; then
  step "outside: python ctypes.CDLL('libcuda.so.1')" "$PY" -c "import ctypes; print(ctypes.CDLL('libcuda.so.1'))"
  out_py_rc=$rc
fi

step "what would be hidden" "${CW[@]}" run --hide-driver --dry-run
step "what would be hidden (JSON)" "${CW[@]}" run --hide-driver --dry-run --format json

step "inside: dlopen libcuda.so.1 and the driver API" "${CW[@]}" run --hide-driver -- "$PROBE"
in_probe_rc=$rc
in_probe_out=$out
step "inside: cudaGetDeviceCount (static CUDA runtime)" "${CW[@]}" run --hide-driver -- "$CUDART"
in_cudart_rc=$rc
in_cudart_devices=$(printf '%s\n' "$out" | sed -n 's/^cudaGetDeviceCount: \([0-9]*\).*/\1/p')
if [ -n "$PY" ]; then
  step "inside: python ctypes.CDLL('libcuda.so.1')" "${CW[@]}" run --hide-driver -- "$PY" -c "import ctypes; print(ctypes.CDLL('libcuda.so.1'))"
  in_py_rc=$rc
  in_py_out=$out
fi
# The CPU fallback as a real CUDA wheel sees it, when PyTorch is installed.
TORCH=
if [ -n "$PY" ] && "$PY" -c "import torch" >/dev/null 2>&1; then
  TORCH=yes
  step "outside: torch.cuda.is_available()" "$PY" -c "import torch; print(torch.__version__, torch.cuda.is_available(), torch.cuda.device_count())"
  out_torch=$out
  step "inside: torch.cuda.is_available()" "${CW[@]}" run --hide-driver -- "$PY" -c "import torch; print(torch.__version__, torch.cuda.is_available(), torch.cuda.device_count())"
  in_torch=$out
  in_torch_rc=$rc
fi
step "inside: device nodes" "${CW[@]}" run --hide-driver -- sh -c 'ls -l /dev/nvidia* 2>&1; ls -la /dev/nvidia-caps 2>&1 | head -n 5'
step "inside: nvidia-smi" "${CW[@]}" run --hide-driver -- nvidia-smi -L
step "inside: exit status passes through" "${CW[@]}" run --hide-driver -- sh -c 'exit 3'
status_rc=$rc

log ""
log "## verdict"
verdict "outside, the driver loads and sees at least one GPU (driver_probe)" \
  "$([ "$out_probe_rc" -eq 0 ] && [ "${out_probe_devices:-0}" -ge 1 ] && echo yes)"
# A static runtime newer than the driver reports cudaErrorInsufficientDriver
# even outside; that says nothing about hiding, so it is recorded, not failed.
if printf '%s\n' "$out_cudart" | grep -q cudaErrorInsufficientDriver; then
  log "NOTE: outside, the static runtime reports cudaErrorInsufficientDriver (no driver, or a driver older than the runtime); driver_probe alone decides"
else
  verdict "outside, cudaGetDeviceCount sees at least one GPU" "$([ "${out_cudart_devices:-0}" -ge 1 ] && echo yes)"
fi
verdict "inside, dlopen(\"libcuda.so.1\") fails" \
  "$([ "$in_probe_rc" -eq 1 ] && printf '%s\n' "$in_probe_out" | grep -q '^dlopen libcuda.so.1: failed' && echo yes)"
verdict "inside, cudaGetDeviceCount sees no GPU" "$([ "$in_cudart_rc" -eq 1 ] && [ "${in_cudart_devices:-1}" -eq 0 ] && echo yes)"
if [ -n "$PY" ]; then
  verdict "outside, python loads libcuda.so.1" "$([ "$out_py_rc" -eq 0 ] && echo yes)"
  verdict "inside, python cannot load libcuda.so.1" \
    "$([ "$in_py_rc" -eq 1 ] && printf '%s\n' "$in_py_out" | grep -q "OSError: .*libcuda.so.1" && echo yes)"
fi
if [ -n "$TORCH" ]; then
  verdict "outside, torch sees CUDA" "$(printf '%s\n' "$out_torch" | grep -q ' True [1-9]' && echo yes)"
  verdict "inside, torch falls back (CUDA not available, 0 devices)" \
    "$([ "$in_torch_rc" -eq 0 ] && printf '%s\n' "$in_torch" | grep -q ' False 0$' && echo yes)"
fi
verdict "CMD's exit status is cuwheel's" "$([ "$status_rc" -eq 3 ] && echo yes)"

if [ "${#failures[@]}" -eq 0 ]; then
  log "RESULT: ok (outside sees the GPU, inside sees none)"
  exit 0
fi
log "RESULT: ${#failures[@]} check(s) failed"
exit 1
