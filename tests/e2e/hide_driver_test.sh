#!/usr/bin/env bash
# End-to-end tests of `cuwheel run --hide-driver -- CMD`.
#
# A fake libcuda.so.1 (tests/fixtures/hide-driver/fake_cuda.c) and a probe
# that dlopens "libcuda.so.1" and calls cuInit (probe.c) are built with cc.
# The probe loads the fake driver outside and must fail inside, whichever
# way the loader reaches it: LD_LIBRARY_PATH, the ld.so.cache (a cache built
# with ldconfig and bind-mounted over /etc/ld.so.cache in a private mount
# namespace, so the host's cache is never touched), or a RUNPATH covered
# with --also. Then: CMD's exit status and signals, 127 for a missing
# command, usage errors, the JSON of --dry-run, and the error when user
# namespaces are not permitted (user.max_user_namespaces set to 0 inside a
# user namespace of the test's own).
#
# Usage: tests/e2e/hide_driver_test.sh path/to/cuwheel
# Prints one line per failure and ends with "N passed, M failed" (and
# ", K skipped" when checks could not run here). Exits 1 on a failure, 77
# (ctest: skipped) when the fake driver cannot be built or user namespaces
# are not permitted, so that the suite never passes without its runs.
set -u

CUWHEEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$ROOT/tests/fixtures/hide-driver
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

pass=0
fail=0
skipped=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# skip N WHY: N checks that cannot run here.
skip() { skipped=$((skipped + $1)); shift; echo "SKIP: $*"; }
# finish [STATUS]: the closing line; exit 1 on a failure, else STATUS (0).
finish() {
  if [ "$skipped" -gt 0 ]; then
    echo "$pass passed, $fail failed, $skipped skipped"
  else
    echo "$pass passed, $fail failed"
  fi
  [ "$fail" -eq 0 ] || exit 1
  exit "${1:-0}"
}

# expect_status WANT NAME CMD...: runs CMD, stdout+stderr to $WORK/out.
expect_status() {
  local want=$1 name=$2
  shift 2
  "$@" >"$WORK/out" 2>&1
  local got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "$name: exit $got, want $want: $(head -c 400 "$WORK/out")"; fi
}
expect_output() {
  local name=$1 pattern=$2
  if grep -qF -- "$pattern" "$WORK/out"; then ok; else bad "$name: output lacks '$pattern': $(head -c 400 "$WORK/out")"; fi
}

CC=${CC:-cc}
if ! command -v "$CC" >/dev/null 2>&1; then
  echo "SKIP: no C compiler ($CC) to build the fake driver: the suite cannot run"
  finish 77
fi
mkdir -p "$WORK/lib" "$WORK/rpathlib" "$WORK/cachelib"
"$CC" -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$WORK/lib/libcuda.so.1" "$SRC/fake_cuda.c" || { bad "building the fake libcuda"; finish; }
cp "$WORK/lib/libcuda.so.1" "$WORK/rpathlib/libcuda.so.1"
cp "$WORK/lib/libcuda.so.1" "$WORK/cachelib/libcuda.so.1"
"$CC" -o "$WORK/probe" "$SRC/probe.c" -ldl || { bad "building the probe"; finish; }
"$CC" -o "$WORK/probe-runpath" "$SRC/probe.c" -ldl -Wl,--enable-new-dtags,-rpath,"$WORK/rpathlib" || { bad "building the RUNPATH probe"; finish; }

