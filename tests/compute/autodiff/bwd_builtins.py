#!/usr/bin/env python3
"""Writes the `bwd-builtin-*.slang` tests and their .expected.txt files.

One test per built-in differentiable function of the user guide's list: a
[Differentiable] function applies it to its parameters (vector results are
reduced with a fixed dot product), `bwd_diff` runs on the GPU with a unit
derivative of the result, and every component of every parameter's
derivative is written out. Expected values are central finite differences
of the same formula evaluated here in float64 — not slang-analyzer's output.

    python3 tests/compute/autodiff/bwd_builtins.py
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# Parameter shapes: name -> (Slang type, number of floats).
SHAPES = {"s": ("float", 1), "v2": ("float2", 2), "v3": ("float3", 3), "m2": ("float2x2", 4), "m3": ("float3x3", 9)}

W3 = [0.3, -0.5, 0.8]
W2 = [0.7, -0.4]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def length(a):
    return math.sqrt(dot(a, a))


def rows(m, n):
    return [m[i * n:(i + 1) * n] for i in range(n)]


def mat_vec(m, v, n):
    return [dot(r, v) for r in rows(m, n)]


def vec_mat(v, m, n):
    r = rows(m, n)
    return [sum(v[i] * r[i][j] for i in range(n)) for j in range(n)]


def det2(m):
    return m[0] * m[3] - m[1] * m[2]


def det3(m):
    a = rows(m, 3)
    return dot(a[0], cross(a[1], a[2]))


def fmod(x, y):
    return math.fmod(x, y)


def sat(x):
    return min(max(x, 0.0), 1.0)


# (name, [(param, shape)], Slang body expression, Python function of the
# parameters (lists for vectors/matrices, floats for scalars), inputs).
CASES = [
    ("sin", [("x", "s")], "sin(x)", lambda x: math.sin(x), [0.7]),
    ("cos", [("x", "s")], "cos(x)", lambda x: math.cos(x), [0.7]),
    ("tan", [("x", "s")], "tan(x)", lambda x: math.tan(x), [0.7]),
    ("asin", [("x", "s")], "asin(x)", lambda x: math.asin(x), [0.4]),
    ("acos", [("x", "s")], "acos(x)", lambda x: math.acos(x), [0.4]),
    ("atan", [("x", "s")], "atan(x)", lambda x: math.atan(x), [0.9]),
    ("atan2", [("y", "s"), ("x", "s")], "atan2(y, x)", lambda y, x: math.atan2(y, x), [0.8, -1.3]),
    ("sinh", [("x", "s")], "sinh(x)", lambda x: math.sinh(x), [0.6]),
    ("cosh", [("x", "s")], "cosh(x)", lambda x: math.cosh(x), [0.6]),
    ("tanh", [("x", "s")], "tanh(x)", lambda x: math.tanh(x), [0.6]),
    ("asinh", [("x", "s")], "asinh(x)", lambda x: math.asinh(x), [0.6]),
    ("acosh", [("x", "s")], "acosh(x)", lambda x: math.acosh(x), [1.6]),
    ("atanh", [("x", "s")], "atanh(x)", lambda x: math.atanh(x), [0.3]),
    ("exp", [("x", "s")], "exp(x)", lambda x: math.exp(x), [0.45]),
    ("exp2", [("x", "s")], "exp2(x)", lambda x: 2.0 ** x, [0.45]),
    ("log", [("x", "s")], "log(x)", lambda x: math.log(x), [1.7]),
    ("log2", [("x", "s")], "log2(x)", lambda x: math.log2(x), [1.7]),
    ("log10", [("x", "s")], "log10(x)", lambda x: math.log10(x), [1.7]),
    ("sqrt", [("x", "s")], "sqrt(x)", lambda x: math.sqrt(x), [2.3]),
    ("rsqrt", [("x", "s")], "rsqrt(x)", lambda x: 1.0 / math.sqrt(x), [2.3]),
    ("rcp", [("x", "s")], "rcp(x)", lambda x: 1.0 / x, [1.9]),
    ("pow", [("x", "s"), ("y", "s")], "pow(x, y)", lambda x, y: x ** y, [1.4, 2.6]),
    ("abs", [("x", "s")], "abs(x)", lambda x: abs(x), [-0.8]),
    ("min", [("x", "s"), ("y", "s")], "min(x, y) * 3.0 + y", lambda x, y: min(x, y) * 3.0 + y, [0.4, 0.9]),
    ("max", [("x", "s"), ("y", "s")], "max(x, y) * 3.0 + y", lambda x, y: max(x, y) * 3.0 + y, [0.4, 0.9]),
    ("clamp", [("x", "s"), ("lo", "s"), ("hi", "s")], "clamp(x, lo, hi) + clamp(x * 3.0, lo, hi) * 2.0",
     lambda x, lo, hi: min(max(x, lo), hi) + min(max(x * 3.0, lo), hi) * 2.0, [0.5, 0.2, 1.1]),
    ("saturate", [("x", "s")], "saturate(x) + saturate(x * 4.0)", lambda x: sat(x) + sat(x * 4.0), [0.6]),
    ("lerp", [("a", "s"), ("b", "s"), ("t", "s")], "lerp(a, b, t)", lambda a, b, t: a + (b - a) * t, [0.3, 2.1, 0.35]),
    ("mad", [("a", "s"), ("b", "s"), ("c", "s")], "mad(a, b, c)", lambda a, b, c: a * b + c, [1.5, -0.7, 0.2]),
    ("fma", [("a", "s"), ("b", "s"), ("c", "s")], "fma(a, b, c)", lambda a, b, c: a * b + c, [1.5, -0.7, 0.2]),
    ("fmod", [("x", "s"), ("y", "s")], "fmod(x, y)", lambda x, y: fmod(x, y), [5.3, 1.7]),
    ("frac", [("x", "s")], "frac(x) * x", lambda x: (x - math.floor(x)) * x, [2.3]),
    ("radians", [("x", "s")], "radians(x) * x", lambda x: math.radians(x) * x, [30.0]),
    ("degrees", [("x", "s")], "degrees(x)", lambda x: math.degrees(x), [0.5]),
    ("sign-and-no-diff-floor", [("x", "s")], "x * sign(x) + no_diff(floor(x)) * x",
     lambda x: x * (1.0 if x > 0 else -1.0) + math.floor(x) * x, [-1.3]),
    ("dot", [("a", "v3"), ("b", "v3")], "dot(a, b)", lambda a, b: dot(a, b), [0.5, -1.0, 2.0, 1.5, 0.25, -0.75]),
    ("cross", [("a", "v3"), ("b", "v3")], "dot(cross(a, b), float3(0.3, -0.5, 0.8))",
     lambda a, b: dot(cross(a, b), W3), [0.5, -1.0, 2.0, 1.5, 0.25, -0.75]),
    ("length", [("a", "v3")], "length(a)", lambda a: length(a), [0.5, -1.0, 2.0]),
    ("distance", [("a", "v3"), ("b", "v3")], "distance(a, b)",
     lambda a, b: length([x - y for x, y in zip(a, b)]), [0.5, -1.0, 2.0, 1.5, 0.25, -0.75]),
    ("normalize", [("a", "v3")], "dot(normalize(a), float3(0.3, -0.5, 0.8))",
     lambda a: dot([x / length(a) for x in a], W3), [0.5, -1.0, 2.0]),
    ("reflect", [("i", "v3"), ("n", "v3")], "dot(reflect(i, n), float3(0.3, -0.5, 0.8))",
     lambda i, n: dot([i[k] - 2.0 * dot(n, i) * n[k] for k in range(3)], W3), [0.5, -1.0, 2.0, 0.2, 0.9, 0.1]),
    ("mul-mat-vec", [("m", "m2"), ("v", "v2")], "dot(mul(m, v), float2(0.7, -0.4))",
     lambda m, v: dot(mat_vec(m, v, 2), W2), [1.0, 2.0, -0.5, 1.5, 0.3, -1.2]),
    ("mul-vec-mat", [("v", "v3"), ("m", "m3")], "dot(mul(v, m), float3(0.3, -0.5, 0.8))",
     lambda v, m: dot(vec_mat(v, m, 3), W3), [0.3, -1.2, 0.6, 1, 2, 3, 0, 1, 0, 2, 0, 1]),
    ("mul-mat-mat", [("a", "m2"), ("b", "m2")], "dot(mul(a, b)[0], float2(0.7, -0.4)) + mul(a, b)[1][1]",
     lambda a, b: dot([sum(a[i] * b[2 * i + j] for i in range(2)) for j in range(2)], W2)
     + sum(a[2 + i] * b[2 * i + 1] for i in range(2)), [1.0, 2.0, -0.5, 1.5, 0.3, -1.2, 0.8, 0.4]),
    ("transpose", [("m", "m2")], "dot(transpose(m)[0], float2(0.7, -0.4)) + transpose(m)[1][0] * 3.0",
     lambda m: dot([m[0], m[2]], W2) + m[1] * 3.0, [1.0, 2.0, -0.5, 1.5]),
    ("determinant2", [("m", "m2")], "determinant(m)", lambda m: det2(m), [1.0, 2.0, -0.5, 1.5]),
    ("determinant3", [("m", "m3")], "determinant(m)", lambda m: det3(m), [1, 2, 3, 0, 1, 4, 5, 6, 0]),
    ("vector-ops", [("a", "v3"), ("b", "v3")], "dot(sin(a) * b + exp(b * 0.5) / (a * a + 1.0), float3(0.3, -0.5, 0.8))",
     lambda a, b: dot([math.sin(a[k]) * b[k] + math.exp(b[k] * 0.5) / (a[k] * a[k] + 1.0) for k in range(3)], W3),
     [0.5, -1.0, 2.0, 1.5, 0.25, -0.75]),
    ("swizzle", [("a", "v3")], "dot(a.zxy * a.yyz, float3(0.3, -0.5, 0.8)) + a.x",
     lambda a: dot([a[2] * a[1], a[0] * a[1], a[1] * a[2]], W3) + a[0], [0.5, -1.0, 2.0]),
]


def flat_names(params):
    """Slang expressions of every float of every parameter's derivative."""
    out = []
    for name, shape in params:
        kind, n = SHAPES[shape]
        if shape == "s":
            out.append(f"p_{name}.d")
        elif shape.startswith("v"):
            out.extend(f"p_{name}.d.{c}" for c in "xyzw"[:n])
        else:
            k = int(shape[1])
            out.extend(f"p_{name}.d[{i}][{j}]" for i in range(k) for j in range(k))
    return out


