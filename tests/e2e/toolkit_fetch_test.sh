#!/usr/bin/env bash
# End-to-end tests of `cuwheel toolkit download|verify|extract|check`.
#
# Builds a real signed repository laid out like NVIDIA's (rpmbuild, rpmsign
# with a throwaway key, createrepo_c: tests/fixtures/make_rpm_repo.sh),
# serves it on loopback (tests/fixtures/serve_http.py), pins it with
# `toolkit lock`, then downloads, reuses the cache, verifies offline,
# extracts and checks; and rejects a tampered payload, a package re-signed
# with another key, a wrong key fingerprint, a truncated download, a 404 and
# a digest mismatch in the lock, each with a message naming the file and
# nothing left under a final name that fails verification. Last, when nvcc
# is installed, packages the files of the installed toolkit a kernel build
# needs as an RPM under /usr/local/cuda-X.Y/, extracts it and lets `toolkit
# check` compile and link a kernel with it.
#
# Ends with "N passed, M failed" (and ", K skipped" when the real-toolkit
# checks could not run). Exits 1 on a failure and 77 (ctest: skipped) when a
# tool the suite needs is not installed: it never passes without running.
#
# Usage: tests/e2e/toolkit_fetch_test.sh path/to/cuwheel   (from the repo root)
set -u
CUWHEEL=$(realpath "$1")
ROOT=$(pwd)
PASS=0
FAIL=0
SKIPPED=0
T=$(mktemp -d)
SERVER_PID=
cleanup() {
  [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT

ok() { PASS=$((PASS + 1)); }
bad() { echo "FAIL: $*"; FAIL=$((FAIL + 1)); }
# flip_byte FILE OFFSET: inverts one byte in place (a tamper that always
# changes the file, whatever byte was there).
flip_byte() { python3 -c 'import sys; f = open(sys.argv[1], "r+b"); o = int(sys.argv[2]); f.seek(o); b = f.read(1); f.seek(o); f.write(bytes([b[0] ^ 0xFF]))' "$1" "$2"; }

# run ARGS...: runs cuwheel, keeps stdout/stderr in $T/out, $T/err and the status in $RC.
run() { "$CUWHEEL" "$@" >"$T/out" 2>"$T/err"; RC=$?; }
expect_rc() { if [[ $RC == "$1" ]]; then ok; else bad "$2: exit $RC, expected $1: $(head -c 400 "$T/err")"; fi; }
expect_err() { if grep -qF -- "$1" "$T/err"; then ok; else bad "$2: stderr lacks '$1': $(head -c 400 "$T/err")"; fi; }
expect_out() { if grep -qF -- "$1" "$T/out"; then ok; else bad "$2: stdout lacks '$1': $(head -c 400 "$T/out")"; fi; }
# nothing_valid DIR FILE CASE: no FILE under its final name, no partial file, no SHA256SUMS.
nothing_valid() {
  local left
  left=$(cd "$1" 2>/dev/null && ls -A | grep -E "^$2$|\.part\.|^SHA256SUMS$")
  if [[ -z $left ]]; then ok; else bad "$3: left in $1: $left"; fi
}

# The tools of tests/fixtures/make_rpm_repo.sh and this suite.
for tool in rpmbuild rpmsign createrepo_c gpg zstd python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not installed (Debian packages rpm, createrepo-c, gnupg, zstd, python3): the suite cannot run"
    echo "0 passed, 0 failed"
    exit 77
  fi
done

# --- the repository, a second key, and the server -------------------------
FPR=$(bash tests/fixtures/make_rpm_repo.sh "$T/fx" 2>"$T/fx.log" | tail -1)
[[ $FPR =~ ^[0-9A-F]{40}$ ]] || { echo "FAIL: make_rpm_repo.sh: $(cat "$T/fx.log")"; echo "0 passed, 1 failed"; exit 1; }
KEYFILE=${FPR: -8}.pub
NVCC_RPM=cuda-nvcc-12-9-12.9.86-1.x86_64.rpm

export GNUPGHOME=$T/other-gnupg
mkdir -p "$GNUPGHOME" && chmod 700 "$GNUPGHOME"
gpg --batch --quiet --pinentry-mode loopback --passphrase '' \
    --quick-gen-key "other <other@example.invalid>" rsa2048 sign never 2>/dev/null
FPR_B=$(gpg --batch --with-colons --list-secret-keys other 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')

WWW=$T/www
mkdir -p "$WWW"
cp -a "$T/fx/repo" "$WWW/good"
# Variants of the repository, each with one bad file.
for v in trunc missing resigned tampered; do cp -a "$WWW/good" "$WWW/$v"; done
head -c 3000 "$WWW/good/$NVCC_RPM" >"$WWW/trunc/$NVCC_RPM"
rm "$WWW/missing/$NVCC_RPM"
rpmsign --resign --define "_gpg_name $FPR_B" --define "_gpg_path $GNUPGHOME" --define "__gpg $(command -v gpg)" \
  --define "_gpg_sign_cmd_extra_args --batch --pinentry-mode loopback --passphrase ''" \
  "$WWW/resigned/$NVCC_RPM" >"$T/resign.log" 2>&1 || bad "rpmsign --resign: $(cat "$T/resign.log")"
gpgconf --kill gpg-agent >/dev/null 2>&1
unset GNUPGHOME
# Flip the last payload byte: the header (and its signature) are unchanged.
python3 - "$WWW/tampered/$NVCC_RPM" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[-1] ^= 0xFF
open(p, "wb").write(bytes(b))
PY

coproc SERVER { exec python3 "$ROOT/tests/fixtures/serve_http.py" "$WWW"; }
SERVER_PID=$SERVER_PID
read -r PORT <&"${SERVER[0]}"
BASE=http://127.0.0.1:$PORT

cd "$T"
run toolkit lock --repo "$BASE/good/" --release 12.9 --packages cuda-nvcc cuda-cudart-devel cuda-documentation \
  --name cu12 --lock good.lock --key-url "$BASE/good/$KEYFILE" --key-fingerprint "$FPR"
expect_rc 0 "toolkit lock"

# lock_variant NAME SED...: a copy of good.lock edited by sed expressions.
lock_variant() { local n=$1; shift; sed "$@" good.lock >"$n.lock"; }
# pin_file LOCK FILE PATH: re-pins FILE's sha256 and size in LOCK to those of PATH.
pin_file() {
  python3 - "$1" "$2" "$3" <<'PY'
import hashlib, os, re, sys
lock, name, path = sys.argv[1:]
data = open(path, "rb").read()
text = open(lock).read()
i = text.index('location = "%s"' % name)
j = text.find("[[", i)
j = len(text) if j < 0 else j
block = re.sub(r'sha256 = "[0-9a-f]+"', 'sha256 = "%s"' % hashlib.sha256(data).hexdigest(), text[i:j])
block = re.sub(r"size = \d+", "size = %d" % len(data), block)
open(lock, "w").write(text[:i] + block + text[j:])
PY
}

# --- download, cache reuse, verify ----------------------------------------
run toolkit download --lock good.lock --name cu12 --dest dl
expect_rc 0 "download"
expect_out "downloaded $NVCC_RPM (cuda-nvcc-12-9-12.9.86-1.x86_64, signature good)" "download"
expect_out "signed by $FPR" "download"
[[ -f dl/$KEYFILE ]] && ok || bad "download: key not stored as dl/$KEYFILE"
if (cd dl && sha256sum --quiet --check SHA256SUMS); then ok; else bad "download: SHA256SUMS does not check"; fi
[[ $(wc -l <dl/SHA256SUMS) == 6 ]] && ok || bad "download: SHA256SUMS has $(wc -l <dl/SHA256SUMS) lines, expected 6"
if sort -c -k2 dl/SHA256SUMS 2>/dev/null; then ok; else bad "download: SHA256SUMS not sorted"; fi

run toolkit download --lock good.lock --name cu12 --dest dl
expect_rc 0 "download again"
expect_out "reused $NVCC_RPM" "download again"
if grep -q '^downloaded' "$T/out"; then bad "download again: fetched a file it had"; else ok; fi
# A download killed midway leaves "<file>.part.<pid>": verify names it, the
# next download removes it (its own temporary), a user's file stays.
printf 'partial' >"dl/$NVCC_RPM.part.4242"
printf 'mine' >"dl/$NVCC_RPM.part.notes"
run toolkit verify dl --lock good.lock --name cu12
expect_rc 1 "verify with a stale .part"
expect_err "$NVCC_RPM.part.4242: not a file of the lock" "verify with a stale .part"
run toolkit download --lock good.lock --name cu12 --dest dl
[[ ! -e dl/$NVCC_RPM.part.4242 && -e dl/$NVCC_RPM.part.notes ]] && ok ||
  bad "download: stale .part not removed, or a user's file removed: $(ls dl)"
rm -f "dl/$NVCC_RPM.part.notes"
run toolkit download --lock good.lock --name cu12 --dest dl
expect_rc 0 "download after the stale .part"
printf 'junk' >>"dl/$NVCC_RPM"
run toolkit download --lock good.lock --name cu12 --dest dl
expect_rc 0 "download over a corrupted cache (text)"
expect_err "warning: toolkit download: $NVCC_RPM: cached copy rejected (size" "download over a corrupted cache (text)"

printf 'junk' >>"dl/$NVCC_RPM"
run toolkit download --lock good.lock --name cu12 --dest dl --format json
expect_rc 0 "download over a corrupted cache"
python3 - "$T/out" <<'PY' && ok || bad "download --format json: unexpected document: $(head -c 300 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["tool"].startswith("cuwheel ") and d["command"] == "toolkit download"
st = {f["file"]: f["status"] for f in d["files"]}
assert st["cuda-nvcc-12-9-12.9.86-1.x86_64.rpm"] == "downloaded", st
msg = [f["message"] for f in d["files"] if f["file"] == "cuda-nvcc-12-9-12.9.86-1.x86_64.rpm"][0]
assert msg.startswith("cached copy rejected (size "), msg
assert sum(1 for s in st.values() if s == "reused") == 5, st
assert d["ok"] is True and d["sha256sums_written"] is True
PY

run toolkit verify dl --lock good.lock --name cu12 --signatures
expect_rc 0 "verify --signatures"
expect_out "verified $NVCC_RPM (cuda-nvcc-12-9-12.9.86-1.x86_64, signature good)" "verify --signatures"
cp -a dl dl-bad
flip_byte "dl-bad/$NVCC_RPM" 200
run toolkit verify dl-bad --lock good.lock --name cu12
expect_rc 1 "verify of a changed file"
expect_err "$NVCC_RPM: sha256 " "verify of a changed file"
rm "dl-bad/$KEYFILE"
run toolkit verify dl-bad --lock good.lock --name cu12 --signatures
expect_rc 2 "verify --signatures without the stored key"
expect_err "$KEYFILE" "verify --signatures without the stored key"

# An existing SHA256SUMS (what extract unpacks) must agree with the lock line by line.
run toolkit verify dl --lock good.lock --name cu12
expect_rc 0 "verify with SHA256SUMS"
expect_out "dl/SHA256SUMS agrees with the lock (6 lines)" "verify with SHA256SUMS"
cp -a dl dl-sums
n=$(grep -n -- "  $NVCC_RPM\$" dl-sums/SHA256SUMS | cut -d: -f1)
sed -i "${n}s/^[0-9a-f]\{64\}/$(printf '0%.0s' {1..64})/" dl-sums/SHA256SUMS
run toolkit verify dl-sums --lock good.lock --name cu12
expect_rc 1 "SHA256SUMS digest differs from the lock"
expect_err "dl-sums/SHA256SUMS:$n: $NVCC_RPM: sha256 0000000000000000000000000000000000000000000000000000000000000000, the lock pins " "SHA256SUMS digest differs from the lock"
expect_out "dl-sums/SHA256SUMS disagrees with the lock: 1 problem" "SHA256SUMS digest summary"
# The same problem through the shared renderers: SARIF with the registry's
# code and the line as a region, a GitHub annotation with line=.
run toolkit verify dl-sums --lock good.lock --name cu12 --format sarif
expect_rc 1 "verify --format sarif"
python3 - "$T/out" "$n" <<'PY' && ok || bad "verify --format sarif: $(head -c 600 "$T/out")"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
rs = run["results"]
assert [r["ruleId"] for r in rs] == ["CW808"], rs
assert rs[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == int(sys.argv[2])
assert all(r["id"].startswith("CW8") for r in run["tool"]["driver"]["rules"])
PY
run toolkit verify dl-sums --lock good.lock --name cu12 --format github
expect_rc 1 "verify --format github"
expect_out "::error file=dl-sums/SHA256SUMS,line=$n,title=sums-digest-mismatch in $NVCC_RPM::" "verify --format github"
run toolkit verify dl --lock good.lock --name cu12 --format sarif
expect_rc 0 "verify --format sarif, clean"
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["runs"][0]["results"] == [] else 1)' "$T/out" && ok ||
  bad "verify --format sarif, clean: results not empty"
cp dl/SHA256SUMS dl-sums/SHA256SUMS
echo "$(printf 'a%.0s' {1..64})  extra.rpm" >>dl-sums/SHA256SUMS
echo "not a checksum line" >>dl-sums/SHA256SUMS
run toolkit verify dl-sums --lock good.lock --name cu12 --format json
expect_rc 1 "SHA256SUMS with an extra file and a bad line"
python3 - "$T/out" <<'PY' && ok || bad "verify --format json: sha256sums problems: $(head -c 600 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sha256sums"]
assert d["ok"] is False and s["agrees"] is False and s["lines"] == 8, s
assert [(p["line"], p["file"]) for p in s["problems"]] == [(7, "extra.rpm"), (8, None)], s
assert s["problems"][0]["message"].endswith("SHA256SUMS:7: extra.rpm is listed but is not a file of the lock for cu12")
assert "SHA256SUMS:8: not a sha256sum line" in s["problems"][1]["message"]
assert all(f["status"] == "verified" for f in d["files"])
PY
grep -v -- "  $NVCC_RPM\$" dl/SHA256SUMS >dl-sums/SHA256SUMS
run toolkit verify dl-sums --lock good.lock --name cu12
expect_rc 1 "SHA256SUMS without a locked file"
expect_err "dl-sums/SHA256SUMS: does not list $NVCC_RPM, a file of the lock for cu12" "SHA256SUMS without a locked file"
rm dl-sums/SHA256SUMS
run toolkit verify dl-sums --lock good.lock --name cu12
expect_rc 0 "verify without SHA256SUMS"
expect_out "no dl-sums/SHA256SUMS: the files were checked against the lock only" "verify without SHA256SUMS says so"
run toolkit verify dl-sums --lock good.lock --name cu12 --format json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["ok"] and d["sha256sums"] is None else 1)' "$T/out" &&
  ok || bad "verify without SHA256SUMS: json sha256sums is not null"
rm -rf dl-sums

# Only the locked files, SHA256SUMS and the key may be in the folder: any other
# RPM would be installed by `dnf install DIR/*.rpm` with them.
cp -a dl dl-extra
cp "$WWW/resigned/$NVCC_RPM" dl-extra/other-tool-1.0-1.x86_64.rpm
run toolkit verify dl-extra --lock good.lock --name cu12 --signatures
expect_rc 1 "verify with an unlocked RPM"
expect_err "toolkit verify: dl-extra/other-tool-1.0-1.x86_64.rpm: not a file of the lock for cu12" "verify with an unlocked RPM"
expect_out "cu12: 6 of 6 files good in dl-extra" "verify with an unlocked RPM: files still checked"
expect_out "; 1 name in the folder not in the lock" "verify with an unlocked RPM: summary"
run toolkit verify dl-extra --lock good.lock --name cu12 --format json
expect_rc 1 "verify --format json with an unlocked RPM"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["ok"] is False and d["unlocked"] == ["other-tool-1.0-1.x86_64.rpm"] else 1)' "$T/out" &&
  ok || bad "verify --format json: unlocked not listed: $(head -c 400 "$T/out")"