# --- usage errors (no namespace needed) ------------------------------------
expect_status 2 "no --" "$CUWHEEL" run --hide-driver true
expect_output "no --" "put the command after --"
expect_status 2 "no --hide-driver" "$CUWHEEL" run -- true
expect_output "no --hide-driver" "--hide-driver is required"
expect_status 2 "no command" "$CUWHEEL" run --hide-driver --
expect_output "no command" "no command"
expect_status 2 "--root needs --dry-run" "$CUWHEEL" run --hide-driver --root "$WORK" -- true
expect_status 2 "bad --format" "$CUWHEEL" run --hide-driver --dry-run --format xml
expect_status 2 "--also missing" "$CUWHEEL" run --hide-driver --also "$WORK/nope.so" --dry-run
expect_output "--also missing" "$WORK/nope.so"
# --also is for driver files: system devices and other device nodes are refused, with or without --dry-run.
expect_status 2 "--also /dev/null" "$CUWHEEL" run --hide-driver --also /dev/null -- sh -c 'echo x >/dev/null'
expect_output "--also /dev/null" "--also /dev/null: /dev/null is a system device every program may use"
expect_status 2 "--also /dev/null dry run" "$CUWHEEL" run --hide-driver --also /dev/null --dry-run
for dev in /dev/zero /dev/urandom /dev/random /dev/tty /dev; do
  expect_status 2 "--also $dev" "$CUWHEEL" run --hide-driver --also "$dev" --dry-run
  expect_output "--also $dev" "--also $dev: $dev is"
done
ln -s /dev/null "$WORK/sink"
expect_status 2 "--also a link to /dev/null" "$CUWHEEL" run --hide-driver --also "$WORK/sink" --dry-run
expect_output "--also a link to /dev/null" "/dev/null is a system device"
other=$(for d in /dev/kmsg /dev/loop-control /dev/fuse /dev/mem; do [ -c "$d" ] && { echo "$d"; break; }; done)
if [ -n "$other" ]; then
  expect_status 2 "--also $other" "$CUWHEEL" run --hide-driver --also "$other" --dry-run
  expect_output "--also $other" "a character device that is not an NVIDIA one (/dev/nvidia*)"
fi

# --- dry run ----------------------------------------------------------------
LD_LIBRARY_PATH=$WORK/lib expect_status 0 "dry run json" "$CUWHEEL" run --hide-driver --dry-run --format json
if python3 - "$WORK/out" "$WORK/lib/libcuda.so.1" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == 1 and doc["tool"].startswith("cuwheel ") and doc["command"] == "run", doc
t = [x for x in doc["hide_driver"]["targets"] if x["path"] == sys.argv[2]]
assert len(t) == 1 and t[0]["kind"] == "library", doc["hide_driver"]["targets"]
assert "LD_LIBRARY_PATH: " + sys.argv[2] in t[0]["via"], t
assert isinstance(doc["warnings"], list)
EOF
then ok; else bad "dry run json: content"; fi

mkdir -p "$WORK/tree/usr/lib/x86_64-linux-gnu" "$WORK/tree/dev"
: >"$WORK/tree/usr/lib/x86_64-linux-gnu/libcuda.so.580.1"
ln -s libcuda.so.580.1 "$WORK/tree/usr/lib/x86_64-linux-gnu/libcuda.so.1"
: >"$WORK/tree/dev/nvidiactl"
env -u LD_LIBRARY_PATH "$CUWHEEL" run --hide-driver --dry-run --root "$WORK/tree" >"$WORK/out" 2>&1
if [ $? -eq 0 ] && grep -q "^would hide 2 paths" "$WORK/out" &&
  grep -q "library    /usr/lib/x86_64-linux-gnu/libcuda.so.580.1" "$WORK/out" &&
  grep -q "via /usr/lib/x86_64-linux-gnu/libcuda.so.1, /usr/lib/x86_64-linux-gnu/libcuda.so.580.1" "$WORK/out" &&
  grep -q "device     /dev/nvidiactl" "$WORK/out"; then ok; else bad "dry run --root text: $(cat "$WORK/out")"; fi

# --- namespaces available? --------------------------------------------------
# (--also: a plan with something to cover; an empty plan needs no namespace.)
"$CUWHEEL" run --hide-driver --also "$WORK/lib/libcuda.so.1" -- true >"$WORK/out" 2>&1
if [ $? -eq 125 ]; then
  # The 35 checks below (fewer without python3) all need a namespace.
  skip 35 "user namespaces are not permitted here, the runs did not run: $(cat "$WORK/out")"
  finish 77
fi

