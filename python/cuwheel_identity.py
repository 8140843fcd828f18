"""Build identity for CUDA extension builds (standard library only).

Vendor this single file into a project (or import it) so that ``setup.py`` or
a scikit-build-core build keeps generated sources and artifacts of one CUDA
configuration apart from another's. It produces exactly the identity that
``cuwheel identity show`` and ``cmake/CuwheelIdentity.cmake`` produce.

Why (cuda-python PR #2472): Cython's up-to-date check does not hash
``compile_time_env``, so sources generated for CUDA 13 are reused for a
CUDA 12 build; and setuptools' ``build_ext`` compares mtimes, so on a
cu12 -> cu13 -> cu12 round trip the last leg keeps the cu13 extension. The
identity keys the generated-source folder (``build/cython/cu13``), and a
stamp (``build/.build-identity``) written only after a successful build
tells the next build to force ``build_ext`` when the configuration changed
or no completed build is recorded.

Canonical form::

    identity  = "cu" MAJOR *( "-" component )
    component = NAME / NAME "=" VALUE
    NAME      = [a-z][a-z0-9_]*   (lowercased; not "cu" followed by digits)
    VALUE     = [A-Za-z0-9._]+

Components are deduplicated and sorted as byte strings. Put in the identity
only what changes generated sources: coverage (Cython linetrace changes the
C), not gdb_debug (identical C) and not the Python version or platform
(setuptools keys build/lib.* and build/temp.* by them already).

Toolkit detection, in order: ``toolkit`` argument, else ``CUDA_HOME``, else
``CUDA_PATH`` (each: ``bin/nvcc --version``, else ``include/cuda.h``
``CUDA_VERSION``, else ``include/cuda_runtime_api.h`` ``CUDART_VERSION``;
both macros are major*1000 + minor*10); otherwise the first ``nvcc`` on
``PATH``. nvcc's banner says ``Cuda compilation tools, release 13.0, V13.0.88``.

Run as a script for the same commands as ``cuwheel identity``::

    python3 cuwheel_identity.py show  [--cuda-major N | --toolkit P] [--flag F]... [--generated-root DIR] [--format text|json|name|dir]
    python3 cuwheel_identity.py check [...] [--stamp FILE]   # exit 0 up to date, 1 rebuild, 2 error
    python3 cuwheel_identity.py stamp [...] [--stamp FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence, Tuple, Union

__all__ = [
    "IdentityError",
    "detect_cuda_version",
    "build_identity",
    "parse_identity",
    "generated_dir",
    "check_stamp",
    "needs_rebuild",
    "write_stamp",
]

DEFAULT_STAMP = os.path.join("build", ".build-identity")
_MAX_MAJOR = 999
_MAX_STAMP_BYTES = 4096
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_VALUE = re.compile(r"[A-Za-z0-9._]+\Z")
_RESERVED = re.compile(r"cu[0-9]+\Z")
_RELEASE = re.compile(r"release ([0-9]{1,3})\.([0-9]{1,2})(?![0-9])")

PathLike = Union[str, "os.PathLike[str]"]


class IdentityError(Exception):
    """A toolkit that cannot be read, a malformed flag, an unreadable stamp."""


def _first_line(text: str) -> str:
    line = text.split("\n", 1)[0]
    return line[:120] + "..." if len(line) > 120 else line


def parse_nvcc_version(text: str) -> Tuple[int, int]:
    """(major, minor) from ``nvcc --version`` output ("release 13.0")."""
    for m in _RELEASE.finditer(text):
        major, minor = int(m.group(1)), int(m.group(2))
        if major >= 1:
            return major, minor
    raise IdentityError("no 'release M.N' in the nvcc banner (first line: '%s')" % _first_line(text))


def parse_version_header(text: str, name: str) -> Tuple[int, int]:
    """(major, minor) from ``#define <name> 13000`` (major*1000 + minor*10)."""
    pat = re.compile(r"^[ \t]*#[ \t]*define[ \t]+%s[ \t]+(\S+)" % re.escape(name), re.M)
    m = pat.search(text)
    if not m:
        raise IdentityError("no '#define %s' line" % name)
    digits = re.match(r"[0-9]+", m.group(1))
    if not digits or len(digits.group(0)) > 6:
        raise IdentityError("#define %s: value is not a decimal number" % name)
    value = int(digits.group(0))
    if value // 1000 < 1 or value % 10 != 0:
        raise IdentityError("#define %s %d: not of the form major*1000 + minor*10" % (name, value))
    return value // 1000, (value % 1000) // 10


