#!/usr/bin/env python3
"""Compile time, whole processes: `slang-analyzer compile` against the
reference `slangc` on the same files (source to validated SPIR-V and
WGSL), medians of N runs, with the ratio.

    python3 tests/tools/compile_side_by_side.py [--ours target/release/slang-analyzer]
        [--slangc /tmp/ref/slangtorch/bin/slangc] [--runs 10] [FILE ...]

Default file: codegen/benches/shading_kernel.slang. In-process figures
(no process start-up, core module warm or cold) come from
`cargo bench -p slang-codegen --bench compile`.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(cmd, env=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, env=env)
    elapsed = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr.decode(errors='replace')}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", default=os.path.join(ROOT, "target", "release", "slang-analyzer"))
    ap.add_argument("--slangc", default="/tmp/ref/slangtorch/bin/slangc")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("files", nargs="*", default=[os.path.join(ROOT, "codegen", "benches", "shading_kernel.slang")])
    args = ap.parse_args()
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(args.slangc))
    out = tempfile.mkdtemp(prefix="slang-compile-")
    print(f"{'file':<28} {'target':<6} {'ours ms':>9} {'slangc ms':>10} {'ratio':>7}")
    for f in args.files:
        for target, ext, flags in [("spirv", "spv", ["-O0"]), ("wgsl", "wgsl", [])]:
            ours = [timed([args.ours, "compile", f, "--target", target, "-o", f"{out}/a.{ext}"]) for _ in range(args.runs)]
            ref = [
                timed([args.slangc, f, "-target", target, *flags, "-entry", "computeMain", "-stage", "compute",
                       "-o", f"{out}/b.{ext}"], env)
                for _ in range(args.runs)
            ]
            a, b = statistics.median(ours) * 1000, statistics.median(ref) * 1000
            print(f"{os.path.basename(f):<28} {target:<6} {a:>9.1f} {b:>10.1f} {b / a:>6.1f}x")


if __name__ == "__main__":
    main()
