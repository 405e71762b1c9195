#!/usr/bin/env python3
"""Generate the texture section of resources.slang (which continues in
resources2.slang .. resources4.slang).

Every texture type is a combination of
  * a base: `Texture` (sampled with a separate `SamplerState`), `Sampler`
    (combined texture and sampler: the sampling methods take no sampler) or
    `DepthTexture` (read-only depth data, default element `float`);
  * an access: read-only, `RW` (read-write), `W` (write-only) or
    `RasterizerOrdered` (read-write with rasterizer-ordered access);
  * a shape: 1D, 2D, 3D or Cube, optionally `Array`, optionally
    multisampled (`MS`);
plus the combined shadow samplers (`Sampler2DShadow`, ...), which only
compare. Each type gets the methods its kind supports, written out with the
coordinate vector sizes of its shape, and two extensions with `Gather*`
(one for scalar elements, one for vector elements):
  * read-only: Load (with mip level), subscript, `mips`/`sample`, and the full
    Sample*/SampleCmp*/Gather*/GatherCmp* families;
  * read-write and rasterizer-ordered: Load, subscript, Store, and the
    sampling methods of the API reference (Sample, SampleBias, SampleGrad,
    SampleLevel, SampleCmp, SampleCmpLevelZero, Gather*);
  * write-only: GetDimensions, subscript and Store only;
  * multisampled: Load with a sample index and GetSamplePosition, no sampling.
The set of types follows the core-module API reference, plus the write-only
(`W`), depth (`DepthTexture`) and shadow-sampler types of current Slang.

Usage:
    python3 gen_textures.py            # rewrite the section in resources.slang
    python3 gen_textures.py --check    # exit 1 if resources.slang is out of date
    python3 gen_textures.py --print    # print the section to stdout
"""

import os
import sys

BEGIN = "// BEGIN GENERATED (gen_textures.py; do not edit by hand)"
END = "// END GENERATED"

# Shape name -> (coordinate dimensions, is cube). Coordinates of a cube are
# 3D directions.
SHAPES = {
    "1D": (1, False),
    "2D": (2, False),
    "3D": (3, False),
    "Cube": (3, True),
}

DIM_NAMES = {1: ["width"], 2: ["width", "height"], 3: ["width", "height", "depth"]}


def vec(scalar, n):
    return f"vector<{scalar}, {n}>"


def uvec(n):
    return "uint" if n == 1 else vec("uint", n)


class Tex:
    def __init__(self, base, access, shape, array, ms, shadow=False):
        self.base = base
        self.access = access
        self.shape = shape
        self.array = array
        self.ms = ms
        self.shadow = shadow
        self.dims, self.cube = SHAPES[shape]

    @property
    def name(self):
        n = f"{self.access}{self.base}{self.shape}"
        if self.ms:
            n += "MS"
        if self.array:
            n += "Array"
        if self.shadow:
            n += "Shadow"
        return n

    @property
    def combined(self):
        return self.base == "Sampler"

    @property
    def writable(self):
        return self.access in ("RW", "W", "RasterizerOrdered")

    @property
    def default_element(self):
        return "float" if (self.base == "DepthTexture" or self.shadow) else "float4"

    @property
    def kind(self):
        return "DescriptorKind.CombinedTextureSampler" if self.combined else "DescriptorKind.Texture"

    @property
    def descriptor_access(self):
        return {
            "": "DescriptorAccess.Read",
            "RW": "DescriptorAccess.ReadWrite",
            "W": "DescriptorAccess.Write",
            "RasterizerOrdered": "DescriptorAccess.RasterizerOrdered",
        }[self.access]

    # Sizes of the coordinate vectors.
    @property
    def n_loc(self):
        """Floating-point sampling location (array layer included)."""
        return self.dims + (1 if self.array else 0)

    @property
    def n_texel(self):
        """Integer texel address (array layer included, no mip level)."""
        return self.dims + (1 if self.array else 0)

    def doc(self):
        what = {
            "Texture": "texture",
            "Sampler": "combined texture and sampler",
            "DepthTexture": "depth texture",
        }[self.base]
        shape = {"1D": "1D", "2D": "2D", "3D": "3D", "Cube": "cube"}[self.shape]
        parts = [shape]
        if self.array:
            parts.append("array")
        if self.ms:
            parts.append("multisampled")
        access = {
            "": "Read-only",
            "RW": "Read-write",
            "W": "Write-only",
            "RasterizerOrdered": "Rasterizer-ordered read-write",
        }[self.access]
        if self.shadow:
            return f"{access} {' '.join(parts)} combined texture and comparison sampler (depth compare)."
        return f"{access} {' '.join(parts)} {what} with elements of type `T`."


