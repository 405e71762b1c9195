#!/usr/bin/env python3
"""Generate the GLSL-compatibility type names of glsl.slang.

Slang accepts GLSL spellings of its types (with `-allow-glsl`, in `.glsl`
files, or after `import glsl`). They are plain aliases of Slang types:
  * vectors: `vec2`..`vec4` (float), `dvec`, `ivec`, `uvec`, `bvec`, the
    sized `i8vec`..`u64vec` and `f16vec`/`f32vec`/`f64vec`;
  * matrices: `mat2`..`mat4`, `matNxM` (N columns, M rows, so
    `matrix<T, M, N>`), and the `dmat`/`f16mat`/`f32mat`/`f64mat` variants;
  * combined samplers `sampler2D`, `isampler2D`, `usampler2D`, ... and
    their `Shadow` forms (`2DRect` is `2D`); separate textures `texture2D`, ...; storage images
    `image2D`, `iimage2D`, `uimage2D`, `i64image2D`, `u64image2D`, ...;
    `samplerBuffer`/`imageBuffer` (typed buffers), `subpassInput`;
  * the storage-image functions `imageLoad`, `imageStore`, `imageSize`,
    `imageAtomic*` on those image types.

Usage:
    python3 gen_glsl.py            # rewrite the section in glsl.slang
    python3 gen_glsl.py --check    # exit 1 if glsl.slang is out of date
    python3 gen_glsl.py --print    # print the section to stdout
"""

import os
import sys

from gen_common import emit

BEGIN = "// BEGIN GENERATED (gen_glsl.py; do not edit by hand)"
END = "// END GENERATED"

# GLSL prefix -> Slang scalar.
VECTOR_PREFIXES = [
    ("", "float"),
    ("d", "double"),
    ("i", "int"),
    ("u", "uint"),
    ("b", "bool"),
    ("i8", "int8_t"),
    ("u8", "uint8_t"),
    ("i16", "int16_t"),
    ("u16", "uint16_t"),
    ("i32", "int"),
    ("u32", "uint"),
    ("i64", "int64_t"),
    ("u64", "uint64_t"),
    ("f16", "half"),
    ("f32", "float"),
    ("f64", "double"),
]

MATRIX_PREFIXES = [("", "float"), ("d", "double"), ("f16", "half"), ("f32", "float"), ("f64", "double")]

# GLSL shape suffix -> (Slang texture shape suffix, has multisampled form).
SHAPES = [
    ("1D", "1D"),
    ("2D", "2D"),
    ("3D", "3D"),
    ("Cube", "Cube"),
    ("1DArray", "1DArray"),
    ("2DArray", "2DArray"),
    ("CubeArray", "CubeArray"),
    ("2DMS", "2DMS"),
    ("2DMSArray", "2DMSArray"),
    ("2DRect", "2D"),
]

SHADOW_SHAPES = [("1D", "1D"), ("2D", "2D"), ("Cube", "Cube"), ("1DArray", "1DArray"), ("2DArray", "2DArray"), ("CubeArray", "CubeArray"), ("2DRect", "2D")]

# GLSL element prefix -> element type of a 4-component sampled texel, and
# of a storage-image texel.
ELEMENT_PREFIXES = [
    ("", "vector<float, 4>"),
    ("i", "vector<int, 4>"),
    ("u", "vector<uint, 4>"),
]
IMAGE_ONLY_PREFIXES = [("i64", "int64_t"), ("u64", "uint64_t")]


def vectors():
    out = ["// Vectors."]
    for prefix, scalar in VECTOR_PREFIXES:
        for n in (2, 3, 4):
            out.append(f"typealias {prefix}vec{n} = vector<{scalar}, {n}>;")
    return out


def matrices():
    out = ["// Matrices: `matCxR` has C columns and R rows."]
    for prefix, scalar in MATRIX_PREFIXES:
        for n in (2, 3, 4):
            out.append(f"typealias {prefix}mat{n} = matrix<{scalar}, {n}, {n}>;")
        for c in (2, 3, 4):
            for r in (2, 3, 4):
                out.append(f"typealias {prefix}mat{c}x{r} = matrix<{scalar}, {r}, {c}>;")
    return out


def image_shape(slang):
    """There are no read-write cube textures: a cube image is addressed as
    a 2D array of faces (`imageLoad(img, ivec3(x, y, face))`)."""
    return "2DArray" if slang in ("Cube", "CubeArray") else slang


