#!/usr/bin/env python3
"""Writes the .expected.txt files of the compute tests in this folder.

Every expected value here comes from mathematics: the formula or loop each
test's comment describes, evaluated in Python (float64, printed like C's %f,
which Slang's runner compares with a 1e-4 relative tolerance). Nothing here
comes from slang-analyzer's own output. Run it from anywhere:

    python3 tests/compute/expected.py
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def cdiv(a, b):
    """C/HLSL/WGSL integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def cmod(a, b):
    """C's %: the remainder takes the sign of the dividend."""
    return a - b * cdiv(a, b)


def i32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def u32(v):
    return v & 0xFFFFFFFF


def smoothstep(e0, e1, x):
    t = min(max((x - e0) / (e1 - e0), 0.0), 1.0)
    return t * t * (3 - 2 * t)


def det3(m):
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def while_break():
    total, i = 0, 0
    while i < 50:
        i += 1
        if i % 3 == 0:
            continue
        if i % 37 == 0:
            break
        total += i
    return total, i


def nested():
    count = weighted = 0
    last = -1
    for i in range(10):
        for j in range(i):
            if (i + j) % 2 == 0:
                continue
            count += 1
            weighted += i * 10 + j
        last = i
        if count > 20:
            break
    return [count, weighted, last]


def logic_mask(i):
    even, big = i % 2 == 0, i >= 5
    mask = 0
    if even and big:
        mask |= 1
    if even or big:
        mask |= 2
    if not even and i != 7:
        mask |= 4
    if i != 3 and (i < 2 or i > 8):
        mask |= 8
    return mask


def hexword(x):
    return "%X" % struct.unpack("<I", struct.pack("<f", x))[0]


def classify(x):
    return {0: 100, 1: 201, 2: 202, 5: 500}.get(x, -x)


def piecewise(x):
    if x < -1:
        return -x * 2
    if x < 1:
        return x * x
    if x == 2:
        return 42.0
    return math.sqrt(x) if x > 3 else x + 0.5


def digits(n):
    count = total = 0
    while True:
        total += n % 10
        n //= 10
        count += 1
        if n == 0:
            return [count, total, 1, n]


M3 = [[2, 0, 1], [1, 3, 0], [0, 1, 4]]
M3b = [[2, 0, 1], [1, 3, 0], [0, 7, 4]]
T3 = [[M3[j][i] for j in range(3)] for i in range(3)]
S3 = [[2 * M3[i][j] + T3[i][j] for j in range(3)] for i in range(3)]
M23 = [[1, 2, 3], [4, 5, 6]]
N32 = [[1, 0.5], [-1, 2], [0, 3]]
V3 = [0.5, -1, 2]
U2 = [3, -2]
A3, B3 = [1, 2, 3], [-2, 0.5, 4]
poly = lambda x: 3 * x * x - 2 * x + 1  # noqa: E731

