"""The packaging recipes of docs/github-actions.md and docs/cibuildwheel.md.

scripts/validate-recipes.sh checks action.yml and the example workflow with
check-jsonschema and zizmor and runs the action's steps, reads each
[tool.cibuildwheel] block with cibuildwheel itself and runs its repair
command on real wheels. scripts/python-tests.sh installs those tools into
the test environment, so nothing here needs the network; it passes this
environment as the script's tools, the installed cuwheel as its binary and
the wheel under test (CUWHEEL_WHEEL) to its action run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cuwheel

ROOT = Path(__file__).resolve().parents[2]


def test_validate_recipes(tmp_path: Path) -> None:
    env = dict(os.environ, RECIPE_TOOLS=sys.prefix, CUWHEEL=cuwheel.binary())
    r = subprocess.run(["bash", str(ROOT / "scripts/validate-recipes.sh"), "--work", str(tmp_path)], cwd=ROOT, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-6000:]
    last = r.stdout.strip().splitlines()[-1]
    assert last.endswith(" passed, 0 failed") and int(last.split()[0]) >= 40, r.stdout[-3000:]
