#!/usr/bin/env bash
# End-to-end test of "one rule for all commands": what cannot be read is
# unreadable input in list (every format), show and check (exit 2, named;
# `list --format cuobjdump` keeps cuobjdump's own status, never 0, for a
# plain file cuobjdump could not read), and what was read with warnings
# says so in every command. Inputs made here from tests/fixtures/bin:
# libplain.so cut to 64 and 567 bytes, with e_phnum / e_shnum / e_shoff /
# e_phoff lying, an empty folder, a file that is no zip under a wheel's
# name, a FIFO; and libplain.so with a lying e_shstrndx (readable, with a
# warning).
# Usage: tests/e2e/unreadable_test.sh path/to/cuwheel  (from the repository root)
set -uo pipefail
CUWHEEL="$1"
LIB="tests/fixtures/bin/libplain.so"
. "$(dirname "$0")/common.sh"

python3 - "$LIB" "$WORK" <<'PY'
import os, struct, sys
src, work = sys.argv[1], sys.argv[2]
d = open(src, "rb").read()
open(f"{work}/cut64.so", "wb").write(d[:64])
open(f"{work}/cut567.so", "wb").write(d[:567])
def lie(name, off, fmt, val):
    x = bytearray(d)
    struct.pack_into(fmt, x, off, val)
    open(f"{work}/{name}", "wb").write(x)
lie("phnum.so", 56, "<H", 0xffff)
lie("shnum.so", 60, "<H", 0xfff0)
lie("shoff.so", 40, "<Q", 0x7fffffffffff)
lie("phoff.so", 32, "<Q", 0x7fffffffffff)
lie("shstrndx.so", 62, "<H", 0x7777)
os.mkdir(f"{work}/empty")
open(f"{work}/bad-1.0-py3-none-any.whl", "wb").write(b"PK\x03\x04garbage")
os.mkfifo(f"{work}/fifo.so")
PY

for f in cut64.so cut567.so phnum.so shnum.so shoff.so phoff.so empty bad-1.0-py3-none-any.whl fifo.so; do
  for cmd in "list" "list --format json" "list --format cuobjdump" "show" "show --format json" "check" "check --format json"; do
    # shellcheck disable=SC2086
    "$CUWHEEL" $cmd "$WORK/$f" "$LIB" >"$WORK/out" 2>"$WORK/err" </dev/null
    rc=$?
    case "$cmd" in
      "list --format cuobjdump")
        # cuobjdump's status for a plain file it cannot read (1 or 255);
        # 2 for a folder or wheel, which cuobjdump does not read.
        if [ "$rc" != 0 ]; then ok; else bad "$cmd $f: exit 0 on unreadable input"; fi ;;
      *) if [ "$rc" = 2 ]; then ok; else bad "$cmd $f: exit $rc, expected 2"; fi ;;
    esac
    cat "$WORK/out" "$WORK/err" >"$WORK/both"
    if grep -qF "$f" "$WORK/both"; then ok; else bad "$cmd $f: the unreadable input is not named"; fi
    # The good input after it is still read (cuobjdump's listing names its
    # cubins "libplain.N.sm_XX.cubin"; check names an input only with a
    # finding, and libplain.so has none).
    case "$cmd" in
      check*) ;;
      *) if grep -qF "libplain." "$WORK/both"; then ok; else bad "$cmd $f: libplain.so not read"; fi ;;
    esac
  done
done

# A folder whose *.whl entries are a FIFO and a dangling link: every command
# names both (list and show skipped them and said "no ELF files found").
mkdir -p "$WORK/oddwheels"
mkfifo "$WORK/oddwheels/x-1.0-py3-none-any.whl"
ln -s "$WORK/nowhere.whl" "$WORK/oddwheels/y-1.0-py3-none-any.whl"
for cmd in list show check; do
  timeout 30 "$CUWHEEL" "$cmd" "$WORK/oddwheels" >"$WORK/out" 2>"$WORK/err" </dev/null
  rc=$?
  cat "$WORK/out" "$WORK/err" >"$WORK/both"
  if [ "$rc" = 2 ]; then ok; else bad "$cmd oddwheels: exit $rc, expected 2"; fi
  for f in x-1.0-py3-none-any.whl y-1.0-py3-none-any.whl; do
    if grep -qF "oddwheels/$f: " "$WORK/both"; then ok; else bad "$cmd oddwheels: $f is not named: $(head -c 300 "$WORK/both")"; fi
  done
done

# Read with a warning: every command exits 0 and says so.
W="section name table (e_shstrndx 30583) is unreadable"
for cmd in "list" "list --format cuobjdump" "show" "check" "check --format github"; do
  # shellcheck disable=SC2086
  "$CUWHEEL" $cmd "$WORK/shstrndx.so" >"$WORK/out" 2>"$WORK/err"
  rc=$?
  cat "$WORK/out" "$WORK/err" >"$WORK/both"
  # cuobjdump 13.2 finds no device code without section names (exit 255).
  want=0
  [ "$cmd" = "list --format cuobjdump" ] && want=255
  if [ "$rc" = "$want" ]; then ok; else bad "$cmd shstrndx.so: exit $rc, expected $want"; fi
  case "$cmd" in
    "list --format cuobjdump") ;;  # cuobjdump's stdout and stderr, byte for byte: no warning of ours
    *) if grep -qF "$W" "$WORK/both"; then ok; else bad "$cmd shstrndx.so: the read warning is not shown"; fi ;;
  esac
done
"$CUWHEEL" check "$WORK/shstrndx.so" >"$WORK/out" 2>&1
if grep -qF "shstrndx.so: read warning: $W" "$WORK/out" && grep -qF "1 read warning" "$WORK/out"; then ok; else bad "check text: $(cat "$WORK/out")"; fi
"$CUWHEEL" check --format json "$WORK/shstrndx.so" >"$WORK/out"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["summary"]["read_warnings"][0]["message"] == sys.argv[2]' "$WORK/out" "$W"; then ok; else bad "check json: read_warnings"; fi
"$CUWHEEL" check --format sarif "$WORK/shstrndx.so" >"$WORK/out"
if python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["runs"][0]["invocations"][0]; assert i["executionSuccessful"] and i["toolExecutionNotifications"][0]["level"] == "warning"' "$WORK/out"; then ok; else bad "check sarif: read warning notification"; fi

finish
