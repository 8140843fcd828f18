#!/usr/bin/env bash
# End-to-end tests of `cuwheel release select|verify|split|plan`: exit
# statuses, JSON documents, error messages. Release sets are made at test
# time by tests/fixtures/release/make_release.py in a temporary folder.
#
# Usage: tests/e2e/release_test.sh path/to/cuwheel   (run from the repository root)
set -u
CUWHEEL=$(realpath "$1")
ROOT=$(pwd)
MAKE="python3 $ROOT/tests/fixtures/release/make_release.py"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# run NAME EXPECTED_STATUS ARGS...: runs cuwheel in $TMP/proj, keeps stdout/stderr.
run() {
  local name=$1 want=$2
  shift 2
  (cd "$TMP/proj" && "$CUWHEEL" "$@" >"$TMP/out" 2>"$TMP/err")
  local got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "$name: exit $got, expected $want: $(head -c 400 "$TMP/err")"; fi
}
# expect_out NAME TEXT / expect_err NAME TEXT: the last run's stdout/stderr contains TEXT.
expect_out() { if grep -qF -- "$2" "$TMP/out"; then ok; else bad "$1: stdout lacks '$2': $(head -c 600 "$TMP/out")"; fi; }
expect_err() { if grep -qF -- "$2" "$TMP/err"; then ok; else bad "$1: stderr lacks '$2': $(head -c 400 "$TMP/err")"; fi; }
# json NAME PYTHON_EXPR: evaluates EXPR with d = the last stdout parsed as JSON.
json() {
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$TMP/out" 2>"$TMP/jerr"; then
    ok
  else
    bad "$1: JSON check failed: $2 $(head -c 300 "$TMP/jerr")"
  fi
}

mkdir -p "$TMP/proj"
cat >"$TMP/proj/pyproject.toml" <<'EOF'
[project]
name = "dyng"

[tool.cuwheel.release]
core = "dyng"
plugins = ["dyng-cu12", "dyng-cu13"]
plugins-since = "0.2"
platforms = ["manylinux_2_28_x86_64"]
plugin-tag = "cp312-abi3"
core-wheels = ["py3-none-any"]

[tool.cuwheel.release.indexes]
test = { name = "testpypi", environment = "testpypi" }
production = { name = "pypi", environment = "pypi" }
EOF

# --- select: every kind of tag ------------------------------------------------
run "select v0.0.1" 0 release select --tag v0.0.1 --format json
json "select v0.0.1 schema" "d['schema'] == 1 and d['tool'].startswith('cuwheel ') and d['command'] == 'release select'"
json "select v0.0.1 core only" "[x['name'] for x in d['distributions']] == ['dyng'] and d['plugins'] is False"
json "select v0.0.1 both indexes" "[i['name'] for i in d['indexes']] == ['testpypi', 'pypi'] and d['kind'] == 'final'"

run "select v0.1.3" 0 release select --tag v0.1.3 --format json
json "select v0.1.3" "[x['name'] for x in d['distributions']] == ['dyng'] and len(d['indexes']) == 2"

run "select v0.2.0rc1" 0 release select --tag v0.2.0rc1 --format json
json "select v0.2.0rc1 plugins" "[x['name'] for x in d['distributions']] == ['dyng-cu12', 'dyng-cu13', 'dyng']"
json "select v0.2.0rc1 test only" "[i['name'] for i in d['indexes']] == ['testpypi'] and d['kind'] == 'pre' and d['production'] is False"
json "select v0.2.0rc1 matrix" "d['distributions'][0] == {'name': 'dyng-cu12', 'core': False, 'file_prefix': 'dyng_cu12', 'environment_suffix': 'cu12', 'directory': 'dist/dyng-cu12', 'environments': ['testpypi-cu12']}"

run "select v0.2.0" 0 release select --tag v0.2.0 --format json
json "select v0.2.0" "len(d['distributions']) == 3 and d['distributions'][1]['environments'] == ['testpypi-cu13', 'pypi-cu13']"

run "select v1.0.0.post1" 0 release select --tag v1.0.0.post1 --format json
json "select post" "d['kind'] == 'post' and d['production'] is True and len(d['indexes']) == 2 and d['version'] == '1.0.0.post1'"

