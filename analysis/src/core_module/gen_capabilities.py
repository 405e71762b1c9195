#!/usr/bin/env python3
"""Extract the capability atom names of Slang's user guide into capabilities.txt.

`__requireCapability(NAME)` takes one of these names (the reference
compiler rejects any other: "unknown capability name").

Usage:
    python3 gen_capabilities.py DOCS/user-guide/a4-02-reference-capability-atoms.md          # rewrite
    python3 gen_capabilities.py DOCS/user-guide/a4-02-reference-capability-atoms.md --check  # compare
"""

import os
import re
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "capabilities.txt")


def names(path):
    out = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.fullmatch(r"`([A-Za-z_][A-Za-z0-9_]*)`\s*", line)
            if m:
                out.add(m.group(1))
    return sorted(out)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    text = "".join(n + "\n" for n in names(args[0]))
    if "--check" in sys.argv:
        with open(OUT, encoding="utf-8") as f:
            sys.exit(0 if f.read() == text else 1)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)


main()
