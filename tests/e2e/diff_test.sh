#!/usr/bin/env bash
# End-to-end tests of `cuwheel diff`: two builds of one wheel made here with
# Python's zipfile (the old one ships libplain.so as lib/libk.so and
# lib/libv.so; the new one ships libsuffix.so (other SASS and PTX) and
# the _ext.so of a loading fixture (other NEEDED, a RUNPATH) there, adds a 3 MB member, drops one, and
# bumps the version), then exit statuses, text and
# JSON output, growth limits and error messages.
# Usage: tests/e2e/diff_test.sh path/to/cuwheel   (run from the repository root)
set -uo pipefail
CUWHEEL="$1"
BIN="tests/fixtures/bin"
. "$(dirname "$0")/common.sh"

# run EXPECTED_RC ARGS...: runs cuwheel, keeps stdout/stderr in $WORK/out, $WORK/err.
run() {
  local want="$1"
  shift
  "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "cuwheel $* exited $rc, expected $want: $(head -c 300 "$WORK/err")"; fi
}
has() { if grep -qF -- "$2" "$WORK/$1"; then ok; else bad "$1 lacks '$2'"; fi; }

python3 - "$WORK" "$BIN" <<'PY'
import base64, hashlib, os, random, sys, zipfile
work, bindir = sys.argv[1:3]
def wheel(version, files):
    di = f"dfix-{version}.dist-info"
    files = dict(files)
    files[f"{di}/METADATA"] = f"Metadata-Version: 2.1\nName: dfix\nVersion: {version}\n".encode()
    files[f"{di}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: diff_test\nRoot-Is-Purelib: false\nTag: py3-none-manylinux_2_28_x86_64\n"
    rec = ""
    for n, d in files.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
        rec += f"{n},sha256={h},{len(d)}\n"
    files[f"{di}/RECORD"] = (rec + f"{di}/RECORD,,\n").encode()
    path = os.path.join(work, f"dfix-{version}-py3-none-manylinux_2_28_x86_64.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            z.writestr(zipfile.ZipInfo(n, (2024, 1, 1, 0, 0, 0)), d, zipfile.ZIP_DEFLATED)
    return path
lib = lambda n: open(os.path.join(bindir, n), "rb").read()
good = os.path.join(bindir, "..", "check", "loading", "lw_good_cu13-1.0-py3-none-manylinux_2_36_x86_64.whl")
random.seed(3)
wheel("1.0", {"dfix/__init__.py": b"# old\n", "dfix/old_only.py": b"x = 1\n", "dfix/lib/libk.so": lib("libplain.so"),
              "dfix/lib/libv.so": lib("libplain.so")})
wheel("1.1", {"dfix/__init__.py": b"# new build\n", "dfix/lib/libk.so": lib("libsuffix.so"),
              "dfix/lib/libv.so": zipfile.ZipFile(good).read("lw_good_cu13/_ext.so"),
              "dfix/data.bin": random.randbytes(3_000_000)})
PY
OLD="$WORK/dfix-1.0-py3-none-manylinux_2_28_x86_64.whl"
NEW="$WORK/dfix-1.1-py3-none-manylinux_2_28_x86_64.whl"

# Text report: sizes, members, library changes.
run 0 diff "$OLD" "$NEW"
has out "wheel size"
has out "installed size"
has out "1 added, 1 removed, 5 changed, 1 unchanged"
has out "+ "
has out "dfix/data.bin"
has out "dfix/old_only.py"
has out "dfix/lib/libk.so"
has out "sass          +sm_90a +sm_100a +sm_100f +sm_120f -sm_75 -sm_90 -sm_120"
has out "ptx           +compute_100a +compute_120f -compute_120"
has out "needed        +libhelper.so +libkern.so +libcuda.so.1 -libcudart.so.13"
has out "search path   - -> DT_RUNPATH \$ORIGIN/lib"
has out "device code"
# The versioned .dist-info folder is matched across versions, not added/removed.
if grep -q "^  [+-] .*dfix-1\.[01]\.dist-info/METADATA" "$WORK/out"; then bad "dist-info reported as added/removed"; else ok; fi
has out "(was dfix-1.0.dist-info/"

# Growth gates.
run 1 diff --max-growth 10% "$OLD" "$NEW"
has out "FAIL: wheel size"
has out "exceeds --max-growth 10%"
run 0 diff --max-growth 50MB "$OLD" "$NEW"
has out "ok: wheel size"
run 1 diff --max-growth 1MB "$OLD" "$NEW"
run 1 diff --max-installed-growth 2MB "$OLD" "$NEW"
has out "FAIL: installed size"
run 0 diff --max-growth 1% "$NEW" "$OLD"   # shrinking never fails
run 0 diff --max-growth 0% "$OLD" "$OLD"   # identical builds
has out "0 added, 0 removed, 0 changed"

# The exceeded gates as a report: one diagnostic per gate over its limit.
run 1 diff --format github --max-growth 10% --max-installed-growth 1GB "$OLD" "$NEW"
has out "::error file=$NEW,title=wheel-growth::wheel size"
has out "exceeds --max-growth 10%25 (old: $OLD)"   # GitHub's escape of %
if grep -q "installed-growth" "$WORK/out"; then bad "a gate within its limit was reported"; else ok; fi
run 1 diff --format sarif --max-installed-growth 2MB "$OLD" "$NEW"
has out '"ruleId": "CW912"'
run 0 diff --format sarif --max-growth 50MB "$OLD" "$NEW"
has out '"results": []'

# JSON.
run 1 diff --format json --max-growth 10% "$OLD" "$NEW"
if python3 - "$WORK/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["command"] == "diff" and d["tool"].startswith("cuwheel ")
assert d["new"]["size"] > d["old"]["size"] and d["change"]["size"] == d["new"]["size"] - d["old"]["size"]
st = {m["name"]: m["status"] for m in d["members"]}
assert st["dfix/data.bin"] == "added" and st["dfix/old_only.py"] == "removed" and st["dfix/lib/libk.so"] == "changed", st
assert d["members"][0]["name"] == "dfix/data.bin"  # largest change first
lib = d["libraries"][0]
assert lib["member"] == "dfix/lib/libk.so" and "sm_75" in lib["sass_removed"] and "sm_90a" in lib["sass_added"], lib
assert d["limits"][0]["flag"] == "--max-growth" and d["limits"][0]["exceeded"] is True
PY
then ok; else bad "diff --format json content"; fi

# Errors: unreadable input, a non-wheel, a bad limit, missing operand.
run 2 diff "$OLD" "$WORK/nope.whl"
has err "nope.whl"
run 2 diff "$OLD" "$BIN/libplain.so"
has err "not a wheel"
run 2 diff --max-growth ten "$OLD" "$NEW"
has err "--max-growth"
run 2 diff "$OLD"
run 2 diff --top -1 "$OLD" "$NEW"
has err "--top"
# A zip that is not a wheel (empty; no .dist-info), and a library member that
# cannot be read (encrypted flag set): unreadable, never "removed".
python3 - "$WORK" "$OLD" <<'PY'
import struct, sys, zipfile
work, old = sys.argv[1:3]
zipfile.ZipFile(f"{work}/empty-1.0-py3-none-any.whl", "w").close()
with zipfile.ZipFile(f"{work}/nodist-1.0-py3-none-any.whl", "w") as z:
    z.writestr("nodist/a.py", "x = 1\n")
d = bytearray(open(old, "rb").read())
with zipfile.ZipFile(old) as z:
    info = [i for i in z.infolist() if i.filename.endswith(".so")][0]
d[info.header_offset + 6] |= 1  # local header: general purpose flag bit 0 (encrypted)
pos = 0
while True:
    pos = d.find(b"PK\x01\x02", pos)
    if pos < 0: break
    n = struct.unpack_from("<H", d, pos + 28)[0]
    if d[pos + 46:pos + 46 + n].decode() == info.filename:
        d[pos + 8] |= 1
    pos += 4
open(f"{work}/enc-1.0-py3-none-any.whl", "wb").write(d)
PY
run 2 diff "$WORK/empty-1.0-py3-none-any.whl" "$NEW"
has err "not a wheel"
run 2 diff "$OLD" "$WORK/nodist-1.0-py3-none-any.whl"
has err "not a wheel"
run 2 diff "$OLD" "$WORK/enc-1.0-py3-none-any.whl"
has err "encrypted member"
# Both wheels unreadable: each is named, on stderr and in every report
# (diff/unreadable, CW914), and SARIF says the run did not succeed.
printf 'not a zip' > "$WORK/junk-1.0-py3-none-any.whl"
run 2 diff --max-growth 10% "$WORK/empty-1.0-py3-none-any.whl" "$WORK/junk-1.0-py3-none-any.whl"
has err "empty-1.0-py3-none-any.whl: not a wheel"
has err "junk-1.0-py3-none-any.whl"
run 2 diff --format github "$WORK/empty-1.0-py3-none-any.whl" "$WORK/junk-1.0-py3-none-any.whl"
has out "::error file=$WORK/empty-1.0-py3-none-any.whl,title=unreadable::"
has out "::error file=$WORK/junk-1.0-py3-none-any.whl,title=unreadable::"
run 2 diff --format sarif "$OLD" "$WORK/junk-1.0-py3-none-any.whl"
if python3 - "$WORK/out" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert run["invocations"][0]["executionSuccessful"] is False, run["invocations"]
assert [r["ruleId"] for r in run["results"]] == ["CW914"], run["results"]
assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("junk-1.0-py3-none-any.whl")
PY
then ok; else bad "diff --format sarif of an unreadable wheel"; fi
run 2 diff --format json "$WORK/junk-1.0-py3-none-any.whl" "$OLD"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); u=d["unreadable"]; sys.exit(0 if d["command"]=="diff" and len(u)==1 and u[0]["where"].endswith("junk-1.0-py3-none-any.whl") and "members" not in d else 1)' "$WORK/out"; then ok; else bad "diff --format json of an unreadable wheel"; fi
# Inputs are never modified.
before=$(sha256sum "$OLD" "$NEW")
"$CUWHEEL" diff "$OLD" "$NEW" >/dev/null 2>&1
if [ "$before" = "$(sha256sum "$OLD" "$NEW")" ]; then ok; else bad "inputs modified"; fi

# A member stored twice (10 bytes, then 1000): the last copy is compared and
# the duplicate is named with its wheel, in text (stderr) and JSON.
python3 - "$WORK" <<'PY'
import sys, warnings, zipfile
warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
work = sys.argv[1]
def w(path, copies):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("dup-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: dup\nVersion: 1.0\n")
        z.writestr("dup-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        for c in copies:
            z.writestr("a.txt", c)
        z.writestr("dup-1.0.dist-info/RECORD", "")
w(f"{work}/dup-1.0-py3-none-any.whl", [b"x" * 10])
import os
os.makedirs(f"{work}/twice", exist_ok=True)
w(f"{work}/twice/dup-1.0-py3-none-any.whl", [b"x" * 10, b"y" * 1000])
PY
run 0 diff "$WORK/dup-1.0-py3-none-any.whl" "$WORK/twice/dup-1.0-py3-none-any.whl"
has out "1 changed"
has out "a.txt  (10 B -> 1.0 kB stored)"
has err "twice/dup-1.0-py3-none-any.whl: a.txt is stored 2 times; installers keep the last copy"
run 0 diff --format json "$WORK/dup-1.0-py3-none-any.whl" "$WORK/twice/dup-1.0-py3-none-any.whl"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); x=d["duplicates"]; sys.exit(0 if len(x)==1 and x[0]["member"]=="a.txt" and x[0]["wheel"]=="new" and x[0]["copies"]==2 else 1)' "$WORK/out"; then ok; else bad "JSON duplicates"; fi
run 0 diff --format github "$WORK/dup-1.0-py3-none-any.whl" "$WORK/twice/dup-1.0-py3-none-any.whl"
has out "::warning file=$WORK/twice/dup-1.0-py3-none-any.whl,title=duplicate-member in a.txt::stored 2 times"
run 0 diff --format json "$WORK/dup-1.0-py3-none-any.whl" "$WORK/dup-1.0-py3-none-any.whl"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["duplicates"]==[] and d["members"]==[] else 1)' "$WORK/out"; then ok; else bad "JSON duplicates of a clean wheel"; fi

finish
