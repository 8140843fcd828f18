#!/usr/bin/env bash
# End-to-end tests of `cuwheel toolkit lock` against a real signed RPM
# repository built here by tests/fixtures/make_rpm_repo.sh (rpmbuild,
# rpmsign, createrepo_c) and served on loopback by
# tests/fixtures/serve_http.py: resolution, determinism, upsert of a second
# toolkit, gzip/xz/zstd metadata, folders and file:// URLs, JSON output,
# --check, a file requirement only filelists.xml answers (and a repository
# without filelists, a tampered, truncated or malformed filelists), and the
# errors (unknown release, a tampered primary, a broken lock, usage).
# Usage: tests/e2e/toolkit_lock_test.sh path/to/cuwheel   (run from the repository root)
# Ends with "N passed, M failed"; exits 1 on a failure and 77 (ctest:
# skipped) when a tool the suite needs is not installed.
set -uo pipefail
CUWHEEL="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
ROOT="$(pwd)"
WORK="$(mktemp -d)"
SERVER_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# flip_byte FILE OFFSET: inverts one byte in place (a tamper that always
# changes the file, whatever byte was there).
flip_byte() { python3 -c 'import sys; f = open(sys.argv[1], "r+b"); o = int(sys.argv[2]); f.seek(o); b = f.read(1); f.seek(o); f.write(bytes([b[0] ^ 0xFF]))' "$1" "$2"; }

# run EXPECTED_RC ARGS...: runs cuwheel in $WORK, keeps stdout/stderr in $WORK/out, $WORK/err.
run() {
  local want="$1"
  shift
  (cd "$WORK" && "$CUWHEEL" "$@") >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "cuwheel $* exited $rc, expected $want: $(head -c 400 "$WORK/err")"; fi
}
has() { if grep -qF -- "$2" "$WORK/$1"; then ok; else bad "$1 lacks '$2': $(head -c 400 "$WORK/$1")"; fi; }
lacks() { if grep -qF -- "$2" "$WORK/$1"; then bad "$1 has '$2'"; else ok; fi; }
same() { if cmp -s "$1" "$2"; then ok; else bad "$3: $1 and $2 differ"; fi; }

# The tools of tests/fixtures/make_rpm_repo.sh and this suite.
for tool in rpmbuild rpmsign createrepo_c gpg zstd python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not installed (Debian packages rpm, createrepo-c, gnupg, zstd, python3): the suite cannot run"
    echo "0 passed, 0 failed"
    exit 77
  fi
done

if ! "$ROOT/tests/fixtures/make_rpm_repo.sh" "$WORK/fx" >"$WORK/make.log" 2>&1; then
  cat "$WORK/make.log"
  echo "FAIL: make_rpm_repo.sh"
  echo "0 passed, 1 failed"
  exit 1
fi
FPR=$(cat "$WORK/fx/fingerprint")

coproc SERVER { exec python3 "$ROOT/tests/fixtures/serve_http.py" "$WORK/fx"; }
SERVER_PID=$SERVER_PID
read -r PORT <&"${SERVER[0]}"
URL="http://127.0.0.1:$PORT"
PKGS=cuda-nvcc,cuda-cudart-devel,cuda-cuobjdump,cuda-documentation

# 1. Lock CUDA 12.9 over HTTP with the key pinned.
run 0 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12 \
  --key-url "$URL/repo/${FPR: -8}.pub" --key-fingerprint "$FPR"
has out "cuda-nvcc-12-9 12.9.86-1 x86_64"
has out "cu12 = CUDA 12.9, 7 RPMs"
has out "(written)"
L="$WORK/cuwheel-toolkit.lock"
for want in 'release = "12.9"' "repo = \"$URL/repo/\"" "key_fingerprint = \"$FPR\"" \
  'requested = ["cuda-cudart-devel-12-9", "cuda-cuobjdump-12-9", "cuda-documentation-12-9", "cuda-nvcc-12-9"]' \
  'external = ["/bin/sh", "/sbin/ldconfig", "gcc-c++"]' 'name = "cuda-crt-12-9"' 'name = "cuda-cudart-12-9"' \
  'name = "cuda-toolkit-config-common"' 'evr = "13.0.85-1"' 'arch = "noarch"'; do
  has cuwheel-toolkit.lock "$want"
