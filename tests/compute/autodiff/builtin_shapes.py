#!/usr/bin/env python3
"""Writes the `builtin-shapes-*.slang` tests and their .expected.txt files.

Every `[Differentiable]` function of the core module (`math.slang`, and
`select` of `intrinsics.slang`), on every overload it declares,
differentiated in both modes:

* the element-wise ones (`[__elementwise]`): on scalars, vectors of every
  width (2, 3, 4), matrices of every shape (2..4 rows by 2..4 columns) and
  a vector with a broadcast scalar last argument (`select` and
  `copysign`: scalars and vectors, where slangc has them);
* the others at every size their declaration allows: `dot`, `length`,
  `distance`, `normalize`, `reflect`, `refract` on vectors of 2, 3 and 4
  components, `cross`, `dst`, `lit`, `sincos` (through its `out`
  arguments), `transpose` of every matrix shape, `determinant` of 2x2,
  3x3 and 4x4 matrices, and each form of `mul` (scalar, vector and matrix
  operands) at every size;

each in `float`, `half` and `double` (T : __BuiltinFloatingPointType).
Forward mode writes every component of the derivative along a fixed
direction; backward mode writes every component of every argument's
derivative for a fixed derivative of the result. Expected values are
central finite differences of the same function evaluated here in
float64 — not slang-analyzer's output. Inputs stay away from the points
where the function is not differentiable (ties of `min`/`max`, bounds of
`clamp`, integers for `frac`, the origin for `normalize`, ...).

`double` results are written to the float buffer converted. `half`
results carry about three decimal digits, fewer than the runner's relative
tolerance (1e-4) asks for: the shader compares each one with the expected
value within 2% + 0.01 and writes the expected value when it is within
that, the value itself otherwise (so a failure still shows the value).

    python3 tests/compute/autodiff/builtin_shapes.py
"""
import math
import os
import struct
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

PRECISIONS = ["float", "half", "double"]


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
ELEMENTWISE = {
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
    # `sincos(x, out s, out c)`, read through `s - 2 c`.
    "sincos": (1, lambda x: math.sin(x) - 2.0 * math.cos(x), [(-2.0, 2.0)], None),
    # `select(x > 0, x, y)` (intrinsics.slang).
    "select": (2, lambda x, y: x if x > 0.0 else y, [(-2.0, 2.0), (-2.0, 2.0)], lambda x, y: abs(x) > 0.06),
}

# Element-wise functions the reference has on fewer shapes: `select`
# differentiable on scalars and vectors (on matrices: E41022), `copysign`
# declared for scalars and vectors only.
ONLY_SHAPES = {
    "select": "scalars and vectors",
    "copysign": "scalars and vectors",
}

# The body of the function under test, when it is not `return name(args);`.
BODIES = {
    "sincos": ["{T} s;", "{T} c;", "sincos(x, s, c);", "return s - c - c;"],
    "select": ["return select(x > {T}(0.0), x, y);"],
}

# Shapes: (rows, columns): (0, 0) a scalar, (n, 0) a vector, (r, c) a
# matrix of r rows and c columns.
SCALAR = (0, 0)
VECTORS = [(n, 0) for n in (2, 3, 4)]
MATRICES = [(r, c) for r in (2, 3, 4) for c in (2, 3, 4)]
SHAPES = [SCALAR] + VECTORS + MATRICES


def size(shape):
    r, c = shape
    return 1 if r == 0 else (r if c == 0 else r * c)


def suffix(shape):
    r, c = shape
    return "1" if r == 0 else (f"{r}" if c == 0 else f"{r}x{c}")


def type_name(prec, shape):
    r, c = shape
    return prec if r == 0 else (f"{prec}{r}" if c == 0 else f"{prec}{r}x{c}")


def components(var, shape):
    """Slang expressions of every component of `var` (row-major)."""
    r, c = shape
    if r == 0:
        return [var]
    if c == 0:
        return [f"{var}.{'xyzw'[i]}" for i in range(r)]
    return [f"{var}[{i}][{j}]" for i in range(r) for j in range(c)]


def literal(prec, shape, xs):
    if shape[0] == 0:
        return f"{prec}({float(xs[0])!r})"
    return f"{type_name(prec, shape)}({', '.join(repr(float(x)) for x in xs)})"


def to_half(x):
    return struct.unpack("e", struct.pack("e", x))[0]


class Rng:
    """A small linear congruential generator: the same tests every run."""

    def __init__(self, seed):
        self.state = seed

    def uniform(self, lo, hi):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        u = (self.state >> 11) / float(1 << 53)
        # Two decimals: exact enough in float32 and readable.
        return round(lo + (hi - lo) * u, 2)