def get_dimensions(t):
    dims = list(DIM_NAMES[2 if t.cube else t.dims])
    if t.array:
        dims.append("elements")
    if t.ms:
        dims.append("sampleCount")
    out = []
    for ty in ("uint", "float"):
        outs = ", ".join(f"out {ty} {d}" for d in dims)
        out.append(f"void GetDimensions({outs});")
        out.append(f"void GetDimensions(uint mipLevel, {outs}, out {ty} numberOfLevels);")
    return out


def sampling_methods(t):
    """Sample*, CalculateLevelOfDetail*: for the non-multisampled types."""
    s = "" if t.combined else "SamplerState s, "
    loc = f"{vec('float', t.n_loc)} location"
    lod_loc = f"{vec('float', t.dims)} location"
    off = f"{vec('int', t.dims)} offset"
    grad = vec("float", t.dims)
    e = "T"
    out = []
    out.append(f"/// Level of detail the hardware would select to sample at `location`.")
    out.append(f"float CalculateLevelOfDetail({s}{lod_loc});")
    out.append(f"/// Level of detail at `location`, before clamping to the available levels.")
    out.append(f"float CalculateLevelOfDetailUnclamped({s}{lod_loc});")
    if not t.shadow:
        out.append("/// Filtered sample at `location`, mip level chosen from screen-space derivatives.")
        out.append(f"{e} Sample({s}{loc});")
        if t.cube:
            out.append(f"{e} Sample({s}{loc}, float clamp);")
            out.append(f"{e} Sample({s}{loc}, float clamp, out uint status);")
        else:
            out.append(f"{e} Sample({s}{loc}, {off});")
            out.append(f"{e} Sample({s}{loc}, {off}, float clamp);")
            out.append(f"{e} Sample({s}{loc}, {off}, float clamp, out uint status);")
        out.append("/// Filtered sample with a bias added to the selected mip level.")
        out.append(f"{e} SampleBias({s}{loc}, float bias);")
        if not t.cube:
            out.append(f"{e} SampleBias({s}{loc}, float bias, {off});")
            out.append(f"{e} SampleBias({s}{loc}, float bias, {off}, float clamp);")
            out.append(f"{e} SampleBias({s}{loc}, float bias, {off}, float clamp, out uint status);")
        out.append("/// Filtered sample with explicit gradients.")
        out.append(f"{e} SampleGrad({s}{loc}, {grad} gradX, {grad} gradY);")
        if not t.cube:
            out.append(f"{e} SampleGrad({s}{loc}, {grad} gradX, {grad} gradY, {off});")
            out.append(f"{e} SampleGrad({s}{loc}, {grad} gradX, {grad} gradY, {off}, float lodClamp);")
            out.append(f"{e} SampleGrad({s}{loc}, {grad} gradX, {grad} gradY, {off}, float lodClamp, out uint status);")
        out.append("/// Filtered sample at an explicit mip level.")
        out.append(f"{e} SampleLevel({s}{loc}, float level);")
        if not t.cube:
            out.append(f"{e} SampleLevel({s}{loc}, float level, {off});")
            out.append(f"{e} SampleLevel({s}{loc}, float level, {off}, out uint status);")
    # Comparison sampling: a separate comparison sampler, or none for
    # combined types (whose own sampler state is used).
    cmp_forms = ["SamplerComparisonState s, "]
    if t.combined:
        cmp_forms = ["SamplerComparisonState s, ", ""] if not t.shadow else [""]
    first = True
    for cs in cmp_forms:
        if first:
            out.append("/// Compares `compareValue` with the texels around `location` and filters the results.")
            first = False
        variants = [("SampleCmp", ""), ("SampleCmpLevelZero", "")]
        if not t.writable:
            variants += [
                ("SampleCmpLevel", ", float level"),
                ("SampleCmpBias", ", float bias"),
                ("SampleCmpGrad", f", {grad} gradX, {grad} gradY"),
            ]
        for name, extra in variants:
            out.append(f"float {name}({cs}{loc}, float compareValue{extra});")
            if not t.cube:
                out.append(f"float {name}({cs}{loc}, float compareValue{extra}, {off});")
                # The sparse-residency forms: a clamp (SampleCmp) and a status.
                if name == "SampleCmp":
                    out.append(f"float {name}({cs}{loc}, float compareValue, {off}, float clamp);")
                    out.append(f"float {name}({cs}{loc}, float compareValue, {off}, float clamp, out uint status);")
                elif name in ("SampleCmpLevelZero", "SampleCmpLevel", "SampleCmpBias", "SampleCmpGrad"):
                    out.append(f"float {name}({cs}{loc}, float compareValue{extra}, {off}, out uint status);")
    return out


