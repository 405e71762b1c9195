#!/usr/bin/env python3
"""Check our derivative signatures against the reference compiler.

For every free, non-generic [Differentiable] function of the given Slang
files, asks `slang-analyzer derive --json` for `fwd_diff(f)` and
`bwd_diff(f)`, then appends to a copy of the file a function that declares
one variable per parameter of that signature (with its direction) and calls
the derivative with them, assigning the result to the return type; the
reference `slangc` must accept the copy. It does only when the signature we
print is one slangc agrees with (up to implicit conversions).

Usage: tests/tools/verify_signatures.py [--slangc PATH] FILE...
(slangc: the PyPI package `slangtorch` ships one; see ../shared/tools.)
Prints one line per signature and a summary; exit status 1 on mismatches.
"""
import argparse, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def split_params(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_sig(sig):
    m = re.match(r"^(.*?) ((?:fwd_diff|bwd_diff)\(.*\))\((.*)\)$", sig)
    if not m:
        return None
    ret, callee, params = m.group(1), m.group(2), m.group(3)
    ps = []
    for p in split_params(params):
        direction = ""
        for d in ("inout ", "out "):
            if p.startswith(d):
                direction, p = d.strip(), p[len(d):]
        ty, name = p.rsplit(" ", 1)
        ps.append((direction, ty, name))
    return ret, callee, ps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--slangc", default=os.environ.get("SLANGC", "slangc"))
    ap.add_argument("--analyzer", default=os.path.join(ROOT, "target/release/slang-analyzer"))
    ap.add_argument("-I", dest="includes", action="append", default=[], help="search path (both tools)")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    ok = bad = 0
    for path in a.files:
        text = open(path, errors="replace").read()
        # Free functions only (declared at the start of a line).
        names = re.findall(r"^\[(?:Differentiable|BackwardDifferentiable)\][^\n]*\n(?:no_diff\s+)?[\w<>,\s]+?\s(\w+)\s*\(", text, re.M)
        for name in sorted(set(names)):
            out = subprocess.run([a.analyzer, "derive", path, "--function", name, "--json"] + [f"-I{d}" for d in a.includes], capture_output=True, text=True)
            for line in out.stdout.splitlines():
                d = json.loads(line)
                sig = d.get("signature")
                if not sig or "this" in sig or "<T" in sig or "Unknown" in sig or "{unknown}" in sig:
                    continue
                parsed = parse_sig(sig)
                if not parsed:
                    continue
                ret, callee, params = parsed
                if re.search(r"\)<", sig):  # generic
                    continue
                body = []
                for i, (_, ty, _) in enumerate(params):
                    body.append(f"    {ty} __a{i};")
                args = ", ".join(f"__a{i}" for i in range(len(params)))
                call = f"{callee}({args})"
                body.append(f"    {ret} __r = {call};" if ret != "void" else f"    {call};")
                snippet = "\nvoid __verify_signature()\n{\n" + "\n".join(body) + "\n}\n"
                with tempfile.NamedTemporaryFile("w", suffix=".slang", dir=os.path.dirname(os.path.abspath(path)), delete=False) as f:
                    f.write(text + snippet)
                    tmp = f.name
                try:
                    r = subprocess.run([a.slangc, tmp, "-target", "spirv", "-o", os.devnull] + [f"-I{d}" for d in a.includes], capture_output=True, text=True)
                    # (Missing downstream tools and files without entry points are
                    # not about the signature.)
                    errs = [
                        l for l in r.stderr.splitlines()
                        if l.startswith("error") and "E00100" not in l and "E57004" not in l
                    ]
                finally:
                    os.unlink(tmp)
                if errs:
                    bad += 1
                    print(f"MISMATCH {path}: {sig}\n    {errs[0]}")
                else:
                    ok += 1
                    print(f"ok {path}: {sig}")
    print(f"{ok} signatures accepted by slangc, {bad} rejected")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