H = 1e-6


def partials(f, v):
    out = []
    for a in range(len(v)):
        p, m = list(v), list(v)
        p[a] += H
        m[a] -= H
        out.append((f(*p) - f(*m)) / (2 * H))
    return out


def direction(rng, n):
    """`n` values of magnitude 0.3 to 1, of either sign."""
    return [rng.uniform(0.3, 1.0) * (1 if rng.uniform(0.0, 1.0) < 0.5 else -1) for _ in range(n)]


def forward(f, args, dirs):
    """Central differences of `f` (flat lists to a flat list) along `dirs`."""
    plus = f(*[[x + H * d for x, d in zip(a, da)] for a, da in zip(args, dirs)])
    minus = f(*[[x - H * d for x, d in zip(a, da)] for a, da in zip(args, dirs)])
    return [(p - m) / (2 * H) for p, m in zip(plus, minus)]


def backward(f, args, g):
    """Each component of each argument's derivative for the result's
    derivative `g`: the gradient of dot(g, f)."""
    out = []
    for a in range(len(args)):
        for j in range(len(args[a])):
            p = [list(x) for x in args]
            m = [list(x) for x in args]
            p[a][j] += H
            m[a][j] -= H
            out.append(sum(gk * (fp - fm) / (2 * H) for gk, fp, fm in zip(g, f(*p), f(*m))))
    return out


# ---------------------------------------------------------------------------
# The functions that are not element-wise, on flat row-major lists.
# ---------------------------------------------------------------------------


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def length(a):
    return math.sqrt(dot(a, a))


def reflect(i, n):
    k = dot(n, i)
    return [x - 2.0 * k * y for x, y in zip(i, n)]


def refract_k(i, n, eta):
    c = dot(n, i)
    return 1.0 - eta * eta * (1.0 - c * c)


def refract(i, n, eta):
    k = refract_k(i, n, eta[0])
    if k < 0.0:
        return [0.0] * len(i)
    c = dot(n, i)
    return [eta[0] * x - (eta[0] * c + math.sqrt(k)) * y for x, y in zip(i, n)]


def matmul(a, b, r, n, c):
    """(r x n) times (n x c), row-major."""
    return [sum(a[i * n + k] * b[k * c + j] for k in range(n)) for i in range(r) for j in range(c)]


def det(m, n):
    if n == 1:
        return m[0]
    total = 0.0
    for j in range(n):
        minor = [m[i * n + k] for i in range(1, n) for k in range(n) if k != j]
        total += (-1) ** j * m[j] * det(minor, n - 1)
    return total


def lit(l, h, m):
    spec = 0.0 if (l < 0.0 or h < 0.0) else h ** m
    return [1.0, max(l, 0.0), spec, 1.0]


def vector_cases():
    """name -> [(argument shapes, result shape, function, (lo, hi) per
    argument, acceptance of the arguments)]."""
    cases = {}

    def add(name, shapes, result, f, ranges, ok=None):
        cases.setdefault(name, []).append((shapes, result, f, ranges, ok))

    v = (-2.0, 2.0)
    for n in (2, 3, 4):
        vn = (n, 0)
        add("dot", [vn, vn], SCALAR, lambda a, b: [dot(a, b)], [v, v])
        add("length", [vn], SCALAR, lambda a: [length(a)], [v], lambda a: length(a) > 0.5)
        add("distance", [vn, vn], SCALAR, lambda a, b: [length([x - y for x, y in zip(a, b)])], [v, v],
            lambda a, b: length([x - y for x, y in zip(a, b)]) > 0.5)
        add("normalize", [vn], vn, lambda a: [x / length(a) for x in a], [v], lambda a: length(a) > 0.5)
        add("reflect", [vn, vn], vn, reflect, [v, (-1.0, 1.0)])
        add("refract", [vn, vn, SCALAR], vn, refract, [(-1.0, 1.0), (-1.0, 1.0), (0.5, 1.5)],
            lambda i, n, eta: refract_k(i, n, eta[0]) > 0.2)
    add("cross", [(3, 0), (3, 0)], (3, 0), cross, [v, v])
    add("dst", [(4, 0), (4, 0)], (4, 0), lambda a, b: [1.0, a[1] * b[1], a[2], b[3]], [v, v])
    add("lit", [SCALAR, SCALAR, SCALAR], (4, 0), lambda l, h, m: lit(l[0], h[0], m[0]),
        [(0.1, 1.0), (0.2, 1.0), (0.5, 3.0)])
    for r, c in MATRICES:
        add("transpose", [(r, c)], (c, r),
            lambda a, r=r, c=c: [a[i * c + j] for j in range(c) for i in range(r)], [v])
    for n in (2, 3, 4):
        add("determinant", [(n, n)], SCALAR, lambda a, n=n: [det(a, n)], [(-1.5, 1.5)])
    # `mul` in each of its forms.
    add("mul-ss", [SCALAR, SCALAR], SCALAR, lambda a, b: [a[0] * b[0]], [v, v])
    for n in (2, 3, 4):
        vn = (n, 0)
        add("mul-vs", [vn, SCALAR], vn, lambda a, b: [x * b[0] for x in a], [v, v])
        add("mul-sv", [SCALAR, vn], vn, lambda a, b: [a[0] * x for x in b], [v, v])
    for r, c in MATRICES:
        add("mul-ms", [(r, c), SCALAR], (r, c), lambda a, b: [x * b[0] for x in a], [v, v])
        add("mul-sm", [SCALAR, (r, c)], (r, c), lambda a, b: [a[0] * x for x in b], [v, v])
        add("mul-vm", [(r, 0), (r, c)], (c, 0), lambda a, b, r=r, c=c: matmul(a, b, 1, r, c), [v, v])
        add("mul-mv", [(r, c), (c, 0)], (r, 0), lambda a, b, r=r, c=c: matmul(a, b, r, c, 1), [v, v])
    for n in (2, 3, 4):
        for r, c in MATRICES:
            add(f"mul-mm{n}", [(r, n), (n, c)], (r, c), lambda a, b, r=r, n=n, c=c: matmul(a, b, r, n, c), [v, v])
    return cases


