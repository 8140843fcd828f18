#!/usr/bin/env bash
# End-to-end tests of check's output controls (docs/check.md, "Output on
# large wheels"): --statistics, -q/--quiet, --max-findings, --baseline and
# --write-baseline, --color and NO_COLOR, and SARIF's stable fingerprints.
#
# Usage: tests/e2e/check_output_test.sh path/to/cuwheel   (from the repository root)
set -u
CUWHEEL=$1
. "$(dirname "$0")/common.sh"
F=tests/fixtures/check/wheel

run() {
  rc=0
  "$CUWHEEL" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
}
has_out() { grep -qF -- "$1" "$WORK/out" && ok || bad "$2: stdout lacks '$1' ($(head -c 300 "$WORK/out"))"; }
lacks_out() { grep -qF -- "$1" "$WORK/out" && bad "$2: stdout has '$1'" || ok; }
has_err() { grep -qF -- "$1" "$WORK/err" && ok || bad "$2: stderr lacks '$1' ($(head -c 300 "$WORK/err"))"; }
status() { [ "$rc" = "$1" ] && ok || bad "$2: exit status $rc, expected $1"; }
json() { python3 -c "import json,sys; d=json.load(open('$WORK/out')); print($1)"; }

# The fixtures: 13 wheels, 14 errors and 2 warnings with the built-in policy.
run check "$F"/*.whl
status 1 "plain"
has_out "13 inputs checked: 14 errors, 2 warnings" "plain"
full_lines=$(wc -l <"$WORK/out")

# --statistics: one line per rule, most frequent first, then the summary.
run check --statistics "$F"/*.whl
status 1 "--statistics"
[ "$(head -1 "$WORK/out")" = "6  CW304  record-mismatch       error" ] && ok || bad "--statistics first line: $(head -1 "$WORK/out")"
has_out "2  CW302  tag-mismatch          warning" "--statistics"
has_out "13 inputs checked: 14 errors, 2 warnings" "--statistics"
[ "$(wc -l <"$WORK/out")" = 5 ] && ok || bad "--statistics: $(wc -l <"$WORK/out") lines, expected 4 rules and the summary"
run check --statistics --format json "$F"/*.whl
status 1 "--statistics json"
[ "$(json "sum(s['count'] for s in d['summary']['statistics'])")" = 16 ] && ok || bad "json statistics do not add up to 16"
[ "$(json "len(d['findings'])")" = 16 ] && ok || bad "json --statistics keeps the findings"
run check --statistics --format sarif "$F"/*.whl
status 2 "--statistics with sarif"
has_err "--statistics" "--statistics with sarif"

# --quiet: errors only, no summary line; the exit status is unchanged.
run check -q "$F"/*.whl
status 1 "-q"
lacks_out "warning[" "-q"
lacks_out "inputs checked" "-q"
has_out "error[record-mismatch]" "-q"
run check --quiet "$F"/cwfix_tag-1.0.0-py3-none-linux_x86_64.whl
status 0 "-q on a wheel with only a warning"
[ ! -s "$WORK/out" ] && ok || bad "-q with no error prints nothing ($(cat "$WORK/out"))"

# --max-findings: the first N, a line saying how many more, full counts.
run check --max-findings 3 "$F"/*.whl
status 1 "--max-findings"
[ "$(grep -c '^tests/fixtures' "$WORK/out")" = 3 ] && ok || bad "--max-findings 3 printed $(grep -c '^tests/fixtures' "$WORK/out") findings"
has_out "more findings not shown (--max-findings 3;" "--max-findings"
has_out "13 inputs checked: 14 errors, 2 warnings" "--max-findings"
run check --max-findings 3 --format github "$F"/*.whl
[ "$(grep -c '^::error\|^::warning' "$WORK/out")" = 3 ] && ok || bad "--max-findings 3 --format github: $(grep -c '^::' "$WORK/out") annotations"
has_out "::notice title=cuwheel::13 more findings not shown (--max-findings 3)" "--max-findings github notice"
run check --max-findings 0 "$F"/*.whl
status 1 "--max-findings 0"
[ "$(grep -c '^tests/fixtures' "$WORK/out")" = 0 ] && ok || bad "--max-findings 0 listed findings"
has_out "16 more findings not shown (--max-findings 0;" "--max-findings 0"
for v in -1 18446744073709551616 1e3 ""; do
  run check --max-findings "$v" "$F"/cwfix-1.0.0-py3-none-any.whl
  status 2 "--max-findings '$v'"
done
run check --max-findings 3 --format json "$F"/*.whl
[ "$(json "len(d['findings'])")" = 16 ] && ok || bad "--max-findings leaves JSON whole"

# Baseline: today's findings accepted, only new ones count.
run check --write-baseline "$WORK/baseline.json" "$F"/cwfix_record-1.0.0-py3-none-any.whl "$F"/cwfix_tag-1.0.0-py3-none-linux_x86_64.whl
status 0 "--write-baseline"
has_err "as the baseline" "--write-baseline"
[ "$(python3 -c "import json; print(len(json.load(open('$WORK/baseline.json'))['findings']))")" -ge 2 ] && ok || bad "baseline file holds the findings"
run check --baseline "$WORK/baseline.json" "$F"/cwfix_record-1.0.0-py3-none-any.whl "$F"/cwfix_tag-1.0.0-py3-none-linux_x86_64.whl
status 0 "--baseline, nothing new"
has_out "findings in the baseline" "--baseline"
run check --baseline "$WORK/baseline.json" "$F"/cwfix_record-1.0.0-py3-none-any.whl "$F"/cwfix_nolicense-1.0.0-py3-none-any.whl
status 1 "--baseline, a new wheel's errors"
has_out "error[missing-license-file]" "--baseline new finding"
lacks_out "error[record-mismatch]" "--baseline accepted finding"
run check --baseline "$WORK/baseline.json" --format json "$F"/cwfix_record-1.0.0-py3-none-any.whl
[ "$(json "d['summary']['baselined'] > 0 and d['summary']['errors'] == 0")" = True ] && ok || bad "json summary.baselined"
# Baselines that are not one: exit 2, with what is wrong on stderr.
printf '{"schema": 1, "findings": [{"fingerprint": "nope"}]}' >"$WORK/bad.json"
python3 -c "n=100000; print('{\"schema\":1,\"x\":' + '['*n + ']'*n + ',\"findings\":[]}')" >"$WORK/deep.json"
printf '{"schema":1,"findings":"x","findings":[]}' >"$WORK/twice.json"
for case in "missing.json:missing.json" "bad.json:findings[0]" "deep.json:nested deeper than" "twice.json:written twice"; do
  run check --baseline "$WORK/${case%%:*}" "$F"/cwfix-1.0.0-py3-none-any.whl
  status 2 "--baseline ${case%%:*}"
  has_err "${case#*:}" "--baseline ${case%%:*}"
done
run check --baseline "$WORK/baseline.json" --write-baseline "$WORK/b2.json" "$F"/cwfix-1.0.0-py3-none-any.whl
status 2 "--baseline with --write-baseline"
# The baseline never replaces an input, nor what is not a regular file.
cp "$F"/cwfix_record-1.0.0-py3-none-any.whl "$WORK/in.whl"
run check --write-baseline "$WORK/in.whl" "$WORK/in.whl"
status 2 "--write-baseline over an input"
has_err "is an input of this run" "--write-baseline over an input"
cmp -s "$WORK/in.whl" "$F"/cwfix_record-1.0.0-py3-none-any.whl && ok || bad "--write-baseline changed its input"
mkfifo "$WORK/fifo"
ln -s "$WORK/target.json" "$WORK/link.json"
for target in "$WORK/fifo" "$WORK/link.json" "$WORK"; do
  run check --write-baseline "$target" "$F"/cwfix-1.0.0-py3-none-any.whl
  status 2 "--write-baseline $target"
done
[ -p "$WORK/fifo" ] && [ -L "$WORK/link.json" ] && ok || bad "--write-baseline replaced a FIFO or a link"
printf 'not a wheel' >"$WORK/broken.whl"
run check --write-baseline "$WORK/b3.json" --format json "$WORK/broken.whl" "$F"/cwfix_record-1.0.0-py3-none-any.whl
status 2 "--write-baseline with unreadable input"
[ "$(json "d['summary']['inputs'] == 1 and len(d['summary']['unreadable']) == 1 and d['summary']['errors'] > 0")" = True ] && ok || bad "--write-baseline with unreadable input: the report in its format, with counts"
has_err "baseline not written" "--write-baseline with unreadable input"
[ ! -e "$WORK/b3.json" ] && ok || bad "--write-baseline wrote a baseline of a run that could not read everything"

# SARIF: every result carries its fingerprint, the one the baseline uses.
run check --format sarif "$F"/*.whl
[ "$(json "all(len(r['partialFingerprints']['cuwheelFinding/v1']) == 32 for r in d['runs'][0]['results'])")" = True ] && ok || bad "sarif partialFingerprints"
fp=$(json "sorted(r['partialFingerprints']['cuwheelFinding/v1'] for r in d['runs'][0]['results'])")
run check --write-baseline "$WORK/all.json" "$F"/*.whl
[ "$(python3 -c "import json; print(sorted(f['fingerprint'] for f in json.load(open('$WORK/all.json'))['findings']))")" = "$fp" ] && ok || bad "sarif and baseline fingerprints differ"

# Colour: never into a pipe unless asked; NO_COLOR wins on a terminal.
run check "$F"/*.whl
grep -q $'\x1b' "$WORK/out" && bad "colour into a pipe" || ok
run check --color always "$F"/*.whl
grep -qF $'\x1b[1;31merror\x1b[0m[' "$WORK/out" && ok || bad "--color always has no colour"
run check --color never "$F"/*.whl
grep -q $'\x1b' "$WORK/out" && bad "--color never" || ok
run check --color sometimes "$F"/*.whl
status 2 "--color sometimes"
if command -v script >/dev/null; then
  TERM=xterm script -qec "'$CUWHEEL' check $F/cwfix_record-1.0.0-py3-none-any.whl" /dev/null >"$WORK/tty" 2>&1 || true
  grep -q $'\x1b\[1;31m' "$WORK/tty" && ok || bad "a terminal gets colour ($(head -c 200 "$WORK/tty"))"
  NO_COLOR=1 TERM=xterm script -qec "'$CUWHEEL' check $F/cwfix_record-1.0.0-py3-none-any.whl" /dev/null >"$WORK/tty" 2>&1 || true
  grep -q $'\x1b\[1;31m' "$WORK/tty" && bad "NO_COLOR on a terminal still coloured" || ok
else
  echo "note: script(1) missing: terminal colour not tested"
fi
[ "$full_lines" -gt 16 ] && ok || bad "plain report too short ($full_lines lines)"

finish
