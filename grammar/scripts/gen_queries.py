#!/usr/bin/env python3
"""Derive the standard and Helix highlight queries from the Neovim ones.

    python3 grammar/scripts/gen_queries.py

`editors/neovim/queries/slang/highlights.scm` is the source: it uses
nvim-treesitter capture names, and later patterns win over earlier ones. The
standard query (`grammar/queries/highlights.scm`, for `tree-sitter highlight`
and the Rust crate) and the Helix query
(`editors/helix/runtime/queries/slang/highlights.scm`) use other capture
names, and there the first matching pattern wins, so the patterns are written
in reverse order. `#lua-match?` (Lua patterns) becomes `#match?` (regex).
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NVIM = ROOT / "editors/neovim/queries/slang/highlights.scm"
STANDARD = ROOT / "grammar/queries/highlights.scm"
HELIX = ROOT / "editors/helix/runtime/queries/slang/highlights.scm"

# nvim capture -> (standard capture, Helix capture)
CAPTURES = {
    "variable": ("variable", "variable"),
    "variable.builtin": ("variable.builtin", "variable.builtin"),
    "variable.parameter": ("variable.parameter", "variable.parameter"),
    "variable.member": ("property", "variable.other.member"),
    "property": ("property", "variable.other.member"),
    "constant": ("constant", "constant"),
    "constant.builtin": ("constant.builtin", "constant.builtin"),
    "constant.macro": ("constant.macro", "constant"),
    "module": ("module", "namespace"),
    "label": ("label", "label"),
    "type": ("type", "type"),
    "type.builtin": ("type.builtin", "type.builtin"),
    "type.builtin.autodiff": ("type.builtin.autodiff", "type.builtin.autodiff"),
    "attribute": ("attribute", "attribute"),
    "attribute.builtin": ("attribute.builtin", "attribute"),
    "attribute.autodiff": ("attribute.autodiff", "attribute.autodiff"),
    "function": ("function", "function"),
    "function.call": ("function", "function"),
    "function.method": ("function.method", "function.method"),
    "function.method.call": ("function.method", "function.method"),
    "function.builtin": ("function.builtin", "function.builtin"),
    "function.builtin.autodiff": ("function.builtin.autodiff", "function.builtin.autodiff"),
    "function.macro": ("function.macro", "function.macro"),
    "constructor": ("constructor", "constructor"),
    "keyword": ("keyword", "keyword"),
    "keyword.type": ("keyword", "keyword.storage.type"),
    "keyword.function": ("keyword", "keyword.function"),
    "keyword.import": ("keyword", "keyword.control.import"),
    "keyword.return": ("keyword", "keyword.control.return"),
    "keyword.conditional": ("keyword", "keyword.control.conditional"),
    "keyword.repeat": ("keyword", "keyword.control.repeat"),
    "keyword.exception": ("keyword", "keyword.control.exception"),
    "keyword.operator": ("keyword.operator", "keyword.operator"),
    "keyword.modifier": ("keyword", "keyword.storage.modifier"),
    "keyword.modifier.autodiff": ("keyword.autodiff", "keyword.storage.modifier.autodiff"),
    "keyword.directive": ("keyword.directive", "keyword.directive"),
    "number": ("number", "constant.numeric.integer"),
    "number.float": ("number", "constant.numeric.float"),
    "boolean": ("constant.builtin", "constant.builtin.boolean"),
    "character": ("string", "constant.character"),
    "string": ("string", "string"),
    "comment": ("comment", "comment"),
    "comment.documentation": ("comment", "comment.block.documentation"),
    "operator": ("operator", "operator"),
    "punctuation.bracket": ("punctuation.bracket", "punctuation.bracket"),
    "punctuation.delimiter": ("punctuation.delimiter", "punctuation.delimiter"),
    "punctuation.special": ("punctuation.special", "punctuation.special"),
    "spell": (None, None),
}


def lua_to_regex(pattern: str) -> str:
    # Only the Lua pattern features the nvim query uses.
    return pattern.replace("%.", "\\\\.")


def convert(text: str, which: int, header: str) -> str:
    blocks = [b.strip("\n") for b in re.split(r"\n\s*\n", text) if b.strip()]
    patterns = []
    for block in blocks:
        lines = [l for l in block.splitlines() if not l.lstrip().startswith(";")]
        if not lines:
            continue
        body = "\n".join(lines)

        def repl(m):
            name = m.group(1)
            if name not in CAPTURES:
                raise SystemExit(f"unmapped capture @{name}")
            new = CAPTURES[name][which]
            return "" if new is None else "@" + new

        body = re.sub(r"@([a-z][a-z.]*)", repl, body)
        body = re.sub(r" +\)", ")", body)
        body = re.sub(r"[ \t]+$", "", body, flags=re.M)
        body = re.sub(
            r'#lua-match\? (@[a-z.]+) "([^"]*)"',
            lambda m: f'#match? {m.group(1)} "{lua_to_regex(m.group(2))}"',
            body,
        )
        patterns.append(body)
    patterns.reverse()
    return header + "\n\n".join(patterns) + "\n"


def main():
    text = NVIM.read_text()
    STANDARD.write_text(convert(text, 0, (
        "; Slang highlights (standard capture names, for `tree-sitter highlight`).\n"
        "; Generated from editors/neovim/queries/slang/highlights.scm by\n"
        "; grammar/scripts/gen_queries.py. The first matching pattern wins.\n\n")))
    HELIX.parent.mkdir(parents=True, exist_ok=True)
    HELIX.write_text(convert(text, 1, (
        "; Slang highlights for Helix.\n"
        "; Generated from editors/neovim/queries/slang/highlights.scm by\n"
        "; grammar/scripts/gen_queries.py. The first matching pattern wins.\n\n")))


if __name__ == "__main__":
    main()
