#!/usr/bin/env bash
# cu13 -> cu12 -> cu13 in one checkout and one build tree, with and without
# the build identity (cuda-python PR #2472's round-trip job, for this
# example extension).
#
#   A  with identity (keyed generated folder + stamp): all three legs build,
#      build/gen/cu12 and build/gen/cu13 both exist, the cu12 leg's
#      extension uses CUDA 12, and the last leg's extension is
#      byte-identical to the first (sha256), so it was really rebuilt.
#   B  without identity (one build/gen, no stamp: the build before the fix):
#      the cu12 leg rebuilds nothing and keeps the CUDA 13 extension.
#   C  keyed folder, no stamp: the cu12 leg builds, but the last cu13 leg
#      rebuilds nothing and silently keeps the CUDA 12 extension.
#   D  stamp, no keyed folder: the cu12 leg is forced to compile, but on the
#      stale CUDA 13 generated source, and fails to compile.
#
# Exit 0 when A holds and B, C, D go wrong exactly as described (each
# detected from the artifact: sha256, NEEDED libcudart, the CUDA major the
# module was generated for); 1 otherwise.
#
# Needs: the CUDA 13 toolkit (CUDA13_HOME, default /usr/local/cuda), g++,
# make, python3, readelf, and network access once for get-cuda12.sh (PyPI).
set -uo pipefail
cd "$(dirname "$0")"
HERE=$(pwd)
CU13=${CUDA13_HOME:-/usr/local/cuda}
./get-cuda12.sh || { echo "roundtrip.sh: cannot assemble the CUDA 12 prefix"; exit 1; }
CU12=.cache/cuda12
LIBS13=$(ls -d "$CU13/lib64" 2>/dev/null || echo "$CU13/lib")
ARTIFACT=build/lib/_roundtrip.so
failures=0
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

# leg NAME TOOLKIT BUILD-ARGS...: builds, then sets LEG_RC, LEG_SHA, LEG_NEEDED, LEG_MAJOR.
leg() {
  local name=$1 tk=$2
  shift 2
  echo "----- $name: build.py --toolkit $tk $*"
  ./build.py --toolkit "$tk" "$@" >"$LOG" 2>&1
  LEG_RC=$?
  LEG_LOG=$(cat "$LOG")
  # The checkout's own path is printed as <example> (it appears only in the
  # -ffile-prefix-map option, which keeps it out of the artifact).
  sed -e 's/^/    /' -e "s|$HERE|<example>|g" "$LOG"
  LEG_SHA=$(sha256sum "$ARTIFACT" | cut -d' ' -f1)
  LEG_NEEDED=$(readelf -d "$ARTIFACT" | sed -n 's/.*NEEDED.*\[\(libcudart[^]]*\)\].*/\1/p')
  LEG_MAJOR=$(LD_LIBRARY_PATH="$LIBS13:$CU12/lib" python3 -c \
    "import ctypes, sys; print(ctypes.CDLL(sys.argv[1]).roundtrip_build_cuda_major())" "$ARTIFACT")
  echo "    => exit $LEG_RC; $ARTIFACT sha256 $LEG_SHA, NEEDED $LEG_NEEDED, generated for CUDA $LEG_MAJOR"
}
verdict() {  # verdict CONDITION-RESULT TEXT
  if [ "$1" = yes ]; then echo "  ok: $2"; else echo "  FAILED: $2"; failures=$((failures + 1)); fi
}
is() { if [ "$1" = "$2" ]; then echo yes; else echo no; fi; }

scenario() {  # scenario TITLE BUILD-ARGS...
  echo
  echo "===== $1"
  rm -rf build
  shift
  leg "leg 1 (cu13)" "$CU13" "$@"; R1=$LEG_RC S1=$LEG_SHA N1=$LEG_NEEDED M1=$LEG_MAJOR
  leg "leg 2 (cu12)" "$CU12" "$@"; R2=$LEG_RC S2=$LEG_SHA N2=$LEG_NEEDED M2=$LEG_MAJOR L2=$LEG_LOG
  leg "leg 3 (cu13)" "$CU13" "$@"; R3=$LEG_RC S3=$LEG_SHA N3=$LEG_NEEDED M3=$LEG_MAJOR
  echo "  generated folders: $(cd build/gen && ls -d -- * 2>/dev/null | tr '\n' ' ')"
}

scenario "A: with identity (build/gen/<identity> + build/.build-identity)"
verdict "$(is "$R1 $R2 $R3" "0 0 0")" "all three legs build (exit $R1 $R2 $R3)"
verdict "$(is "$N2 $M2" "libcudart.so.12 12")" "the cu12 leg's extension is a CUDA 12 one ($N2, CUDA $M2)"
verdict "$(is "$S3" "$S1")" "leg 3 is byte-identical to leg 1 (sha256 $S1 / $S3)"
verdict "$( [ -d build/gen/cu12 ] && [ -d build/gen/cu13 ] && echo yes || echo no)" "build/gen/cu12 and build/gen/cu13 both exist"
verdict "$(is "$(cat build/.build-identity)" cu13)" "the stamp records cu13"
verdict "$(grep -c -a -F "$HERE" "$ARTIFACT" | sed 's/^0$/yes/')" "the extension holds no path of the checkout"

scenario "B: without identity (one build/gen, no stamp: as before the fix)" --no-identity
verdict "$(is "$R2 $N2 $M2 $S2" "0 libcudart.so.13 13 $S1")" \
  "goes wrong as expected: the cu12 leg 'succeeds' but rebuilt nothing and kept the CUDA 13 extension ($N2, CUDA $M2, sha256 = leg 1)"

scenario "C: keyed generated folder, no stamp" --no-stamp
verdict "$(is "$R2 $N2 $R3 $N3 $M3" "0 libcudart.so.12 0 libcudart.so.12 12")" \
  "goes wrong as expected: the last cu13 leg 'succeeds' but silently keeps the CUDA 12 extension ($N3, CUDA $M3)"
verdict "$( [ "$S3" != "$S1" ] && echo yes || echo no)" "and leg 3 differs from leg 1 (sha256 $S3 vs $S1)"

scenario "D: stamp, no keyed generated folder" --no-keyed-dir
verdict "$( [ "$R2" != 0 ] && grep -q "cudaMemGetDefaultMemPool.* was not declared" <<<"$L2" && echo yes || echo no)" \
  "goes wrong as expected: the cu12 leg fails to compile the stale CUDA 13 generated source (exit $R2)"

echo
if [ "$failures" -eq 0 ]; then echo "roundtrip.sh: all as expected"; else echo "roundtrip.sh: $failures unexpected results"; fi
rm -rf build
[ "$failures" -eq 0 ]
