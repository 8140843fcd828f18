"""Type-checked with mypy --strict beside the package: how a release
script uses the API, so that a change to the types that breaks such code
fails the test."""

from __future__ import annotations

from typing import List

import cuwheel
from cuwheel import CheckReport, Finding


def errors_of(paths: List[str]) -> List[Finding]:
    report: CheckReport = cuwheel.check(paths, select=["exact-pin"], ignore=[])
    return [f for f in report["findings"] if f["severity"] == "error"]


def first_sass(path: str) -> str:
    show = cuwheel.show(path)
    for obj in show["inputs"][0]["objects"]:
        dc = obj.get("device_code")
        if dc and dc["sass"]:
            return dc["sass"][0]
    return ""


def needed_classes(path: str) -> List[str]:
    return [n["class"] for i in cuwheel.show(path)["inputs"] for o in i["objects"] for n in o["needed"]]


def grew(old: str, new: str) -> bool:
    return cuwheel.diff(old, new)["change"]["size"] > 0
