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
    "describe_changes",
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


# Characters shown as \xNN (byte by byte, of their UTF-8 form), as the
# cuwheel binary's printable(): C0 controls, DEL, C1 controls, the line and
# paragraph separators, and the bidirectional formatting characters
# (Unicode Standard Annex #9).
_ESCAPED = frozenset(list(range(0x20)) + list(range(0x7F, 0xA0)) + [0x2028, 0x2029, 0x061C, 0x200E, 0x200F]
                     + list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A)))


def _printable(data: Union[bytes, str]) -> str:
    """Text read from input, safe to print: well-formed printable UTF-8
    (RFC 3629) is kept; the characters above and every byte that is not
    part of a well-formed sequence show as \\xNN. Escapes from bytes, never
    from text decoded with "replace"; a str is taken as its UTF-8 bytes
    (surrogateescape, so undecodable file names keep their bytes)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    out = []
    for ch in data.decode("utf-8", "surrogateescape"):
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:  # a byte the UTF-8 decoder refused
            out.append("\\x%02x" % (o - 0xDC00))
        elif o in _ESCAPED:
            out.extend("\\x%02x" % b for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return "".join(out)


def _quoted(data: bytes) -> str:
    """All of a stamp, escaped, cut at 120 bytes (as the binary)."""
    return _printable(data[:120]) + "..." if len(data) > 120 else _printable(data)


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
            return IdentityError("flag '%s': %s" % (_printable(flag), why))

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


def _parse_identity_bytes(data: bytes) -> Tuple[int, list]:
    """parse_identity on the bytes of a stamp; the reasons are the binary's."""
    def bad(why: str) -> IdentityError:
        return IdentityError("'%s' is not a build identity: %s" % (_quoted(data), why))

    # What is wrong with the text as a whole first: a stamp is one line.
    breaks = [i for i in (data.find(b"\n"), data.find(b"\r")) if i >= 0]
    if breaks:
        raise bad("it has more than one line (a line break at offset %d; a stamp holds one identity on one line)"
                  % min(breaks))
    if b"\0" in data:
        raise bad("it holds a NUL byte at offset %d" % data.find(b"\0"))
    if len(data) < 3 or not data.startswith(b"cu"):
        raise bad("it does not start with cu<major>")
    if data[2:3] == b"0":
        raise bad("the CUDA major has a leading zero")
    m = re.match(rb"[0-9]+", data[2:])
    if not m or int(m.group(0)) > _MAX_MAJOR:
        raise bad("no CUDA major (1..%d) after 'cu'" % _MAX_MAJOR)
    major = int(m.group(0))
    pos = 2 + m.end()
    parts = []
    while pos < len(data):
        if data[pos:pos + 1] != b"-":
            raise bad("expected '-' at offset %d" % pos)
        nxt = data.find(b"-", pos + 1)
        end = len(data) if nxt < 0 else nxt
        parts.append(data[pos + 1:end].decode("utf-8", "surrogateescape"))
        pos = end
    try:
        canonical = build_identity(major, parts)
    except IdentityError as e:
        raise bad(str(e)) from None
    if canonical.encode("ascii") != data:
        raise bad("components are not lowercase, sorted and unique (canonical: %s)" % canonical)
    return major, parts


def parse_identity(text: Union[str, bytes]) -> Tuple[int, list]:
    """(major, components) of a canonical identity string; raises IdentityError
    with the cuwheel binary's reasons (a line break or a NUL byte with its
    offset, a missing or out-of-range major, a bad flag, a non-canonical
    order), quoting the text escaped."""
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogateescape")
    return _parse_identity_bytes(text)


