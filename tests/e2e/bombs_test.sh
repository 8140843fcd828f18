#!/usr/bin/env bash
# End-to-end tests of decompression bombs: inputs that declare far more
# decoded bytes than they store are unreadable input (exit 2) with the
# figures, and every other input of the run is still read.
#   - fatbin ZSTD entries (tests/fixtures/bombs, tests/fixtures/make_bombs.sh):
#     one entry of 1 GiB from 33 KB; sixteen of them; two libraries of one
#     wheel that each decode 40 MiB (one budget per input: DecodeBudget)
#   - zip members that overlap (refused at open), members RECORD does not
#     list (not inflated for a digest)
# No time is asserted; the figures before and after are in the issue's
# closing note.
# Usage: tests/e2e/bombs_test.sh path/to/cuwheel  (from the repository root)
set -uo pipefail
CUWHEEL="$1"
BOMBS="tests/fixtures/bombs"
BIN="tests/fixtures/bin"
. "$(dirname "$0")/common.sh"
run() {
  local want="$1"
  shift
  "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "cuwheel $* exited $rc, expected $want: $(head -c 300 "$WORK/err")"; fi
}
has() { if grep -qF -- "$2" "$WORK/$1"; then ok; else bad "$1 lacks '$2': $(head -c 400 "$WORK/$1")"; fi; }
lacks() { if grep -qF -- "$2" "$WORK/$1"; then bad "$1 has '$2'"; else ok; fi; }

# --- fatbin entries ------------------------------------------------------------
run 2 check "$BOMBS/ptx_1gib.fatbin"
has out "ptx_1gib.fatbin: error[unreadable]: decompression bomb: entry at 0x10 would decode to 1024.0 MiB, past the 64.0 MiB this input may decode (64 times its 33.0 KiB, at least 64.0 MiB); not decoded"
has out "1 unreadable"
# list reads entry headers only: the entry is listed, nothing is decoded.
run 0 list "$BOMBS/ptx_1gib.fatbin"
has out "compute_90"

for i in $(seq 16); do cat "$BOMBS/ptx_1gib.fatbin"; done >"$WORK/sixteen.fatbin"
# A good input after the bomb is still read.
run 2 show "$WORK/sixteen.fatbin" "$BIN/libplain.so"
has err "sixteen.fatbin: decompression bomb: entry at 0x10 and 15 more would decode to 16384.0 MiB, past the 64.0 MiB"
has out "libplain.so"
has out "sm_120"
run 2 check "$WORK/sixteen.fatbin" "$BIN/libplain.so"
has out "2 inputs checked"
has out "1 unreadable"

# --- one budget per wheel --------------------------------------------------------
python3 - "$WORK" "$BOMBS/libptx_40mib.so" <<'PY'
import base64, hashlib, sys, zipfile
work, lib = sys.argv[1], open(sys.argv[2], "rb").read()
def wheel(name, libs):
    di = "bw-1.0.dist-info"
    files = {f"bw/{n}": lib for n in libs}
    files[f"{di}/METADATA"] = b"Metadata-Version: 2.1\nName: bw\nVersion: 1.0\n"
    files[f"{di}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: py3-none-manylinux_2_28_x86_64\n"
    rec = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n"
                  for n, d in files.items()) + f"{di}/RECORD,,\n"
    files[f"{di}/RECORD"] = rec.encode()
    import os
    os.makedirs(f"{work}/{name}", exist_ok=True)
    with zipfile.ZipFile(f"{work}/{name}/bw-1.0-py3-none-manylinux_2_28_x86_64.whl", "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            z.writestr(n, d)
wheel("one", ["liba.so"])
wheel("two", ["liba.so", "libb.so"])
PY
run 0 check "$WORK/one/bw-1.0-py3-none-manylinux_2_28_x86_64.whl"
lacks out "decompression bomb"
run 2 check "$WORK/two/bw-1.0-py3-none-manylinux_2_28_x86_64.whl"
has out "bw/libb.so: error[unreadable]: decompression bomb: entry at 0x1010 would decode to 40.0 MiB, past the 64.0 MiB this input may decode"
has out "40.0 MiB taken before"
lacks out "bw/liba.so: error[unreadable]"
run 2 show "$WORK/two/bw-1.0-py3-none-manylinux_2_28_x86_64.whl"
has err "bw/libb.so: decompression bomb"
lacks err "bw/liba.so: decompression bomb"

# --- zip members -----------------------------------------------------------------
# overlap.whl: 1,000 central directory entries that all point at one local
# header holding a 64 MiB deflate kernel (65 KB): 62.5 GiB if each member
# were inflated. unlisted.whl: RECORD lists none of its 16 members of
# 64 MiB of zeros each (1 MB in all); none of them is an object, so check
# reads their first bytes only and reports them by name.
python3 "$(dirname "$0")/../fixtures/make_overlap_wheel.py" "$WORK/ov-1.0-py3-none-any.whl"
python3 - "$WORK" <<'PY'
import sys, zipfile
work = sys.argv[1]
di = "un-1.0.dist-info"
with zipfile.ZipFile(f"{work}/un-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(f"{di}/METADATA", "Metadata-Version: 2.1\nName: un\nVersion: 1.0\n")
    z.writestr(f"{di}/WHEEL", "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(f"{di}/RECORD", f"{di}/METADATA,,\n{di}/WHEEL,,\n{di}/RECORD,,\n")
    for i in range(16):
        z.writestr(f"un/blob{i:02d}.bin", b"\0" * (64 << 20))
PY
for cmd in check show list; do
  run 2 "$cmd" "$WORK/ov-1.0-py3-none-any.whl" "$BIN/libplain.so"
  cat "$WORK/out" "$WORK/err" >"$WORK/both"
  has both "members 'k/0000.bin' (local header at 0x0), whose data runs to 0xfef8, and 'k/0001.bin' (local header at 0x0) overlap: a zip bomb or a damaged archive; refused"
  [ "$cmd" = check ] && has both "1 input checked: 0 errors, 0 warnings, 1 unreadable"  # libplain.so is read, and passes
  [ "$cmd" = check ] || has both "libplain.so"  # the next input is still read
done
run 1 check "$WORK/un-1.0-py3-none-any.whl"
has out "member is not listed in RECORD"
has out "16 members: un/blob00.bin, un/blob01.bin"
lacks out "unreadable"

finish