def _run_nvcc(nvcc: str, timeout: float) -> Tuple[int, int, str]:
    try:
        proc = subprocess.run([nvcc, "--version"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise IdentityError("%s --version: no answer after %d ms" % (nvcc, int(timeout * 1000))) from None
    except OSError as e:
        raise IdentityError("%s: cannot run: %s" % (nvcc, e.strerror)) from None
    out = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0:
        how = ("exited with status %d" % proc.returncode if proc.returncode > 0
               else "was killed by signal %d" % -proc.returncode)
        raise IdentityError("%s --version %s%s" % (nvcc, how, ": " + _first_line(out) if out else ""))
    try:
        major, minor = parse_nvcc_version(out)
    except IdentityError as e:
        raise IdentityError("%s --version: %s" % (nvcc, e)) from None
    return major, minor, nvcc + " --version"


def _from_header(path: str, macro: str) -> Tuple[int, int, str]:
    try:
        text = Path(path).read_text("utf-8", "replace")
    except OSError as e:
        raise IdentityError("%s: cannot open: %s" % (path, e.strerror)) from None
    try:
        major, minor = parse_version_header(text, macro)
    except IdentityError as e:
        raise IdentityError("%s: %s" % (path, e)) from None
    return major, minor, path


def _from_prefix(prefix: str, named_by: str, timeout: float) -> Tuple[int, int, str]:
    base = prefix.rstrip("/") or "/"
    nvcc = base + "/bin/nvcc"
    if os.path.isfile(nvcc) and os.access(nvcc, os.X_OK):
        return _run_nvcc(nvcc, timeout)
    for header, macro in (("cuda.h", "CUDA_VERSION"), ("cuda_runtime_api.h", "CUDART_VERSION")):
        path = base + "/include/" + header
        if os.path.isfile(path):
            return _from_header(path, macro)
    raise IdentityError("%s %s: no CUDA toolkit there (looked for bin/nvcc, include/cuda.h, "
                        "include/cuda_runtime_api.h)" % (named_by, prefix))


def detect_cuda_version(toolkit: Optional[PathLike] = None, env: Optional[Mapping[str, str]] = None,
                        timeout: float = 30.0) -> Tuple[int, int, str]:
    """Detects the CUDA toolkit version: ``(major, minor, source)``.

    ``toolkit`` is a toolkit prefix; without it ``CUDA_HOME``, ``CUDA_PATH``
    and ``PATH`` are read from ``env`` (default ``os.environ``). A named
    prefix without a toolkit is an error, never a fallback to PATH.
    Raises IdentityError.
    """
    env = os.environ if env is None else env
    if toolkit:
        return _from_prefix(os.fspath(toolkit), "toolkit", timeout)
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if env.get(var):
            return _from_prefix(env[var], var, timeout)
    for d in env.get("PATH", "").split(":"):
        nvcc = (d or ".") + "/nvcc"
        if os.path.isfile(nvcc) and os.access(nvcc, os.X_OK):
            major, minor, _ = _run_nvcc(nvcc, timeout)
            return major, minor, nvcc + " --version (PATH)"
    raise IdentityError("no CUDA toolkit found: --toolkit, CUDA_HOME and CUDA_PATH are unset and no nvcc "
                        "is on PATH (give --toolkit PREFIX or --cuda-major N)")


def _components(flags: Iterable[str]) -> list:
    if isinstance(flags, (str, bytes)):
        raise IdentityError("flags must be a list of strings, not the string %r" % (flags,))
    by_name: dict = {}
    for flag in flags:
        name, eq, value = flag.partition("=")
        name = "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in name)

        def bad(why: str) -> IdentityError:
            return IdentityError("flag '%s': %s" % (flag, why))

        if not name:
            raise bad("empty name")
        if not ("a" <= name[0] <= "z"):
            raise bad("a name starts with a letter a-z")
        if not _NAME.match(name):
            raise bad("a name has only a-z, 0-9 and '_'")
        if _RESERVED.match(name):
            raise bad("'cu' followed by digits is reserved for the CUDA major")
        val = None
        if eq:
            if not value:
                raise bad("empty value")
            if not _VALUE.match(value):
                raise bad("a value has only A-Z, a-z, 0-9, '.' and '_'")
            val = value
        if name in by_name and by_name[name] != val:
            def show(v):
                return name if v is None else name + "=" + v
            raise IdentityError("flag '%s' given twice, as '%s' and '%s'" % (name, show(by_name[name]), show(val)))
        by_name[name] = val
    comps = [n if v is None else n + "=" + v for n, v in by_name.items()]
    return sorted(comps, key=lambda s: s.encode("ascii"))


def build_identity(cuda_major: Optional[int] = None, flags: Sequence[str] = (), toolkit: Optional[PathLike] = None,
                   env: Optional[Mapping[str, str]] = None) -> str:
    """The canonical identity string, e.g. ``"cu13-coverage-debug"``.

    ``cuda_major`` states the major; otherwise it is detected
    (detect_cuda_version). ``flags`` are NAME or NAME=VALUE strings.
    Raises IdentityError for a bad major or flag, or an undetectable toolkit.
    """
    if cuda_major is None:
        cuda_major = detect_cuda_version(toolkit, env)[0]
    if isinstance(cuda_major, bool) or not isinstance(cuda_major, int) or not 1 <= cuda_major <= _MAX_MAJOR:
        raise IdentityError("CUDA major %r is out of range 1..%d" % (cuda_major, _MAX_MAJOR))
    return "-".join(["cu%d" % cuda_major] + _components(flags))


def parse_identity(text: str) -> Tuple[int, list]:
    """(major, components) of a canonical identity string; raises IdentityError."""
    def bad(why: str) -> IdentityError:
        return IdentityError("'%s' is not a build identity: %s" % (_first_line(text), why))

    m = re.match(r"cu([1-9][0-9]{0,2})(?=-|\Z)", text)
    if not m:
        raise bad("it does not start with cu<major> (1..%d)" % _MAX_MAJOR)
    rest = text[m.end():]
    parts = rest[1:].split("-") if rest else []
    try:
        canonical = build_identity(int(m.group(1)), parts)
    except IdentityError as e:
        raise bad(str(e)) from None
    if canonical != text:
        raise bad("components are not lowercase, sorted and unique (canonical: %s)" % canonical)
    return int(m.group(1)), parts


def generated_dir(root: PathLike, identity: str) -> str:
    """``root`` keyed by the identity: ``generated_dir("build/cython", "cu13")`` is ``build/cython/cu13``."""
    r = os.fspath(root)
    while len(r) > 1 and r.endswith("/"):
        r = r[:-1]
    if not r:
        return identity
    if r == "/":
        return "/" + identity
    return r + "/" + identity


def check_stamp(stamp: PathLike, identity: str) -> Tuple[str, Optional[str], str]:
    """Compares the stamp with ``identity``: ``(state, recorded, message)``.

    state is "matches", "differs", "missing" (no completed build recorded)
    or "malformed"; every state but "matches" means rebuild. Raises
    IdentityError when the stamp exists but cannot be read.
    """
    path = os.fspath(stamp)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return ("missing", None, "no stamp at %s (no completed build recorded), configuration is %s: rebuild"
                % (path, identity))
    except OSError as e:
        raise IdentityError("%s: cannot open: %s" % (path, e.strerror)) from None
    if not stat.S_ISREG(st.st_mode):  # a folder, or a FIFO that would block the read
        raise IdentityError("%s: not a regular file" % path)
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_STAMP_BYTES + 1)
    except OSError as e:
        raise IdentityError("%s: cannot open: %s" % (path, e.strerror)) from None
    if len(data) > _MAX_STAMP_BYTES:
        raise IdentityError("%s: larger than %d bytes" % (path, _MAX_STAMP_BYTES))
    text = data.decode("utf-8", "replace").rstrip("\n\r \t")
    try:
        if "\0" in text:
            raise IdentityError("stamp holds a NUL byte")
        parse_identity(text)
    except IdentityError as e:
        return ("malformed", text, "%s: %s; configuration is %s: rebuild" % (path, e, identity))
    if text == identity:
        return ("matches", text, "stamp says %s, configuration is %s: up to date" % (text, identity))
    return ("differs", text, "stamp says %s, configuration is %s: rebuild" % (text, identity))


def needs_rebuild(stamp: PathLike, identity: str) -> bool:
    """True when the stamp is missing, malformed or records another identity."""
    return check_stamp(stamp, identity)[0] != "matches"


def write_stamp(stamp: PathLike, identity: str) -> None:
    """Writes ``identity`` + newline to ``stamp`` atomically (temporary file in
    the same folder, fsync, os.replace). Call only after a successful build."""
    parse_identity(identity)
    path = os.fspath(stamp)
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(identity + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise



def _decimal_major(text: str) -> int:
    """argparse type for --cuda-major: decimal digits, no sign or leading zero (as the cuwheel binary)."""
    if not text.isdigit() or not text.isascii() or (len(text) > 1 and text[0] == "0"):
        import argparse
        raise argparse.ArgumentTypeError("%r is not a decimal number without a leading zero" % text)
    return int(text)

def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="cuwheel_identity.py", description="Build identity (like cuwheel identity)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("show", "check", "stamp"):
        p = sub.add_parser(name)
        group = p.add_mutually_exclusive_group()
        group.add_argument("--toolkit")
        group.add_argument("--cuda-major", type=_decimal_major)
        p.add_argument("--flag", action="append", default=[])
        formats = ["text", "json", "name", "dir"] if name == "show" else ["text", "json"]
        p.add_argument("--format", choices=formats, default="text")
        if name == "show":
            p.add_argument("--generated-root", default="")
        else:
            p.add_argument("--stamp", default=DEFAULT_STAMP)
    args = parser.parse_args(argv)
    try:
        ident = build_identity(args.cuda_major, args.flag, args.toolkit)
        if args.command == "show":
            if args.format == "dir" and not args.generated_root:
                raise IdentityError("--format dir needs --generated-root")
            gdir = generated_dir(args.generated_root, ident) if args.generated_root else None
            if args.format == "json":
                print(json.dumps({"schema": 1, "tool": "cuwheel_identity.py", "command": "identity show",
                                  "identity": ident, "generated_dir": gdir}, indent=2))
            elif args.format == "dir":
                print(gdir)
            else:
                print(ident)
            return 0
        if args.command == "check":
            state, recorded, message = check_stamp(args.stamp, ident)
            if args.format == "json":
                print(json.dumps({"schema": 1, "tool": "cuwheel_identity.py", "command": "identity check",
                                  "identity": ident, "stamp": args.stamp, "state": state, "recorded": recorded,
                                  "rebuild": state != "matches", "message": message}, indent=2))
            else:
                print(message)
            return 0 if state == "matches" else 1
        write_stamp(args.stamp, ident)
        print("wrote %s: %s" % (args.stamp, ident))
        return 0
    except (IdentityError, OSError) as e:
        print("cuwheel_identity.py: error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