def load_methods(t):
    off = f"{vec('int', t.dims)} offset"
    out = []
    if t.ms:
        loc = f"{vec('int', t.n_texel)} location"
        out.append("/// The texel at `location` of sample `sampleIndex`.")
        out.append(f"T Load({loc}, int sampleIndex);")
        out.append(f"T Load({loc}, int sampleIndex, {off});")
        out.append(f"T Load({loc}, int sampleIndex, {off}, out uint status);")
        out.append("/// The texel at `location`, sample index last.")
        out.append(f"T Load({vec('int', t.n_texel + 1)} location);")
        out.append("/// Position of sample `s` relative to the pixel center.")
        out.append("vector<float, 2> GetSamplePosition(int s);")
    elif t.writable:
        loc = f"{vec('int', t.n_texel)} location"
        out.append("/// The texel at `location`.")
        out.append(f"T Load({loc});")
        out.append(f"T Load({loc}, {off});")
        out.append(f"T Load({loc}, {off}, out uint status);")
    else:
        loc = f"{vec('int', t.n_texel + 1)} location"
        out.append("/// The texel at `location.xy..` of the mip level in the last component.")
        out.append(f"T Load({loc});")
        out.append(f"T Load({loc}, {off});")
        out.append(f"T Load({loc}, {off}, out uint status);")
    return out


def subscripts(t):
    out = []
    coord = uvec(t.n_texel)
    acc = "get; set; ref;" if t.writable else "get;"
    out.append("/// The texel at `location` (mip level 0, or sample 0).")
    out.append(f"__subscript({coord} location) -> T {{ {acc} }}")
    if t.writable and not t.ms:
        out.append("/// Writes `value` to the texel at `location`.")
        out.append(f"void Store({coord} location, T value);")
    if t.access == "RW" and not t.ms and not t.array and not t.cube and t.base == "Texture":
        out.append("/// Atomic add to a `float` texel (NVAPI); returns the value before.")
        out.append(f"float InterlockedAddF32({coord} coord, float value);")
        out.append(f"void InterlockedAddF32({coord} coord, float value, out float originalValue);")
    if t.writable or t.base == "DepthTexture":
        return out
    if t.ms:
        out.append("/// Per-sample access: `tex.sample[sampleIndex][location]`.")
        out.append(f"property __TextureSamples<T, {t.n_texel}> sample {{ get; }}")
    else:
        out.append("/// Per-mip access: `tex.mips[mipLevel][location]`.")
        out.append(f"property __TextureMips<T, {t.n_texel}> mips {{ get; }}")
    return out


def gather_methods(t, elem):
    s = "" if t.combined else "SamplerState s, "
    loc = f"{vec('float', t.n_loc)} location"
    off = vec("int", t.dims)
    ret = f"vector<{elem}, 4>"
    out = []
    for i, name in enumerate(("Gather", "GatherRed", "GatherGreen", "GatherBlue", "GatherAlpha")):
        if i == 0:
            out.append("/// The four texels that bilinear filtering at `location` would use (one component each).")
        out.append(f"{ret} {name}({s}{loc});")
        out.append(f"{ret} {name}({s}{loc}, {off} offset);")
        out.append(f"{ret} {name}({s}{loc}, {off} offset, out uint status);")
        out.append(f"{ret} {name}({s}{loc}, {off} offset1, {off} offset2, {off} offset3, {off} offset4);")
        out.append(f"{ret} {name}({s}{loc}, {off} offset1, {off} offset2, {off} offset3, {off} offset4, out uint status);")
    if t.writable:
        return out
    cs_forms = ["SamplerComparisonState s, "] + ([""] if t.combined else [])
    for i, name in enumerate(("GatherCmp", "GatherCmpRed", "GatherCmpGreen", "GatherCmpBlue", "GatherCmpAlpha")):
        if i == 0:
            out.append("/// The results of comparing `compareValue` with the four texels around `location`.")
        for cs in cs_forms:
            out.append(f"{ret} {name}({cs}{loc}, float compareValue);")
            out.append(f"{ret} {name}({cs}{loc}, float compareValue, {off} offset);")
            out.append(f"{ret} {name}({cs}{loc}, float compareValue, {off} offset, out uint status);")
    return out


