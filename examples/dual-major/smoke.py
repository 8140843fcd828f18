#!/usr/bin/env python3
"""The smoke test of an installed demo (the seed's plugin smoke test).

    python smoke.py --expect fallback --reason "no CUDA driver" [--plugin demo-cu13]
    python smoke.py --expect cuda --plugin demo-cu13

--expect fallback: importing demo gives exactly one demo.BackendWarning,
which names the reason; demo runs on the CPU; the plugin (when --plugin is
given) still imports without a driver and reports its build, and reports
itself unusable with that reason; sums are exact.
--expect cuda: no warning; the plugin is the backend, names its GPU, and its
sums equal the CPU core's on every input (empty, one element, odd sizes,
negative numbers, a few million elements).
Prints one line per check; exit status 0 when all pass, 1 otherwise.
"""

from __future__ import annotations

import argparse
import array
import importlib
import random
import sys
import warnings

failures = 0


def check(ok: bool, what: str) -> None:
    global failures
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures += 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--expect", required=True, choices=["cuda", "fallback"])
    ap.add_argument("--reason", default="", help="text the fallback warning must contain")
    ap.add_argument("--plugin", default="", choices=["", "demo-cu12", "demo-cu13"],
                    help="the plugin distribution installed: demo-cu12 or demo-cu13")
    a = ap.parse_args()
    if a.expect == "cuda" and not a.plugin:
        ap.error("--expect cuda needs --plugin (the plugin that should run)")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import demo
        except ImportError as e:
            print(f"FAIL  import demo: {e} (is demo installed in this Python, {sys.executable}?)")
            print("smoke: FAIL (demo does not import)")
            return 1
    mine = [w for w in caught if issubclass(w.category, demo.BackendWarning)]
    module = a.plugin.replace("-", "_")

    if a.expect == "fallback":
        check(len(mine) == 1, f"exactly one BackendWarning at import (got {len(mine)}: {[str(w.message) for w in mine]})")
        check(bool(mine) and a.reason in str(mine[0].message), f"the warning names the reason {a.reason!r}")
        check(demo.backend == "cpu", f"backend is cpu (got {demo.backend})")
    else:
        check(not mine, f"no BackendWarning (got {[str(w.message) for w in mine]})")
        check(demo.backend == module, f"backend is {module} (got {demo.backend})")

    if module:
        try:
            plugin = importlib.import_module(module + "._plugin")
        except ImportError as e:
            check(False, f"{a.plugin} imports: {e}")
            print(f"smoke: FAIL (expect {a.expect}, {a.plugin} is not installed here)")
            return 1
        info = plugin.build_info()
        print(f"      build: {info}")
        check(info.get("runtime") == "static" and info.get("plugin") == module.split("_")[1],
              "the plugin imports and reports its build (static runtime)")
        check(bool(info.get("architectures")), "the plugin names its architectures")
        usable, reason = plugin.status()
        if a.expect == "fallback":
            check(not usable and a.reason in (reason or ""), f"the plugin reports itself unusable: {reason}")
        else:
            check(usable, f"the plugin reports itself usable ({reason})")
            device = plugin.device()
            print(f"      device: {device}")
            check(bool(device and device.get("arch")), "the plugin names its GPU")

    rng = random.Random(20261207)
    cases = [0, 1, 255, 256, 257, 100_003, 3_000_001]
    for n in cases:
        data = array.array("i", (rng.randint(-(2**31), 2**31 - 1) for _ in range(n)))
        expected = sum(data)
        got = demo.sum(data)
        cpu = demo._core.sum(data)
        check(got == expected and cpu == expected, f"sum of {n} int32 on {demo.backend}: {got} (exact: {expected})")
    try:
        demo.sum(array.array("d", [1.0]))
        check(False, "a float64 buffer is refused")
    except TypeError as e:
        check("int32" in str(e), f"a float64 buffer is refused: {e}")

    print(f"smoke: {'PASS' if failures == 0 else 'FAIL'} (expect {a.expect}, backend {demo.backend}, {failures} failed)")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