# --- LD_LIBRARY_PATH ---------------------------------------------------------
LD_LIBRARY_PATH=$WORK/lib expect_status 0 "outside: fake driver loads" "$WORK/probe"
expect_output "outside: fake driver loads" "loaded: cuInit=0 devices=1"
LD_LIBRARY_PATH=$WORK/lib expect_status 1 "inside: dlopen fails" "$CUWHEEL" run --hide-driver -- "$WORK/probe"
expect_output "inside: dlopen fails" "not loaded: $WORK/lib/libcuda.so.1: file too short"
# The host's file is untouched.
LD_LIBRARY_PATH=$WORK/lib expect_status 0 "outside again" "$WORK/probe"
if command -v python3 >/dev/null 2>&1; then
  LD_LIBRARY_PATH=$WORK/lib expect_status 0 "python ctypes outside" python3 -c "import ctypes; ctypes.CDLL('libcuda.so.1')"
  LD_LIBRARY_PATH=$WORK/lib expect_status 1 "python ctypes inside" "$CUWHEEL" run --hide-driver -- python3 -c "import ctypes; ctypes.CDLL('libcuda.so.1')"
  expect_output "python ctypes inside" "OSError"
else
  skip 3 "no python3: the ctypes checks did not run"
fi

# --- RUNPATH: not a search input; covered with --also ------------------------
expect_status 0 "runpath outside" "$WORK/probe-runpath"
expect_status 0 "runpath inside without --also" "$CUWHEEL" run --hide-driver -- "$WORK/probe-runpath"
expect_status 1 "runpath inside with --also" "$CUWHEEL" run --hide-driver --also "$WORK/rpathlib/libcuda.so.1" -- "$WORK/probe-runpath"
expect_output "runpath inside with --also" "file too short"

# --- the ld.so.cache, in a private mount namespace ---------------------------
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
if [ -x "$LDCONFIG" ] && unshare -Urm true 2>/dev/null; then
  echo "$WORK/cachelib" >"$WORK/ld.so.conf"
  if "$LDCONFIG" -X -C "$WORK/ld.so.cache" -f "$WORK/ld.so.conf" 2>"$WORK/ldconfig.err"; then
    cat >"$WORK/cache.sh" <<EOF
mount --bind "$WORK/ld.so.cache" /etc/ld.so.cache || exit 90
unset LD_LIBRARY_PATH
"$WORK/probe" || exit 91
"$CUWHEEL" run --hide-driver --dry-run --format json > "$WORK/cache.json" || exit 92
"$CUWHEEL" run --hide-driver -- "$WORK/probe"
EOF
    expect_status 1 "ld.so.cache: fails inside" unshare -Urm sh "$WORK/cache.sh"
    expect_output "ld.so.cache: fails inside" "not loaded: $WORK/cachelib/libcuda.so.1: file too short"
    if python3 - "$WORK/cache.json" "$WORK/cachelib/libcuda.so.1" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
t = [x for x in doc["hide_driver"]["targets"] if x["path"] == sys.argv[2]]
assert t and "ld.so.cache: libcuda.so.1" in t[0]["via"], doc["hide_driver"]
assert doc["hide_driver"]["ld_so_cache"] == "/etc/ld.so.cache"
EOF
    then ok; else bad "ld.so.cache: dry run names the cache entry"; fi
  else
    bad "ldconfig could not build a test cache: $(cat "$WORK/ldconfig.err")"
  fi
else
  skip 3 "no ldconfig or no unshare -Urm: the ld.so.cache case did not run"
fi