run "select dev" 0 release select --tag v0.3.0.dev1 --format json
json "select dev" "d['kind'] == 'dev' and [i['name'] for i in d['indexes']] == ['testpypi']"

run "select text" 0 release select --tag v0.2.0rc1
expect_out "select text" "v0.2.0rc1: version 0.2.0rc1 (pre), to testpypi"
expect_out "select text plugin" "dyng-cu12"
run "select text core only" 0 release select --tag v0.1.3
expect_out "select text no plugins" "no plugins: they ship from 0.2 (plugins-since)"

run "malformed -rc1" 2 release select --tag v0.2.0-rc1
expect_err "malformed -rc1" 'cuwheel: error: tag "v0.2.0-rc1": after the prefix "v", "0.2.0-rc1" is not a normalized PEP 440 version (write the tag as "v0.2.0rc1")'
run "malformed no prefix" 2 release select --tag 0.2.0
expect_err "malformed no prefix" '(write "v0.2.0")'
run "malformed two segments" 2 release select --tag v1.0
expect_err "malformed two segments" '(write "v1.0.0")'
run "malformed local" 2 release select --tag v1.0.0+cu12
expect_err "malformed local" "local label"
run "malformed garbage" 2 release select --tag vnext
expect_err "malformed garbage" "is not a PEP 440 version"
run "malformed ref" 2 release select --tag refs/tags/v1.0.0
expect_err "malformed ref" "GITHUB_REF_NAME"
run "missing --tag" 2 release select

# --- policy discovery and errors -------------------------------------------
mkdir -p "$TMP/proj/sub/dir"
(cd "$TMP/proj/sub/dir" && "$CUWHEEL" release select --tag v0.2.0 --format json >"$TMP/out" 2>"$TMP/err")
if [ $? -eq 0 ]; then ok; else bad "policy found from a sub-folder"; fi
json "policy path" "d['policy'].endswith('pyproject.toml')"
mkdir -p "$TMP/empty"
(cd "$TMP/empty" && "$CUWHEEL" release select --tag v0.2.0 >"$TMP/out" 2>"$TMP/err")
if [ $? -eq 2 ]; then ok; else bad "no policy: exit 2 expected"; fi
expect_err "no policy" "no release policy"
printf '[release]\ncore = "dyng"\nplugins_since = "0.2"\n' >"$TMP/bad.toml"
run "bad policy" 2 release select --tag v0.2.0 --policy "$TMP/bad.toml"
expect_err "bad policy" "bad.toml:3: unknown key \"plugins_since\" in [release] (did you mean \"plugins-since\"?)"
run "missing policy file" 2 release select --tag v0.2.0 --policy "$TMP/nope.toml"
expect_err "missing policy file" "nope.toml"

# --- plan --------------------------------------------------------------------
run "plan v0.2.0" 0 release plan --tag v0.2.0 --format json
json "plan v0.2.0 order" "[s['environment'] for s in d['steps']] == ['testpypi-cu12', 'testpypi-cu13', 'testpypi', 'pypi-cu12', 'pypi-cu13', 'pypi']"
json "plan v0.2.0 needs" "d['steps'][2]['needs'] == ['testpypi-dyng-cu12', 'testpypi-dyng-cu13'] and d['steps'][3]['needs'] == ['testpypi-dyng']"
json "plan v0.2.0 step" "d['steps'][0] == {'step': 1, 'stage': 1, 'id': 'testpypi-dyng-cu12', 'job': 'test_plugins', 'index': 'testpypi', 'repository_url': 'https://test.pypi.org/legacy/', 'environment': 'testpypi-cu12', 'distribution': 'dyng-cu12', 'core': False, 'directory': 'dist/dyng-cu12', 'needs': []}"
json "plan v0.2.0 jobs" "[len(d['jobs'][k]) for k in ('test_plugins', 'test_core', 'production_plugins', 'production_core')] == [2, 1, 2, 1]"
run "plan rc" 0 release plan --tag v0.2.0rc1 --format json
json "plan rc" "[s['index'] for s in d['steps']] == ['testpypi'] * 3 and d['jobs']['production_core'] == []"
run "plan v0.0.1" 0 release plan --tag v0.0.1 --format json
json "plan v0.0.1" "[s['id'] for s in d['steps']] == ['testpypi-dyng', 'pypi-dyng'] and d['steps'][1]['needs'] == ['testpypi-dyng']"
run "plan text" 0 release plan --tag v0.2.0
expect_out "plan text" "6 uploads"
run "plan bad tag" 2 release plan --tag v0.2
expect_err "plan bad tag" "release segments"

