#!/usr/bin/env bash
# End-to-end test of output escaping: every command that prints names read
# from its input gets the same hostile names, and none may reach the output
# raw. The names carry a newline followed by a GitHub workflow command
# ("::error file=pwned...", which a CI runner would act on when it starts a
# line) and an ANSI escape (ESC [ 31 m, which drives a terminal):
#   - a wheel member       pkg/x<LF>::error file=pwned.py::member<ESC>[31m.so
#   - a NEEDED entry       <LF>::error<ESC>[31mXY  (libcudart.so.13 patched)
#   - a folder on the path hx<LF>::error file=pwned.py::folder<ESC>[31m/
# Commands: list (text, cuobjdump), show, check (text, github), diff,
# release verify (a stray file in the release folder).
# The one escaping function is printable() (include/cuwheel/base/bytes.h);
# JSON and SARIF escape through the JSON encoder and are checked to parse.
# Usage: tests/e2e/hostile_names_test.sh path/to/cuwheel  (from the repository root)
set -uo pipefail
CUWHEEL="$1"
BIN="tests/fixtures/bin"
. "$(dirname "$0")/common.sh"

DIR=$(python3 - "$WORK" "$BIN" <<'PY'
import base64, hashlib, os, sys, zipfile
work, bindir = sys.argv[1:3]
folder = os.path.join(work, "hx\n::error file=pwned.py::folder\x1b[31m")
os.makedirs(folder)
lib = open(os.path.join(bindir, "libsuffix.so"), "rb").read()
assert b"libcudart.so.13\0" in lib
bad_needed = lib.replace(b"libcudart.so.13\0", b"\n::error\x1b[31mXY\0")
def wheel(path, files):
    di = "hx-1.0.dist-info"
    files = dict(files)
    files[f"{di}/METADATA"] = b"Metadata-Version: 2.1\nName: hx\nVersion: 1.0\n"
    files[f"{di}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: cp312-cp312-manylinux_2_28_x86_64\n"
    rec = ""
    for n, d in files.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
        q = '"' + n + '"' if ("\n" in n or "," in n) else n
        rec += f"{q},sha256={h},{len(d)}\n"
    rec += f"{di}/RECORD,,\n"
    files[f"{di}/RECORD"] = rec.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            z.writestr(n, d)
wheel(os.path.join(folder, "hx-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"),
      {"hx/libok.so": lib,
       "hx/x\n::error file=pwned.py::member\x1b[31m.so": lib,
       "hx/libneeds.so": bad_needed})
os.makedirs(os.path.join(work, "old"))
wheel(os.path.join(work, "old", "hx-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"), {"hx/libok.so": lib})
print(folder)
PY
)
WHL="$DIR/hx-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"
OLD="$WORK/old/hx-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"
[ -f "$WHL" ] || { echo "FAIL: fixture wheel not built"; exit 1; }

# clean NAME: stdout+stderr of the last run hold no raw hostile name.
clean() {
  cat "$WORK/out" "$WORK/err" >"$WORK/both"
  if grep -qa '^::error file=pwned' "$WORK/both"; then bad "$1: a workflow command from a name starts a line"; else ok; fi
  if grep -qa '^::error.\[31m' "$WORK/both"; then bad "$1: the hostile NEEDED starts a line"; else ok; fi
  if grep -qaP '\x1b' "$WORK/both"; then bad "$1: a raw ESC byte reached the output"; else ok; fi
}
# shown NAME TEXT: the escaped form is in the output (the name was printed, not dropped).
shown() {
  if grep -qaF -- "$2" "$WORK/both"; then ok; else bad "$1: output lacks '$2'"; fi
}
run() {
  local name="$1"
  shift
  "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err"
  echo $? >"$WORK/rc"
  clean "$name"
}

run "list" list "$WHL"
shown "list" '\x0a::error file=pwned.py::member\x1b[31m.so'
shown "list" 'folder\x1b[31m/hx-1.0'
run "list --format cuobjdump" list --format cuobjdump "$WHL"
shown "list --format cuobjdump" '\x0a::error file=pwned.py::member\x1b[31m.so'
run "show" show "$WHL"
shown "show" '\x0a::error file=pwned.py::member\x1b[31m.so'
shown "show" '\x0a::error\x1b[31mXY'
run "check" check "$WHL"
shown "check" '\x0a::error file=pwned.py::member\x1b[31m.so'
shown "check" '\x0a::error\x1b[31mXY'
run "check --format github" check --format github "$WHL"
shown "check --format github" '\x0a%3A%3Aerror file=pwned.py%3A%3Amember'
run "diff" diff "$OLD" "$WHL"
shown "diff" '+ '
shown "diff" '\x0a::error file=pwned.py::member\x1b[31m.so'
shown "diff" '\x0a::error\x1b[31mXY'
shown "diff" 'folder\x1b[31m/hx-1.0'
# A hostile folder as the old side and a missing file: the error line is escaped too.
run "diff (missing)" diff "$DIR/none.whl" "$WHL"
shown "diff (missing)" 'folder\x1b[31m/none.whl'

# release verify: the folder holds a stray file with a hostile name.
cat >"$WORK/release.toml" <<'EOF'
[tool.cuwheel.release]
core = "hx"
platforms = ["manylinux_2_28_x86_64"]
core-wheels = ["cp312-cp312-manylinux_2_28_x86_64"]
EOF
printf 'x' >"$DIR/hx-1.0-stray"$'\n'"::error file=pwned.py::stray"$'\x1b'"[31m.whl"
run "release verify" release verify "$DIR" --version 1.0.0 --policy "$WORK/release.toml"
shown "release verify" '\x0a::error file=pwned.py::stray\x1b[31m.whl'

# Usage errors quote arguments, which may be file names from a glob.
run "usage error" check --format $'x\n::error file=pwned.py::usage\x1b[31m' "$WHL"
shown "usage error" '\x0a::error file=pwned.py::usage\x1b[31m'
run "usage error (diff)" diff "$OLD" "$WHL" "$DIR/hx-1.0-stray"$'\n'"::error file=pwned.py::stray"$'\x1b'"[31m.whl"

for fmt in json sarif; do
  "$CUWHEEL" check --format "$fmt" "$WHL" >"$WORK/out" 2>"$WORK/err"
  if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out"; then ok; else bad "check --format $fmt: not JSON"; fi
done
for cmd in list show; do
  "$CUWHEEL" "$cmd" --format json "$WHL" >"$WORK/out" 2>"$WORK/err"
  if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out"; then ok; else bad "$cmd --format json: not JSON"; fi
done
"$CUWHEEL" diff --format json "$OLD" "$WHL" >"$WORK/out" 2>"$WORK/err"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out"; then ok; else bad "diff --format json: not JSON"; fi

finish