run toolkit download --lock good.lock --name cu12 --dest dl-extra
expect_rc 1 "download into a folder with an unlocked RPM"
expect_err "toolkit download: dl-extra/other-tool-1.0-1.x86_64.rpm: not a file of the lock for cu12" "download into a folder with an unlocked RPM"
[[ -f dl-extra/other-tool-1.0-1.x86_64.rpm ]] && ok || bad "download removed a file it does not own"
[[ ! -e dl-extra/SHA256SUMS ]] && ok || bad "download with an unlocked RPM left SHA256SUMS"
rm dl-extra/other-tool-1.0-1.x86_64.rpm
run toolkit download --lock good.lock --name cu12 --dest dl-extra --format json
expect_rc 0 "download once the unlocked RPM is gone"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["ok"] and d["unlocked"] == [] else 1)' "$T/out" &&
  ok || bad "download --format json: unlocked is not []: $(head -c 400 "$T/out")"
mkdir dl-extra/sub.rpm
run toolkit verify dl-extra --lock good.lock --name cu12
expect_rc 1 "verify with a folder named *.rpm"
expect_err "dl-extra/sub.rpm: not a file of the lock" "verify with a folder named *.rpm"
rm -rf dl-extra

# --- rejections ------------------------------------------------------------
lock_variant tampered -e "s#$BASE/good/#$BASE/tampered/#g"
pin_file tampered.lock "$NVCC_RPM" "$WWW/tampered/$NVCC_RPM"
run toolkit download --lock tampered.lock --name cu12 --dest d-tampered
expect_rc 1 "tampered payload"
expect_err "$NVCC_RPM: download from $BASE/tampered/$NVCC_RPM: payload SHA-256 is" "tampered payload"
nothing_valid d-tampered "$NVCC_RPM" "tampered payload"