# --- verify ------------------------------------------------------------------
$MAKE "$TMP/good" 0.2.0 --plugins dyng-cu12,dyng-cu13
run "verify good" 0 release verify "$TMP/good" --version 0.2.0
expect_out "verify good" "4 of 4 expected files for 0.2.0 pass, 4 files in the folder, 0 problems"
run "verify good json" 0 release verify "$TMP/good" --version v0.2.0 --format json
json "verify good json" "d['ok'] is True and d['findings'] == [] and all(e['file'] for e in d['expected']) and d['command'] == 'release verify'"

$MAKE "$TMP/core013" 0.1.3
run "verify core-only" 0 release verify "$TMP/core013" --version 0.1.3

$MAKE "$TMP/rc" 0.2.0rc1 --plugins dyng-cu12,dyng-cu13
run "verify rc" 0 release verify "$TMP/rc" --version 0.2.0rc1

cp -r "$TMP/good" "$TMP/missing"
rm "$TMP/missing/dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl"
echo notes >"$TMP/missing/NOTES.txt"
run "verify missing+extra" 1 release verify "$TMP/missing" --version 0.2.0
expect_out "verify missing" "dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl: error[missing]: the manylinux_2_28_x86_64 wheel of dyng-cu13 0.2.0 is missing"
expect_out "verify extra" "NOTES.txt: error[extra]: not a wheel (.whl) or an sdist (.tar.gz)"
run "verify missing sarif" 1 release verify "$TMP/missing" --version 0.2.0 --format sarif
json "verify missing sarif" "sorted({r['ruleId'] for r in d['runs'][0]['results']}) == ['CW601', 'CW602'] and all(r['id'].startswith('CW6') for r in d['runs'][0]['tool']['driver']['rules'])"
run "verify missing github" 1 release verify "$TMP/missing" --version 0.2.0 --format github
expect_out "verify missing github" "::error file=$TMP/missing,title=missing in "
run "verify good sarif" 0 release verify "$TMP/good" --version 0.2.0 --format sarif
json "verify good sarif" "d['runs'][0]['results'] == []"
run "verify missing json" 1 release verify "$TMP/missing" --version 0.2.0 --format json
json "verify missing json" "d['ok'] is False and sorted(f['code'] for f in d['findings']) == ['extra', 'missing']"

$MAKE "$TMP/psdist" 0.2.0 --plugins dyng-cu12,dyng-cu13 --plugin-sdist
run "verify plugin sdist" 1 release verify "$TMP/psdist" --version 0.2.0
expect_out "verify plugin sdist" "dyng_cu12-0.2.0.tar.gz: error[extra]: plugin sdists are not released"

$MAKE "$TMP/pin" 0.2.0 --plugins dyng-cu12,dyng-cu13 --plugin-requires 'dyng>=0.2'
run "verify core pin" 1 release verify "$TMP/pin" --version 0.2.0
expect_out "verify core pin" "error[core-pin]"

$MAKE "$TMP/mdver" 0.2.0 --plugins dyng-cu12,dyng-cu13 --metadata-version 0.2.1
run "verify metadata version" 1 release verify "$TMP/mdver" --version 0.2.0
expect_out "verify metadata version" "METADATA Version \"0.2.1\" is not the release's 0.2.0"
expect_out "verify pkg-info version" "dyng-0.2.0/PKG-INFO Version \"0.2.1\""

$MAKE "$TMP/tagline" 0.2.0 --plugins dyng-cu12,dyng-cu13 --wheel-tag-line py2-none-any
run "verify WHEEL tags" 1 release verify "$TMP/tagline" --version 0.2.0
expect_out "verify WHEEL tags" "error[tag-mismatch]"

