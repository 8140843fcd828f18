#!/usr/bin/env bash
# compare-cuobjdump.sh — proves `cuwheel list --format cuobjdump` against the
# real cuobjdump on real inputs. Not run in CI (needs a CUDA toolkit install,
# network access to PyPI on first use, several GB of disk and ~30 minutes).
#
# What it does
#   1. Toolkit: every ELF file and static archive (.a) under the lib64 and
#      targets/*/lib folders of the CUDA toolkit that `nvcc` belongs to
#      (recursively; symlinks skipped, each real file once). Each is listed by
#      both tools, by absolute path, in the modes `-lelf -lptx`, `-lelf`,
#      `-lptx` and `-all -lelf -lptx`; stdout, stderr and exit status must be
#      byte-identical.
#   2. Wheels: every member of each wheel below that is an ELF file, a raw
#      fatbin or a static archive is extracted to a fresh temporary folder
#      under its own file name, and both tools are run from inside that
#      folder on the bare file name, in the same four modes.
#   3. Wheel listing: `cuwheel list --format cuobjdump [mode] WHEEL` must print,
#      per member, "\nmember ABS_WHEEL:MEMBER:\n" followed by what cuobjdump
#      printed for the extracted member (paths in messages rewritten to
#      'ABS_WHEEL:MEMBER'); its stderr must hold the same lines as the
#      per-member runs together, and its exit status must be 1 exactly when
#      some member's run exited 1 (members' 255 "no device code" is not
#      propagated).
#   Results (per source: files, runs, differences, and the first lines of each
#   difference) go to bench/results/cuobjdump-compare.md; the full outputs of
#   each differing run are kept under a mktemp'd folder printed on stderr.
#
# How to run
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build
#   scripts/compare-cuobjdump.sh                 # everything
#   ONLY=toolkit scripts/compare-cuobjdump.sh    # just the toolkit (or ONLY=wheels)
#
# Environment
#   CUWHEEL     cuwheel binary (default build/cuwheel)
#   CUOBJDUMP   reference cuobjdump (default: scripts/get-cuobjdump.sh cuobjdump-13.5)
#   NVCC        nvcc whose toolkit is compared (default: the one on PATH, else
#               /usr/local/cuda/bin/nvcc)
#   WHEEL_CACHE folder of downloaded wheels (default .cache/wheels, ignored by
#               git); a wheel already there is not downloaded again
#   WHEELS      space-separated pip requirement specs (default: pinned list below)
#   JOBS        parallel runs (default: nproc)
#   REPORT      report path (default bench/results/cuobjdump-compare.md)
#
# Needs: bash, python3 (stdlib only), pip (for downloads), the toolkit.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CUWHEEL=${CUWHEEL:-$repo/build/cuwheel}
export CUOBJDUMP=${CUOBJDUMP:-$("$repo/scripts/get-cuobjdump.sh" cuobjdump-13.5)}
export WHEEL_CACHE=${WHEEL_CACHE:-$repo/.cache/wheels}
export JOBS=${JOBS:-$(nproc)}
export REPORT=${REPORT:-$repo/bench/results/cuobjdump-compare.md}
export ONLY=${ONLY:-all}
if [ -z "${NVCC:-}" ]; then
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
fi
export NVCC
# Real CUDA wheels from PyPI, pinned so that reruns compare the same bytes
# (jax-cuda13-plugin, cupy and torch are per-Python wheels: pip picks the tag
# of the python3 that runs it).
WHEELS=${WHEELS:-"nvidia-cublas==13.10.0.20 nvidia-nccl-cu13==2.32.3 nvidia-cusparse==12.9.4.2 \
nvidia-cudnn-cu13==9.28.1.4 jax-cuda13-plugin==0.10.2 jax-cuda13-pjrt==0.12.0.1 \
cupy-cuda12x==14.2.0 torch==2.15.0 nvidia-cublas-cu12==12.9.3.13 \
sgl-kernel==0.3.21 catboost==1.2.10 bitsandbytes==0.50.2"}

[ -x "$CUWHEEL" ] || { echo "compare-cuobjdump: no cuwheel binary at $CUWHEEL (build first)" >&2; exit 2; }
[ -x "$CUOBJDUMP" ] || { echo "compare-cuobjdump: no cuobjdump at $CUOBJDUMP" >&2; exit 2; }

