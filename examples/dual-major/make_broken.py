#!/usr/bin/env python3
"""Makes the broken variants of the example's wheels: each is a good wheel
with one thing wrong, so that `cuwheel check` must fail it with the named
rule (and only that rule).

    make_broken.py GOOD_DIR OUT_DIR [--elf] [--cuda-root DIR]

GOOD_DIR holds the repaired wheels (demo, demo_cu13) and the raw plugin
wheel (demo_cu13-*-linux_x86_64.whl, for the variants whose library is
rebuilt: a linux tag, so no manylinux rule mixes in). Writes
OUT_DIR/<variant>/<the good wheel's file name> and OUT_DIR/variants.tsv: variant, the policy to
check it with (core or cu13), and the rules it must fail, comma-separated.
Every variant is a valid wheel otherwise: RECORD is rewritten with the
members' real hashes and sizes.

--elf also builds the variants whose library differs (needs nvcc and a C++
compiler, the CUDA 13 toolkit at --cuda-root, and --archs, the release
list): the device code of one architecture and no PTX, a helper function
exported, the shared CUDA runtime found through the build machine's toolkit
folder.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def rewrite(src: Path, dst: Path, edit) -> None:
    """Copies wheel src to dst with edit(members) applied; members is a dict
    name -> bytes in archive order; RECORD is regenerated."""
    with zipfile.ZipFile(src) as z:
        members = {i.filename: z.read(i) for i in z.infolist()}
    edit(members)
    record = next(n for n in members if n.endswith(".dist-info/RECORD"))
    lines = [record_line(n, d) for n, d in members.items() if n != record]
    members[record] = ("\n".join(lines + [f"{record},,"]) + "\n").encode()
    tmp = dst.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if name.endswith(".so") or ".so." in name else 0o644) << 16
            z.writestr(info, data)
    os.replace(tmp, dst)


def sub_text(name_suffix: str, old: str, new: str):
    def edit(m: dict[str, bytes]) -> None:
        (name,) = [n for n in m if n.endswith(name_suffix)]
        text = m[name].decode()
        assert old in text, f"{old!r} not in {name}"
        m[name] = text.replace(old, new).encode()
    return edit


def drop(name_suffix: str):
    def edit(m: dict[str, bytes]) -> None:
        for n in [n for n in m if n.endswith(name_suffix)]:
            del m[n]
    return edit


def add(name: str, data: bytes):
    def edit(m: dict[str, bytes]) -> None:
        items = list(m.items())
        m.clear()
        m[name] = data
        m.update(items)
    return edit


def run(cmd: list[str], cwd: Path | None = None) -> None:
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"make_broken.py: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")


def tiny_library(tmp: Path, soname: str) -> bytes:
    """A real shared library whose SONAME is soname (what a bundled copy
    of that library looks like to the loader)."""
    c = tmp / "empty.c"
    # Nothing exported: only the bundling itself is wrong.
    c.write_text('__attribute__((visibility("hidden"))) int placeholder(void) { return 0; }\n')
    out = tmp / soname
    run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-o", str(out), f"-Wl,-soname,{soname}", str(c)])
    return out.read_bytes()


def plugin_library(tmp: Path, cuda: Path, name: str, archs: str, gencode: list[str], link: list[str],
                   helper: bool = False) -> bytes:
    """The cu13 plugin rebuilt with other device code or link options;
    helper adds a C helper function with default visibility, as a source
    file added without the version script would."""
    work = tmp / name
    work.mkdir()
    fatbin = work / "demo.fatbin"
    run([str(cuda / "bin" / "nvcc"), "-fatbin", *gencode, "-o", str(fatbin), "kernel.cu"], cwd=HERE / "src")
    cxx = os.environ.get("CXX", "c++")
    include = sysconfig.get_paths()["include"]
    objs = []
    if helper:
        (work / "helper.c").write_text("long demo_sum_helper(const int* x, long n) { long s = 0; while (n--) s += *x++; return s; }\n")
        run([os.environ.get("CC", "cc"), "-c", "-O2", "-fPIC", "-o", str(work / "helper.o"), str(work / "helper.c")])
        objs.append(str(work / "helper.o"))
    for src, extra in (("plugin.cpp", ["-std=c++17", "-fvisibility=hidden"]), ("fatbin.S", [f'-DDEMO_FATBIN="{fatbin}"'])):
        obj = work / (src + ".o")
        run([cxx, "-c", "-O2", "-fPIC", f"-I{include}", f"-I{cuda / 'include'}", '-DDEMO_PLUGIN="cu13"',
             '-DDEMO_ARCHS="' + archs + '"', *extra, "-o", str(obj), str(HERE / "src" / src)])
        objs.append(str(obj))
    out = work / "_plugin.abi3.so"
    run([cxx, "-shared", "-o", str(out), *objs, *link])
    return out.read_bytes()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("good", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--elf", action="store_true")
    ap.add_argument("--cuda-root", type=Path, default=Path("/usr/local/cuda"))
    ap.add_argument("--archs", default="", help="the release list the good plugin carries (with --elf)")
    a = ap.parse_args()

    def one(pattern: str) -> Path:
        found = sorted(a.good.glob(pattern)) if a.good.is_dir() else []
        if len(found) != 1:
            sys.exit(f"make_broken.py: {a.good}: expected exactly one {pattern}, found {len(found)}"
                     + (f" ({', '.join(p.name for p in found)})" if found else ""))
        return found[0]

    core = one("demo-*manylinux*.whl")
    cu13 = one("demo_cu13-*manylinux*.whl")
    raw = one("demo_cu13-*-linux_x86_64.whl") if a.elf else None
    if a.elf and not a.archs:
        ap.error("--elf needs --archs (the release list the good plugin carries)")
    try:
        a.out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        sys.exit(f"make_broken.py: {a.out}: cannot create the output folder: {e.strerror}")
    rows = []

    def variant(name: str, src: Path, policy: str, rules: str, *edits) -> None:
        def edit(m: dict[str, bytes]) -> None:
            for e in edits:
                e(m)
        (a.out / name).mkdir(exist_ok=True)
        rewrite(src, a.out / name / src.name, edit)
        rows.append(f"{name}\t{policy}\t{rules}")

    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        variant("core-loose-extra", core, "core", "exact-pin",
                sub_text("METADATA", "demo-cu13==0.3.0", "demo-cu13>=0.3.0"))
        variant("core-no-licence", core, "core", "missing-license-file", drop("licenses/LICENSE"))
        variant("core-too-big", core, "core", "size-budget", add("demo/weights.bin", os.urandom(3 * 1024 * 1024)))
        variant("core-wrong-tag", core, "core", "tag-mismatch",
                sub_text(".dist-info/WHEEL", "Tag: cp311-abi3-", "Tag: cp312-abi3-"))
        variant("cu13-loose-core-pin", cu13, "cu13", "exact-pin", sub_text("METADATA", "demo==0.3.0", "demo>=0.3"))
        variant("cu13-no-eula", cu13, "cu13", "missing-license-file", drop("licenses/NVIDIA-CUDA-EULA.txt"))
        variant("cu13-bundles-libcudart", cu13, "cu13", "bundled-cuda-library",
                add("demo_cu13/libcudart.so.13", tiny_library(tmp, "libcudart.so.13")))
        variant("cu13-bundles-libcuda", cu13, "cu13", "bundled-driver-library",
                add("demo_cu13/libcuda.so.1", tiny_library(tmp, "libcuda.so.1")))
        if raw is not None:
            libdirs = [p for p in (a.cuda_root / "lib64", a.cuda_root / "lib") if (p / "libcudart_static.a").is_file()]
            if not libdirs:
                sys.exit(f"make_broken.py: {a.cuda_root}: no lib64/libcudart_static.a (give the CUDA 13 toolkit with --cuda-root)")
            cudart = str(libdirs[0])
            static = [f"{cudart}/libcudart_static.a", "-ldl", "-lpthread", "-lrt", "-static-libstdc++",
                      "-static-libgcc", f"-Wl,--version-script={HERE / 'src' / 'plugin.map'}"]

            def lib(data: bytes):
                return lambda m: m.__setitem__("demo_cu13/_plugin.abi3.so", data)

            # The release list's device code, as the good plugin has it.
            release = [f for e in a.archs.split(",") for f in (
                ["-gencode", f"arch=compute_{e[3:]},code=sm_{e[3:]}"] if e.startswith("sm_")
                else ["-gencode", f"arch={e},code={e}"])]
            one = ["-gencode", "arch=compute_90,code=sm_90"]
            variant("cu13-one-arch-no-ptx", raw, "cu13", "missing-sass,missing-ptx",
                    lib(plugin_library(tmp, a.cuda_root, "one-arch", "sm_90", one, static)))
            no_map = [s for s in static if "version-script" not in s]
            variant("cu13-exports-helper", raw, "cu13", "export-not-allowed",
                    lib(plugin_library(tmp, a.cuda_root, "helper", a.archs, release, no_map, helper=True)))
            shared = [f"-L{cudart}", "-l:libcudart.so.13", f"-Wl,-rpath,{cudart}", "-static-libstdc++",
                      "-static-libgcc", f"-Wl,--version-script={HERE / 'src' / 'plugin.map'}"]
            variant("cu13-shared-cudart", raw, "cu13", "build-machine-path,undeclared-dependency,unresolved-needed",
                    lib(plugin_library(tmp, a.cuda_root, "shared", a.archs, release, shared)))
    (a.out / "variants.tsv").write_text("\n".join(rows) + "\n")
    print(f"make_broken.py: {len(rows)} variants in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