$MAKE "$TMP/platform" 0.2.0 --plugins dyng-cu12,dyng-cu13 --platforms manylinux_2_28_aarch64
run "verify platform" 1 release verify "$TMP/platform" --version 0.2.0
expect_out "verify platform" "is none of the plugin platforms (manylinux_2_28_x86_64)"

run "verify wrong version" 1 release verify "$TMP/good" --version 0.2.1
expect_out "verify wrong version" "file name version 0.2.0 is not the release's 0.2.1"

cp -r "$TMP/good" "$TMP/corrupt"
echo "not a zip" >"$TMP/corrupt/dyng-0.2.0-py3-none-any.whl"
run "verify unreadable" 2 release verify "$TMP/corrupt" --version 0.2.0
expect_out "verify unreadable" "dyng-0.2.0-py3-none-any.whl: error[unreadable]"
run "verify unreadable sarif" 2 release verify "$TMP/corrupt" --version 0.2.0 --format sarif
json "verify unreadable sarif" "d['runs'][0]['invocations'][0]['executionSuccessful'] is False and 'CW611' in [r['ruleId'] for r in d['runs'][0]['results']]"
# A hostile file name in the folder reaches SARIF escaped, as every other output.
cp -r "$TMP/good" "$TMP/hostile"
printf x >"$TMP/hostile/"$'x\r::warning title=x::y.whl'
run "verify hostile sarif" 1 release verify "$TMP/hostile" --version 0.2.0 --format sarif
python3 - "$TMP/out" <<'PY' && ok || bad "verify hostile sarif: the file name is not escaped: $(head -c 600 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
names = [l.get("name", "") for r in d["runs"][0]["results"] for loc in r["locations"] for l in loc.get("logicalLocations", [])]
texts = [r["message"]["text"] for r in d["runs"][0]["results"]]
assert not any("\r" in t for t in names + texts), names
assert any("x\\x0d::warning" in n for n in names), names
PY

# Artifacts downloaded without merge-multiple land in one folder each.
cp -r "$TMP/good" "$TMP/nested" && mkdir "$TMP/nested/wheels-cu12" && mv "$TMP/nested/"dyng_cu12-* "$TMP/nested/wheels-cu12/"
run "verify nested" 1 release verify "$TMP/nested" --version 0.2.0
expect_out "verify nested" "wheels-cu12: error[extra]: a folder (a release folder holds only wheels and sdists, side by side; with actions/download-artifact, set merge-multiple: true)"
expect_out "verify nested missing" "error[missing]: the manylinux_2_28_x86_64 wheel of dyng-cu12 0.2.0 is missing"

run "verify no folder" 2 release verify "$TMP/nowhere" --version 0.2.0
expect_err "verify no folder" "nowhere: not a folder"
run "verify bad version" 2 release verify "$TMP/good" --version 0.2.0-rc1
expect_err "verify bad version" '(write the tag as "v0.2.0rc1")'
# A folder or policy that cannot be read is release/unreadable (CW611) in the
# reports and an `unreadable` list in JSON; a bad version has no report.
run "verify no folder github" 2 release verify "$TMP/nowhere" --version 0.2.0 --format github
expect_out "verify no folder github" "::error file=$TMP/nowhere,title=unreadable::$TMP/nowhere: not a folder"
run "verify no folder sarif" 2 release verify "$TMP/nowhere" --version 0.2.0 --format sarif
json "verify no folder sarif" "d['runs'][0]['invocations'][0]['executionSuccessful'] is False and [r['ruleId'] for r in d['runs'][0]['results']] == ['CW611']"
run "verify no folder json" 2 release verify "$TMP/nowhere" --version 0.2.0 --format json
json "verify no folder json" "d['command'] == 'release verify' and d['unreadable'][0]['where'].endswith('nowhere') and 'findings' not in d"
run "verify bad policy github" 2 release verify "$TMP/good" --version 0.2.0 --policy "$TMP/bad.toml" --format github
expect_out "verify bad policy github" "::error file=$TMP/bad.toml,title=unreadable::"
run "verify bad version github" 2 release verify "$TMP/good" --version 0.2.0-rc1 --format github
if [ -s "$TMP/out" ]; then bad "a bad version printed a report: $(head -c 300 "$TMP/out")"; else ok; fi

