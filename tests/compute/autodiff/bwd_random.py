#!/usr/bin/env python3
"""Writes the `bwd-random-*.slang` tests and their .expected.txt files.

Each test is a random program of three float inputs (fixed seed): steps of
arithmetic, built-in functions, branches, loops with `[MaxIters]`, calls of
differentiable helpers, local arrays and structs. `bwd_diff` runs on the
GPU; expected values are central finite differences of the same program
evaluated here in float64 — not slang-analyzer's output.

    python3 tests/compute/autodiff/bwd_random.py
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
COUNT = 40

HELPERS = """[Differentiable]
float h(float a, float b) { return sin(a * b) + 0.5 * a; }

struct Acc : IDifferentiable
{
    float sum;
    float sq;
};

[Differentiable]
Acc accumulate(Acc acc, float v)
{
    Acc r;
    r.sum = acc.sum + v;
    r.sq = acc.sq + v * v;
    return r;
}
"""


def h(a, b):
    return math.sin(a * b) + 0.5 * a


def step(rng, k):
    """One step: (Slang lines, Python function of the value list)."""
    avail = 3 + k
    a, b = rng.randrange(avail), rng.randrange(avail)
    n = lambda i: f"x{i}" if i < 3 else f"t{i - 3}"
    t = f"t{k}"
    kind = rng.randrange(12)
    if kind == 0:
        return f"    float {t} = {n(a)} * {n(b)} + {n(a)};\n", lambda v: v[a] * v[b] + v[a]
    if kind == 1:
        return f"    float {t} = {n(a)} - 0.5 * {n(b)};\n", lambda v: v[a] - 0.5 * v[b]
    if kind == 2:
        return f"    float {t} = sin({n(a)}) * cos({n(b)});\n", lambda v: math.sin(v[a]) * math.cos(v[b])
    if kind == 3:
        return f"    float {t} = exp(-0.2 * {n(a)} * {n(a)});\n", lambda v: math.exp(-0.2 * v[a] * v[a])
    if kind == 4:
        return (f"    float {t} = sqrt({n(a)} * {n(a)} + {n(b)} * {n(b)} + 1.0);\n",
                lambda v: math.sqrt(v[a] * v[a] + v[b] * v[b] + 1.0))
    if kind == 5:
        return f"    float {t} = h({n(a)}, {n(b)});\n", lambda v: h(v[a], v[b])
    if kind == 6:
        return (f"    float {t};\n    if ({n(a)} > {n(b)})\n        {t} = {n(a)} * {n(b)};\n"
                f"    else\n        {t} = sin({n(a)}) + {n(b)};\n",
                lambda v: v[a] * v[b] if v[a] > v[b] else math.sin(v[a]) + v[b])
    if kind == 7:
        m = rng.randrange(1, 5)
        return (f"    float {t} = {n(a)};\n    [MaxIters(4)]\n    for (int i{k} = 0; i{k} < {m}; i{k}++)\n"
                f"        {t} = {t} * 0.6 + h({t}, {n(b)}) * 0.3;\n",
                lambda v, m=m: loop(v[a], v[b], m))
    if kind == 8:
        # An array written and read with a loop index.
        return (f"    float arr{k}[3];\n    [MaxIters(3)]\n    for (int j{k} = 0; j{k} < 3; j{k}++)\n"
                f"        arr{k}[j{k}] = {n(a)} * float(j{k} + 1) + {n(b)};\n"
                f"    float {t} = arr{k}[0] * arr{k}[2] - arr{k}[1];\n",
                lambda v: (v[a] + v[b]) * (3 * v[a] + v[b]) - (2 * v[a] + v[b]))
    if kind == 9:
        # A struct threaded through calls.
        return (f"    Acc acc{k} = {{ 0.0, 0.0 }};\n    acc{k} = accumulate(acc{k}, {n(a)});\n"
                f"    acc{k} = accumulate(acc{k}, {n(b)} * 2.0);\n    float {t} = acc{k}.sum * acc{k}.sq;\n",
                lambda v: (v[a] + 2 * v[b]) * (v[a] * v[a] + 4 * v[b] * v[b]))
    if kind == 10:
        # A loop with an early exit.
        return (f"    float {t} = {n(a)};\n    [MaxIters(6)]\n    for (int e{k} = 0; e{k} < 6; e{k}++)\n    {{\n"
                f"        {t} = {t} * 1.3 + 0.1 * {n(b)};\n        if ({t} > 3.0)\n            break;\n    }}\n",
                lambda v: early(v[a], v[b]))
    return (f"    float {t} = lerp({n(a)}, {n(b)}, 0.3) + max({n(a)}, {n(b)});\n",
            lambda v: v[a] + (v[b] - v[a]) * 0.3 + max(v[a], v[b]))


def loop(t, b, m):
    for _ in range(m):
        t = t * 0.6 + h(t, b) * 0.3
    return t


def early(t, b):
    for _ in range(6):
        t = t * 1.3 + 0.1 * b
        if t > 3.0:
            break
    return t


def main():
    rng = random.Random(20261121)
    for case in range(COUNT):
        steps = [step(rng, k) for k in range(4 + case % 5)]
        body = "".join(s[0] for s in steps)
        last, mid = len(steps) - 1, len(steps) // 2
        body += f"    return t{last} + 0.5 * t{mid};\n"

        def f(x, steps=steps, last=last, mid=mid):
            v = list(x)
            for _, fn in steps:
                v.append(fn(v))
            return v[3 + last] + 0.5 * v[3 + mid]

        x = [round(0.4 + rng.random(), 4) for _ in range(3)]
        hd = 1e-6
        grad = []
        for i in range(3):
            p, m = list(x), list(x)
            p[i] += hd
            m[i] -= hd
            grad.append((f(p) - f(m)) / (2 * hd))
        src = (
            "// A random program (tests/compute/autodiff/bwd_random.py) differentiated\n"
            "// with bwd_diff; expected: central differences of it in float64.\n"
            "//TEST(compute, vulkan):COMPARE_COMPUTE_EX:-vk -compute -shaderobj -output-using-type\n"
            "//TEST_INPUT:ubuffer(data=[0 0 0], stride=4):out,name=outputBuffer\n"
            "RWStructuredBuffer<float> outputBuffer;\n\n"
            f"{HELPERS}\n"
            "[Differentiable]\n"
            f"float f(float x0, float x1, float x2)\n{{\n{body}}}\n\n"
            "[numthreads(1, 1, 1)]\n"
            "void computeMain(uint3 dispatchThreadID : SV_DispatchThreadID)\n{\n"
            f"    var a = diffPair({x[0]});\n    var b = diffPair({x[1]});\n    var c = diffPair({x[2]});\n"
            "    bwd_diff(f)(a, b, c, 1.0);\n"
            "    outputBuffer[0] = a.d;\n    outputBuffer[1] = b.d;\n    outputBuffer[2] = c.d;\n}\n"
        )
        path = os.path.join(HERE, f"bwd-random-{case:02}.slang")
        with open(path, "w") as out:
            out.write(src)
        with open(path + ".expected.txt", "w") as out:
            out.write("type: float\n" + "".join(f"{g:.6f}\n" for g in grad))


if __name__ == "__main__":
    main()
