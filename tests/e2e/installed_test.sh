#!/usr/bin/env bash
# End-to-end tests of check/list/show on an installed environment (a folder
# with *.dist-info/RECORD, as `pip install --target` makes), hostile ones
# included: a RECORD that is a FIFO, a link to /dev/zero or too large, a
# listed file that is a FIFO, two copies of one distribution, a hundred
# small decompression bombs. The folders are made here from the fixture
# wheels of tests/fixtures/check/deps (extracted as pip installs them).
# Usage: tests/e2e/installed_test.sh path/to/cuwheel  (from the repository root)
set -uo pipefail
CUWHEEL="$1"
DEPS="tests/fixtures/check/deps"
. "$(dirname "$0")/common.sh"
run() {
  local want="$1"
  shift
  timeout 60 "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  cat "$WORK/out" "$WORK/err" >"$WORK/both"
  if [ "$rc" = "$want" ]; then ok; else bad "cuwheel $* exited $rc, expected $want: $(head -c 300 "$WORK/both")"; fi
}
has() { if grep -qF -- "$1" "$WORK/both"; then ok; else bad "output lacks '$1': $(head -c 400 "$WORK/both")"; fi; }
lacks() { if grep -qF -- "$1" "$WORK/both"; then bad "output has '$1'"; else ok; fi; }
env_of() {  # env_of NAME WHEEL...: a fresh folder with the wheels installed
  local d="$WORK/$1"
  shift
  mkdir -p "$d"
  python3 -c 'import sys, zipfile
for w in sys.argv[2:]: zipfile.ZipFile(w).extractall(sys.argv[1])' "$d" "$@"
}
TORCH="$DEPS/torch/torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl"
EXT="$DEPS/dp_torchext-1.0-py3-none-manylinux_2_36_x86_64.whl"
UND="$DEPS/dp_torchext_undeclared-1.0-py3-none-manylinux_2_36_x86_64.whl"

# --- one distribution at a time, the others installed beside it --------------
env_of good "$TORCH" "$EXT" "$UND"
run 1 check "$WORK/good"
has "good:dp_torchext/_C.so: note[unresolved-needed]: DT_NEEDED libtorch.so is found once torch (declared: torch>=2.10) has loaded it"
has "installed in $WORK/good (torch-2.15.0.dist-info)"
has "good:dp_torchext_undeclared/_C.so: error[unresolved-needed]: DT_NEEDED libtorch.so is not found"
has "good:dp_torchext_undeclared-1.0.dist-info: error[no-device-code]"
has "1 input checked (3 installed distributions in it): 6 errors"
# The words and the RUNPATH entry of an installed distribution: not "this
# wheel", and the exact $ORIGIN path from the library's folder.
has "nothing in this distribution finds it by path"
lacks "nothing in this wheel"
has 'or add $ORIGIN/../torch/lib to the RUNPATH'
lacks "up to site-packages"
# The same folder given twice (another spelling of it too) is checked once.
run 1 check "$WORK/good" "$WORK/good/" "$WORK/./good"
has "1 input checked (3 installed distributions in it): 6 errors"
has "cuwheel: note: $WORK/good/: given more than once; checked once"
# As --deps: the installed torch provides for a wheel checked against it.
run 0 check --deps "$WORK/good" "$EXT"
has "installed in $WORK/good (torch-2.15.0.dist-info)"
lacks "unreadable"

# --- RECORD that cannot be read ---------------------------------------------------
env_of fifo "$TORCH" "$EXT"
rm "$WORK/fifo/torch-2.15.0.dist-info/RECORD"
mkfifo "$WORK/fifo/torch-2.15.0.dist-info/RECORD"
for cmd in check list show; do
  run 2 "$cmd" "$WORK/fifo"
  has "fifo/torch-2.15.0.dist-info/RECORD"
  has "not a regular file"
done
env_of zero "$TORCH"
rm "$WORK/zero/torch-2.15.0.dist-info/RECORD"
ln -s /dev/zero "$WORK/zero/torch-2.15.0.dist-info/RECORD"
run 2 check "$WORK/zero"
has "zero/torch-2.15.0.dist-info/RECORD: error[unreadable]: not a regular file"
env_of big "$TORCH"
truncate -s 20M "$WORK/big/torch-2.15.0.dist-info/RECORD"
run 2 check "$WORK/big"
has "big/torch-2.15.0.dist-info/RECORD: error[unreadable]: larger than 16777216 bytes"
[ "$(grep -c 'RECORD' "$WORK/out")" = 1 ] && ok || bad "the large RECORD is reported more than once"

# --- listed files that are no regular files; two copies of one distribution -----
env_of odd "$EXT"
rm "$WORK/odd/dp_torchext/__init__.py" 2>/dev/null
mkfifo "$WORK/odd/dp_torchext/__init__.py"
python3 -c 'import sys; open(sys.argv[1], "a").write("dp_torchext/__init__.py,,\n")' "$WORK/odd/dp_torchext-1.0.dist-info/RECORD"
run 2 check "$WORK/odd"
has "odd:dp_torchext/__init__.py: error[unreadable]: not a regular file (a FIFO, socket or device); not read"
env_of twice "$EXT"
cp -a "$WORK/twice/dp_torchext-1.0.dist-info" "$WORK/twice/dp_torchext-2.0.dist-info"
run 2 check "$WORK/twice"
has "a second installed copy of dp-torchext beside dp_torchext-1.0.dist-info"

# --- a hundred small bombs in one folder share one decode budget -------------------
mkdir -p "$WORK/bombs"
for i in $(seq 100); do cp tests/fixtures/bombs/libptx_40mib.so "$WORK/bombs/b$i.so"; done
run 2 check "$WORK/bombs"
has "decompression bomb"
has "taken before"

finish
