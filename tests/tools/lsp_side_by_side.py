#!/usr/bin/env python3
"""Side-by-side language-server latency: ours and the reference `slangd`.

Builds the benchmark files from the valid corpus (as
server/benches/lsp_latency.rs does: corpus programs concatenated, then a
differentiable function), runs ../shared/tools/lspbench.py on each server
for each file in turn, and prints a table with the ratios.

    python3 tests/tools/lsp_side_by_side.py [--ours target/release/slang-analyzer]
        [--reference /tmp/ref/slangd] [--lspbench ../shared/tools/lspbench.py]
        [--lines 2100 5000] [--iters 30]

Build the reference server with ../shared/tools/reference-slangd/build.sh.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TAIL = (
    "struct BenchLight : IDifferentiable { float3 dir; float intensity; }\n"
    "[Differentiable]\nfloat benchShade(BenchLight light, float3 n)\n{\n"
    "    float k = 1.0;\n    return dot(light.dir, n) * light.intensity * k;\n}\n"
)


def bench_file(lines, folder):
    corpus = os.path.join(ROOT, "tests", "corpus", "valid")
    paths = sorted(os.path.join(corpus, p) for p in os.listdir(corpus) if p.endswith(".slang"))
    text, i = "", 0
    while text.count("\n") <= lines:
        body = open(paths[i % len(paths)], encoding="utf-8", errors="replace").read()
        i += 1
        if "import " in body or "#include" in body or "module " in body:
            continue
        text += body + "\n"
    path = os.path.join(folder, f"bench{lines}.slang")
    with open(path, "w") as f:
        f.write(text + TAIL)
    return path


def run(lspbench, server, path, iters):
    out = subprocess.run(
        [sys.executable, lspbench, "--server", server, "--file", path, "--iters", str(iters), "--edit-iters", "20"],
        capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", default=os.path.join(ROOT, "target", "release", "slang-analyzer"))
    ap.add_argument("--reference", default="/tmp/ref/slangd")
    ap.add_argument("--lspbench", default=os.path.join(ROOT, "..", "shared", "tools", "lspbench.py"))
    ap.add_argument("--lines", type=int, nargs="+", default=[2100, 5000])
    ap.add_argument("--iters", type=int, default=30)
    args = ap.parse_args()
    rows = []
    for lines in args.lines:
        # One folder per file: the servers index the file's folder.
        folder = tempfile.mkdtemp(prefix="slang-side-by-side-")
        path = bench_file(lines, folder)
        ours = run(args.lspbench, args.ours, path, args.iters)
        ref = run(args.lspbench, args.reference, path, args.iters)
        for name, get in [
            ("edit→diagnostics p50 ms", lambda d: d["edit"]["both"]["p50"]),
            ("edit→diagnostics p95 ms", lambda d: d["edit"]["both"]["p95"]),
            ("completion p95 ms", lambda d: d["completion"]["p95"]),
            ("hover p95 ms", lambda d: d["hover"]["p95"]),
            ("open→diagnostics ms", lambda d: d["open"]["first_diagnostics_ms"]),
            ("peak RSS MB", lambda d: d["memory"]["vmhwm_kb"] / 1024),
        ]:
            a, b = get(ours), get(ref)
            rows.append((ours["lines"], name, a, b, b / a if a else float("inf")))
    print(f"{'lines':>6}  {'measure':<26} {'ours':>10} {'reference':>10} {'ratio':>8}")
    for lines, name, a, b, r in rows:
        print(f"{lines:>6}  {name:<26} {a:>10.2f} {b:>10.2f} {r:>7.1f}x")


if __name__ == "__main__":
    main()