# test name -> (printed type, values); "hex" prints 32-bit words.
TESTS = {
    "arith_float": ("float", [a * b + a / b - (a - b) for a, b in [(1.5, 2), (-3, 0.25), (10, 4), (7, -0.5)]]),
    "arith_int": ("int32_t", [v for a, b in [(17, 5), (-17, 5), (17, -5), (-17, -5)]
                              for v in [cdiv(a, b), cmod(a, b), a * b - (a + b), (a << 2) + (b >> 1),
                                        (a & 12) | (b ^ 3), ~a + -b]]),
    "uint_ops": ("uint32_t", [u32(4000000000 * 2), u32(3 - 5), 4000000000 >> 3, u32(3 << 30),
                              4000000000 // 7, 4000000000 % 7, 1, 0xF0F0 & u32(~0x0FF0)]),
    "vector_ops": ("float", [(v * 2 - w) / (w + 1) + 0.5 for v, w in zip([1, 2, 3], [4, -5, 0.5])]),
    "swizzle": ("float", [3, 1, 5, 20, 10, 10, 20, 10]),
    "matrix_mul": ("float", [sum(M23[i][j] * V3[j] for j in range(3)) for i in range(2)]
                   + [sum(U2[i] * M23[i][j] for i in range(2)) for j in range(3)]
                   + [sum(M23[i][k] * N32[k][j] for k in range(3)) for i in range(2) for j in range(2)]),
    "matrix_ops": ("float", [T3[0][1], T3[2][0], S3[0][2], S3[1][0], S3[2][2], M3[1][0] + M3[1][1] * 10,
                             det3(M3), det3(M3b)]),
    "struct_basic": ("float", [0 + 2 * 0.5, 10 + 3 * 0.5, 3 - 9.5 * 0.5, 0.5 * 2 * (2 ** 2 + (3 - 9.5 * 0.5) ** 2)]),
    "struct_buffer": ("float", [v for a, b in [(1, 2), (3, -4), (0.5, 8)] for v in [a + b, a * b]]),
    "array_local": ("float", [sum(i * i for i in range(8)), 25, 3.5 - 1.5, 49 / 2.5]),
    "array_param": ("float", [10, 8, 6, 1 + 4 * (-2 + 4 * 0.5)]),
    "loop_for": ("int32_t", [sum(range(1, 101)), math.prod(range(1, 10, 2)),
                             int("".join(str(k & 1) for k in range(10, 0, -1)), 2)]),
    "loop_while_break": ("int32_t", [collatz_steps(27), *while_break()]),
    "loop_do_while": ("int32_t", digits(9075123)),
    "loop_nested": ("int32_t", nested()),
    "switch_cases": ("int32_t", [classify(x) for x in range(8)]),
    "if_else": ("float", [piecewise(i - 3.0) for i in range(8)]),
    "early_return": ("int32_t", [2, 5, -1, -100 + 0 + 1]),
    "inout_out": ("float", [2, 1, math.floor(17.5 / 4), 17.5 - math.floor(17.5 / 4) * 4,
                            sum(i * 3 % 7 for i in range(5)), max(i * 3 % 7 for i in range(5))]),
    "calls": ("float", [25, poly(poly(0.5)), 9 + 16, poly(2)]),
    "intrinsics_trig": ("float", [math.sin(0.5), math.cos(2.0), math.tan(1.0), math.asin(0.3), math.acos(-0.4),
                                  math.atan(2.5), math.atan2(-1.0, -2.0), math.sinh(1.2), math.cosh(-0.7),
                                  math.tanh(0.6)]),
    "intrinsics_exp": ("float", [math.exp(1.5), 2 ** 3.3, math.log(10), math.log2(0.3), 2.5 ** 1.7, math.sqrt(7),
                                 1 / math.sqrt(0.2), 3 + 4]),
    "intrinsics_minmax": ("float", [-1.25, 2.5, 3.5, 0 + 0.25 + 1, 3.25, -10 + 1, math.floor(-2.3), math.ceil(-2.3),
                                    3 + -1, -2, -2.25 - math.floor(-2.25), math.fmod(-7.5, 2.0), -3 * 9, 12 + 15,
                                    2 * 3 + 0.25, 7 - 3]),
    "intrinsics_lerp": ("float", [0 + 1 * 0.25, 10 + 10 * 0.25, -4 + 8 * 0.25, 2 + 1 * 1.5, 0 + 2 * 1,
                                  smoothstep(0, 2, 0.5), smoothstep(-1, 1, 3),
                                  smoothstep(0, 1, 0.3) + smoothstep(0, 4, 3)]),
    "intrinsics_vector": ("float", [sum(a * b for a, b in zip(A3, B3)),
                                    A3[1] * B3[2] - A3[2] * B3[1], A3[2] * B3[0] - A3[0] * B3[2],
                                    A3[0] * B3[1] - A3[1] * B3[0],
                                    math.hypot(*B3), math.dist(A3, B3), 3 / math.sqrt(14), 1.0, 1.0, 1.0]),
    "dispatch_threads": ("uint32_t", [i * i + 1 for i in range(8)]),
    "dispatch_2d": ("int32_t", [y * 10 + x for y in range(6) for x in range(4)]),
    "group_ids": ("uint32_t", [g * 1000 + gi * 100 + (gi // 2) * 10 + gi % 2 for g in range(3) for gi in range(4)]),
    "multiple_buffers": ("float", [(2 if s else -3) * x + y
                                   for x, y, s in zip([1, 2, 3, 4, 5], [0.5, -0.5, 1.5, -1.5, 2.5], [1, 0, 1, 0, 1])]),
    "read_write_buffer": ("int32_t", [v * 3 - i for i, v in enumerate([2, 4, 6, 8, 10, 12])]),
    "vector_buffers": ("float", [1 + 2, 3 * 4, -1 + 0.5, 2 * -2]),
    "casts": ("int32_t", [-7, 7, int(17 / 2 * 10), i32(4294967295), 2, 1 + 10, 200, int(4 * 0.5)]),
    "logic": ("uint32_t", [logic_mask(i) for i in range(10)]),
    "hex_output": ("hex", [hexword(x) for x in [1.0, -2.0, 0.5, 0.0, 100.0]]),
    "set_syntax": ("int32_t", [v + 100 for v in [1, 2, 3, 0, 0, 0]]),
    "vk_binding": ("float", [v * v for v in [1.5, -2.0, 3.0]]),
    "entry_name": ("int32_t", [10 - i for i in range(4)]),
    "static_const": ("float", [1.25 ** k for k in range(1, 6)]),
    "xslang_define": ("int32_t", [3 * i for i in range(4)]),
}


def show(ty, v):
    if ty == "hex":
        return v
    if ty == "float":
        return "%f" % v
    return "%d" % v


def main():
    for name, (ty, values) in TESTS.items():
        lines = ([] if ty == "hex" else ["type: " + ty]) + [show(ty, v) for v in values]
        with open(os.path.join(HERE, name + ".slang.expected.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
