#!/usr/bin/env python3
"""Expected values of coopvec-elementwise.slang: the formulas in float64,
derivatives by central differences."""
import math

x = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
y = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
H = 1e-6


def g(x, y):
    return [(x[i] * y[i] + math.exp(x[i])) / (y[i] + 1.0) - math.sin(y[i]) * x[i] for i in range(6)]


def h(x):
    return x[0] * x[5] + x[3]


def k(v, s):
    v = list(v)
    v[4] = s * s
    return [e * e for e in v]


def bump(v, i, d):
    v = list(v)
    v[i] += d
    return v


def grad(f, args, which, dout):
    """d(sum(dout * f(args))) / d args[which], element by element."""
    def dot(r):
        return sum(a * b for a, b in zip(dout, r)) if isinstance(r, list) else dout * r
    a = args[which]
    out = []
    for i in range(len(a) if isinstance(a, list) else 1):
        lo, hi = list(args), list(args)
        if isinstance(a, list):
            lo[which], hi[which] = bump(a, i, -H), bump(a, i, H)
        else:
            lo[which], hi[which] = a - H, a + H
        out.append((dot(f(*hi)) - dot(f(*lo))) / (2 * H))
    return out


out = [0.0] * 37
out[0:6] = g(x, y)
# Forward: tangents 1 for x, 0.5 for y.
tx, ty = [1.0] * 6, [0.5] * 6
out[6:12] = [(a - b) / (2 * H) for a, b in zip(
    g([xi + H * t for xi, t in zip(x, tx)], [yi + H * t for yi, t in zip(y, ty)]),
    g([xi - H * t for xi, t in zip(x, tx)], [yi - H * t for yi, t in zip(y, ty)]))]
dout = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
out[12:18] = grad(g, [x, y], 0, dout)
out[18:24] = grad(g, [x, y], 1, dout)
out[24:30] = grad(h, [x], 0, 1.0)
out[30:36] = grad(k, [y, 1.5], 0, [1.0] * 6)
out[36] = grad(k, [y, 1.5], 1, [1.0] * 6)[0]
print("type: float")
for v in out:
    print(f"{v:.6f}")
