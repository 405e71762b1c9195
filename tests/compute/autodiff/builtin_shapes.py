#!/usr/bin/env python3
"""Writes the `builtin-shapes-*.slang` tests and their .expected.txt files.

One test per differentiable element-wise built-in (the core module's
`[__elementwise]` functions with `[Differentiable]`): the function applied
to scalars, to vectors of every width (2, 3, 4), to matrices of every shape
(2..4 rows by 2..4 columns) and to a vector with a broadcast scalar last
argument, each differentiated in both modes. Forward mode writes every
component of the derivative along a fixed direction; backward mode writes
every component of every argument's derivative for a fixed derivative of
the result. Expected values are central finite differences of the same
function evaluated here in float64 — not slang-analyzer's output. Inputs
stay away from the points where the function is not differentiable (ties
of `min`/`max`, bounds of `clamp`, integers for `frac`, ...).

    python3 tests/compute/autodiff/builtin_shapes.py
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def fmod(x, y):
    return math.fmod(x, y)


def frac(x):
    return x - math.floor(x)


def far(v, points, d=0.06):
    return all(abs(v - p) > d for p in points)


def not_near_integer(v, d=0.06):
    return abs(v - round(v)) > d


# name -> (arity, Python function of the scalar arguments, (lo, hi) per
# argument, acceptance test of one component's arguments).
CASES = {
    "sin": (1, math.sin, [(-2.0, 2.0)], None),
    "cos": (1, math.cos, [(-2.0, 2.0)], None),
    "tan": (1, math.tan, [(-1.1, 1.1)], None),
    "asin": (1, math.asin, [(-0.8, 0.8)], None),
    "acos": (1, math.acos, [(-0.8, 0.8)], None),
    "atan": (1, math.atan, [(-2.0, 2.0)], None),
    "atan2": (2, math.atan2, [(-2.0, 2.0), (-2.0, 2.0)],
              lambda y, x: abs(x) + abs(y) > 0.4 and not (x < 0 and abs(y) < 0.2)),
    "sinh": (1, math.sinh, [(-2.0, 2.0)], None),
    "cosh": (1, math.cosh, [(-2.0, 2.0)], lambda x: abs(x) > 0.1),
    "tanh": (1, math.tanh, [(-1.5, 1.5)], None),
    "asinh": (1, math.asinh, [(-2.0, 2.0)], None),
    "acosh": (1, math.acosh, [(1.2, 3.0)], None),
    "atanh": (1, math.atanh, [(-0.8, 0.8)], None),
    "exp": (1, math.exp, [(-2.0, 2.0)], None),
    "exp2": (1, lambda x: 2.0 ** x, [(-2.0, 2.0)], None),
    "log": (1, math.log, [(0.3, 3.0)], None),
    "log2": (1, math.log2, [(0.3, 3.0)], None),
    "log10": (1, math.log10, [(0.3, 3.0)], None),
    "sqrt": (1, math.sqrt, [(0.3, 3.0)], None),
    "rsqrt": (1, lambda x: 1.0 / math.sqrt(x), [(0.3, 3.0)], None),
    "rcp": (1, lambda x: 1.0 / x, [(0.4, 3.0)], None),
    "pow": (2, lambda x, y: x ** y, [(0.5, 2.0), (-1.5, 2.5)], None),
    "abs": (1, abs, [(-2.0, 2.0)], lambda x: abs(x) > 0.06),
    "min": (2, min, [(-1.0, 1.0), (-1.0, 1.0)], lambda x, y: abs(x - y) > 0.06),
    "max": (2, max, [(-1.0, 1.0), (-1.0, 1.0)], lambda x, y: abs(x - y) > 0.06),
    "clamp": (3, lambda x, lo, hi: min(max(x, lo), hi), [(-0.5, 1.5), (0.0, 0.35), (0.65, 1.0)],
              lambda x, lo, hi: far(x, [lo, hi])),
    "saturate": (1, lambda x: min(max(x, 0.0), 1.0), [(-0.5, 1.5)], lambda x: far(x, [0.0, 1.0])),
    "lerp": (3, lambda a, b, t: a + (b - a) * t, [(-2.0, 2.0), (-2.0, 2.0), (-0.5, 1.5)], None),
    "mad": (3, lambda a, b, c: a * b + c, [(-2.0, 2.0), (-2.0, 2.0), (-2.0, 2.0)], None),
    "fma": (3, lambda a, b, c: a * b + c, [(-2.0, 2.0), (-2.0, 2.0), (-2.0, 2.0)], None),
    "fmod": (2, fmod, [(-3.0, 3.0), (0.7, 1.6)], lambda x, y: not_near_integer(x / y)),
    "frac": (1, frac, [(-2.0, 2.0)], lambda x: not_near_integer(x)),
    "radians": (1, math.radians, [(-90.0, 90.0)], None),
    "degrees": (1, math.degrees, [(-2.0, 2.0)], None),
    "copysign": (2, math.copysign, [(-2.0, 2.0), (-2.0, 2.0)], lambda x, y: abs(x) > 0.06 and abs(y) > 0.06),
}

# (suffix, Slang type, rows, columns): rows 0 for a scalar, columns 0 for
# a vector.
SHAPES = [("1", "float", 0, 0)]
SHAPES += [(f"{n}", f"float{n}", n, 0) for n in (2, 3, 4)]
SHAPES += [(f"{r}x{c}", f"float{r}x{c}", r, c) for r in (2, 3, 4) for c in (2, 3, 4)]


def size(shape):
    _, _, r, c = shape
    return 1 if r == 0 else (r if c == 0 else r * c)


def components(var, shape):
    """Slang expressions of every component of `var` (row-major)."""
    _, _, r, c = shape
    if r == 0:
        return [var]
    if c == 0:
        return [f"{var}.{'xyzw'[i]}" for i in range(r)]
    return [f"{var}[{i}][{j}]" for i in range(r) for j in range(c)]


def literal(shape, xs):
    ty = shape[1]
    if shape[2] == 0:
        return repr(float(xs[0]))
    return f"{ty}({', '.join(repr(float(x)) for x in xs)})"


class Rng:
    """A small linear congruential generator: the same tests every run."""

    def __init__(self, seed):
        self.state = seed

    def uniform(self, lo, hi):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        u = (self.state >> 11) / float(1 << 53)
        # Two decimals: exact enough in float32 and readable.
        return round(lo + (hi - lo) * u, 2)


def partials(f, v):
    out = []
    for a in range(len(v)):
        p, m = list(v), list(v)
        p[a] += H
        m[a] -= H
        out.append((f(*p) - f(*m)) / (2 * H))
    return out


def arguments(rng, f, arity, ranges, ok, n):
    """`arity` lists of `n` values, component k of each accepted by `ok`,
    with partial derivatives that are 0 or not small (values printed with
    six decimals keep enough digits)."""
    cols = [[] for _ in range(arity)]
    for _ in range(n):
        while True:
            v = [rng.uniform(*ranges[a]) for a in range(arity)]
            if (ok is None or ok(*v)) and all(d == 0.0 or abs(d) > 0.01 for d in partials(f, v)):
                break
        for a in range(arity):
            cols[a].append(v[a])
    return cols


def direction(rng, n):
    """`n` values of magnitude 0.3 to 1, of either sign."""
    return [rng.uniform(0.3, 1.0) * (1 if rng.uniform(0.0, 1.0) < 0.5 else -1) for _ in range(n)]


H = 1e-6


def forward(f, args, dirs, sizes):
    """Central differences of the component-wise result along `dirs`."""
    n = max(sizes)
    out = []
    for k in range(n):
        plus = [a[k if s > 1 else 0] + H * d[k if s > 1 else 0] for a, d, s in zip(args, dirs, sizes)]
        minus = [a[k if s > 1 else 0] - H * d[k if s > 1 else 0] for a, d, s in zip(args, dirs, sizes)]
        out.append((f(*plus) - f(*minus)) / (2 * H))
    return out


def backward(f, args, g, sizes):
    """Each argument's derivative for the result's derivative `g` (a
    broadcast scalar argument: the sum over the components)."""
    n = max(sizes)
    out = []
    for a, s in enumerate(sizes):
        grads = [0.0] * s
        for k in range(n):
            idx = k if s > 1 else 0
            at = [args[b][k if sizes[b] > 1 else 0] for b in range(len(args))]
            p, m = list(at), list(at)
            p[a] += H
            m[a] -= H
            grads[idx] += g[k] * (f(*p) - f(*m)) / (2 * H)
        out.extend(grads)
    return out


def write(name, arity, f, ranges, ok):
    rng = Rng(sum(ord(ch) for ch in name) * 7919)
    # Every shape with every argument of that shape, then a float3 with a
    # broadcast scalar last argument.
    variants = [(s, [s] * arity) for s in SHAPES]
    if arity > 1:
        v3 = SHAPES[2]
        variants.append((("3s", "float3", 3, 0), [v3] * (arity - 1) + [SHAPES[0]]))
    decls, body, expected = [], [], []
    k = 0
    params = ["x", "y", "z"][:arity]
    for result, shapes in variants:
        suffix = result[0]
        sizes = [size(s) for s in shapes]
        n = size(result)
        args = arguments(rng, f, arity, ranges, ok, n)
        args = [a if sz > 1 else a[:1] for a, sz in zip(args, sizes)]
        dirs = [direction(rng, sz) for sz in sizes]
        g = direction(rng, n)
        decl = ", ".join(f"{s[1]} {p}" for s, p in zip(shapes, params))
        decls += [
            "[Differentiable]",
            f"{result[1]} f_{suffix}({decl})",
            "{",
            f"    return {name}({', '.join(params)});",
            "}",
            "",
        ]
        pairs = ", ".join(f"diffPair({literal(s, a)}, {literal(s, d)})" for s, a, d in zip(shapes, args, dirs))
        body.append("    {")
        body.append(f"        let r = fwd_diff(f_{suffix})({pairs});")
        for c in components("r.d", result):
            body.append(f"        outputBuffer[{k}] = {c};")
            k += 1
        body.append("    }")
        expected += forward(f, args, dirs, sizes)
        body.append("    {")
        for p, s, a in zip(params, shapes, args):
            body.append(f"        var p_{p} = diffPair({literal(s, a)});")
        body.append(f"        bwd_diff(f_{suffix})({', '.join('p_' + p for p in params)}, {literal(result, g)});")
        for p, s in zip(params, shapes):
            for c in components(f"p_{p}.d", s):
                body.append(f"        outputBuffer[{k}] = {c};")
                k += 1
        body.append("    }")
        expected += backward(f, args, g, sizes)
    lines = [
        f"// `{name}` on scalars, vectors of every width and matrices of every shape",
        "// (and a vector with a broadcast scalar), differentiated in both modes;",
        "// expected values: central differences in float64",
        "// (tests/compute/autodiff/builtin_shapes.py).",
        "//TEST(compute, vulkan):COMPARE_COMPUTE_EX:-vk -compute -shaderobj -output-using-type",
        f"//TEST_INPUT:ubuffer(data=[{' '.join('0' for _ in range(k))}], stride=4):out,name=outputBuffer",
        "RWStructuredBuffer<float> outputBuffer;",
        "",
    ]
    lines += decls
    lines += [
        "[numthreads(1, 1, 1)]",
        "void computeMain(uint3 dispatchThreadID : SV_DispatchThreadID)",
        "{",
    ]
    lines += body
    lines.append("}")
    path = os.path.join(HERE, f"builtin-shapes-{name}.slang")
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")
    with open(path + ".expected.txt", "w") as out:
        out.write("type: float\n")
        for v in expected:
            out.write(f"{v:.6f}\n")


def main():
    for name, (arity, f, ranges, ok) in CASES.items():
        write(name, arity, f, ranges, ok)


if __name__ == "__main__":
    main()