done
lacks cuwheel-toolkit.lock '12.9.41'
lacks cuwheel-toolkit.lock 'cuda-nvcc-12-8'

# Every pinned digest and size is the file's own.
awk -F' = ' '/^location/{gsub(/"/,"",$2); loc=$2} /^sha256/{gsub(/"/,"",$2); sha=$2} /^size/{print sha "  " loc " " $2}' "$L" >"$WORK/pins"
n=0
while read -r sha loc size; do
  n=$((n + 1))
  f="$WORK/fx/repo/$loc"
  if [ "$(sha256sum <"$f" | cut -d' ' -f1)" = "$sha" ] && [ "$(stat -c %s "$f")" = "$size" ]; then ok; else bad "pin of $loc"; fi
done <"$WORK/pins"
if [ "$n" = 7 ]; then ok; else bad "expected 7 pinned RPMs, got $n"; fi

# 2. Re-locking an unchanged repository changes nothing, byte for byte; the
#    key recorded before is kept when no key option is given.
cp "$L" "$WORK/first.lock"
run 0 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12
has out "(unchanged)"
same "$WORK/first.lock" "$L" "re-lock"
run 0 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12 --check
has out "cu12 is up to date"

# 3. Locking cu13 into the same file keeps cu12 as it was.
run 0 toolkit lock --repo "$URL/repo/" --release 13.0 --packages cuda-nvcc,cuda-cudart-devel --name cu13
sed -n '/^\[toolkit.cu12\]/,/^\[toolkit.cu13\]/p' "$L" | head -n -2 >"$WORK/cu12.after"
sed -n '/^\[toolkit.cu12\]/,$p' "$WORK/first.lock" >"$WORK/cu12.before"
same "$WORK/cu12.before" "$WORK/cu12.after" "cu12 after adding cu13"
has cuwheel-toolkit.lock 'name = "cuda-nvcc-13-0"'
has cuwheel-toolkit.lock 'external = ["/bin/sh", "/sbin/ldconfig", "gcc-c++"]'

# 4. xz and zstd metadata, a folder and a file:// URL pin the same RPMs.
pins() { grep -v '^repo = \|^key_' "$1"; }
for variant in repo-xz repo-zstd; do
  run 0 toolkit lock --repo "$URL/$variant" --release 12.9 --packages "$PKGS" --name cu12 --lock "$variant.lock"
  pins "$WORK/$variant.lock" >"$WORK/a"
  run 0 toolkit lock --repo "$URL/repo" --release 12.9 --packages "$PKGS" --name cu12 --lock gz.lock
  pins "$WORK/gz.lock" >"$WORK/b"
  same "$WORK/a" "$WORK/b" "$variant pins"
done
run 0 toolkit lock --repo "$WORK/fx/repo" --release 12.9 --packages "$PKGS" --name cu12 --lock dir.lock
pins "$WORK/dir.lock" >"$WORK/a"
same "$WORK/a" "$WORK/b" "folder pins"
run 0 toolkit lock --repo "file://$WORK/fx/repo-zstd/" --release 12.9 --packages "$PKGS" --name cu12 --lock file.lock
pins "$WORK/file.lock" >"$WORK/a"
same "$WORK/a" "$WORK/b" "file:// pins"

