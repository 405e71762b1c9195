#!/usr/bin/env python3
"""Generate the patterned intrinsic families of intrinsics2.slang.

  * wave reductions over a 128-bit lane mask: `WaveMulti<Op>`,
    `WaveMultiPrefix<Op>`, `WaveMultiPrefixInclusive<Op>` and
    `WaveMultiPrefixExclusive<Op>` for Sum, Product, Min, Max, BitAnd, BitOr,
    BitXor; the prefix Min/Max of `WavePrefix*` and `WaveMaskPrefix*`;
  * the lane masks `WaveGetLane{Eq,Ge,Gt,Le,Lt}Mask`;
  * three-operand `min3`/`max3`/`median3` and `fmin3`/`fmax3`/`fmedian3`;
  * the pack/unpack family (`packInt4x8`, `unpackUnorm4x8ToFloat`, ...,
    and the GLSL `unpackUnorm4x8`, ...);
  * `copysign_half`/`copysign_float`/`copysign_double`.
Reductions and three-operand functions are `[__elementwise]` (README.md).
None of these is differentiable in Slang's core module.

Usage:
    python3 gen_intrinsics.py            # rewrite the section in intrinsics2.slang
    python3 gen_intrinsics.py --check    # exit 1 if intrinsics2.slang is out of date
    python3 gen_intrinsics.py --print    # print the section to stdout
"""

import os
import sys

from gen_common import emit

BEGIN = "// BEGIN GENERATED (gen_intrinsics.py; do not edit by hand)"
END = "// END GENERATED"

# Reduction -> (constraint, what it computes).
OPS = [
    ("Sum", "__BuiltinArithmeticType", "sum"),
    ("Product", "__BuiltinArithmeticType", "product"),
    ("Min", "__BuiltinArithmeticType", "minimum"),
    ("Max", "__BuiltinArithmeticType", "maximum"),
    ("BitAnd", "__BuiltinIntegerType", "bitwise and"),
    ("BitOr", "__BuiltinIntegerType", "bitwise or"),
    ("BitXor", "__BuiltinIntegerType", "bitwise xor"),
]

MASK = "vector<uint, 4>"


def wave():
    out = ["// Reductions over the lanes in a 128-bit `mask` (`WaveMulti*`)."]
    for op, c, what in OPS:
        out.append(f"/// The {what} of `value` over the lanes in `mask`.")
        out.append("[__elementwise]")
        out.append(f"T WaveMulti{op}<T : {c}>(T value, {MASK} mask);")
    for kind, desc in (
        ("", "with a lower index"),
        ("Exclusive", "with a lower index"),
        ("Inclusive", "with a lower or equal index"),
    ):
        for op, c, what in OPS:
            out.append(f"/// The {what} of `value` over the lanes in `mask` {desc}.")
            out.append("[__elementwise]")
            out.append(f"T WaveMultiPrefix{kind}{op}<T : {c}>(T value, {MASK} mask);")
    out.append("")
    out.append("// Prefix minimum and maximum over the active lanes with a lower index.")
    for op in ("Min", "Max"):
        out.append("[__elementwise]")
        out.append(f"T WavePrefix{op}<T : __BuiltinArithmeticType>(T expr);")
        out.append("[__elementwise]")
        out.append(f"T WaveMaskPrefix{op}<T : __BuiltinArithmeticType>(uint mask, T expr);")
    out.append("")
    out.append("// Masks (128 bits) of the lanes with an index equal to, greater than or")
    out.append("// equal to, greater than, ... this lane's (GLSL `gl_SubgroupEqMask`, ...).")
    for rel in ("Eq", "Ge", "Gt", "Le", "Lt"):
        out.append(f"{MASK} WaveGetLane{rel}Mask();")
    return out


def three():
    out = ["// Minimum, maximum and median of three values."]
    for prefix in ("", "f"):
        for fn in ("min3", "max3", "median3"):
            out.append("[__elementwise]")
            out.append(f"T {prefix}{fn}<T : __BuiltinFloatingPointType>(T x, T y, T z);")
    return out


def packing():
    out = ["// Packing to and unpacking from 32-bit integers."]
    for fn, elems in (
        ("packInt4x8", ("int", "int16_t")),
        ("packInt4x8Clamp", ("int", "int16_t")),
        ("packUint4x8", ("uint", "uint16_t")),
        ("packUint4x8Clamp", ("int", "int16_t")),
    ):
        for e in elems:
            out.append(f"uint {fn}(vector<{e}, 4> unpackedValue);")
    for fn, n in (("packUnorm4x8", 4), ("packSnorm4x8", 4), ("packUnorm2x16", 2), ("packSnorm2x16", 2), ("packHalf2x16", 2)):
        out.append(f"uint {fn}(vector<half, {n}> unpackedValue);")
    for fn, n in (("Unorm4x8", 4), ("Snorm4x8", 4), ("Unorm2x16", 2), ("Snorm2x16", 2), ("Half2x16", 2)):
        out.append(f"vector<float, {n}> unpack{fn}ToFloat(uint packedValue);")
        out.append(f"vector<half, {n}> unpack{fn}ToHalf(uint packedValue);")
        out.append(f"/// GLSL name of `unpack{fn}ToFloat`.")
        out.append(f"vector<float, {n}> unpack{fn}(uint packedValue);")
    for fn, e in (
        ("unpackInt4x8ToInt32", "int"),
        ("unpackInt4x8ToInt16", "int16_t"),
        ("unpackUint4x8ToUint32", "uint"),
        ("unpackUint4x8ToUint16", "uint16_t"),
    ):
        out.append(f"vector<{e}, 4> {fn}(uint packedValue);")
    return out


def copysign():
    out = ["// `copysign` for one scalar type."]
    for s in ("half", "float", "double"):
        out.append(f"vector<{s}, N> copysign_{s}<let N : int>(vector<{s}, N> x, vector<{s}, N> y);")
    return out


def section():
    lines = wave() + [""] + three() + [""] + packing() + [""] + copysign()
    return "\n".join([BEGIN] + lines + [END]) + "\n"


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "intrinsics2.slang")
    return emit(path, section(), "gen_intrinsics.py", BEGIN, END)


if __name__ == "__main__":
    sys.exit(main())
