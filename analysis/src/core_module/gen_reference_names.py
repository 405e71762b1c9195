#!/usr/bin/env python3
"""Extract the names documented by Slang's core-module reference.

The reference (the `stdlib-reference` markdown pages of Slang's
documentation: `types/`, `interfaces/`, `global-decls/`) is not part of this
repository, so the list of its names is kept here, in
`reference_names.txt`, one `kind name` per line:

  * `type NAME`       a struct, enum or type alias (`types/`)
  * `interface NAME`  an interface (`interfaces/`)
  * `decl NAME`       a function, constant or variable at global scope
                      (`global-decls/`)
  * `member TYPE.NAME` a member of a documented type or interface

Pages without a `## Signature` section (category overviews such as
`math.md`) and `extension` pages (they document the differentiability of a
function, not a name) give no name. `analysis/tests/core_reference.rs`
checks that every top-level name (and every member of the types it can
instantiate) resolves in the core module.

Usage:
    python3 gen_reference_names.py REFERENCE_DIR          # rewrite reference_names.txt
    python3 gen_reference_names.py REFERENCE_DIR --check  # exit 1 if it is out of date
"""

import html
import os
import re
import sys

from gen_common import emit

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "reference_names.txt")

HEADING = re.compile(r"^# (.*)$", re.M)


def unescape(s):
    s = s.replace("\\", "")
    return html.unescape(s).strip()


def heading(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    m = HEADING.search(text)
    if not m:
        return None, text
    return unescape(m.group(1)), text


def decl_name(title):
    """The declared name of a page title: `struct CoopVec<T, int N>` ->
    `CoopVec`, `typealias RAY_FLAG` -> `RAY_FLAG`, `extension ...` -> None."""
    words = title.split()
    if not words:
        return None
    if words[0] == "extension":
        return None
    if words[0] in ("struct", "enum", "typealias", "interface", "class"):
        words = words[1:]
    if not words:
        return None
    # `linalg::CoopMat<...>`: a namespaced name keeps its namespace.
    name = re.match(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*", words[0])
    return name.group(0) if name else None


def member_name(title):
    """`CoopVec<T, N>.load` -> `load`; `init` -> `init`; `subscript` -> None."""
    t = re.sub(r"<[^<>]*(<[^<>]*>[^<>]*)*>", "", title)
    last = t.split(".")[-1].strip()
    if last.startswith("operator") or last in ("subscript", "init"):
        return None
    m = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", last)
    return m.group(0) if m else None


def collect(ref):
    names = set()
    for kind, sub in (("type", "types"), ("interface", "interfaces")):
        root = os.path.join(ref, sub)
        for entry in sorted(os.listdir(root)):
            path = os.path.join(root, entry)
            if entry == "index.md":
                continue
            if os.path.isdir(path):
                index = os.path.join(path, "index.md")
                if not os.path.exists(index):
                    continue
                title, _ = heading(index)
                name = decl_name(title or "")
                if not name:
                    continue
                names.add((kind, name))
                for member in sorted(os.listdir(path)):
                    if member == "index.md" or not member.endswith(".md"):
                        continue
                    mtitle, mtext = heading(os.path.join(path, member))
                    if not mtitle or "## Signature" not in mtext:
                        continue
                    m = member_name(mtitle)
                    if m:
                        names.add(("member", f"{name}.{m}"))
            elif entry.endswith(".md"):
                title, text = heading(path)
                if not title or "## Signature" not in text:
                    continue
                name = decl_name(title)
                if name:
                    names.add((kind, name))
    root = os.path.join(ref, "global-decls")
    for entry in sorted(os.listdir(root)):
        if entry == "index.md" or not entry.endswith(".md"):
            continue
        title, text = heading(os.path.join(root, entry))
        if not title or "## Signature" not in text:
            continue
        if title.startswith("operator"):
            continue
        name = decl_name(title)
        if name:
            names.add(("decl", name))
    order = {"type": 0, "interface": 1, "decl": 2, "member": 3}
    return sorted(names, key=lambda kn: (order[kn[0]], kn[1]))


def render(names, ref):
    version = ""
    vpath = os.path.join(ref, "version.inc")
    if os.path.exists(vpath):
        raw = open(vpath, "rb").read()
        for enc in ("utf-16", "utf-8"):
            try:
                version = raw.decode(enc).strip()
                break
            except UnicodeDecodeError:
                pass
    lines = [
        "# Names documented by Slang's core-module reference (stdlib-reference),",
        f"# version {version or 'unknown'}; generated by gen_reference_names.py, do not edit.",
    ]
    lines += [f"{k} {n}" for k, n in names]
    return "\n".join(lines) + "\n"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    ref = args[0]
    return emit(OUT, render(collect(ref), ref), f"gen_reference_names.py {ref}")


if __name__ == "__main__":
    sys.exit(main())
