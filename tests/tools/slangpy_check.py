#!/usr/bin/env python3
"""SlangPy as a measurement: which of its Slang files the reference compiler
accepts, and whether `slang-analyzer check` reports no error on each of them.

SlangPy (github.com/shader-slang/slangpy) is NVIDIA's Python binding for
Slang; its shaders and tests use the newest language features (generic
blanket extensions over `ITensor<T, D>`, variadic generics, `IDiffTensor`,
its `slangpy` module of `__include`d files). Both compilers get the same
search paths: the `slangpy` module's folder (`slangpy/slang`), sgl's device
shaders (`src/sgl/device`) and the file's own folder. For every `*.slang`
file it runs

  * the reference, `slangc -no-codegen -I ... FILE`: accept (exit status 0)
    or reject;
  * ours, `slang-analyzer check -I ... FILE`: clean (exit status 0) or not;

and prints

    slangpy: N files; reference accepts A; ours clean on C of them (P%);
    reference rejects R, ours flags F of them

then our first error on each accepted file we flag. Many of SlangPy's own
module files are rejected by older slangc releases (the PyPI `slangtorch`
one among them), which is why only accepted files count.

Getting SlangPy (NOT part of this repository; never commit it):

    mkdir -p /tmp/slangpy
    git --git-dir=/work/.mirror/shader-slang+slangpy/repo archive HEAD | tar x -C /tmp/slangpy
    python3 tests/tools/slangpy_check.py --slangpy /tmp/slangpy \\
        --slangc .../slangtorch/bin/slangc --ours target/release/slang-analyzer

This is a measurement, not a test: CI does not run it.
"""

import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def run(cmd, cwd, env=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, cwd=cwd)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return -1, "timeout"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slangpy", required=True, help="a SlangPy checkout")
    ap.add_argument("--slangc", required=True, help="the reference slangc")
    ap.add_argument("--ours", default="target/release/slang-analyzer")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    root = os.path.abspath(args.slangpy)
    files = sorted(
        os.path.relpath(os.path.join(d, f), root)
        for d, _, fs in os.walk(root)
        for f in fs
        if f.endswith(".slang")
    )
    if not files:
        sys.exit(f"no .slang files under {root}")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(args.slangc)))
    ours_bin = os.path.abspath(args.ours)

    def one(f):
        inc = ["-I", "slangpy/slang", "-I", "src/sgl/device", "-I", os.path.dirname(f) or "."]
        ref, _ = run([os.path.abspath(args.slangc), f, "-no-codegen"] + inc, root, env)
        ours, out = run([ours_bin, "check", f] + inc, root)
        return f, ref == 0, ours == 0, out

    with ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(one, files))
    accepted = [r for r in results if r[1]]
    rejected = [r for r in results if not r[1]]
    clean = [r for r in accepted if r[2]]
    flagged = [r for r in rejected if not r[2]]
    pct = 100.0 * len(clean) / max(1, len(accepted))
    print(
        f"slangpy: {len(results)} files; reference accepts {len(accepted)}; "
        f"ours clean on {len(clean)} of them ({pct:.1f}%); "
        f"reference rejects {len(rejected)}, ours flags {len(flagged)} of them"
    )
    for f, _, ok, out in accepted:
        if not ok:
            first = next((l for l in out.splitlines() if "error" in l), out.strip()[:200])
            print(f"  {f}: {first}")


if __name__ == "__main__":
    main()