lock_variant resigned -e "s#$BASE/good/#$BASE/resigned/#g"
pin_file resigned.lock "$NVCC_RPM" "$WWW/resigned/$NVCC_RPM"
run toolkit download --lock resigned.lock --name cu12 --dest d-resigned
expect_rc 1 "re-signed with another key"
expect_err "$NVCC_RPM: download from $BASE/resigned/$NVCC_RPM: header signature: signature by key" "re-signed with another key"
expect_err "which is not the pinned key $FPR" "re-signed with another key"
nothing_valid d-resigned "$NVCC_RPM" "re-signed with another key"

lock_variant wrongfpr -e "s/$FPR/$FPR_B/"
run toolkit download --lock wrongfpr.lock --name cu12 --dest d-wrongfpr
expect_rc 1 "wrong key fingerprint"
expect_err "repository key $BASE/good/$KEYFILE: key fingerprint $FPR is not the pinned $FPR_B" "wrong key fingerprint"
nothing_valid d-wrongfpr "$NVCC_RPM|.*\\.rpm|$KEYFILE" "wrong key fingerprint"

lock_variant trunc -e "s#$BASE/good/#$BASE/trunc/#g"
run toolkit download --lock trunc.lock --name cu12 --dest d-trunc
expect_rc 1 "truncated download"
expect_err "$NVCC_RPM: download from $BASE/trunc/$NVCC_RPM: size 3000 bytes, the lock pins" "truncated download"
nothing_valid d-trunc "$NVCC_RPM" "truncated download"