def describe_changes(recorded: str, current: str) -> list:
    """What changed from the recorded identity to the current one, in the
    binary's words: "CUDA major 12 -> 13", "removed debug", "added
    coverage", "san: asan -> tsan" (flags in byte order of their names)."""
    rmaj, rparts = parse_identity(recorded)
    cmaj, cparts = parse_identity(current)
    out = []
    if rmaj != cmaj:
        out.append("CUDA major %d -> %d" % (rmaj, cmaj))
    before = {c.partition("=")[0]: c for c in rparts}
    after = {c.partition("=")[0]: c for c in cparts}

    def value(c: str) -> str:
        return c.partition("=")[2] if "=" in c else "(set)"

    for name in sorted(before, key=lambda n: n.encode("ascii")):
        if name not in after:
            out.append("removed " + before[name])
        elif after[name] != before[name]:
            out.append("%s: %s -> %s" % (name, value(before[name]), value(after[name])))
    for name in sorted(after, key=lambda n: n.encode("ascii")):
        if name not in before:
            out.append("added " + after[name])
    return out


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
    shown = _printable(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return ("missing", None, "no stamp at %s (no completed build recorded), configuration is %s: rebuild"
                % (shown, identity))
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
    # ASCII white space around the identity is ignored (space, tab, CR, LF);
    # offsets in the reasons count from the first byte that is not.
    data = data.strip(b" \t\r\n")
    recorded = _printable(data)
    try:
        _parse_identity_bytes(data)
    except IdentityError as e:
        return ("malformed", recorded, "%s: %s; configuration is %s: rebuild" % (shown, e, identity))
    text = data.decode("ascii")  # a parsed identity is ASCII
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
        toolkit = None
        major = args.cuda_major

        def unreadable(where: str, e: IdentityError) -> int:
            # check could not read the toolkit or the stamp: exit status 2,
            # and with --format json the binary's document of it
            # (docs/rules/identity/unreadable.md).
            print("cuwheel_identity.py: error: %s" % e, file=sys.stderr)
            if args.command == "check" and args.format == "json":
                print(json.dumps({"schema": 1, "tool": "cuwheel_identity.py", "command": "identity check",
                                  "unreadable": [{"where": where, "message": str(e)}]}, indent=2))
            return 2

        if major is None:
            try:
                tk_major, tk_minor, source = detect_cuda_version(args.toolkit)
            except IdentityError as e:
                return unreadable(args.toolkit or "toolkit", e)
            major, toolkit = tk_major, {"version": "%d.%d" % (tk_major, tk_minor), "source": source}
        ident = build_identity(major, args.flag)
        comps = parse_identity(ident)[1]

        def document(command: str) -> dict:  # the keys of the binary's JSON (docs/identity.md)
            return {"schema": 1, "tool": "cuwheel_identity.py", "command": command, "identity": ident,
                    "cuda_major": major, "components": comps, "toolkit": toolkit}

        if args.command == "show":
            if args.format == "dir" and not args.generated_root:
                raise IdentityError("--format dir needs --generated-root")
            gdir = generated_dir(args.generated_root, ident) if args.generated_root else None
            if args.format == "json":
                doc = document("identity show")
                doc["generated_dir"] = gdir
                print(json.dumps(doc, indent=2))
            elif args.format == "dir":
                print(gdir)
            else:
                print(ident)
            return 0
        if args.command == "check":
            try:
                state, recorded, message = check_stamp(args.stamp, ident)
            except IdentityError as e:
                return unreadable(args.stamp, e)
            changes = describe_changes(recorded, ident) if state == "differs" else []
            if args.format == "json":
                doc = document("identity check")
                doc.update({"stamp": args.stamp, "state": state, "recorded": recorded, "changes": changes,
                            "rebuild": state != "matches", "message": message})
                print(json.dumps(doc, indent=2))
            else:
                print(message)
                for c in changes:
                    print("  " + c)
            return 0 if state == "matches" else 1
        write_stamp(args.stamp, ident)
        if args.format == "json":
            doc = document("identity stamp")
            doc["stamp"] = args.stamp
            print(json.dumps(doc, indent=2))
        else:
            print("wrote %s: %s" % (_printable(args.stamp), ident))
        return 0
    except (IdentityError, OSError) as e:
        print("cuwheel_identity.py: error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
