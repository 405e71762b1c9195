"""What the core-module generators share: writing their output into a
file (whole, or between its BEGIN/END markers), or with `--check`
reporting that the file is out of date, or with `--print` printing it."""

import os
import sys


def emit(path, text, script, begin=None, end=None):
    """Write `text` to `path` (between the lines `begin` and `end` when
    given); return the process exit status."""
    if "--print" in sys.argv:
        sys.stdout.write(text)
        return 0
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if begin is None:
        new = text
    else:
        start = old.index(begin)
        stop = old.index(end, start) + len(end) + 1
        new = old[:start] + text + old[stop:]
    if "--check" in sys.argv:
        if new != old:
            print(f"{os.path.basename(path)} is out of date: run {script}", file=sys.stderr)
            return 1
        return 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    return 0
