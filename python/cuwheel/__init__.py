"""cuwheel from Python: the bundled ``cuwheel`` binary, run for you.

Each function runs the binary with ``--format json`` and returns the parsed
document, typed as the JSON schema documents it (``cuwheel._types``)::

    import cuwheel

    report = cuwheel.check("dist/dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl")
    for f in report["findings"]:
        print(f["severity"], f["rule"], f["message"])
    if report["summary"]["errors"]:
        raise SystemExit(1)

A run that finds problems is not an error: ``check`` returns its report
(exit status 1 is ``summary["errors"] > 0``). What stops the command --
input it cannot read, a policy it cannot parse, a flag it refuses -- raises
:class:`CuwheelError` with the exit status, the message the binary printed
on stderr and, when it printed one, the report.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from typing import Any, Iterable, List, Optional, Sequence, Union

from cuwheel._types import (
    CheckReport,
    DiffReport,
    Finding,
    ListReport,
    ShowReport,
)

__all__ = [
    "CuwheelError",
    "CheckReport",
    "DiffReport",
    "Finding",
    "ListReport",
    "ShowReport",
    "binary",
    "check",
    "diff",
    "list_device_code",
    "run",
    "show",
    "version",
]

PathLike = Union[str, "os.PathLike[str]"]


class CuwheelError(Exception):
    """The binary could not do what was asked.

    ``returncode`` is its exit status (2: unreadable input or a usage
    error), ``message`` what it printed on stderr, ``report`` the JSON
    document it printed anyway (a check report lists the unreadable inputs
    in ``summary["unreadable"]``), or None.
    """

    def __init__(self, returncode: int, message: str, report: Optional[Any] = None) -> None:
        super().__init__(f"cuwheel exited with status {returncode}: {message.strip()}")
        self.returncode = returncode
        self.message = message
        self.report = report


def binary() -> str:
    """The path of the ``cuwheel`` binary this package runs.

    ``CUWHEEL_BINARY`` when set; else the one the wheel installed into this
    environment's scripts folder (``bin/``; the user scheme's for
    ``pip install --user``; ``DIR/bin/`` for ``pip install --target DIR``);
    else the first ``cuwheel`` on PATH. Raises
    FileNotFoundError naming the places looked at.
    """
    explicit = os.environ.get("CUWHEEL_BINARY")
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise FileNotFoundError(f"CUWHEEL_BINARY={explicit} is not an executable file")
    exe = "cuwheel" + (sysconfig.get_config_var("EXE") or "")
    looked: List[str] = []
    schemes = [sysconfig.get_default_scheme()] if hasattr(sysconfig, "get_default_scheme") else []
    user = f"{os.name}_user"
    if user in sysconfig.get_scheme_names():
        schemes.append(user)
    for scheme in schemes:
        folder = sysconfig.get_path("scripts", scheme)
        if not folder:
            continue
        candidate = os.path.join(folder, exe)
        if candidate in looked:
            continue
        looked.append(candidate)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    # The folder of the running interpreter (a virtual environment's bin/),
    # and `pip install --target DIR`'s DIR/bin/ beside this package.
    for candidate in (os.path.join(os.path.dirname(sys.executable), exe),
                      os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bin", exe)):
        if candidate in looked:
            continue
        looked.append(candidate)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(exe)
    if found:
        return found
    raise FileNotFoundError("no cuwheel binary: looked at " + ", ".join(looked) + " and PATH")


def run(args: Sequence[str], *, check_status: bool = True) -> "subprocess.CompletedProcess[str]":
    """Runs ``cuwheel ARGS...`` and returns the finished process (text).

    With ``check_status``, an exit status of 2 or more raises
    :class:`CuwheelError`; 0 and 1 (findings) are returned.
    """
    proc = subprocess.run([binary(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check_status and proc.returncode >= 2:
        raise CuwheelError(proc.returncode, proc.stderr, _parse_or_none(proc.stdout))
    return proc


def version() -> str:
    """The binary's version, as ``cuwheel --version`` prints it (``cuwheel 0.1.0``)."""
    return run(["--version"]).stdout.strip()


def _parse_or_none(text: str) -> Optional[Any]:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _json(args: List[str]) -> Any:
    proc = subprocess.run([binary(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    doc = _parse_or_none(proc.stdout)
    if proc.returncode >= 2 or doc is None:
        raise CuwheelError(proc.returncode, proc.stderr or proc.stdout, doc)
    return doc


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    out = [os.fspath(p) for p in paths]
    if not out:
        raise ValueError("no path given")
    return out


def _flag_list(flag: str, values: Optional[Iterable[str]]) -> List[str]:
    if values is None:
        return []
    items = list(values)
    return [flag, ",".join(items)] if items else []


def check(
    paths: Union[PathLike, Iterable[PathLike]],
    *,
    policy: Optional[PathLike] = None,
    select: Optional[Iterable[str]] = None,
    ignore: Optional[Iterable[str]] = None,
    deps: Optional[Iterable[PathLike]] = None,
    baseline: Optional[PathLike] = None,
    args: Sequence[str] = (),
) -> CheckReport:
    """``cuwheel check``: the findings for wheels, libraries or environments.

    ``policy`` is a policy file (default: as the command finds one);
    ``select``/``ignore`` rule names or codes; ``deps`` dependency wheels
    or folders (``--deps``); ``baseline`` a baseline file; ``args`` any
    further flags (``["--cuda-major", "13"]``). Returns the report
    (docs/check.md); raises :class:`CuwheelError` on exit status 2.
    """
    argv = ["check", "--format", "json"]
    if policy is not None:
        argv += ["--policy", os.fspath(policy)]
    argv += _flag_list("--select", select) + _flag_list("--ignore", ignore)
    for d in deps or ():
        argv += ["--deps", os.fspath(d)]
    if baseline is not None:
        argv += ["--baseline", os.fspath(baseline)]
    argv += list(args)
    argv += ["--", *_paths(paths)]
    report: CheckReport = _json(argv)
    return report


def show(paths: Union[PathLike, Iterable[PathLike]], *, args: Sequence[str] = ()) -> ShowReport:
    """``cuwheel show``: soname, NEEDED, RUNPATH, CUDA runtime and device code per library."""
    report: ShowReport = _json(["show", "--format", "json", *args, "--", *_paths(paths)])
    return report


def list_device_code(paths: Union[PathLike, Iterable[PathLike]], *, args: Sequence[str] = ()) -> ListReport:
    """``cuwheel list``: every fatbin entry (SASS, PTX, LTO-IR) per object."""
    report: ListReport = _json(["list", "--format", "json", *args, "--", *_paths(paths)])
    return report


def diff(old: PathLike, new: PathLike, *, args: Sequence[str] = ()) -> DiffReport:
    """``cuwheel diff``: what changed between two builds of a wheel (docs/diff.md)."""
    report: DiffReport = _json(["diff", "--format", "json", *args, "--", os.fspath(old), os.fspath(new)])
    return report