# 5. Full names, the older 12.9 build is never chosen, the file provide.
run 0 toolkit lock --repo "$URL/repo" --release 12.9 --packages cuda-cuobjdump-12-9 --name cu12 --lock full.lock --format json
python3 - "$WORK/out" <<'PY' && ok || bad "JSON document of toolkit lock"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["tool"].startswith("cuwheel ") and d["command"] == "toolkit lock", d
assert d["ok"] is True and d["changed"] is True and d["lock"] == "full.lock", d
t = d["toolkit"]
names = [(r["name"], r["evr"]) for r in t["rpms"]]
assert names == [("cuda-crt-12-9", "12.9.86-1"), ("cuda-cuobjdump-12-9", "12.9.86-1"),
                 ("cuda-nvcc-12-9", "12.9.86-1")], names
reasons = {r["name"]: r["reason"] for r in t["rpms"]}
assert reasons["cuda-nvcc-12-9"] == "/usr/local/cuda-12.9/bin/ptxas (required by cuda-cuobjdump-12-9)", reasons
assert t["external"] == ["/bin/sh", "gcc-c++"], t["external"]
assert all(len(r["sha256"]) == 64 and r["size"] > 0 for r in t["rpms"])
PY

# 6. Findings (exit 1): an unknown release; a lock that no longer matches.
run 1 toolkit lock --repo "$URL/repo" --release 12.10 --packages cuda-nvcc --name cu12 --lock x.lock
has err "cuda-nvcc-12-10 not in repository; releases with cuda-nvcc: 12.8, 12.9, 13.0"
if [ ! -e "$WORK/x.lock" ]; then ok; else bad "a failed lock wrote x.lock"; fi
run 1 toolkit lock --repo "$URL/repo" --release 12.9 --packages cuda-nvcc --name cu12 --lock x.lock --arch sparc
has err "cuda-nvcc-12-9 is not in the repository for arch sparc (it has x86_64)"
run 1 toolkit lock --repo "$URL/repo" --release 12.10 --packages cuda-nvcc --name cu12 --lock x.lock --format json
has out '"ok": false'
has out '"errors": ['
# The same problems as a report: SARIF and GitHub annotations.
run 1 toolkit lock --repo "$URL/repo" --release 12.10 --packages cuda-nvcc --name cu12 --lock x.lock --format github
has out "::error title=lock-unresolvable::cuda-nvcc-12-10 not in repository; releases with cuda-nvcc: 12.8, 12.9, 13.0 [$URL/repo]"
has err "cuda-nvcc-12-10 not in repository"
run 1 toolkit lock --repo "$URL/repo" --release 12.10 --packages cuda-nvcc --name cu12 --lock x.lock --format sarif
has out '"ruleId": "CW813"'
run 1 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12 --lock none.lock --check --format github
has out "::error file=none.lock,title=lock-out-of-date::no lock file to check"
run 1 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12 --lock none.lock --check --format json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["ok"] is False and d["errors"]==["no lock file to check"] else 1)' "$WORK/out"; then ok; else bad "--check --format json of a missing lock: $(head -c 300 "$WORK/out")"; fi
run 0 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12 --check --format sarif
has out '"results": []'
lacks out "is up to date"
sed -i '0,/^sha256 = "[0-9a-f]*"/s//sha256 = "'"$(printf '0%.0s' {1..64})"'"/' "$L"
run 1 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12 --check
has err "cuwheel-toolkit.lock: toolkit cu12 is out of date"
run 1 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12 --check --format sarif
has out '"ruleId": "CW814"'
has out '"uri": "cuwheel-toolkit.lock"'
# ...and a plain re-lock repairs it.
run 0 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12
has out "(written)"
run 0 toolkit lock --repo "$URL/repo/" --release 12.9 --packages "$PKGS" --name cu12 --check