lock_variant missing -e "s#$BASE/good/#$BASE/missing/#g"
run toolkit download --lock missing.lock --name cu12 --dest d-missing
expect_rc 2 "404"
expect_err "$NVCC_RPM: $BASE/missing/$NVCC_RPM: HTTP 404" "404"
nothing_valid d-missing "$NVCC_RPM" "404"

cp good.lock digest.lock
python3 - digest.lock "$NVCC_RPM" <<'PY'
import re, sys
lock, name = sys.argv[1:]
text = open(lock).read()
i = text.index('location = "%s"' % name)
m = re.compile(r'sha256 = "([0-9a-f]{64})"').search(text, i)
bad = "0" * 64
open(lock, "w").write(text[:m.start(1)] + bad + text[m.end(1):])
PY
run toolkit download --lock digest.lock --name cu12 --dest d-digest
expect_rc 1 "digest mismatch in the lock"
expect_err "$NVCC_RPM: download from $BASE/good/$NVCC_RPM: sha256 " "digest mismatch in the lock"
expect_err "the lock pins 0000000000000000000000000000000000000000000000000000000000000000" "digest mismatch in the lock"
nothing_valid d-digest "$NVCC_RPM" "digest mismatch in the lock"
# A complete folder from an earlier run loses its SHA256SUMS when a file fails now.
cp -a dl d-rerun
run toolkit download --lock digest.lock --name cu12 --dest d-rerun
expect_rc 1 "digest mismatch over a complete folder"
nothing_valid d-rerun "$NVCC_RPM" "digest mismatch over a complete folder"

