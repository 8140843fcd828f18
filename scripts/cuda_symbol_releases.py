#!/usr/bin/env python3
"""Prints which release-named CUDA entry points each wheel of a CUDA library exports.

  scripts/cuda_symbol_releases.py WHEEL...

For example, with wheels fetched by
`pip download --no-deps nvidia-nvjitlink-cu12==12.1.105` (and 12.4.127,
12.9.86). For every shared library in each wheel it reads the defined
dynamic symbols and their version nodes (`nm -D --defined-only`, binutils)
and reports:

  - the version nodes the library defines (NVIDIA's libraries define one,
    named after the soname, so the node carries no release);
  - the release suffixes `_<major>_<minor>` that its symbol names carry,
    with how many symbols carry each.

This is the evidence behind cuwheel's symbol_release() (include/cuwheel/model/facts.h)
and the rule dependency-floor-too-low: a release exports the names of its
own and of every earlier release of its major, so the suffix is the first
release that exports the name. Rerun it on new releases to confirm that this
still holds. Standard library and binutils only; nothing is written.
"""

import collections
import re
import subprocess
import sys
import tempfile
import zipfile

SUFFIX = re.compile(r"_(\d+)_(\d+)$")


def library_members(z):
    return [n for n in z.namelist() if re.search(r"\.so(\.\d+)*$", n)]


def report(wheel):
    with zipfile.ZipFile(wheel) as z, tempfile.TemporaryDirectory() as tmp:
        for member in library_members(z):
            path = z.extract(member, tmp)
            out = subprocess.run(["nm", "-D", "--defined-only", path], check=True,
                                 capture_output=True, text=True).stdout
            nodes = set()
            suffixes = collections.Counter()
            for line in out.splitlines():
                parts = line.split()
                if len(parts) < 3:
                    continue
                name, _, node = parts[2].partition("@@")
                if node:
                    nodes.add(node)
                m = SUFFIX.search(name)
                if m:
                    suffixes[(int(m.group(1)), int(m.group(2)))] += 1
            print(f"{wheel}: {member}")
            print(f"  version nodes: {', '.join(sorted(nodes)) or '-'}")
            for (major, minor), n in sorted(suffixes.items()):
                print(f"  _{major}_{minor}: {n} symbols")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for w in sys.argv[1:]:
        report(w)


if __name__ == "__main__":
    main()