# --- split -------------------------------------------------------------------
before=$(cd "$TMP/good" && sha256sum * | sha256sum)
run "split good" 0 release split "$TMP/good" "$TMP/dist" --version 0.2.0
expect_out "split good" "4 files split into"
for f in dyng/dyng-0.2.0.tar.gz dyng/dyng-0.2.0-py3-none-any.whl \
  dyng-cu12/dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl \
  dyng-cu13/dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl; do
  if cmp -s "$TMP/dist/$f" "$TMP/good/$(basename "$f")"; then ok; else bad "split: $f"; fi
done
after=$(cd "$TMP/good" && sha256sum * | sha256sum)
if [ "$before" = "$after" ] && [ "$(ls "$TMP/good" | wc -l)" -eq 4 ]; then ok; else bad "split changed its input"; fi
run "split again, copy, json" 0 release split "$TMP/good" "$TMP/dist" --version 0.2.0 --copy --format json
json "split json" "len(d['written']) == 4 and not any(w['linked'] for w in d['written']) and d['command'] == 'release split'"
# Each split folder verifies on its own? No: a plugin folder lacks the core. But the
# whole tree holds exactly the four files.
if [ "$(find "$TMP/dist" -type f | wc -l)" -eq 4 ]; then ok; else bad "split left extra files: $(find "$TMP/dist" -type f)"; fi

run "split refuses a bad set" 1 release split "$TMP/missing" "$TMP/dist2" --version 0.2.0
expect_err "split refuses" "not split: the folder is not the release set"
if [ ! -e "$TMP/dist2" ]; then ok; else bad "split wrote output for a bad set"; fi
run "split --no-verify" 0 release split "$TMP/missing" "$TMP/dist2" --version 0.2.0 --no-verify
expect_err "split --no-verify warns" "cuwheel: warning:"
if [ "$(find "$TMP/dist2" -type f | wc -l)" -eq 3 ] && [ ! -e "$TMP/dist2/NOTES.txt" ]; then ok; else bad "split --no-verify: $(find "$TMP/dist2")"; fi
echo x >"$TMP/outfile"
run "split into a file" 2 release split "$TMP/good" "$TMP/outfile" --version 0.2.0
expect_err "split into a file" "exists and is not a folder"
# A destination folder holding a file of another release: refused before
# anything is written (no plugin folder filled without its core).
mkdir -p "$TMP/dist3/dyng" && echo old > "$TMP/dist3/dyng/dyng-0.1.0.tar.gz"
run "split refuses a stale file" 2 release split "$TMP/good" "$TMP/dist3" --version 0.2.0
expect_err "split names the stale file" "holds dyng-0.1.0.tar.gz, which is not a file of this release"
if [ "$(find "$TMP/dist3" -type f | wc -l)" -eq 1 ]; then ok; else bad "split wrote beside a stale file: $(find "$TMP/dist3" -type f)"; fi
mkdir -p "$TMP/dist4" && echo x > "$TMP/dist4/dyng"
run "split refuses a file where a folder goes" 2 release split "$TMP/good" "$TMP/dist4" --version 0.2.0
if [ "$(find "$TMP/dist4" -type f | wc -l)" -eq 1 ]; then ok; else bad "split half-wrote: $(find "$TMP/dist4")"; fi

# A folder where a file of the release goes: refused before anything is written.
mkdir -p "$TMP/dist5/dyng-cu13/dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl/x"
run "split refuses a folder where a file goes" 2 release split "$TMP/good" "$TMP/dist5" --version 0.2.0
expect_err "split names the folder" "dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl: exists and is not a regular file"
if [ "$(find "$TMP/dist5" -type f | wc -l)" -eq 0 ]; then ok; else bad "split half-wrote: $(find "$TMP/dist5" -type f)"; fi
# The input folder is never written to.
run "split into the input folder" 2 release split "$TMP/good" "$TMP/good/sub" --version 0.2.0
expect_err "split into the input folder" "is inside the input folder"
run "split onto the input folder" 2 release split "$TMP/good" "$TMP/good/." --version 0.2.0
expect_err "split onto the input folder" "is the input folder"
if [ "$(ls "$TMP/good" | wc -l)" -eq 4 ]; then ok; else bad "split wrote into its input: $(ls "$TMP/good")"; fi