run toolkit download --lock good.lock --name cu99 --dest d-x
expect_rc 2 "unknown toolkit name"
expect_err "good.lock: no toolkit named 'cu99'" "unknown toolkit name"
# ... and as reports (toolkit/unreadable, CW815): SARIF says the run failed.
run toolkit verify d-x --lock good.lock --name cu99 --format sarif
expect_rc 2 "unknown toolkit name (sarif)"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; assert r["invocations"][0]["executionSuccessful"] is False and [x["ruleId"] for x in r["results"]]==["CW815"], r' \
  "$T/out" && ok || bad "unreadable lock (sarif): $(head -c 300 "$T/out")"
run toolkit download --lock no-such.lock --dest d-y --format github
expect_rc 2 "missing lock (github)"
expect_out "::error file=no-such.lock,title=unreadable::no-such.lock: cannot open" "missing lock (github)"
run toolkit verify no-such-folder --lock good.lock --name cu12 --format json
expect_rc 2 "verify of a missing folder (json)"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); u=d["unreadable"]; assert d["command"]=="toolkit verify" and u[0]["where"]=="no-such-folder", d' \
  "$T/out" && ok || bad "verify of a missing folder (json): $(head -c 300 "$T/out")"

# --- extract and check on the fixture tree (its nvcc is a script) ----------
run toolkit extract dl --into cuda-fx --format json
expect_rc 0 "extract"
[[ -x cuda-fx/bin/nvcc && -f cuda-fx/EULA.txt && -f cuda-fx/lib64/libcudart_static.a ]] && ok ||
  bad "extract: tree lacks bin/nvcc, EULA.txt or lib64/libcudart_static.a"