# ---------------------------------------------------------------------------
# Choosing inputs.
# ---------------------------------------------------------------------------


def elementwise_variants(name):
    """(argument shapes, result shape) of every overload tested: every shape
    with every argument of that shape, then a vector with a broadcast
    scalar last argument."""
    arity = ELEMENTWISE[name][0]
    if name in ONLY_SHAPES:
        return [([s] * arity, s) for s in [SCALAR] + VECTORS]
    out = [([s] * arity, s) for s in SHAPES]
    if arity > 1:
        out.append(([(3, 0)] * (arity - 1) + [SCALAR], (3, 0)))
    return out


def elementwise_inputs(rng, name, shapes, result):
    """Arguments, directions and the result's derivative for one overload
    of an element-wise built-in: component k of the arguments accepted by
    the case's test, with partial derivatives that are 0 or not small
    (values printed with six decimals keep enough digits)."""
    arity, f, ranges, ok = ELEMENTWISE[name]
    n = size(result)
    cols = [[] for _ in range(arity)]
    for _ in range(n):
        while True:
            v = [rng.uniform(*ranges[a]) for a in range(arity)]
            if (ok is None or ok(*v)) and all(d == 0.0 or abs(d) > 0.01 for d in partials(f, v)):
                break
        for a in range(arity):
            cols[a].append(v[a])
    sizes = [size(s) for s in shapes]
    args = [a if sz > 1 else a[:1] for a, sz in zip(cols, sizes)]
    dirs = [direction(rng, sz) for sz in sizes]
    g = direction(rng, n)

    def flat(*xs):
        return [f(*[a[k if len(a) > 1 else 0] for a in xs]) for k in range(n)]

    return flat, args, dirs, g


def vector_inputs(rng, case):
    """The same for a function that is not element-wise: arguments drawn
    until they are accepted and every derivative written is 0 or not
    small."""
    shapes, result, f, ranges, ok = case
    while True:
        args = [[rng.uniform(*ranges[a]) for _ in range(size(s))] for a, s in enumerate(shapes)]
        if ok is not None and not ok(*args):
            continue
        dirs = [direction(rng, size(s)) for s in shapes]
        g = direction(rng, size(result))
        values = forward(f, args, dirs) + backward(f, args, g)
        if all(abs(x) < 1e-9 or abs(x) > 0.05 for x in values):
            return f, args, dirs, g


# ---------------------------------------------------------------------------
# Writing tests.
# ---------------------------------------------------------------------------

HALF_CHECK = [
    "// Within half precision of the expected value `e`: `e`; otherwise the",
    "// value itself.",
    "float near(float v, float e)",
    "{",
    "    return abs(v - e) <= 0.02 * abs(e) + 0.01 ? e : v;",
    "}",
    "",
]