def emit(t):
    lines = []
    body = []
    body.append(f"typealias Handle = DescriptorHandle<{t.name}<T>>;")
    body.append(f"static const DescriptorKind kind = {t.kind};")
    body.append(f"static const DescriptorAccess descriptorAccess = {t.descriptor_access};")
    body.append("")
    body += get_dimensions(t)
    if not t.shadow:
        if t.access != "W":
            body += load_methods(t)
        body += subscripts(t)
    if not t.ms and t.access != "W":
        body += sampling_methods(t)
    lines.append(f"/// {t.doc()}")
    lines.append("[__BuiltinResource]")
    lines.append(f"struct {t.name}<T = {t.default_element}> : IOpaqueDescriptor")
    lines.append("{")
    for b in body:
        lines.append(f"    {b}" if b else "")
    lines.append("}")
    lines.append("")
    if not t.ms and not t.shadow and t.access != "W":
        lines.append(f"extension<T : __BuiltinArithmeticType> {t.name}<T>")
        lines.append("{")
        for b in gather_methods(t, "T"):
            lines.append(f"    {b}")
        lines.append("}")
        lines.append("")
        lines.append(f"extension<T : __BuiltinArithmeticType, let N : int> {t.name}<vector<T, N>>")
        lines.append("{")
        for b in gather_methods(t, "T"):
            lines.append(f"    {b}")
        lines.append("}")
        lines.append("")
    return lines


def all_textures():
    result = []
    shapes = [
        ("1D", False), ("1D", True), ("2D", False), ("2D", True),
        ("3D", False), ("Cube", False), ("Cube", True),
    ]
    ms_shapes = [
        ("1D", False), ("1D", True), ("2D", False), ("2D", True),
        ("3D", False), ("Cube", False), ("Cube", True),
    ]
    for base in ("Texture", "Sampler"):
        for access in ("", "RW", "W", "RasterizerOrdered"):
            for shape, array in shapes:
                cube = SHAPES[shape][1]
                if cube and access in ("RW", "W"):
                    continue
                result.append(Tex(base, access, shape, array, False))
            if access == "W":
                continue
            for shape, array in ms_shapes:
                cube = SHAPES[shape][1]
                if cube and access == "RW":
                    continue
                result.append(Tex(base, access, shape, array, True))
    for shape, array in shapes:
        result.append(Tex("DepthTexture", "", shape, array, False))
    result.append(Tex("DepthTexture", "", "2D", False, True))
    result.append(Tex("DepthTexture", "", "2D", True, True))
    for shape, array in shapes:
        result.append(Tex("Sampler", "", shape, array, False, shadow=True))
    # Multisampled shadow samplers: dimensions only (no sampling, no load).
    result.append(Tex("Sampler", "", "2D", False, True, shadow=True))
    result.append(Tex("Sampler", "", "2D", True, True, shadow=True))
    return result


def section():
    lines = [BEGIN, ""]
    for t in all_textures():
        lines += emit(t)
    lines.append(END)
    return "\n".join(lines) + "\n"


def splice(text, new_section):
    start = text.index(BEGIN)
    end = text.index(END, start) + len(END) + 1
    return text[:start] + new_section + text[end:]


# resources.slang is split in PARTS files (parsed in parallel at start-up):
# the generated section starts in the first and ends in the last. The parts
# after the first begin with a header; the split points are blank lines
# before a top-level declaration, near equal sizes.
PARTS = ["resources.slang", "resources2.slang", "resources3.slang", "resources4.slang"]


def header(k):
    return (
        f"//! Resource types, continued (part {k} of {len(PARTS)}; `resources.slang` is split so\n"
        "//! that the parts parse in parallel at start-up).\n\n"
    )


def join(texts):
    whole = texts[0]
    for k, t in enumerate(texts[1:], start=2):
        h = header(k)
        whole += t[len(h):] if t.startswith(h) else t
    return whole


def split(whole):
    cuts = [0]
    for k in range(1, len(PARTS)):
        target = len(whole) * k // len(PARTS)
        i = whole.find("\n\n", target)
        while i != -1 and whole[i + 2 : i + 3] in ("", " ", "}", "\n", "\t"):
            i = whole.find("\n\n", i + 1)
        cuts.append(i + 2)
    cuts.append(len(whole))
    parts = [whole[cuts[k] : cuts[k + 1]] for k in range(len(PARTS))]
    return [parts[0]] + [header(k + 1) + p for k, p in enumerate(parts) if k > 0]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(here, p) for p in PARTS]
    new_section = section()
    if "--print" in sys.argv:
        sys.stdout.write(new_section)
        return 0
    texts = [open(p, encoding="utf-8").read() for p in paths]
    whole = join(texts)
    updated = split(splice(whole, new_section))
    if "--check" in sys.argv:
        # The section only: hand edits outside it move the split points.
        if splice(whole, new_section) != whole:
            print("resources*.slang: generated section is out of date; run gen_textures.py")
            return 1
        return 0
    for path, old, new in zip(paths, texts, updated):
        if new != old:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
