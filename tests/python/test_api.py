"""The Python API (python/cuwheel), run from the installed wheel.

scripts/python-tests.sh builds the wheel, installs it into a fresh virtual
environment and runs these tests there, from the repository root (the
fixtures are read from tests/fixtures/).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Union, get_args, get_origin, get_type_hints

import pytest

import cuwheel
from cuwheel import _types

ROOT = Path(__file__).resolve().parents[2]
WHEELS = sorted((ROOT / "tests/fixtures/check/wheel").glob("*.whl"))
DEVICE = ROOT / "tests/fixtures/bin"


def declared_keys(cls: Any) -> Dict[str, Any]:
    return get_type_hints(cls)


def undeclared(value: Any, tp: Any, where: str = "$") -> List[str]:
    """Keys in `value` that the type `tp` does not declare, as JSON paths."""
    origin = get_origin(tp)
    if origin is Union:
        args = [a for a in get_args(tp) if a is not type(None)]
        return undeclared(value, args[0], where) if value is not None and args else []
    if origin in (list, List):
        (item,) = get_args(tp)
        out: List[str] = []
        for i, v in enumerate(value):
            out += undeclared(v, item, f"{where}[{i}]")
        return out
    if origin in (dict, Dict):
        _, item = get_args(tp)
        out = []
        for k, v in value.items():
            out += undeclared(v, item, f"{where}.{k}")
        return out
    if isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__annotations__"):
        hints = declared_keys(tp)
        out = [f"{where}.{k}" for k in value if k not in hints]
        for k, v in value.items():
            if k in hints:
                out += undeclared(v, hints[k], f"{where}.{k}")
        return out
    return []


def test_binary_is_on_path_and_runs() -> None:
    exe = shutil.which("cuwheel")
    assert exe is not None
    assert Path(exe).parent == Path(sys.executable).parent  # the wheel put it in the venv's bin/
    assert cuwheel.binary() == exe
    assert re.fullmatch(r"cuwheel \d+\.\d+\.\d+", cuwheel.version())
    out = subprocess.run([sys.executable, "-m", "cuwheel", "--version"], stdout=subprocess.PIPE, text=True, check=True)
    assert out.stdout.strip() == cuwheel.version()
    # The rules and their pages come with the binary.
    page = subprocess.run([exe, "rule", "missing-sass"], stdout=subprocess.PIPE, text=True, check=True).stdout
    assert page.startswith("# missing-sass (")


def test_check_returns_typed_findings() -> None:
    report = cuwheel.check(WHEELS)
    assert report["command"] == "check"
    assert report["summary"]["inputs"] == len(WHEELS)
    assert report["summary"]["errors"] == sum(f["severity"] == "error" for f in report["findings"]) > 0
    assert undeclared(report, _types.CheckReport) == []
    rules = {f["rule"] for f in report["findings"]}
    assert {"record-mismatch", "metadata-invalid"} <= rules
    assert all(re.fullmatch(r"CW\d{3}", f["code"]) for f in report["findings"])


def test_check_select_and_statistics() -> None:
    report = cuwheel.check(WHEELS, select=["record-mismatch"], args=["--statistics"])
    assert {f["rule"] for f in report["findings"]} == {"record-mismatch"}
    stats = report["summary"].get("statistics", [])
    assert [s["rule"] for s in stats] == ["record-mismatch"]
    assert undeclared(report, _types.CheckReport) == []


def test_check_baseline(tmp_path: Path) -> None:
    base = tmp_path / "baseline.json"
    cuwheel.run(["check", "--write-baseline", str(base), *map(str, WHEELS)])
    report = cuwheel.check(WHEELS, baseline=base)
    assert report["summary"]["errors"] == 0
    assert report["summary"].get("baselined", 0) > 0


def test_unreadable_input_raises_with_the_report(tmp_path: Path) -> None:
    broken = tmp_path / "broken-1.0-py3-none-any.whl"
    broken.write_bytes(b"not a zip")
    with pytest.raises(cuwheel.CuwheelError) as e:
        cuwheel.check([broken, WHEELS[0]])
    assert e.value.returncode == 2
    assert e.value.report is not None
    assert e.value.report["summary"]["unreadable"][0]["where"].endswith("broken-1.0-py3-none-any.whl")


def test_usage_error_raises() -> None:
    with pytest.raises(cuwheel.CuwheelError) as e:
        cuwheel.check(WHEELS[0], args=["--color", "sometimes"])
    assert e.value.returncode == 2
    assert "--color" in e.value.message
    with pytest.raises(ValueError):
        cuwheel.check([])


def test_show_list_and_diff_are_declared() -> None:
    libs = [DEVICE / n for n in ("libsuffix.so", "libmulti.so", "libfamily.so", "libplain.so", "cu12_plain.so", "libdebug.so")]
    assert all(p.is_file() for p in libs)
    show = cuwheel.show(libs)
    assert undeclared(show, _types.ShowReport) == []
    assert any(o.get("device_code") for i in show["inputs"] for o in i["objects"])
    listing = cuwheel.list_device_code(libs)
    assert undeclared(listing, _types.ListReport) == []
    wheel_show = cuwheel.show(WHEELS[0])
    assert "wheel" in wheel_show["inputs"][0]
    assert undeclared(wheel_show, _types.ShowReport) == []
    d = cuwheel.diff(WHEELS[0], WHEELS[1])
    assert d["command"] == "diff"
    assert undeclared(d, _types.DiffReport) == []


DOCS = {
    "ListReport": "docs/json-schema.md",
    "ShowReport": "docs/json-schema.md",
    "CheckReport": "docs/check.md",
    "DiffReport": "docs/diff.md",
}


def all_typeddicts(tp: Any, seen: Dict[str, Any]) -> None:
    origin = get_origin(tp)
    if origin is not None:
        for a in get_args(tp):
            all_typeddicts(a, seen)
        return
    if isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__annotations__") and tp.__name__ not in seen:
        seen[tp.__name__] = tp
        for h in declared_keys(tp).values():
            all_typeddicts(h, seen)


@pytest.mark.parametrize("report", sorted(DOCS))
def test_every_declared_field_is_documented(report: str) -> None:
    text = (ROOT / DOCS[report]).read_text()
    # A field is named when it is a word of a code span (`summary.errors`,
    # `{gpu, code}`) or a quoted key ("where").
    spans = re.findall(r"`([^`\n]+)`", text.replace("```", "\n"))  # fences are not spans
    named = {w for span in spans for w in re.findall(r"[a-z_0-9]+", span)}
    named |= set(re.findall(r'"([a-z_0-9]+)"', text))
    types: Dict[str, Any] = {}
    all_typeddicts(getattr(_types, report), types)
    missing = sorted(f"{name}.{field}" for name, tp in types.items() for field in declared_keys(tp) if field not in named)
    assert missing == [], f"fields declared in cuwheel._types but not named in {DOCS[report]}"


def test_environment_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUWHEEL_BINARY", str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError):
        cuwheel.binary()
    monkeypatch.setenv("CUWHEEL_BINARY", shutil.which("cuwheel") or "")
    assert cuwheel.version().startswith("cuwheel ")
    os.environ.pop("CUWHEEL_BINARY", None)