[[ ! -e cuda-fx/etc && ! -e cuda-fx/usr ]] && ok || bad "extract: files outside /usr/local/cuda-12.9/ extracted"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]==1 and d["release"]=="12.9" and d["skipped"], d' \
  "$T/out" && ok || bad "extract --format json: $(head -c 300 "$T/out")"
run toolkit extract dl --into cuda-fx
expect_rc 2 "extract into a non-empty folder"
expect_err "cuda-fx: exists and is not an empty folder" "extract into a non-empty folder"
cp -a dl dl-sum && flip_byte "dl-sum/$NVCC_RPM" 300
run toolkit extract dl-sum --into cuda-sum
expect_rc 1 "extract of a changed file"
expect_err "dl-sum/$NVCC_RPM: sha256 " "extract of a changed file"
[[ ! -e cuda-sum ]] && ok || bad "extract of a changed file: cuda-sum exists"

run toolkit check cuda-fx --release 12.8
expect_rc 1 "check: wrong release"
expect_err "toolkit check: nvcc reports release 12.9, the pin is 12.8" "check: wrong release"
run toolkit check cuda-fx --lock good.lock --name cu12 --format json
expect_rc 1 "check: fake nvcc cannot compile"
python3 - "$T/out" <<'PY' && ok || bad "check --format json: $(head -c 400 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["command"] == "toolkit check" and d["nvcc_version"] == "12.9.86"
steps = {s["step"]: s["ok"] for s in d["steps"]}
assert steps == {"nvcc-release": True, "eula": True, "compile": False}, steps
PY
rm cuda-fx/EULA.txt
run toolkit check cuda-fx --release 12.9
expect_rc 1 "check: no EULA"
expect_err "cuda-fx/EULA.txt is missing" "check: no EULA"
# The failed steps through the shared renderers.
run toolkit check cuda-fx --release 12.9 --format sarif
expect_rc 1 "check --format sarif"
python3 - "$T/out" <<'PY' && ok || bad "check --format sarif: $(head -c 400 "$T/out")"
import json, sys
rs = json.load(open(sys.argv[1]))["runs"][0]["results"]
assert [r["ruleId"] for r in rs] == ["CW811", "CW812"], rs
assert rs[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "cuda-fx"
PY
run toolkit check cuda-fx --release 12.9 --format github
expect_rc 1 "check --format github"
expect_out "::error file=cuda-fx,title=eula::cuda-fx/EULA.txt is missing" "check --format github"

# --- the installed toolkit, packaged as an RPM, extracted, checked --------
# nvcc on PATH may be a link from /usr/local/bin or similar: find the toolkit
# root that holds the files packaged below, following links, then CUDA_HOME,
# CUDA_PATH and /usr/local/cuda.
toolkit_root() {
  local nvcc c
  nvcc=$(command -v nvcc || true)
  for c in ${nvcc:+"$(dirname "$(readlink -f "$nvcc")")/.."} ${CUDA_HOME:+"$CUDA_HOME"} \
           ${CUDA_PATH:+"$CUDA_PATH"} /usr/local/cuda; do
    local f missing=""
    for f in bin/nvcc bin/cudafe++ bin/ptxas bin/fatbinary bin/nvlink bin/nvcc.profile bin/crt \
             nvvm/bin nvvm/libdevice include lib64/libcudart_static.a lib64/libcudadevrt.a lib64/libculibos.a; do
      [[ -e $c/$f ]] || { missing=$f; break; }
    done
    if [[ -z $missing ]]; then (cd "$c" && pwd -P); return 0; fi
    echo "toolkit candidate $c lacks $missing" >&2
  done
  return 1
}
C=$(toolkit_root || true)
FREE_MB=$(df -Pm "$T" | awk 'NR == 2 { print $4 }')
# The real-toolkit case makes 4 checks.
if [[ -z $C ]]; then
  SKIPPED=$((SKIPPED + 4))
  echo "SKIP: no CUDA toolkit found (nvcc on PATH, CUDA_HOME, CUDA_PATH, /usr/local/cuda): the extract + check of a real toolkit did not run"
elif [[ ${FREE_MB:-0} -lt 1024 ]]; then
  # The package, its payload and the extracted tree take about 650 MB at the peak.
  SKIPPED=$((SKIPPED + 4))
  echo "SKIP: ${FREE_MB:-?} MB free under $T, 1024 MB needed: the extract + check of a real toolkit did not run"
else
  NVCC=$C/bin/nvcc
  echo "real toolkit: $C"
  REL=$("$NVCC" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\),.*/\1/p')
  D=/usr/local/cuda-$REL
  TOP=$T/rpmtop
  mkdir -p "$TOP"/{SPECS,RPMS,BUILD,BUILDROOT,tmp}
  # Only what `nvcc -cudart static` needs; /usr/local/cuda-X.Y/ as NVIDIA lays it out.
  cat >"$TOP/SPECS/real.spec" <<EOF
Name: cuda-real-$REL
Version: $REL
Release: 1
Summary: installed toolkit files (test)
License: NVIDIA Software License
BuildArch: x86_64
AutoReqProv: no
%description
The files of the installed toolkit that compiling a kernel needs.
%install
R=%{buildroot}$D
mkdir -p \$R/bin \$R/nvvm \$R/lib \$R/targets/x86_64-linux
for f in nvcc cudafe++ ptxas fatbinary nvlink nvcc.profile crt; do cp -a $C/bin/\$f \$R/bin/; done
cp -a $C/nvvm/bin $C/nvvm/libdevice \$R/nvvm/
cp -aL $C/include \$R/include
cp -aL $C/lib64/libcudart_static.a $C/lib64/libcudadevrt.a $C/lib64/libculibos.a \$R/lib/
ln -s lib \$R/lib64
ln -s $D/include \$R/targets/x86_64-linux/include
ln -s $D/lib \$R/targets/x86_64-linux/lib
echo "End User License Agreement (test copy)" > \$R/EULA.txt
%files
$D
EOF
  START=$(date +%s)
  if rpmbuild -bb --quiet --define "_topdir $TOP" --define "_rpmdir $TOP/RPMS" --define "_tmppath $TOP/tmp" \
      --define "_build_name_fmt %%{NAME}.rpm" --define "_binary_payload w0.ufdio" \
      --define "debug_package %{nil}" --define "__os_install_post %{nil}" --define "__arch_install_post %{nil}" \
      --define "_build_id_links none" "$TOP/SPECS/real.spec" >"$T/real.log" 2>&1; then
    mkdir -p real && mv "$TOP/RPMS/cuda-real-$REL.rpm" real/ && (cd real && sha256sum ./*.rpm | sed 's#  \./#  #' >SHA256SUMS)
    rm -rf "$TOP"
    run toolkit extract real --into cuda-real --release "$REL"
    expect_rc 0 "extract of the installed toolkit"
    rm -rf real  # about 200 MB: keep the peak disk use down
    [[ $(readlink cuda-real/targets/x86_64-linux/lib) == ../../lib ]] && ok ||
      bad "extract: absolute link not made relative: $(readlink cuda-real/targets/x86_64-linux/lib)"
    run toolkit check cuda-real --release "$REL"
    expect_rc 0 "check of the installed toolkit"
    expect_out "ok compile: a kernel compiled and linked" "check of the installed toolkit"
    rm -rf cuda-real
    echo "real toolkit $REL: package, extract and check took $(( $(date +%s) - START )) s"
  else
    bad "rpmbuild of the installed toolkit: $(tail -5 "$T/real.log")"
  fi
fi

if [[ $SKIPPED -gt 0 ]]; then
  echo "$PASS passed, $FAIL failed, $SKIPPED skipped"
else
  echo "$PASS passed, $FAIL failed"
fi
[[ $FAIL == 0 ]]