wheel_files=()
if [ "$ONLY" != toolkit ]; then
  mkdir -p "$WHEEL_CACHE"
  for spec in $WHEELS; do
    name=${spec%%[=<>!~]*}; ver=${spec#"$name"}; ver=${ver#==}
    norm=$(echo "$name" | tr 'A-Z-.' 'a-z__')
    f=$(ls "$WHEEL_CACHE/$norm-${ver:-}"*.whl 2>/dev/null | head -n1 || true)
    if [ -z "$f" ]; then
      python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$WHEEL_CACHE" "$spec" >&2
      f=$(ls "$WHEEL_CACHE/$norm-${ver:-}"*.whl | head -n1)
    fi
    wheel_files+=("$f")
  done
fi
export WHEEL_FILES="${wheel_files[*]:-}"
work=$(mktemp -d "${TMPDIR:-/tmp}/compare-cuobjdump.XXXXXX")
export WORK=$work
trap 'rm -rf "$work/x"; rmdir "$work" 2>/dev/null || true' EXIT

exec python3 - <<'PY'
import concurrent.futures as cf, glob, os, re, shutil, subprocess, sys, time, zipfile

CUWHEEL, CUOBJDUMP = os.environ["CUWHEEL"], os.environ["CUOBJDUMP"]
JOBS, WORK, ONLY = int(os.environ["JOBS"]), os.environ["WORK"], os.environ["ONLY"]
MODES = [["-lelf", "-lptx"], ["-lelf"], ["-lptx"], ["-all", "-lelf", "-lptx"]]
CW_FLAGS = {"-lelf": "--elf", "-lptx": "--ptx", "-all": "--all"}

def run(argv, cwd):
    p = subprocess.run(argv, cwd=cwd, capture_output=True)
    return p.stdout, p.stderr, p.returncode

def both(path_arg, cwd, mode):
    ref = run([CUOBJDUMP] + mode + [path_arg], cwd)
    got = run([CUWHEEL, "list", "--format", "cuobjdump"] + [CW_FLAGS[m] for m in mode] + [path_arg], cwd)
    return ref, got

def kind(head):
    if head[:4] == b"\x7fELF": return "elf"
    if head[:4] == b"\x50\xed\x55\xba": return "fatbin"
    if head[:8] == b"!<arch>\n": return "archive"
    return None

diff_no = [0]
def record(src, label, mode, ref, got):
    """Returns a short description of the difference, or None."""
    if ref == got: return None
    diff_no[0] += 1
    d = os.path.join(WORK, "diffs", "%04d" % diff_no[0]); os.makedirs(d, exist_ok=True)
    for tag, r in (("cuobjdump", ref), ("cuwheel", got)):
        open(os.path.join(d, tag + ".out"), "wb").write(r[0])
        open(os.path.join(d, tag + ".err"), "wb").write(r[1])
        open(os.path.join(d, tag + ".rc"), "w").write("%d\n" % r[2])
    what = []
    for i, name in enumerate(("stdout", "stderr")):
        if ref[i] != got[i]:
            a, b = ref[i].decode(errors="replace").splitlines(), got[i].decode(errors="replace").splitlines()
            first = next((k for k in range(max(len(a), len(b))) if k >= len(a) or k >= len(b) or a[k] != b[k]), 0)
            what.append("%s line %d: cuobjdump %r / cuwheel %r (%d vs %d lines)" % (
                name, first + 1, a[first] if first < len(a) else "<end>", b[first] if first < len(b) else "<end>", len(a), len(b)))
    if ref[2] != got[2]: what.append("exit %d vs %d" % (ref[2], got[2]))
    return "`%s` `%s`: %s (full outputs: diffs/%04d)" % (label, " ".join(mode), "; ".join(what), diff_no[0])

results = []   # (source, files, runs, [diffs], seconds, notes)

def toolkit_files():
    nvcc = os.path.realpath(os.environ["NVCC"])
    root = os.path.dirname(os.path.dirname(nvcc))
    dirs = [os.path.join(root, "lib64")] + sorted(glob.glob(os.path.join(root, "targets", "*", "lib")))
    seen, files = set(), []
    for d in dirs:
        for dp, dns, fns in os.walk(d):
            dns.sort()
            for fn in sorted(fns):
                p = os.path.join(dp, fn)
                if os.path.islink(p) or not os.path.isfile(p): continue
                rp = os.path.realpath(p)
                if rp in seen: continue
                with open(p, "rb") as f: h = f.read(8)
                if kind(h) in ("elf", "archive"):
                    seen.add(rp); files.append(rp)
    return root, files

def do_toolkit():
    t0 = time.time()
    root, files = toolkit_files()
    def job(p):
        return [(p, m) + both(p, "/", m) for m in MODES]
    diffs, runs = [], 0
    with cf.ThreadPoolExecutor(JOBS) as ex:
        for res in ex.map(job, sorted(files, key=os.path.getsize, reverse=True)):
            for p, m, ref, got in res:
                runs += 1
                d = record("toolkit", p, m, ref, got)
                if d: diffs.append(d)
    ver = ""
    try: ver = subprocess.run([os.environ["NVCC"], "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    except Exception: pass
    results.append(("CUDA toolkit (%s)" % ver, len(files), runs, diffs, time.time() - t0, ""))

def do_wheel(whl):
    t0 = time.time()
    absw = os.path.abspath(whl)
    z = zipfile.ZipFile(absw)
    members = []
    for i, info in enumerate(z.infolist()):
        if info.is_dir(): continue
        with z.open(info) as f: h = f.read(8)
        if kind(h): members.append((i, info))
    def job(item):
        i, info = item
        d = os.path.join(WORK, "x", "%s-%d" % (os.path.basename(whl), i)); os.makedirs(d)
        base = os.path.basename(info.filename)
        with zipfile.ZipFile(absw) as zz, zz.open(info) as src, open(os.path.join(d, base), "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        out = [(m,) + both(base, d, m) for m in MODES]
        shutil.rmtree(d)
        return info.filename, d, base, out
    diffs, runs, per_member = [], 0, []
    with cf.ThreadPoolExecutor(JOBS) as ex:
        for name, d, base, out in ex.map(job, members):
            per_member.append((name, d, base, out))
            for m, ref, got in out:
                runs += 1
                r = record(whl, name, m, ref, got)
                if r: diffs.append(r)
    # The wheel as a whole.
    notes = []
    for mi, m in enumerate(MODES):
        exp_out, exp_err, exp_rc = b"", [], 0
        for name, d, base, out in per_member:
            ref = out[mi][1]
            tmp, new = ("'" + os.path.join(d, base) + "'").encode(), ("'" + absw + ":" + name + "'").encode()
            # An archive member's line names the archive unquoted:
            # "member <path>/libx.a:obj.o:".
            amem = (b"member " + os.path.join(d, base).encode() + b":", b"member " + (absw + ":" + name).encode() + b":")
            exp_out += (b"\nmember " + absw.encode() + b":" + name.encode() + b":\n" +
                        ref[0].replace(tmp, new).replace(*amem))
            exp_err += ref[1].replace(tmp, new).splitlines()
            if ref[2] == 1: exp_rc = 1
        got = run([CUWHEEL, "list", "--format", "cuobjdump"] + [CW_FLAGS[x] for x in m] + [absw], "/")
        runs += 1
        if got[0] != exp_out or sorted(got[1].splitlines()) != sorted(exp_err) or got[2] != exp_rc:
            r = record(whl, "WHEEL " + os.path.basename(whl), m, (exp_out, b"\n".join(sorted(exp_err)), exp_rc),
                       (got[0], b"\n".join(sorted(got[1].splitlines())), got[2]))
            diffs.append(r or "wheel listing differs")
    results.append(("wheel %s" % os.path.basename(whl), len(members), runs, diffs, time.time() - t0,
                    "%d ELF/archive members of %d" % (len(members), len(z.infolist()))))

t_all = time.time()
if ONLY in ("all", "toolkit"): do_toolkit()
if ONLY in ("all", "wheels"):
    for w in os.environ.get("WHEEL_FILES", "").split():
        do_wheel(w)
        print("done %s" % w, file=sys.stderr, flush=True)

def version(argv):
    try: return subprocess.run(argv, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    except Exception as e: return str(e)

lines = ["# cuobjdump comparison", "",
         "Generated by `scripts/compare-cuobjdump.sh`: `cuwheel list --format cuobjdump` versus cuobjdump, modes "
         "`-lelf -lptx`, `-lelf`, `-lptx`, `-all -lelf -lptx`; stdout, stderr and exit status compared byte for byte. "
         "Wheel members are extracted under their own name and both tools run from inside that folder; the "
         "\"WHEEL\" rows check `cuwheel list --format cuobjdump WHEEL` against the per-member cuobjdump output.", "",
         "- cuobjdump: %s" % version([CUOBJDUMP, "--version"]),
         "- cuwheel: %s" % version([CUWHEEL, "--version"]),
         "- jobs: %d, total time: %.0f s" % (JOBS, time.time() - t_all), "",
         "| source | files | runs | differences | time (s) | notes |", "|---|---:|---:|---:|---:|---|"]
for src, n, runs, diffs, secs, notes in results:
    lines.append("| %s | %d | %d | %d | %.0f | %s |" % (src, n, runs, len(diffs), secs, notes))
total = sum(len(r[3]) for r in results)
lines += ["", "Total: %d files, %d runs, %d differences." % (sum(r[1] for r in results), sum(r[2] for r in results), total)]
for src, n, runs, diffs, secs, notes in results:
    if diffs:
        lines += ["", "## Differences: %s" % src, ""] + ["- " + d for d in diffs[:50]]
        if len(diffs) > 50: lines.append("- ... and %d more" % (len(diffs) - 50))
if total:
    print("full outputs of differing runs: %s/diffs" % WORK, file=sys.stderr)
os.makedirs(os.path.dirname(os.environ["REPORT"]), exist_ok=True)
open(os.environ["REPORT"], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(1 if total else 0)
PY
