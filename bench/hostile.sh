#!/usr/bin/env bash
# hostile.sh — time and peak memory of cuwheel on the hostile inputs of
# tests/e2e/bombs_test.sh and a 200,000-member wheel, as a Markdown table.
# Not run in CI (a benchmark; tests never assert a time).
#
#   bench/hostile.sh [path/to/cuwheel] > bench/results/hostile.md
#
# Inputs (made here; the fatbin bomb is the committed fixture):
#   ptx_1gib.fatbin   33 KB raw fatbin, one ZSTD PTX entry declaring 1 GiB
#   sixteen.fatbin    sixteen of them (528 KB)
#   overlap.whl       1,000 central directory entries on one 64 MiB kernel
#   members200k.whl   200,000 empty members listed in RECORD
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CUWHEEL=${1:-$repo/build/cuwheel}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cp "$repo/tests/fixtures/bombs/ptx_1gib.fatbin" "$work/"
for i in $(seq 16); do cat "$repo/tests/fixtures/bombs/ptx_1gib.fatbin"; done >"$work/sixteen.fatbin"
python3 "$repo/tests/fixtures/make_overlap_wheel.py" "$work/overlap-1.0-py3-none-any.whl"
python3 - "$work" <<'PY'
import base64, hashlib, sys, zipfile
work = sys.argv[1]
di = "m-1.0.dist-info"
empty = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b"").digest()).rstrip(b"=").decode()
with zipfile.ZipFile(f"{work}/m-1.0-py3-none-any.whl", "w", zipfile.ZIP_STORED) as z:
    rec = []
    for i in range(200000):
        n = f"m/d{i // 1000}/f{i}.txt"
        z.writestr(n, b"")
        rec.append(f"{n},{empty},0")
    z.writestr(f"{di}/METADATA", "Metadata-Version: 2.1\nName: m\nVersion: 1.0\n")
    z.writestr(f"{di}/WHEEL", "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(f"{di}/RECORD", "\n".join(rec + [f"{di}/METADATA,,", f"{di}/WHEEL,,", f"{di}/RECORD,,"]) + "\n")
PY

echo "| input | command | exit | wall (s) | peak RSS (MB) |"
echo "|---|---|---:|---:|---:|"
for input in ptx_1gib.fatbin sixteen.fatbin overlap-1.0-py3-none-any.whl m-1.0-py3-none-any.whl; do
  for cmd in check show list; do
    set +e
    /usr/bin/time -f '%e %M' -o "$work/time" "$CUWHEEL" "$cmd" "$work/$input" >/dev/null 2>&1
    rc=$?
    set -e
    read -r wall rss < <(tail -n1 "$work/time")
    echo "| $input | $cmd | $rc | $wall | $((rss / 1024)) |"
  done
done