def textures():
    out = ["// Combined samplers, separate textures and storage images."]
    for prefix, elem in ELEMENT_PREFIXES:
        for glsl, slang in SHAPES:
            out.append(f"typealias {prefix}sampler{glsl} = Sampler{slang}<{elem}>;")
            out.append(f"typealias {prefix}texture{glsl} = Texture{slang}<{elem}>;")
            out.append(f"typealias {prefix}image{glsl} = RWTexture{image_shape(slang)}<{elem}>;")
        out.append(f"typealias {prefix}samplerBuffer = Buffer<{elem}>;")
        out.append(f"typealias {prefix}textureBuffer = Buffer<{elem}>;")
        out.append(f"typealias {prefix}imageBuffer = RWBuffer<{elem}>;")
        out.append(f"typealias {prefix}subpassInput = SubpassInput<{elem}>;")
        out.append(f"typealias {prefix}subpassInputMS = SubpassInputMS<{elem}>;")
    for prefix, elem in IMAGE_ONLY_PREFIXES:
        for glsl, slang in SHAPES:
            out.append(f"typealias {prefix}image{glsl} = RWTexture{image_shape(slang)}<{elem}>;")
        out.append(f"typealias {prefix}imageBuffer = RWBuffer<{elem}>;")
    for glsl, slang in SHADOW_SHAPES:
        out.append(f"typealias sampler{glsl}Shadow = Sampler{slang}Shadow<float>;")
    out.append("typealias sampler = SamplerState;")
    out.append("typealias samplerShadow = SamplerComparisonState;")
    return out


# Storage-image type (Slang) -> (coordinate type, `imageSize` type).
IMAGE_SHAPES = [
    ("RWTexture1D", "int", "int"),
    ("RWTexture2D", "vector<int, 2>", "vector<int, 2>"),
    ("RWTexture3D", "vector<int, 3>", "vector<int, 3>"),
    ("RWTexture1DArray", "vector<int, 2>", "vector<int, 2>"),
    ("RWTexture2DArray", "vector<int, 3>", "vector<int, 3>"),
    ("RWBuffer", "int", "int"),
]

IMAGE_ATOMICS = ["Add", "Min", "Max", "And", "Or", "Xor", "Exchange"]


# Multisampled storage images: (type, coordinate type); a sample index follows.
MS_IMAGE_SHAPES = [("RWTexture2DMS", "vector<int, 2>"), ("RWTexture2DMSArray", "vector<int, 3>")]


def image_functions():
    """`imageLoad`, `imageStore`, `imageSize` and `imageAtomic*` on the
    storage-image types. Atomics work on the first component of a vector
    texel (`uimage2D`) or on a scalar texel (`u64image2D`)."""
    out = ["// Storage-image functions."]
    for img, coord, size in IMAGE_SHAPES:
        out.append(f"T imageLoad<T>({img}<T> image, {coord} P);")
        out.append(f"void imageStore<T>({img}<T> image, {coord} P, T data);")
        out.append(f"{size} imageSize<T>({img}<T> image);")
        for op in IMAGE_ATOMICS:
            out.append(f"E imageAtomic{op}<E : __BuiltinArithmeticType, let N : int>({img}<vector<E, N>> image, {coord} P, E data);")
            out.append(f"E imageAtomic{op}<E : __BuiltinArithmeticType>({img}<E> image, {coord} P, E data);")
        out.append(f"E imageAtomicCompSwap<E : __BuiltinArithmeticType, let N : int>({img}<vector<E, N>> image, {coord} P, E compare, E data);")
        out.append(f"E imageAtomicCompSwap<E : __BuiltinArithmeticType>({img}<E> image, {coord} P, E compare, E data);")
    for img, coord in MS_IMAGE_SHAPES:
        out.append(f"T imageLoad<T>({img}<T> image, {coord} P, int sample);")
        out.append(f"void imageStore<T>({img}<T> image, {coord} P, int sample, T data);")
        out.append(f"{coord} imageSize<T>({img}<T> image);")
        out.append(f"int imageSamples<T>({img}<T> image);")
        for op in IMAGE_ATOMICS:
            out.append(f"E imageAtomic{op}<E : __BuiltinArithmeticType, let N : int>({img}<vector<E, N>> image, {coord} P, int sample, E data);")
            out.append(f"E imageAtomic{op}<E : __BuiltinArithmeticType>({img}<E> image, {coord} P, int sample, E data);")
        out.append(f"E imageAtomicCompSwap<E : __BuiltinArithmeticType, let N : int>({img}<vector<E, N>> image, {coord} P, int sample, E compare, E data);")
        out.append(f"E imageAtomicCompSwap<E : __BuiltinArithmeticType>({img}<E> image, {coord} P, int sample, E compare, E data);")
    return out


def section():
    lines = vectors() + [""] + matrices() + [""] + textures() + [""] + image_functions()
    return "\n".join([BEGIN] + lines + [END]) + "\n"


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "glsl.slang")
    return emit(path, section(), "gen_glsl.py", BEGIN, END)


if __name__ == "__main__":
    sys.exit(main())
