#!/usr/bin/env python3
"""Builds the example extension for one CUDA toolkit, as a setup.py would.

With the build identity (the default), using the vendored helper
python/cuwheel_identity.py:
  1. identity = build_identity(toolkit=...)            e.g. "cu13"
  2. generated sources go to generated_dir("build/gen", identity)
  3. needs_rebuild("build/.build-identity", identity) -> make FORCE=1
  4. write_stamp(...) only after make succeeded

--no-keyed-dir and --no-stamp switch off each half (--no-identity both:
the build as it was before cuda-python PR #2472).

Usage: build.py --toolkit PREFIX [--no-identity | --no-keyed-dir | --no-stamp]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The helper is a single stdlib-only file; a project would vendor it.
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import cuwheel_identity as ci  # noqa: E402

STAMP = os.path.join("build", ".build-identity")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolkit", required=True)
    ap.add_argument("--no-identity", action="store_true", help="no keyed folder and no stamp")
    ap.add_argument("--no-keyed-dir", action="store_true")
    ap.add_argument("--no-stamp", action="store_true")
    args = ap.parse_args()
    keyed = not (args.no_identity or args.no_keyed_dir)
    stamped = not (args.no_identity or args.no_stamp)
    os.chdir(HERE)

    major, minor, source = ci.detect_cuda_version(args.toolkit)
    identity = ci.build_identity(major)
    gen_dir = ci.generated_dir("build/gen", identity) if keyed else "build/gen"
    force = False
    if stamped:
        state, _, message = ci.check_stamp(STAMP, identity)
        force = state != "matches"
        print("build.py: %s" % message)
    print("build.py: CUDA %d.%d (%s), identity %s, generated sources in %s%s"
          % (major, minor, source, identity, gen_dir, ", forced rebuild" if force else ""))
    cmd = ["make", "--no-print-directory", "TOOLKIT=" + args.toolkit, "CUDA_MAJOR=%d" % major, "GEN_DIR=" + gen_dir]
    if force:
        cmd.append("FORCE=1")
    sys.stdout.flush()
    rc = subprocess.call(cmd)
    if rc != 0:
        print("build.py: make failed (exit %d); stamp left as it was" % rc)
        return rc
    if stamped:
        ci.write_stamp(STAMP, identity)
        print("build.py: stamped %s: %s" % (STAMP, identity))
    return 0


if __name__ == "__main__":
    sys.exit(main())
