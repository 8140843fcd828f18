#!/usr/bin/env bash
# Start-up time: how long one run of each tool takes on a small library,
# where process start (dynamic loading, relocations, static initialisers)
# is most of the work. Compares, in the same run, interleaved:
#   cuobjdump -lelf -lptx LIB          (the peer; PyPI's nvidia-cuda-cuobjdump)
#   cuwheel list LIB                   (the wheel's static manylinux binary)
#   cuwheel list LIB                   (a native build, linking Debian's shared libraries)
#   cuwheel --version                  (the wheel's binary: start-up alone)
# Each command runs N times per round (default 200) for R rounds (default 5);
# the table gives the median per-run wall time and CPU time (the child's
# user+sys) over rounds, and their ratios to cuobjdump. Not a test: the
# figures depend on the machine.
#
# Usage: bench/startup.sh [WHEEL_BINARY] [NATIVE_BINARY] [LIB]
#   WHEEL_BINARY  default: the binary of build-manylinux-x86_64/dist/*.whl,
#                 unpacked into a temporary folder
#   NATIVE_BINARY default: build/cuwheel (make build)
#   LIB           default: tests/fixtures/bin/libplain.so (a 1-kernel library)
# Environment: N, R, CUOBJDUMP (default: scripts/get-cuobjdump.sh), OUT (a
# Markdown file to write the table to; default: stdout only).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

wheel_bin=${1:-}
if [ -z "$wheel_bin" ]; then
  whl=$(ls "$repo"/build-manylinux-x86_64/dist/cuwheel-*.whl 2>/dev/null | head -1 || true)
  [ -n "$whl" ] || { echo "startup: no wheel in build-manylinux-x86_64/dist (packaging/build-wheel.sh)" >&2; exit 2; }
  (cd "$tmp" && python3 -m zipfile -e "$whl" wheel)
  wheel_bin=$(ls "$tmp"/wheel/cuwheel-*.data/scripts/cuwheel)
  chmod +x "$wheel_bin"
fi
native_bin=${2:-$repo/build/cuwheel}
lib=${3:-$repo/tests/fixtures/bin/libplain.so}
cuobjdump=${CUOBJDUMP:-$("$repo/scripts/get-cuobjdump.sh")}
n=${N:-200}
rounds=${R:-5}

python3 - "$n" "$rounds" "$cuobjdump" "$wheel_bin" "$native_bin" "$lib" "${OUT:-}" <<'EOF'
import os, platform, statistics, subprocess, sys, time
n, rounds, co, wb, nb, lib, out = int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:8]
cmds = [
    ("cuobjdump -lelf -lptx LIB", [co, "-lelf", "-lptx", lib]),
    ("cuwheel list LIB (wheel, static)", [wb, "list", lib]),
    ("cuwheel list LIB (native, shared libraries)", [nb, "list", lib]),
    ("cuwheel --version (wheel, static)", [wb, "--version"]),
]
def needed(path):
    try:
        r = subprocess.run(["ldd", path], capture_output=True, text=True)
        return sum(1 for l in r.stdout.splitlines() if "=>" in l or "ld-linux" in l)
    except OSError:
        return -1
for _, c in cmds:  # each must work before it is timed
    subprocess.run(c, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
import resource
devnull = os.open(os.devnull, os.O_WRONLY)
fa = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
per = {name: [] for name, _ in cmds}
cpu_per = {name: [] for name, _ in cmds}
for _ in range(rounds):
    for name, c in cmds:  # interleaved: each round runs every command
        c0 = child_cpu()
        t = time.perf_counter()
        for _ in range(n):
            pid = os.posix_spawn(c[0], c, os.environ, file_actions=fa)
            os.waitpid(pid, 0)
        per[name].append((time.perf_counter() - t) / n * 1000)
        cpu_per[name].append((child_cpu() - c0) / n * 1000)
med = {k: statistics.median(v) for k, v in per.items()}
cmed = {k: statistics.median(v) for k, v in cpu_per.items()}
base = med[cmds[0][0]]
cpu = "?"
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu = l.split(":", 1)[1].strip(); break
except OSError:
    pass
cbase = cmed[cmds[0][0]]
L = ["| command | wall per run | ratio | CPU (user+sys) per run | ratio | shared libraries loaded |",
     "|---|---:|---:|---:|---:|---:|"]
for name, c in cmds:
    L.append("| `%s` | %.3f ms | %.2f× | %.3f ms | %.2f× | %d |" % (
        name, med[name], med[name] / base, cmed[name], cmed[name] / cbase, needed(c[0])))
L += ["", "- %d runs per command per round, %d rounds, interleaved; median of the rounds' means" % (n, rounds),
      "- machine: %s, %d CPUs, %s" % (cpu, os.cpu_count(), platform.platform()),
      "- LIB: %s (%d bytes)" % (os.path.relpath(lib), os.path.getsize(lib)),
      "- each run is one posix_spawn + waitpid (stdout and stderr to /dev/null); wall includes the spawn,",
      "  the same for every command; CPU is the children's user+sys time (getrusage), the process alone",
      "- ratio: to cuobjdump (below 1.00 is faster)"]
text = "\n".join(L) + "\n"
print(text)
if out:
    open(out, "w").write(text)
EOF