# --- policy values --------------------------------------------------------------
mkdir -p "$TMP/badurl" "$TMP/badprefix"
printf '[release]\ncore = "dyng"\n[release.indexes]\ntest = { repository-url = "htps://test.pypi.org/legacy/" }\n' >"$TMP/badurl/cuwheel.toml"
run "repository-url not a URL" 2 release plan --tag v0.2.0 --policy "$TMP/badurl/cuwheel.toml"
expect_err "repository-url not a URL" "cuwheel.toml:4: indexes.test.repository-url \"htps://test.pypi.org/legacy/\" is not an http(s) URL"
printf '[release]\ncore = "dyng"\ntag-prefix = "refs/tags/"\n' >"$TMP/badprefix/cuwheel.toml"
run "tag-prefix is a ref" 2 release select --tag refs/tags/0.2.0 --policy "$TMP/badprefix/cuwheel.toml"
expect_err "tag-prefix is a ref" "cuwheel.toml:3: tag-prefix \"refs/tags/\" starts with a ref path"

run "verify a short version" 2 release verify "$TMP/good" --version 0.2
expect_err "verify a short version" 'version "0.2" (the tag v0.2): the version has 2 release segments'

# A file of the set that is a symbolic link is split as the file it names.
mkdir -p "$TMP/linked" && cp "$TMP/good/"* "$TMP/linked/" && mv "$TMP/linked/dyng-0.2.0.tar.gz" "$TMP/store.tar.gz"
ln -s ../store.tar.gz "$TMP/linked/dyng-0.2.0.tar.gz"
run "split a symlinked file" 0 release split "$TMP/linked" "$TMP/dist6" --version 0.2.0
if [ -f "$TMP/dist6/dyng/dyng-0.2.0.tar.gz" ] && [ ! -L "$TMP/dist6/dyng/dyng-0.2.0.tar.gz" ] &&
   cmp -s "$TMP/dist6/dyng/dyng-0.2.0.tar.gz" "$TMP/store.tar.gz"; then ok; else bad "split a symlinked file: $(ls -l "$TMP/dist6/dyng")"; fi
# Names from the folder are printed escaped (a line break cannot start a CI workflow command).
mkdir -p "$TMP/inj" && cp "$TMP/good/"* "$TMP/inj/" && cp "$TMP/good/dyng-0.2.0-py3-none-any.whl" "$TMP/inj/x"$'\n'"::error::inj.whl"
run "verify an injected name" 1 release verify "$TMP/inj" --version 0.2.0
if grep -q '^::' "$TMP/out"; then bad "verify printed a line starting '::': $(grep '^::' "$TMP/out")"; else ok; fi
expect_out "verify an injected name" 'x\x0a::error::inj.whl: error[bad-filename]'

mkdir -p "$TMP/creds"
printf '[release]\ncore = "dyng"\n[release.indexes]\ntest = { repository-url = "http://user:pw@example.org/legacy/" }\n' >"$TMP/creds/cuwheel.toml"
run "repository-url with credentials" 2 release plan --tag v0.2.0 --policy "$TMP/creds/cuwheel.toml"
expect_err "repository-url with credentials" "indexes.test.repository-url holds credentials"
if grep -q "pw@" "$TMP/out" "$TMP/err"; then bad "credentials echoed"; else ok; fi
run "doubled prefix" 2 release select --tag vv0.2.0
expect_err "doubled prefix" 'after the prefix "v", "v0.2.0" is not a normalized PEP 440 version (write the tag as "v0.2.0")'

mkdir -p "$TMP/typo"
printf '[relase]\ncore = "dyng"\n' >"$TMP/typo/cuwheel.toml"
(cd "$TMP/typo" && "$CUWHEEL" release select --tag v0.2.0 >"$TMP/out" 2>"$TMP/err"); rc=$?
if [ "$rc" -eq 2 ]; then ok; else bad "misspelt table: exit $rc, expected 2"; fi
expect_err "misspelt table" "cuwheel.toml has [relase]: did you mean [release]?"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
