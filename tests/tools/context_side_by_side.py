#!/usr/bin/env python3
"""Backward-derivative contexts, ours against the reference's: for every
compute test of the autodiff conformance list, the bytes per thread that
`slangc -report-checkpoint-intermediates` reports for each function, and
what `slang-analyzer derive` says `bwd_diff` of the same function saves;
lists the functions where ours is larger, then the counts.

    python3 tests/tools/context_side_by_side.py SUITE [--tsv autodiff.tsv]
        [--ours target/release/slang-analyzer] [--slangc PATH/slangc] [--all]

SUITE is a checkout of the Slang repository (its `tests/` folder); the
list (default `/work/shared/conformance/autodiff.tsv`) has a `path` and a
`cls` column (rows with `cls` = `compute` are compared) and an
`xslang_args` column (`-D` flags passed to both compilers). Functions the
file differentiates in reverse mode (`bwd_diff(f)`) that the reference
does not report are compared with 0 bytes. `--all` prints every function.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT = re.compile(r"checkpointing context of (\d+) bytes associated with: '([^']+)'")
OURS = re.compile(r"saves (\d+) bytes per thread")


def reference(slangc, path, defines, out):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(slangc))
    cmd = [slangc, path, "-target", "wgsl", "-entry", "computeMain", "-stage", "compute", "-o", out]
    cmd += defines + ["-report-checkpoint-intermediates"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        return None
    text = r.stdout + r.stderr
    if r.returncode != 0 and not REPORT.search(text) and "no checkpoint contexts" not in text:
        return None
    sizes = {}
    for bytes_, name in REPORT.findall(text):
        sizes[name] = sizes.get(name, 0) + int(bytes_)
    return sizes


def ours(bin_, path, defines, name):
    cmd = [bin_, "derive", path, "--function", name, "--mode", "bwd"] + defines
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None
    m = OURS.findall(r.stdout)
    return max(int(b) for b in m) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite")
    ap.add_argument("--tsv", default="/work/shared/conformance/autodiff.tsv")
    ap.add_argument("--ours", default=os.path.join(ROOT, "target", "release", "slang-analyzer"))
    ap.add_argument("--slangc", default="/tmp/ref/slangtorch/bin/slangc")
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    with open(args.tsv, newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if (r.get("cls") or "").strip() == "compute"]
    larger, compared, skipped = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.wgsl")
        for row in rows:
            path = os.path.join(args.suite, row["path"].strip())
            if not os.path.exists(path):
                skipped += 1
                continue
            defines = [a for a in (row.get("xslang_args") or "").split() if a.startswith("-D")]
            ref = reference(args.slangc, path, defines, out)
            if ref is None:
                skipped += 1
                continue
            with open(path, errors="replace") as f:
                text = f.read()
            names = set(ref) | set(re.findall(r"bwd_diff\(\s*(\w+)\s*\)", text))
            for name in sorted(names):
                mine = ours(args.ours, path, defines, name)
                if mine is None:
                    continue
                compared += 1
                theirs = ref.get(name, 0)
                if mine > theirs:
                    larger.append((row["path"].strip(), name, mine, theirs))
                if args.all or mine > theirs:
                    mark = "LARGER" if mine > theirs else "ok"
                    print(f"{mark}\t{row['path'].strip()}\t{name}\tours {mine}\tslangc {theirs}")
    print(f"{len(larger)} of {compared} functions save more than slangc's context ({skipped} files skipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
