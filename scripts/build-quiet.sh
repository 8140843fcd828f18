#!/usr/bin/env bash
# Configures and builds one target of cuwheel with the build log kept out of
# the way: a one-line progress on a terminal (a line per 25 % otherwise), the
# whole log in DIR/build.log, and its last lines shown when the build fails.
#
#   scripts/build-quiet.sh DIR TARGET [CMAKE_ARG...]
#
# `make demo` uses it for a Release CLI without the test binaries.
set -euo pipefail
dir=$1
target=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
log="$dir/build.log"
: >"$log"

fail() {
  echo >&2
  echo "build failed: $1; the last lines of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
}

echo "building $target in $dir (log: $log)"
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S "$root" -B "$dir" -G Ninja "$@" >>"$log" 2>&1 || fail "cmake configure"
fi

tty=0
[ -t 1 ] && tty=1
# ninja writes "[done/total] description" per step: show the counts only.
cmake --build "$dir" --target "$target" -j "$(nproc)" >>"$log" 2>&1 &
pid=$!
last=""
while kill -0 "$pid" 2>/dev/null; do
  sleep 1
  step=$(grep -o '^\[[0-9]*/[0-9]*\]' "$log" | tail -n 1 || true)
  if [ -n "$step" ] && [ "$step" != "$last" ]; then
    last=$step
    if [ "$tty" = 1 ]; then
      printf '\r  %s compiling and linking' "$step"
    fi
  fi
done
[ "$tty" = 1 ] && [ -n "$last" ] && echo
wait "$pid" || fail "cmake --build --target $target"
[ "$tty" = 1 ] || [ -z "$last" ] || echo "  $last steps"
echo "built $dir/$target"