def unflatten(params, xs):
    args, i = [], 0
    for _, shape in params:
        n = SHAPES[shape][1]
        args.append(xs[i] if shape == "s" else list(xs[i:i + n]))
        i += n
    return args


def slang_value(shape, xs):
    kind, _ = SHAPES[shape]
    if shape == "s":
        return repr(float(xs[0]))
    return f"{kind}({', '.join(repr(float(x)) for x in xs)})"


def gradient(f, params, xs):
    h = 1e-6
    g = []
    for i in range(len(xs)):
        p, m = list(xs), list(xs)
        p[i] += h
        m[i] -= h
        g.append((f(*unflatten(params, p)) - f(*unflatten(params, m))) / (2 * h))
    return g


def main():
    for name, params, expr, f, xs in CASES:
        outputs = flat_names(params)
        decl = ", ".join(f"{SHAPES[s][0]} {n}" for n, s in params)
        lines = [
            f"// The backward derivative of `{name}`; expected values: central differences",
            "// of the same formula in float64 (tests/compute/autodiff/bwd_builtins.py).",
            "//TEST(compute, vulkan):COMPARE_COMPUTE_EX:-vk -compute -shaderobj -output-using-type",
            f"//TEST_INPUT:ubuffer(data=[{' '.join('0' for _ in outputs)}], stride=4):out,name=outputBuffer",
            "RWStructuredBuffer<float> outputBuffer;",
            "",
            "[Differentiable]",
            f"float f({decl})",
            "{",
            f"    return {expr};",
            "}",
            "",
            "[numthreads(1, 1, 1)]",
            "void computeMain(uint3 dispatchThreadID : SV_DispatchThreadID)",
            "{",
        ]
        i = 0
        for pname, shape in params:
            n = SHAPES[shape][1]
            lines.append(f"    var p_{pname} = diffPair({slang_value(shape, xs[i:i + n])});")
            i += n
        lines.append(f"    bwd_diff(f)({', '.join('p_' + n for n, _ in params)}, 1.0);")
        for k, o in enumerate(outputs):
            lines.append(f"    outputBuffer[{k}] = {o};")
        lines.append("}")
        path = os.path.join(HERE, f"bwd-builtin-{name}.slang")
        with open(path, "w") as out:
            out.write("\n".join(lines) + "\n")
        with open(path + ".expected.txt", "w") as out:
            out.write("type: float\n")
            for g in gradient(f, params, xs):
                out.write(f"{g:.6f}\n")


if __name__ == "__main__":
    main()