# A requirement in NVIDIA's namespace that the repository cannot meet.
mkdir -p "$WORK/broken/repodata"
python3 - "$WORK/broken" <<'PY'
import hashlib, os, sys
d = sys.argv[1]
sha = "c" * 64
primary = f"""<?xml version="1.0" encoding="UTF-8"?>
<metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="1">
<package type="rpm"><name>cuda-nvcc-12-9</name><arch>x86_64</arch><version epoch="0" ver="12.9.86" rel="1"/>
<checksum type="sha256" pkgid="YES">{sha}</checksum><size package="10"/><location href="cuda-nvcc-12-9-12.9.86-1.x86_64.rpm"/>
<format><rpm:requires><rpm:entry name="cuda-nvvm-12-9" flags="EQ" epoch="0" ver="12.9.86" rel="1"/></rpm:requires></format></package>
</metadata>
""".encode()
open(os.path.join(d, "repodata/primary.xml"), "wb").write(primary)
open(os.path.join(d, "repodata/repomd.xml"), "w").write(
    '<repomd><data type="primary"><checksum type="sha256">%s</checksum><location href="repodata/primary.xml"/>'
    '<size>%d</size></data></repomd>' % (hashlib.sha256(primary).hexdigest(), len(primary)))
PY
run 1 toolkit lock --repo "$WORK/broken" --release 12.9 --packages cuda-nvcc --name cu12 --lock x.lock
has err "cuda-nvvm-12-9 = 12.9.86-1 (required by cuda-nvcc-12-9-12.9.86-1) is not in the repository"

