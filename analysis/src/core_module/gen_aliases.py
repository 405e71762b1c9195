#!/usr/bin/env python3
"""Generate the vector/matrix section of types.slang.

The section holds:
  * `typealias <scalar><N> = vector<<scalar>, N>;` for every scalar name and
    N in 1..4, and `typealias <scalar><R>x<C> = matrix<<scalar>, R, C>;` for
    R, C in 1..4;
  * the shape-specific constructors of `vector` and `matrix` (component lists,
    row lists), which cannot be written once for a generic N.

Usage:
    python3 gen_aliases.py            # rewrite the section in types.slang
    python3 gen_aliases.py --check    # exit 1 if types.slang is out of date
    python3 gen_aliases.py --print    # print the section to stdout
"""

import itertools
import os
import sys

BEGIN = "// BEGIN GENERATED (gen_aliases.py; do not edit by hand)"
END = "// END GENERATED"

# Scalar type names that get vector and matrix aliases: the builtin scalars
# and the sized aliases of int/uint/half/float/double.
SCALARS = [
    "bool",
    "int", "uint",
    "int8_t", "int16_t", "int32_t", "int64_t",
    "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "half", "float", "double",
    "float16_t", "float32_t", "float64_t",
]

COMPONENTS = ["x", "y", "z", "w"]


def compositions(n):
    """Ordered ways to write n as a sum of at least two positive parts: the
    argument shapes of a vector constructor, where a part of 1 is a scalar and
    a part of k > 1 is a vector of k components."""
    result = []

    def rec(rest, acc):
        if rest == 0:
            if len(acc) > 1:
                result.append(list(acc))
            return
        for k in range(1, rest + 1):
            acc.append(k)
            rec(rest - k, acc)
            acc.pop()

    rec(n, [])
    return result


def vector_constructors():
    out = []
    out.append("/// Component-wise constructors of `vector<T, N>` for N = 2, 3, 4: any mix of")
    out.append("/// scalars and vectors whose component counts add up to N.")
    for n in (2, 3, 4):
        out.append(f"extension<T> vector<T, {n}>")
        out.append("{")
        for parts in compositions(n):
            params = []
            i = 0
            for k in parts:
                name = "".join(COMPONENTS[i:i + k])
                ty = "T" if k == 1 else f"vector<T, {k}>"
                params.append(f"{ty} {name}")
                i += k
            out.append(f"    __init({', '.join(params)});")
        out.append("}")
        out.append("")
    return out


def matrix_constructors():
    out = []
    out.append("/// Row-wise constructors of `matrix<T, R, C>`: R row vectors.")
    for r in (2, 3, 4):
        rows = ", ".join(f"vector<T, C> row{i}" for i in range(r))
        out.append(f"extension<T, let C : int> matrix<T, {r}, C>")
        out.append("{")
        out.append(f"    __init({rows});")
        out.append("}")
    out.append("")
    out.append("/// Element-wise constructors of `matrix<T, R, C>`: R * C scalars in row order.")
    for r, c in itertools.product((1, 2, 3, 4), repeat=2):
        if r * c == 1:
            continue
        elems = ", ".join(f"T m{i}{j}" for i in range(r) for j in range(c))
        out.append(f"extension<T> matrix<T, {r}, {c}>")
        out.append("{")
        out.append(f"    __init({elems});")
        out.append("}")
    out.append("")
    return out


def aliases():
    out = []
    out.append("// Vector aliases: `float3` is `vector<float, 3>`.")
    for s in SCALARS:
        line = " ".join(f"typealias {s}{n} = vector<{s}, {n}>;" for n in (1, 2, 3, 4))
        out.append(line)
    out.append("")
    out.append("// Matrix aliases: `float3x4` is `matrix<float, 3, 4>` (3 rows, 4 columns).")
    for s in SCALARS:
        for r in (1, 2, 3, 4):
            line = " ".join(f"typealias {s}{r}x{c} = matrix<{s}, {r}, {c}>;" for c in (1, 2, 3, 4))
            out.append(line)
    out.append("")
    return out


def section():
    lines = [BEGIN, ""]
    lines += aliases()
    lines += vector_constructors()
    lines += matrix_constructors()
    lines.append(END)
    return "\n".join(lines) + "\n"


def splice(text, new_section):
    start = text.index(BEGIN)
    end = text.index(END, start) + len(END) + 1  # include the newline
    return text[:start] + new_section + text[end:]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "types.slang")
    new_section = section()
    if "--print" in sys.argv:
        sys.stdout.write(new_section)
        return 0
    text = open(path, encoding="utf-8").read()
    updated = splice(text, new_section)
    if "--check" in sys.argv:
        if updated != text:
            print("types.slang: generated section is out of date; run gen_aliases.py")
            return 1
        return 0
    if updated != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(updated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
