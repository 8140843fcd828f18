#!/usr/bin/env bash
# bench/run.sh — speed and memory of cuwheel against its peers, in one run.
#
# What it measures (warm page cache; the commands alternate run by run, so
# drift in machine load hits every command alike; medians are reported):
#   a. libcublasLt.so.13 of the installed CUDA toolkit:
#        cuobjdump -lelf -lptx FILE                 (the peer)
#        cuwheel list --format cuobjdump FILE       (same bytes out)
#        cuwheel list FILE                          (default text format)
#        cat FILE > /dev/null                       (reading the whole file)
#        dd of the .nv_fatbin section's bytes only  (what a lister must touch)
#      and reports cuobjdump/cuwheel ratios (target: >= 20x) and cuwheel's
#      time over the plain reads (how close it is to I/O bound).
#   b. a torch CUDA wheel from PyPI:
#        cuwheel show WHEEL                         (wall time, peak RSS)
#        unzip -q WHEEL -d $(mktemp -d)             (the peer: extraction)
#      and reports the time ratio (target: cuwheel no slower) and cuwheel's
#      peak RSS from /usr/bin/time (target: < 200 MB).
#   Results (figures, machine, versions, exact commands) are written to
#   bench/results/benchmarks.md and printed.
#
# How to run
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build
#   bench/run.sh
#
# Environment
#   CUWHEEL    cuwheel binary (default build/cuwheel)
#   CUOBJDUMP  reference cuobjdump (default: scripts/get-cuobjdump.sh, 13.2)
#   LIB        the library of part a (default: libcublasLt.so.13 next to nvcc's lib64)
#   WHEEL      the wheel of part b (default: torch==2.15.0, downloaded with pip
#              into WHEEL_CACHE, default .cache/wheels, ignored by git)
#   RUNS_A, RUNS_B  runs per command (default 10 and 3)
#   REPORT     report path (default bench/results/benchmarks.md)
#
# Needs: python3, /usr/bin/time (Debian package "time"), unzip, dd, readelf,
# pip (first download only). Not run in CI.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CUWHEEL=${CUWHEEL:-$repo/build/cuwheel}
export CUOBJDUMP=${CUOBJDUMP:-$("$repo/scripts/get-cuobjdump.sh")}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export LIB=${LIB:-$(cd "$(dirname "$(readlink -f "$nvcc")")/../lib64" && pwd -P)/libcublasLt.so.13}
export RUNS_A=${RUNS_A:-10} RUNS_B=${RUNS_B:-3}
export REPORT=${REPORT:-$repo/bench/results/benchmarks.md}
cache=${WHEEL_CACHE:-$repo/.cache/wheels}
if [ -z "${WHEEL:-}" ]; then
  WHEEL=$(ls "$cache"/torch-2.15.0-*.whl 2>/dev/null | head -n1 || true)
  if [ -z "$WHEEL" ]; then
    mkdir -p "$cache"
    python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$cache" torch==2.15.0 >&2
    WHEEL=$(ls "$cache"/torch-2.15.0-*.whl | head -n1)
  fi
fi
export WHEEL
for t in "$CUWHEEL" "$CUOBJDUMP" /usr/bin/time; do
  [ -x "$t" ] || { echo "bench/run.sh: missing $t" >&2; exit 2; }