def write(file_name, title, name, prec, tests):
    """`tests`: [(argument shapes, result shape, function, arguments,
    directions, result derivative)]."""
    decls, body, expected = [], [], []
    k = 0

    def emit(expr, value):
        nonlocal k
        if prec == "half":
            e = round(value, 6)
            body.append(f"        outputBuffer[{k}] = near(float({expr}), {e!r});")
        elif prec == "double":
            body.append(f"        outputBuffer[{k}] = float({expr});")
        else:
            body.append(f"        outputBuffer[{k}] = {expr};")
        expected.append(value)
        k += 1

    for index, (shapes, result, f, args, dirs, g) in enumerate(tests):
        if prec == "half":
            args = [[to_half(x) for x in a] for a in args]
            dirs = [[to_half(x) for x in d] for d in dirs]
            g = [to_half(x) for x in g]
        params = ["x", "y", "z"][:len(shapes)]
        fname = f"f_{index}"
        decl = ", ".join(f"{type_name(prec, s)} {p}" for s, p in zip(shapes, params))
        lines = BODIES.get(name, [f"return {name.split('-')[0]}({', '.join(params)});"])
        decls += ["[Differentiable]", f"{type_name(prec, result)} {fname}({decl})", "{"]
        decls += ["    " + line.replace("{T}", type_name(prec, result)) for line in lines]
        decls += ["}", ""]
        pairs = ", ".join(f"diffPair({literal(prec, s, a)}, {literal(prec, s, d)})"
                          for s, a, d in zip(shapes, args, dirs))
        body.append("    {")
        body.append(f"        let r = fwd_diff({fname})({pairs});")
        for c, value in zip(components("r.d", result), forward(f, args, dirs)):
            emit(c, value)
        body.append("    }")
        body.append("    {")
        for p, s, a in zip(params, shapes, args):
            body.append(f"        var p_{p} = diffPair({literal(prec, s, a)});")
        body.append(f"        bwd_diff({fname})({', '.join('p_' + p for p in params)}, {literal(prec, result, g)});")
        grads = iter(backward(f, args, g))
        for p, s in zip(params, shapes):
            for c in components(f"p_{p}.d", s):
                emit(c, next(grads))
        body.append("    }")
    lines = [f"// {line}" for line in title]
    lines += [
        "// differentiated in both modes; expected values: central differences in",
        "// float64 (tests/compute/autodiff/builtin_shapes.py).",
        "//TEST(compute, vulkan):COMPARE_COMPUTE_EX:-vk -compute -shaderobj -output-using-type",
        f"//TEST_INPUT:ubuffer(data=[{' '.join('0' for _ in range(k))}], stride=4):out,name=outputBuffer",
        "RWStructuredBuffer<float> outputBuffer;",
        "",
    ]
    if prec == "half":
        lines += HALF_CHECK
    lines += decls
    lines += [
        "[numthreads(1, 1, 1)]",
        "void computeMain(uint3 dispatchThreadID : SV_DispatchThreadID)",
        "{",
    ]
    lines += body
    lines.append("}")
    path = os.path.join(HERE, file_name + ".slang")
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")
    with open(path + ".expected.txt", "w") as out:
        out.write("type: float\n")
        for v in expected:
            out.write(f"{v:.6f}\n")


def file_name(name, prec):
    return f"builtin-shapes-{name}" + ("" if prec == "float" else f"-{prec}")


def seed(name, prec):
    s = sum(ord(ch) for ch in name) * 7919
    return s if prec == "float" else s + sum(ord(ch) for ch in prec)


def main():
    for name in ELEMENTWISE:
        for prec in PRECISIONS:
            rng = Rng(seed(name, prec))
            tests = []
            for shapes, result in elementwise_variants(name):
                f, args, dirs, g = elementwise_inputs(rng, name, shapes, result)
                tests.append((shapes, result, f, args, dirs, g))
            if name in ONLY_SHAPES:
                title = [f"`{name}` in {prec} on {ONLY_SHAPES[name]} of every width,"]
            else:
                title = [f"`{name}` in {prec} on scalars, vectors of every width and matrices of every",
                         "shape (and a vector with a broadcast scalar),"]
            write(file_name(name, prec), title, name, prec, tests)
    for name, cases in vector_cases().items():
        for prec in PRECISIONS:
            rng = Rng(seed(name, prec))
            tests = []
            for case in cases:
                f, args, dirs, g = vector_inputs(rng, case)
                tests.append((case[0], case[1], f, args, dirs, g))
            sizes = "; ".join(", ".join(suffix(s) for s in c[0]) for c in cases)
            title = textwrap.wrap(f"`{name.split('-')[0]}` in {prec} on the arguments ({sizes}),", 76)
            write(file_name(name, prec), title, name, prec, tests)


if __name__ == "__main__":
    main()