# 7. Unreadable inputs (exit 2): a tampered primary, a missing repository, a
#    broken lock (never overwritten).
cp -r "$WORK/fx/repo" "$WORK/tampered"
P=$(ls "$WORK"/tampered/repodata/*primary.xml.gz)
flip_byte "$P" 20
run 2 toolkit lock --repo "$WORK/tampered" --release 12.9 --packages cuda-nvcc --name cu12 --lock x.lock
has err "tampered/repodata/primary.xml.gz: sha256 checksum mismatch: repomd.xml says"
run 2 toolkit lock --repo "$URL/nothing" --release 12.9 --packages cuda-nvcc --name cu12 --lock x.lock
has err "$URL/nothing/repodata/repomd.xml: HTTP 404"
run 2 toolkit lock --repo "http://127.0.0.1:1/" --release 12.9 --packages cuda-nvcc --name cu12 --lock x.lock
has err "http://127.0.0.1:1/repodata/repomd.xml: "
printf 'schema = 1\n[toolkit.cu12]\nrelease = 12\n' >"$WORK/broken.lock"
cp "$WORK/broken.lock" "$WORK/broken.orig"
run 2 toolkit lock --repo "$URL/repo" --release 12.9 --packages cuda-nvcc --name cu12 --lock broken.lock
has err "broken.lock:3: toolkit.cu12: release must be a string"
has err "(not overwritten)"
same "$WORK/broken.orig" "$WORK/broken.lock" "broken lock untouched"
# ... and as reports (toolkit/unreadable, CW815; SARIF says the run failed).
run 2 toolkit lock --repo "$URL/repo" --release 12.9 --packages cuda-nvcc --name cu12 --lock broken.lock --format github
has out "::error file=broken.lock,title=unreadable::broken.lock:3: toolkit.cu12: release must be a string"
run 2 toolkit lock --repo "$URL/nothing" --release 12.9 --packages cuda-nvcc --name cu12 --check --format sarif
if python3 - "$WORK/out" "$URL/nothing" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert run["invocations"][0]["executionSuccessful"] is False, run["invocations"]
r = run["results"]
assert [x["ruleId"] for x in r] == ["CW815"], r
assert r[0]["locations"][0]["logicalLocations"][0]["name"] == sys.argv[2], r
assert "HTTP 404" in r[0]["message"]["text"], r
PY
then ok; else bad "lock --format sarif of an unreadable repository: $(head -c 400 "$WORK/out")"; fi
run 2 toolkit lock --repo "$URL/nothing" --release 12.9 --packages cuda-nvcc --name cu12 --lock x.lock --format json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); u=d["unreadable"]; sys.exit(0 if d["ok"] is False and len(u)==1 and "HTTP 404" in u[0]["message"] else 1)' "$WORK/out"; then ok; else bad "lock --format json of an unreadable repository: $(head -c 300 "$WORK/out")"; fi
run 2 toolkit lock --repo "$URL/repo" --release 12 --packages cuda-nvcc --name cu12 --format github
lacks out "::"

# 8. Usage errors (exit 2).
run 2 toolkit lock --repo "$URL/repo" --release 12 --packages cuda-nvcc --name cu12
has err "--release: '12' is not a CUDA release X.Y"
run 2 toolkit lock --repo "$URL/repo" --release 12.9 --packages cuda-nvcc --name "cu 12"
has err "--name: 'cu 12' must be letters"
run 2 toolkit lock --repo "$URL/repo" --release 12.9 --packages cuda-nvcc --name cu12 --key-url "$URL/repo/k.pub"
has err "--key-url: needs --key-fingerprint"
run 2 toolkit lock --repo "$URL/repo" --release 12.9 --packages cuda-nvcc --name cu12 --key-url "$URL/k" --key-fingerprint 1234
has err "is not 40 hex digits"
run 2 toolkit lock --release 12.9 --packages cuda-nvcc --name cu12

# 9. filelists.xml: cuda-fx-tool-12-9 requires /usr/share/cuda-fx/data.txt,
#    a file of cuda-fx-data-12-9 that primary.xml does not list.
FX=cuda-fx-tool
run 0 toolkit lock --repo "$URL/repo" --release 12.9 --packages $FX --name cu12 --lock fx.lock
has out "cuda-fx-data-12-9 12.9.86-1 x86_64"
has out "filelists: read repodata/filelists.xml.gz; /usr/share/cuda-fx/data.txt in cuda-fx-data-12-9"
has out "cu12 = CUDA 12.9, 2 RPMs"
has fx.lock 'name = "cuda-fx-data-12-9"'
has fx.lock 'external = []'
lacks err "warning"
cp "$WORK/fx.lock" "$WORK/fx.first"
run 0 toolkit lock --repo "$URL/repo" --release 12.9 --packages $FX --name cu12 --lock fx.lock
has out "(unchanged)"
same "$WORK/fx.first" "$WORK/fx.lock" "re-lock through filelists"
run 0 toolkit lock --repo "$URL/repo" --release 12.9 --packages $FX --name cu12 --lock fx.lock --format json
python3 - "$WORK/out" <<'PY' && ok || bad "JSON filelists of toolkit lock: $(head -c 600 "$WORK/out")"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["filelists"]
assert f["needed"] is True and f["read"] is True and f["location"] == "repodata/filelists.xml.gz", f
assert f["wanted"] == ["/bin/sh", "/sbin/ldconfig", "/usr/share/cuda-fx/data.txt"], f
assert f["found"] == ["/usr/share/cuda-fx/data.txt"], f
t = d["toolkit"]
assert [r["name"] for r in t["rpms"]] == ["cuda-fx-data-12-9", "cuda-fx-tool-12-9"], t["rpms"]
assert t["rpms"][0]["reason"] == "/usr/share/cuda-fx/data.txt (required by cuda-fx-tool-12-9)", t["rpms"][0]
assert t["external"] == [], t["external"]
PY
pins "$WORK/fx.lock" >"$WORK/b"
for repo in "$URL/repo-xz/" "$URL/repo-zstd" "$WORK/fx/repo" "file://$WORK/fx/repo/"; do
  run 0 toolkit lock --repo "$repo" --release 12.9 --packages $FX --name cu12 --lock fx-other.lock
  pins "$WORK/fx-other.lock" >"$WORK/a"
  same "$WORK/a" "$WORK/b" "filelists pins from $repo"
done
# Nothing in the set needs filelists: it is not fetched (here: not there).
cp -r "$WORK/fx/repo" "$WORK/nofl-file"
rm "$WORK/nofl-file/repodata/filelists.xml.gz"
run 0 toolkit lock --repo "$WORK/nofl-file" --release 12.9 --packages cuda-crt --name cu12 --lock crt.lock --format json
has out '"read": false'
has out '"needed": false'

# set_filelists DIR [FILE]: makes DIR's repodata/filelists.xml.gz the bytes
# of FILE and repomd.xml agree with them (checksum, size); without FILE,
# removes the filelists entry from repomd.xml.
set_filelists() {
  python3 - "$@" <<'PY'
import hashlib, re, sys
d = sys.argv[1]
p = d + "/repodata/repomd.xml"
text = open(p).read()
start = text.index('<data type="filelists">')
end = text.index("</data>", start) + len("</data>")
if len(sys.argv) < 3:
    text = text[:start] + text[end:]
else:
    data = open(sys.argv[2], "rb").read()
    open(d + "/repodata/filelists.xml.gz", "wb").write(data)
    block = re.sub(r'<checksum type="sha256">[0-9a-f]+</checksum>',
                   '<checksum type="sha256">%s</checksum>' % hashlib.sha256(data).hexdigest(), text[start:end])
    block = re.sub(r"<size>\d+</size>", "<size>%d</size>" % len(data), block)
    text = text[:start] + block + text[end:]
open(p, "w").write(text)
PY
}
# A repository without filelists: the requirement is external, as before.
cp -r "$WORK/fx/repo" "$WORK/nofl"
set_filelists "$WORK/nofl"
run 0 toolkit lock --repo "$WORK/nofl" --release 12.9 --packages $FX --name cu12 --lock nofl.lock
has nofl.lock 'external = ["/usr/share/cuda-fx/data.txt"]'
lacks nofl.lock 'cuda-fx-data-12-9'
has err "repomd.xml lists no filelists: file requirements outside primary.xml's file lists are taken as external"
# A tampered filelists (checksum), a truncated one and malformed XML are
# errors naming the file; the lock is neither written nor changed.
FL=repodata/filelists.xml.gz
cp -r "$WORK/fx/repo" "$WORK/fl-tampered"
flip_byte "$WORK/fl-tampered/$FL" 30
run 2 toolkit lock --repo "$WORK/fl-tampered" --release 12.9 --packages $FX --name cu12 --lock fx.lock
has err "fl-tampered/$FL: sha256 checksum mismatch: repomd.xml says"
same "$WORK/fx.first" "$WORK/fx.lock" "lock kept after a tampered filelists"
run 2 toolkit lock --repo "$WORK/fl-tampered" --release 12.9 --packages $FX --name cu12 --lock new.lock
if [ ! -e "$WORK/new.lock" ]; then ok; else bad "a failed filelists read wrote new.lock"; fi
cp -r "$WORK/fx/repo" "$WORK/fl-trunc"
head -c 700 "$WORK/fx/repo/$FL" >"$WORK/cut.gz"
set_filelists "$WORK/fl-trunc" "$WORK/cut.gz"
run 2 toolkit lock --repo "$WORK/fl-trunc" --release 12.9 --packages $FX --name cu12 --lock new.lock
has err "fl-trunc/$FL: "
cp -r "$WORK/fx/repo" "$WORK/fl-bad"
printf '<?xml version="1.0"?>\n<filelists>\n<package pkgid="a" name="x" arch="noarch">\n</filelists>\n' | gzip -c >"$WORK/bad.gz"
set_filelists "$WORK/fl-bad" "$WORK/bad.gz"
run 2 toolkit lock --repo "$WORK/fl-bad" --release 12.9 --packages $FX --name cu12 --lock new.lock
has err "fl-bad/$FL:4: mismatched tag"
printf '<?xml version="1.0"?>\n<!DOCTYPE filelists [<!ENTITY a "b">]>\n<filelists/>\n' | gzip -c >"$WORK/doctype.gz"
set_filelists "$WORK/fl-bad" "$WORK/doctype.gz"
run 2 toolkit lock --repo "$WORK/fl-bad" --release 12.9 --packages $FX --name cu12 --lock new.lock
has err "fl-bad/$FL:2: DOCTYPE declarations are not allowed in repository metadata"
if [ ! -e "$WORK/new.lock" ]; then ok; else bad "a failed filelists read wrote new.lock"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