done
command -v unzip >/dev/null || { echo "bench/run.sh: missing unzip" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cuwheel-bench.XXXXXX")
export WORK=$work
trap 'rm -rf "$work"' EXIT

exec python3 - <<'PY'
import os, platform, re, shlex, shutil, statistics, subprocess, sys, tempfile, time

CW, CO, LIB, WHEEL, WORK = (os.environ[k] for k in ("CUWHEEL", "CUOBJDUMP", "LIB", "WHEEL", "WORK"))
RUNS_A, RUNS_B = int(os.environ["RUNS_A"]), int(os.environ["RUNS_B"])

# .nv_fatbin's file offset and size
off = size = None
for line in subprocess.run(["readelf", "-SW", LIB], capture_output=True, text=True).stdout.splitlines():
    p = line.replace("[ ", "[").split()
    if len(p) > 6 and p[1] == ".nv_fatbin":
        off, size = int(p[4], 16), int(p[5], 16)
libdir, libname = os.path.dirname(LIB), os.path.basename(LIB)
A = [
    ("cuobjdump -lelf -lptx", [CO, "-lelf", "-lptx", libname]),
    ("cuwheel list --format cuobjdump", [CW, "list", "--format", "cuobjdump", libname]),
    ("cuwheel list (text)", [CW, "list", libname]),
    ("cat (whole file)", ["cat", libname]),
]
if off is not None:
    A.append(("dd (.nv_fatbin bytes only)", ["dd", "if=" + libname, "of=/dev/null", "bs=1M", "iflag=skip_bytes,count_bytes",
                                            "skip=%d" % off, "count=%d" % size, "status=none"]))

def timed(argv, cwd):
    t = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t

for _, argv in A: timed(argv, libdir)  # warm the cache
ta = {n: [] for n, _ in A}
for i in range(RUNS_A):
    for n, argv in (A if i % 2 == 0 else A[::-1]):
        ta[n].append(timed(argv, libdir))
med = {n: statistics.median(v) for n, v in ta.items()}
same = subprocess.run(A[0][1], cwd=libdir, capture_output=True).stdout == subprocess.run(A[1][1], cwd=libdir, capture_output=True).stdout

# part b
def unzip_cmd(): return ["unzip", "-q", "-o", WHEEL, "-d", tempfile.mkdtemp(dir=WORK)]
def show_cmd(): return [CW, "show", WHEEL]
def measure(argv):
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M %e %U %S"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    rss_kb, _, user, sys_ = p.stderr.strip().splitlines()[-1].split()
    return wall, int(rss_kb), float(user), float(sys_), p.returncode
subprocess.run(["cat", WHEEL], stdout=subprocess.DEVNULL)  # warm
tb = {"cuwheel show": [], "unzip -q": []}
for i in range(RUNS_B):
    order = [("cuwheel show", show_cmd), ("unzip -q", unzip_cmd)]
    for n, mk in (order if i % 2 == 0 else order[::-1]):
        tb[n].append(measure(mk()))
        if n == "unzip -q":
            for d in os.listdir(WORK): shutil.rmtree(os.path.join(WORK, d), ignore_errors=True)

def first(argv):
    try: return subprocess.run(argv, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    except Exception as e: return str(e)
cpu = ""
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"): cpu = line.split(":", 1)[1].strip(); break
mem = int(open("/proc/meminfo").readline().split()[1]) // 1024 // 1024
L = ["# Benchmarks", "", "Produced by `bench/run.sh` (warm page cache, commands alternating, medians).", "",
     "## Machine", "",
     "- CPU: %s, %d cores available (`nproc`), %d GiB RAM, %s" % (cpu, os.cpu_count(), mem, platform.system()),
     "- cuwheel: %s" % first([CW, "--version"]),
     "- cuobjdump: %s" % first([CO, "--version"]),
     "- unzip: %s" % subprocess.run(["unzip", "-v"], capture_output=True, text=True).stdout.splitlines()[0],
     "- library: `%s` of the CUDA toolkit (%d bytes; `.nv_fatbin` %s bytes)" % (libname, os.path.getsize(LIB), size),
     "- wheel: `%s` (%d bytes)" % (os.path.basename(WHEEL), os.path.getsize(WHEEL)), "",
     "## a. Listing libcublasLt.so.13 (%d runs each)" % RUNS_A, "",
     "| command | median (s) | min (s) | max (s) |", "|---|---:|---:|---:|"]
for n, _ in A:
    L.append("| `%s` | %.3f | %.3f | %.3f |" % (n, med[n], min(ta[n]), max(ta[n])))
cw = med["cuwheel list --format cuobjdump"]
L += ["", "- cuobjdump / cuwheel (`--format cuobjdump`): **%.1f×** (target ≥ 20×)" % (med["cuobjdump -lelf -lptx"] / cw),
      "- cuobjdump / cuwheel (text): **%.1f×**" % (med["cuobjdump -lelf -lptx"] / med["cuwheel list (text)"]),
      "- cuwheel / `cat` of the whole file: %.2f" % (cw / med["cat (whole file)"])]
if off is not None:
    L.append("- cuwheel / reading `.nv_fatbin` only: %.2f" % (cw / med["dd (.nv_fatbin bytes only)"]))
L.append("- identical stdout: %s" % ("yes" if same else "NO"))
L += ["", "## b. torch wheel: `cuwheel show` vs `unzip -q` (%d runs each)" % RUNS_B, "",
      "| command | median wall (s) | runs wall (s) | peak RSS (MB, max) | user+sys (s, median) |", "|---|---:|---|---:|---:|"]
for n, v in tb.items():
    L.append("| `%s` | %.2f | %s | %.0f | %.2f |" % (n, statistics.median(x[0] for x in v), ", ".join("%.2f" % x[0] for x in v),
             max(x[1] for x in v) / 1024, statistics.median(x[2] + x[3] for x in v)))
ws, wu = statistics.median(x[0] for x in tb["cuwheel show"]), statistics.median(x[0] for x in tb["unzip -q"])
L += ["", "- cuwheel show / unzip wall time: **%.2f** (target ≤ 1)" % (ws / wu),
      "- cuwheel show peak RSS: **%.0f MB** (target < 200 MB); exit status %d" % (max(x[1] for x in tb["cuwheel show"]) / 1024, tb["cuwheel show"][0][4]),
      "", "## Commands", "", "```"]
sym = {CW: "$CUWHEEL", CO: "$CUOBJDUMP"}
L += ["cd \"$(dirname \"$LIB\")\" && " + " ".join(sym.get(a, shlex.quote(a)) for a in argv) for _, argv in A]
L += ["/usr/bin/time -f '%M %e %U %S' $CUWHEEL show \"$WHEEL\"",
      "/usr/bin/time -f '%M %e %U %S' unzip -q -o \"$WHEEL\" -d \"$(mktemp -d)\"", "```",
      "", "with CUWHEEL=build/cuwheel, CUOBJDUMP=$(scripts/get-cuobjdump.sh), LIB=%s, WHEEL=.cache/wheels/%s." % (
          "<toolkit>/lib64/" + libname, os.path.basename(WHEEL))]
os.makedirs(os.path.dirname(os.environ["REPORT"]), exist_ok=True)
open(os.environ["REPORT"], "w").write("\n".join(L) + "\n")
print("\n".join(L))
PY
