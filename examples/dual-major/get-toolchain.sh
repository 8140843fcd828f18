#!/usr/bin/env bash
# The host compiler the wheels are built with: zig's clang (PyPI package
# `ziglang`), targeting glibc 2.28, in .cache/toolchain (ignored by git).
#
# Why: a library linked on this machine's glibc binds its symbols to this
# glibc's versions (GLIBC_2.34 for pthread and dl functions, GLIBC_2.36 for
# the arc4random that libstdc++ uses), and the wheel then installs on nothing
# older. Packagers build in a manylinux_2_28 image (cibuildwheel) or with a
# glibc 2.28 sysroot; zig carries glibc 2.28's symbol versions and its own
# libc++, linked in, so the same build runs anywhere with glibc 2.28 or
# newer, and `cuwheel repair` can give the wheel the manylinux_2_28 tag.
# Needs PyPI once. Prints the folder holding cc and c++.
set -euo pipefail
cd "$(dirname "$0")"
version=0.17.1
target=x86_64-linux-gnu.2.28
dir=$PWD/.cache/toolchain
if [ ! -x "$dir/zig/ziglang/zig" ]; then
  python3 -m pip install -q --disable-pip-version-check --target "$dir/zig" "ziglang==$version" >&2
fi
for tool in cc c++; do
  cat >"$dir/$tool.tmp" <<EOT
#!/bin/sh
ZIG_GLOBAL_CACHE_DIR="$dir/cache" ZIG_LOCAL_CACHE_DIR="$dir/cache" exec "$dir/zig/ziglang/zig" $tool -target $target "\$@"
EOT
  chmod +x "$dir/$tool.tmp"
  mv "$dir/$tool.tmp" "$dir/$tool"
done
echo "$dir"
