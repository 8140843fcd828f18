"""``python -m cuwheel ARGS...``: runs the bundled binary with ARGS."""

from __future__ import annotations

import os
import sys

from cuwheel import binary


def main() -> None:
    try:
        exe = binary()
    except FileNotFoundError as e:
        print(f"cuwheel: {e}", file=sys.stderr)
        sys.exit(2)
    os.execv(exe, [exe, *sys.argv[1:]])


if __name__ == "__main__":
    main()
