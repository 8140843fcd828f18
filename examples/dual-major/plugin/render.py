#!/usr/bin/env python3
"""Renders the plugin distribution demo-cu<N> from the core's tree.

    render.py --major 13 --cuda-root /usr/local/cuda --archs sm_75,...,compute_121 \
              --gencode "-gencode ..." --identity cu13 --out build/plugin
    render.py --major 13 --archs sm_75,...,compute_121 --policy-only cu13.toml

writes OUT/pyproject.toml (plugin/pyproject.toml.in filled in), OUT/python/
demo_cu<N>/__init__.py, and copies CMakeLists.txt, src/, LICENSE and the
toolkit's EULA (CUDA_ROOT/EULA.txt, or the runtime wheel's License.txt) as NVIDIA-CUDA-EULA.txt: the plugin
links the static CUDA runtime, which the EULA lets a wheel redistribute
with its licence. --policy-only writes the plugin's check policy alone
(plugin/policy.toml.in, keys at the root), which needs no toolkit. One OUT serves every major (the build identity keys the
CMake build folder inside it). A file whose content is unchanged is not
rewritten, so its modification time stays and nothing rebuilds for it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def write(path: Path, data: bytes) -> None:
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--major", required=True, choices=["12", "13"])
    ap.add_argument("--cuda-root", type=Path)
    ap.add_argument("--archs", required=True, help="the release list: sm_XY,...,compute_XY")
    ap.add_argument("--gencode", default="", help="nvcc -gencode flags (CUDA 13)")
    ap.add_argument("--identity", help="cuwheel identity show --format name")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--policy-only", type=Path, metavar="FILE")
    a = ap.parse_args()
    if not a.policy_only and not (a.cuda_root and a.identity and a.out):
        ap.error("--cuda-root, --identity and --out are needed (or --policy-only FILE)")
    entries = a.archs.split(",")
    bad = [e for e in entries if not re.fullmatch(r"(sm|compute)_[0-9]{2,3}[af]?", e)]
    if bad or not any(e.startswith("sm_") for e in entries):
        ap.error(f"--archs {a.archs!r}: a comma-separated release list of sm_XY and compute_XY entries "
                 f"(cuwheel arch --release-list){'; not one: ' + ', '.join(map(repr, bad)) if bad else ''}")
    if a.out and (a.out / "pyproject.toml").is_file() and \
            not (a.out / "pyproject.toml").read_text(errors="replace").startswith("# Rendered by plugin/render.py"):
        ap.error(f"--out {a.out}: holds a pyproject.toml that render.py did not write (the core's?); "
                 "give the plugin's own folder, such as build/plugin")

    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert version, "pyproject.toml has no version"
    plugin = "cu" + a.major
    fields = {
        "PLUGIN": plugin,
        "MAJOR": a.major,
        "VERSION": version.group(1),
        "SASS": ", ".join(f'"{e}"' for e in entries if e.startswith("sm_")),
        "PTX": ", ".join(f'"{e}"' for e in entries if e.startswith("compute_")),
    }

    def fill(text: str) -> bytes:
        return re.sub(r"@([A-Z_]+)@", lambda m: fields[m.group(1)], text).encode()

    policy = fill((HERE / "policy.toml.in").read_text()).decode()
    if a.policy_only:
        write(a.policy_only, policy.encode())
        return 0
    # The same keys under [tool.cuwheel] in the plugin's pyproject.toml.
    body = [line for line in policy.splitlines() if not line.startswith("#")]
    fields["POLICY"] = "[tool.cuwheel]\n" + "\n".join(
        "[tool.cuwheel." + line[1:] if line.startswith("[") else line for line in body).strip() + "\n"

    # A toolkit from NVIDIA's installers has EULA.txt at its root; one
    # assembled from NVIDIA's wheels has it as the runtime's License.txt.
    found = [a.cuda_root / "EULA.txt",
             *sorted(a.cuda_root.glob("dist-info/nvidia_cuda_runtime*/licenses/License.txt"))]
    eula = next((f for f in found if f.is_file()), None)
    if eula is None:
        print(f"render.py: {a.cuda_root}: no EULA.txt (the plugin wheel ships the CUDA EULA)", file=sys.stderr)
        return 2
    fields.update({"CUDA_ROOT": str(a.cuda_root.resolve()), "ARCHS": a.archs,
                   "GENCODE": a.gencode, "IDENTITY": a.identity})
    out = a.out
    write(out / "pyproject.toml", fill((HERE / "pyproject.toml.in").read_text()))
    write(out / "python" / f"demo_{plugin}" / "__init__.py", fill((HERE / "__init__.py.in").read_text()))
    for name in ("CMakeLists.txt", "LICENSE"):
        write(out / name, (ROOT / name).read_bytes())
    write(out / "NVIDIA-CUDA-EULA.txt", eula.read_bytes())
    for src in sorted((ROOT / "src").iterdir()):
        write(out / "src" / src.name, src.read_bytes())
    # Another major's package folder must not ride along into this wheel.
    for other in (out / "python").glob("demo_cu*"):
        if other.name != f"demo_{plugin}":
            shutil.rmtree(other)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except OSError as e:
        print(f"render.py: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