# --- exit status, signals, exec failures, environment -------------------------
# With a target to cover, so that CMD runs inside the namespace even on a
# machine without a driver.
HIDE=(--hide-driver --also "$WORK/lib/libcuda.so.1")
expect_status 3 "exit status" "$CUWHEEL" run "${HIDE[@]}" -- sh -c 'exit 3'
expect_status 137 "killed by SIGKILL" "$CUWHEEL" run "${HIDE[@]}" -- sh -c 'kill -KILL $$'
expect_status 143 "killed by SIGTERM" "$CUWHEEL" run "${HIDE[@]}" -- sh -c 'kill -TERM $$'
expect_status 127 "not found" "$CUWHEEL" run "${HIDE[@]}" -- cuwheel-no-such-command
expect_output "not found" "cuwheel: error: run: cuwheel-no-such-command: No such file or directory"
printf '#!/bin/sh\n' >"$WORK/noexec"
expect_status 126 "not executable" "$CUWHEEL" run "${HIDE[@]}" -- "$WORK/noexec"
expect_status 0 "arguments after -- are CMD's" "$CUWHEEL" run "${HIDE[@]}" -- sh -c 'test "$1" = --also && test "$2" = -x' sh --also -x
cd "$WORK" || exit 2
FOO=bar expect_status 0 "environment, folder and user kept" "$CUWHEEL" run "${HIDE[@]}" -- \
  sh -c "test \"\$FOO\" = bar && test \"\$(pwd)\" = '$WORK' && test \"\$(id -u)\" = $(id -u)"
cd "$ROOT" || exit 2
out=$(echo through | "$CUWHEEL" run "${HIDE[@]}" -- cat)
if [ "$out" = through ]; then ok; else bad "stdin/stdout pass through: '$out'"; fi
# SIGTERM sent to cuwheel reaches CMD.
"$CUWHEEL" run "${HIDE[@]}" -- sleep 30 &
pid=$!
sleep 0.5
kill -TERM "$pid"
wait "$pid"
got=$?
if [ "$got" -eq 143 ]; then ok; else bad "SIGTERM passed on: exit $got, want 143"; fi

# --- a scratch folder given with --also ---------------------------------------
# The empty files are staged on a tmpfs over /tmp, /mnt, /var/tmp or /run;
# one that is itself hidden is not used, so CMD sees it empty.
expect_status 0 "--also /tmp" "$CUWHEEL" run --hide-driver --also /tmp -- ls -A /tmp
if [ ! -s "$WORK/out" ]; then ok; else bad "--also /tmp: CMD sees cuwheel's staging files: $(head -c 200 "$WORK/out")"; fi
if [ -d /tmp ] && [ -d /mnt ] && [ -d /var ] && [ -d /run ]; then
  expect_status 125 "every scratch folder hidden" "$CUWHEEL" run --hide-driver --also /tmp --also /mnt --also /var \
    --also /run -- touch "$WORK/ran2"
  expect_output "every scratch folder hidden" "/tmp, /mnt, /var/tmp and /run are all hidden themselves"
  if [ -e "$WORK/ran2" ]; then bad "every scratch folder hidden: the command ran anyway"; else ok; fi
else
  skip 3 "no /mnt, /var or /run here: the every-scratch-folder case did not run"
fi

# --- namespaces not permitted -------------------------------------------------
# (A namespace of the test's own may lower its limit; where even that is
# refused, the case is skipped.)
if unshare -Ur sh -c 'echo 0 > /proc/sys/user/max_user_namespaces' 2>/dev/null; then
  expect_status 125 "no user namespaces" unshare -Ur sh -c \
    "echo 0 > /proc/sys/user/max_user_namespaces && exec '$CUWHEEL' run --hide-driver --also '$WORK/lib/libcuda.so.1' -- touch '$WORK/ran'"
  expect_output "no user namespaces" "user.max_user_namespaces is 0"
  expect_output "no user namespaces" "cuwheel: error: run: cannot create a user and mount namespace"
  if [ -e "$WORK/ran" ]; then bad "no user namespaces: the command ran anyway"; else ok; fi
  # Nothing to hide: no namespace needed, the command runs.
  mkdir -p "$WORK/empty/dev"
  expect_status 0 "nothing to hide, no namespaces" unshare -Ur sh -c \
    "echo 0 > /proc/sys/user/max_user_namespaces && exec env -u LD_LIBRARY_PATH '$CUWHEEL' run --hide-driver -- true"
else
  skip 5 "cannot set user.max_user_namespaces in a namespace of the test's own: the not-permitted case did not run"
fi

finish
