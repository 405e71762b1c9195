#!/usr/bin/env python3
"""Falcor as a measurement: which of its Slang files the reference compiler
accepts, and whether `slang-analyzer check` reports no error on each of them.

Falcor (NVIDIA's real-time rendering framework, the code base of the SLANG.D
paper) is a large, macro-heavy Slang project. Its host program compiles each
shader with a set of search paths and with defines it computes at run time
(scene defines, material system defines, sampler and pass-specific
defines); many files stop with `#error "X not defined!"` without them. This
script gives both compilers the same search paths and a realistic define set
(DEFAULT_DEFINES and PER_PATH_DEFINES below, each entry naming where in
Falcor's C++ it comes from; values are the ones the host produces for a
plausible scene: triangle meshes only, indexed 32-bit indices, standard
materials, one vertex/index buffer, no curves/SDF grids/volumes, default
pass options), then for every `*.slang` under Source/ (`.slangh` files are
only included):

  * runs the reference `slangc -no-codegen -I ... -D ... FILE` and records
    accept (no error at all, in the file or in any module it imports) or
    reject, with its errors;
  * runs ours, `slang-analyzer check --json -I ... -D ... FILE`, and records
    its errors (ours reports the checked file's own diagnostics only).

It prints

    falcor: N files; reference accepts A; ours clean on C of them (P%);
    reference rejects R, of which ours flags F on the reference's line

(F counts the rejected files whose reference errors include one in the file
itself, other than "import failed", on a line where ours reports an error;
the parenthesis says how many have such an error), then how many are
rejected only for errors in modules they import and whether ours is clean
on those,
then the counts of our errors on accepted files grouped by message pattern.
`--failures OUT.tsv` writes those errors (file, line, message).
`--no-defines` runs both without any -D (the search paths stay), to see
what the define table is worth.

Getting Falcor (it is NOT part of this repository and must not be
committed): from a clone or mirror of github.com/NVIDIAGameWorks/Falcor,

    mkdir -p /tmp/falcor
    git --git-dir=/work/.mirror/NVIDIAGameWorks+Falcor/repo archive HEAD Source | tar x -C /tmp/falcor

then

    python3 tests/tools/falcor_check.py --falcor /tmp/falcor \\
        --slangc .../slangtorch/bin/slangc --labels-cache /tmp/falcor-labels.json \\
        --jobs 2 [--failures /tmp/falcor-failures.tsv] [--no-defines] [FILTER ...]

FILTER: substrings of the path relative to Source/ (a file is kept when it
contains any). The reference takes about 10 minutes on ~400 files; its
verdicts are kept in --labels-cache (keyed by file and the exact argument
list) so later runs only rerun ours. slangc needs its own folder on
LD_LIBRARY_PATH (the script sets it). The PyPI package `slangtorch` ships
a slangc.

This is a measurement, not a test: it is not run by CI, and its numbers
depend on the Falcor revision and the reference's version.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---------------------------------------------------------------------------
# Defines every shader gets: what Scene::getSceneDefines() returns (plus the
# sampler defines most programs add), for a scene of triangle meshes only.
# Paths are relative to Source/Falcor unless they start with RenderPasses/.
# ---------------------------------------------------------------------------
DEFAULT_DEFINES = [
    # Core/Program/ProgramManager.cpp:106-107, global defines of every program:
    # "0" off D3D12 or without the NVAPI SDK (not in the repository).
    ("FALCOR_NVAPI_AVAILABLE", "0"),
    # Scene/Scene.cpp, Scene::updateSceneDefines()
    ("SCENE_GRID_COUNT", "0"),  # mGrids.size(): no volumes
    ("SCENE_HAS_INDEXED_VERTICES", "1"),  # hasIndexBuffer()
    ("SCENE_HAS_16BIT_INDICES", "0"),  # mHas16BitIndices
    ("SCENE_HAS_32BIT_INDICES", "1"),  # mHas32BitIndices
    # Utils/SplitBuffer.h getShaderDefines(), prefixes set in Scene.cpp:213/215:
    # one GPU buffer each; kBufferIndexBits = 32 - bitCount(kMaxElementCount - 1):
    # index data SplitBuffer<uint32_t, true> (2 GB limit, 4 B) -> 3,
    # vertex data SplitBuffer<PackedStaticVertexData (32 B), false> (4 GB limit) -> 5.
    ("SCENE_INDEX_BUFFER_COUNT", "1"),
    ("SCENE_INDEX_BUFFER_INDEX_BITS", "3"),
    ("SCENE_VERTEX_BUFFER_COUNT", "1"),
    ("SCENE_VERTEX_BUFFER_INDEX_BITS", "5"),
    # Scene/HitInfo.cpp, HitInfo::getDefines(): HitType::Count = 7 -> 3 type
    # bits; 100 geometry instances -> 7 bits; 100k triangles -> 17 bits;
    # Scene::Settings::useCompressedHitInfo = false (Scene.h:271).
    ("HIT_INFO_DEFINES", "1"),
    ("HIT_INFO_USE_COMPRESSION", "0"),
    ("HIT_INFO_TYPE_BITS", "3"),
    ("HIT_INFO_INSTANCE_ID_BITS", "7"),
    ("HIT_INFO_PRIMITIVE_INDEX_BITS", "17"),
    # Scene/Scene.cpp, Scene::getSceneSDFGridDefines(): enum values
    # (SDFGrid::Type, SDFGridIntersectionMethod, SDFGridGradientEvaluationMethod)
    # and the default SDFGridConfig (Scene.h:158, all None/0) with no SDF grid.
    ("SCENE_SDF_GRID_IMPLEMENTATION_NDSDF", "1"),
    ("SCENE_SDF_GRID_IMPLEMENTATION_SVS", "2"),
    ("SCENE_SDF_GRID_IMPLEMENTATION_SBS", "3"),
    ("SCENE_SDF_GRID_IMPLEMENTATION_SVO", "4"),
    ("SCENE_SDF_NO_INTERSECTION_METHOD", "0"),
    ("SCENE_SDF_NO_VOXEL_SOLVER", "1"),
    ("SCENE_SDF_VOXEL_SPHERE_TRACING", "2"),
    ("SCENE_SDF_NO_GRADIENT_EVALUATION_METHOD", "0"),
    ("SCENE_SDF_GRADIENT_NUMERIC_DISCONTINUOUS", "1"),
    ("SCENE_SDF_GRADIENT_NUMERIC_CONTINUOUS", "2"),
    ("SCENE_SDF_GRID_COUNT", "0"),
    ("SCENE_SDF_GRID_MAX_LOD_COUNT", "0"),
    ("SCENE_SDF_GRID_IMPLEMENTATION", "0"),
    ("SCENE_SDF_VOXEL_INTERSECTION_METHOD", "0"),
    ("SCENE_SDF_GRADIENT_EVALUATION_METHOD", "0"),
    ("SCENE_SDF_SOLVER_MAX_ITERATION_COUNT", "0"),
    ("SCENE_SDF_OPTIMIZE_VISIBILITY_RAYS", "0"),
    # Scene.cpp: mRenderSettings.diffuseAlbedoMultiplier (1.f, std::to_string)
    ("SCENE_DIFFUSE_ALBEDO_MULTIPLIER", "1.000000"),
    # Scene.cpp: (uint32_t)mGeometryTypes = 1 << GEOMETRY_TYPE_TRIANGLE_MESH (SceneDefines.slangh)
    ("SCENE_GEOMETRY_TYPES", "2"),
    # Scene/Material/MaterialSystem.cpp, MaterialSystem::getDefines():
    # kMaxSamplerCount = 1 << MaterialHeader::kSamplerIDBits (8); 24 textures
    # of standard materials; no buffers, 3D textures, UDIMs, spec-gloss or
    # light profile; Material::getMaterialInstanceByteSize() default 128.
    ("MATERIAL_SYSTEM_SAMPLER_DESC_COUNT", "256"),
    ("MATERIAL_SYSTEM_TEXTURE_DESC_COUNT", "24"),
    ("MATERIAL_SYSTEM_BUFFER_DESC_COUNT", "0"),
    ("MATERIAL_SYSTEM_TEXTURE_3D_DESC_COUNT", "0"),
    ("MATERIAL_SYSTEM_UDIM_INDIRECTION_ENABLED", "0"),
    ("MATERIAL_SYSTEM_HAS_SPEC_GLOSS_MATERIALS", "0"),
    ("MATERIAL_SYSTEM_USE_LIGHT_PROFILE", "0"),
    ("FALCOR_MATERIAL_INSTANCE_SIZE", "128"),
    # Utils/Sampling/SampleGenerator.cpp getDefines(): the passes' default
    # SAMPLE_GENERATOR_TINY_UNIFORM (SampleGeneratorType.slangh: 0).
    ("SAMPLE_GENERATOR_TYPE", "0"),
    # Rendering/Lights/EmissiveLightSampler.cpp / LightBVHSampler.cpp getDefines():
    # the default EmissiveLightSamplerType::LightBVH (1) with LightBVHSampler::Options
    # defaults (LightBVHSampler.h:64-69, LightBVHBuilder.h:71; SolidAngleBoundMethod::Sphere = 3).
    ("_EMISSIVE_LIGHT_SAMPLER_TYPE", "1"),
    ("_USE_BOUNDING_CONE", "1"),
    ("_USE_LIGHTING_CONE", "1"),
    ("_DISABLE_NODE_FLUX", "0"),
    ("_USE_UNIFORM_TRIANGLE_SAMPLING", "1"),
    ("_ACTUAL_MAX_TRIANGLES_PER_NODE", "10"),
    ("_SOLID_ANGLE_BOUND_METHOD", "3"),
    # Rendering/Volumes/GridVolumeSampler.cpp getDefines() with the Options
    # defaults (GridVolumeSampler.h:51-53): RatioTrackingLocalMajorant (2),
    # DeltaTrackingLocalMajorant (1), useBrickedGrid = true.
    ("GRID_VOLUME_SAMPLER_USE_BRICKEDGRID", "1"),
    ("GRID_VOLUME_SAMPLER_TRANSMITTANCE_ESTIMATOR", "2"),
    ("GRID_VOLUME_SAMPLER_DISTANCE_SAMPLER", "1"),
    # Rendering/RTXDI/RTXDI.cpp getDefines(): "0" without the RTXDI SDK.
    ("RTXDI_INSTALLED", "0"),
]

# PathTracer::StaticParams::getDefines (RenderPasses/PathTracer/PathTracer.cpp:1395-1456)
# with the StaticParams defaults (PathTracer.h:118-150); maxSurfaceBounces is
# set at start-up to max(diffuse, specular, transmission) = 10.
_PATH_TRACER = [
    ("SAMPLES_PER_PIXEL", "1"),
    ("MAX_SURFACE_BOUNCES", "10"),
    ("MAX_DIFFUSE_BOUNCES", "3"),
    ("MAX_SPECULAR_BOUNCES", "3"),
    ("MAX_TRANSMISSON_BOUNCES", "10"),
    ("ADJUST_SHADING_NORMALS", "0"),
    ("USE_BSDF_SAMPLING", "1"),
    ("USE_NEE", "1"),
    ("USE_MIS", "1"),
    ("USE_RUSSIAN_ROULETTE", "0"),
    ("USE_RTXDI", "0"),
    ("USE_ALPHA_TEST", "1"),
    ("USE_LIGHTS_IN_DIELECTRIC_VOLUMES", "0"),
    ("DISABLE_CAUSTICS", "0"),
    ("PRIMARY_LOD_MODE", "0"),  # TexLODMode::Mip0
    ("USE_NRD_DEMODULATION", "1"),
    ("USE_SER", "1"),
    ("COLOR_FORMAT", "1"),  # ColorFormat::LogLuvHDR
    ("MIS_HEURISTIC", "0"),  # MISHeuristic::Balance
    ("MIS_POWER_EXPONENT", "2.000000"),
    ("INTERIOR_LIST_SLOT_COUNT", "2"),  # maxNestedMaterials
    ("GBUFFER_ADJUST_SHADING_NORMALS", "0"),
    # scene-dependent (PathTracer.cpp:1443-1449): env map and emissive
    # triangles, no analytic lights, curves, SDF grids or hair.
    ("USE_ENV_LIGHT", "1"),
    ("USE_ANALYTIC_LIGHTS", "0"),
    ("USE_EMISSIVE_LIGHTS", "1"),
    ("USE_CURVES", "0"),
    ("USE_SDF_GRIDS", "0"),
    ("USE_HAIR_MATERIAL", "0"),
    # PathTracer.cpp:1299-1302, 1324-1327 (outputs not connected)
    ("USE_VIEW_DIR", "0"),
    ("OUTPUT_GUIDE_DATA", "0"),
    ("OUTPUT_NRD_DATA", "0"),
    ("OUTPUT_NRD_ADDITIONAL_DATA", "0"),
]

# Extra defines by path prefix (relative to Source/); every matching entry
# applies, later ones override earlier ones.
PER_PATH_DEFINES = [
    # Scene/Animation/AnimatedVertexCache.cpp:498/524: mCurveKeyframeTimes.size()
    ("Falcor/Scene/Animation/UpdateCurve", [("CURVE_KEYFRAME_COUNT", "4")]),
    # Scene/Lights/LightCollection.cpp:135/151: INTEGRATOR_PASS 1 at creation, vpDim = 16384
    ("Falcor/Scene/Lights/EmissiveIntegrator.3d.slang", [("INTEGRATOR_PASS", "1"), ("_VIEWPORT_DIM", "16384")]),
    # Utils/Algorithm/BitonicSort.cpp:47-48 (values used for reflection)
    ("Falcor/Utils/Algorithm/BitonicSort.cs.slang", [("CHUNK_SIZE", "256"), ("GROUP_SIZE", "256")]),
    # Core/Pass/FullScreenPass.cpp:97-101: the geometry shader is only used
    # with a viewport mask; a 2-layer target -> mask 3, 3 * popcount = 6
    ("Falcor/Core/Pass/FullScreenPass.gs.slang", [("_VIEWPORT_MASK", "3"), ("_OUTPUT_VERTEX_COUNT", "6")]),
    # RenderPasses/PathTracer: StaticParams::getDefines (above)
    ("RenderPasses/PathTracer/", _PATH_TRACER),
    # Falcor/RenderPasses/Shared/Denoising/NRDBuffers.slang is imported by the
    # path tracer, which sets these (PathTracer.cpp:1454-1456)
    ("Falcor/RenderPasses/Shared/Denoising/", [("OUTPUT_NRD_DATA", "0"), ("OUTPUT_NRD_ADDITIONAL_DATA", "0")]),
    # RenderPasses/WARDiffPathTracer/WARDiffPathTracer.cpp:645-690, defaults
    # in WARDiffPathTracer.h:120-150 (DiffMode::ForwardDiffDebug = 2;
    # diffVarName is empty, so that define is an empty name and skipped).
    ("RenderPasses/WARDiffPathTracer/", [
        ("SAMPLES_PER_PIXEL", "1"), ("MAX_BOUNCES", "0"), ("DIFF_MODE", "2"),
        ("USE_BSDF_SAMPLING", "1"), ("USE_NEE", "1"), ("USE_MIS", "1"), ("USE_WAR", "1"),
        ("AUX_SAMPLE_COUNT", "16"), ("LOG10_VMF_CONCENTRATION", "5.000000"),
        ("LOG10_VMF_CONCENTRATION_SCREEN", "5.000000"), ("BOUNDARY_TERM_BETA", "0.010000"),
        ("USE_ANTITHETIC_SAMPLING", "1"), ("HARMONIC_GAMMA", "2.000000"),
        ("USE_ENV_LIGHT", "1"), ("USE_ANALYTIC_LIGHTS", "0"), ("USE_EMISSIVE_LIGHTS", "1"),
    ]),
    # RenderPasses/GBuffer/GBuffer/GBufferRT.cpp:322-336 with GBufferRT.h:67/72,
    # GBufferBase.h:100/102 defaults; RayFlags::None = 0.
    ("RenderPasses/GBuffer/GBuffer/GBufferRT", [
        ("COMPUTE_DEPTH_OF_FIELD", "0"), ("USE_ALPHA_TEST", "1"), ("LOD_MODE", "0"),
        ("ADJUST_SHADING_NORMALS", "1"), ("RAY_FLAGS", "0"),
    ]),
    # RenderPasses/GBuffer/VBuffer/VBufferRT.cpp:286-298
    ("RenderPasses/GBuffer/VBuffer/VBufferRT", [
        ("COMPUTE_DEPTH_OF_FIELD", "0"), ("USE_ALPHA_TEST", "1"), ("RAY_FLAGS", "0"),
    ]),
    # RenderPasses/TestPasses/TestRtProgram.cpp:210, mMode = 0 (TestRtProgram.h:63)
    ("RenderPasses/TestPasses/TestRtProgram", [("MODE", "0")]),
    # RenderPasses/NRDPass/NRDPass.cpp:115 (RELAX_DIFFUSE_SPECULAR)
    ("RenderPasses/NRDPass/", [("NRD_METHOD", "0")]),
    # RenderPasses/Utils/Composite/Composite.cpp:160-161: COMPOSITE_MODE_ADD,
    # OUTPUT_FORMAT_FLOAT (CompositeMode.slangh)
    ("RenderPasses/Utils/Composite/", [("COMPOSITE_MODE", "0"), ("OUTPUT_FORMAT", "0")]),
    # RenderPasses/Utils/GaussianBlur/GaussianBlur.cpp:113-118: the horizontal pass, mKernelWidth = 5
    ("RenderPasses/Utils/GaussianBlur/", [("_KERNEL_WIDTH", "5"), ("_HORIZONTAL_BLUR", "")]),
    # An SDF grid implementation's modules are only compiled in a scene with
    # SDF grids: Scene.cpp:641-682 sets the implementation to the grid's type
    # and VoxelSphereTracing (2), NumericDiscontinuous (1), 256 iterations,
    # optimized visibility rays; SceneBuilder.cpp:921 max LOD count =
    # bitScanReverse(64) + 1 for a 64^3 grid; geometry types gain SDFGrid (1 << 5).
    *[(f"Falcor/Scene/SDFs/{folder}/", [
        ("SCENE_GEOMETRY_TYPES", "34"), ("SCENE_SDF_GRID_COUNT", "1"), ("SCENE_SDF_GRID_MAX_LOD_COUNT", "7"),
        ("SCENE_SDF_GRID_IMPLEMENTATION", impl), ("SCENE_SDF_VOXEL_INTERSECTION_METHOD", "2"),
        ("SCENE_SDF_GRADIENT_EVALUATION_METHOD", "1"), ("SCENE_SDF_SOLVER_MAX_ITERATION_COUNT", "256"),
        ("SCENE_SDF_OPTIMIZE_VISIBILITY_RAYS", "1")])
      for folder, impl in [("NormalizedDenseSDFGrid", "1"), ("SparseVoxelSet", "2"),
                           ("SparseBrickSet", "3"), ("SparseVoxelOctree", "4")]],
    # Scene/SDFs/SparseBrickSet/SDFSBS.cpp:849/919: GROUP_WIDTH 8; :428-441
    # kChunkWidth = 4 (:58), mBrickWidth = 7 (SDFSBS::create default, SDFSBS.h:43)
    ("Falcor/Scene/SDFs/SparseBrickSet/SDFSBS", [("GROUP_WIDTH", "8"), ("CHUNK_WIDTH", "4"), ("BRICK_WIDTH", "7")]),
    # Scene/SDFs/SparseVoxelOctree/SDFSVO.cpp:245-257: min(128, capacity / 2)
    # for a hash table of capacity 1024; the algorithm ids at 246-261
    ("Falcor/Scene/SDFs/SparseVoxelOctree/SDFSVOLocationCodeSorter", [
        ("GROUP_SIZE", "128"), ("BUFFER_SIZE", "1024"), ("LOCAL_BMS", "0"),
        ("LOCAL_DISPERSE", "1"), ("BIG_FLIP", "2"), ("BIG_DISPERSE", "3")]),
    # Utils/Algorithm/PrefixSum.cpp:39/45: kGroupSize = 1024
    ("Falcor/Utils/Algorithm/PrefixSum", [("GROUP_SIZE", "1024")]),
    # Utils/Algorithm/ParallelReduction.cpp:43 (the values it compiles with first)
    ("Falcor/Utils/Algorithm/ParallelReduction", [
        ("REDUCTION_TYPE", "1"), ("FORMAT_CHANNELS", "1"), ("FORMAT_TYPE", "1")]),
    # Utils/Image/ImageProcessing.cpp:99: the float copy pass
    ("Falcor/Utils/Image/CopyColorChannel", [("TEXTURE_FORMAT", "float4")]),
    # RenderPasses/DebugPasses/ColorMapPass/ColorMapPass.cpp:124, mColorMap = ColorMap::Jet (1)
    # and :125, mChannel = 0 (ColorMapPass.h:53)
    ("RenderPasses/DebugPasses/ColorMapPass/", [("_COLOR_MAP", "1"), ("_CHANNEL", "0")]),
    # RenderPasses/FLIPPass/FLIPPass.cpp:71, mToneMapper = FLIPToneMapperType::ACES (0)
    ("RenderPasses/FLIPPass/", [("TONE_MAPPER", "0")]),
    # RenderPasses/ToneMapper/ToneMapper.cpp:521, mOperator = Operator::Aces
    ("RenderPasses/ToneMapper/", [("_TONE_MAPPER_OPERATOR", "5")]),  # ToneMapperOperator::Aces
    # RenderPasses/MinimalPathTracer/MinimalPathTracer.cpp:154-160 with
    # MinimalPathTracer.h:79-83 defaults; the scene as for the path tracer.
    ("RenderPasses/MinimalPathTracer/", [
        ("MAX_BOUNCES", "3"), ("COMPUTE_DIRECT", "1"), ("USE_IMPORTANCE_SAMPLING", "1"),
        ("USE_ANALYTIC_LIGHTS", "0"), ("USE_EMISSIVE_LIGHTS", "1"), ("USE_ENV_LIGHT", "1"),
        ("USE_ENV_BACKGROUND", "1")]),
    # RenderPasses/WhittedRayTracer/WhittedRayTracer.cpp:317-328 with
    # WhittedRayTracer.h:90-104 defaults (Mip0, RayConeMode::Combo, Isotropic filters)
    ("RenderPasses/WhittedRayTracer/", [
        ("MAX_BOUNCES", "3"), ("TEX_LOD_MODE", "0"), ("RAY_CONE_MODE", "0"),
        ("VISUALIZE_SURFACE_SPREAD", "0"), ("RAY_CONE_FILTER_MODE", "0"), ("RAY_DIFF_FILTER_MODE", "0"),
        ("USE_ANALYTIC_LIGHTS", "0"), ("USE_EMISSIVE_LIGHTS", "1"), ("USE_ENV_LIGHT", "1"),
        ("USE_ENV_BACKGROUND", "1"), ("USE_ROUGHNESS_TO_VARIANCE", "0"), ("USE_FRESNEL_AS_BRDF", "0")]),
    # RenderPasses/RTXDIPass/RTXDIPass.cpp:247/254
    ("RenderPasses/RTXDIPass/", [("USE_ENV_BACKGROUND", "1")]),
    # Tools/FalcorTest/Tests/Core/TextureArrays.cpp:40-44, bits {1, 1, 1}
    ("Tools/FalcorTest/Tests/Core/TextureArrays", [("BITS_I", "1"), ("BITS_J", "1"), ("BITS_K", "1")]),
    # Tools/FalcorTest/Tests/Rendering/Materials/MicrofacetTests.cpp:47/100: kNdfs[0]
    ("Tools/FalcorTest/Tests/Rendering/Materials/MicrofacetTests", [("TEST_NDF_TYPE", "TrowbridgeReitzNDF")]),
    # Tools/FalcorTest/Tests/Slang/InheritanceTests.cpp:55/67: kNumTests = 16
    ("Tools/FalcorTest/Tests/Slang/InheritanceTests", [("NUM_TESTS", "16")]),
    # Tools/FalcorTest/Tests/Slang/SlangGenerics.cpp:59
    ("Tools/FalcorTest/Tests/Slang/SlangGenerics", [("TEST_A", "1"), ("USE_INT", "1")]),
    # Tools/FalcorTest/Tests/Scene/Material/BSDFTests.cpp:115-117, the first
    # testSampling spec (line 316)
    ("Tools/FalcorTest/Tests/Scene/Material/BSDFTests.cs.slang", [
        ("TEST_BSDF_IMPORT", "Rendering.Materials.BSDFs.DisneyDiffuseBRDF"),
        ("TEST_BSDF", "DisneyDiffuseBRDF"),
        ("TEST_BSDF_INIT", "bsdf.albedo = float3(1.f); bsdf.roughness = 0.5f;"),
    ]),
]


IS_VALID = re.compile(r"\bis_valid\(\s*(\w+)\s*\)")


def defines_for(source, rel):
    merged = dict(DEFAULT_DEFINES)
    for prefix, defs in PER_PATH_DEFINES:
        if rel.startswith(prefix):
            merged.update(defs)
    # RenderGraph/RenderPassHelpers.h:110 getValidResourceDefines(): a pass
    # defines is_valid_<name> for each optional input/output channel, 1 when
    # it is connected; here every channel the file tests is connected.
    folder = os.path.dirname(os.path.join(source, rel))
    names = set()
    for n in os.listdir(folder):
        if n.endswith((".slang", ".slangh")):
            with open(os.path.join(folder, n), encoding="utf-8", errors="replace") as f:
                names |= set(IS_VALID.findall(re.sub(r"#\s*define\s+is_valid\(", "", f.read())))
    for name in sorted(names):
        merged.setdefault(f"is_valid_{name}", "1")
    return merged


def search_paths(source, rel):
    """Falcor's build copies every target's shaders into one shader folder
    (CMakeLists.txt target_copy_shaders): Falcor's and FalcorTest's at its
    root, render passes under RenderPasses/<pass>, samples under
    Samples/<name>, modules under Modules/<name>; the host searches that
    folder and the shader's own."""
    return [
        os.path.join(source, "Falcor"),
        os.path.join(source, "Tools", "FalcorTest"),
        source,
        os.path.join(source, "RenderPasses"),
        os.path.dirname(os.path.join(source, rel)),
    ]


def args_for(source, rel, use_defines):
    out = []
    for d in search_paths(source, rel):
        out += ["-I", d]
    if use_defines:
        for name, value in defines_for(source, rel).items():
            out += ["-D", f"{name}={value}" if value != "" else name]
    return out


# --------------------------------------------------------------- reference
def run_reference(slangc, source, rel, extra):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(slangc)))
    cmd = [slangc, "-no-codegen", "-enable-machine-readable-diagnostics", *extra, os.path.join(source, rel)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env, timeout=600, cwd=source)
    except subprocess.TimeoutExpired:
        return {"accepts": False, "errors": [{"file": rel, "line": 0, "message": "reference timed out"}]}
    errors = []
    for line in (r.stdout + r.stderr).splitlines():
        parts = line.split("\t")
        if len(parts) >= 8 and parts[1] in ("error", "fatal"):
            errors.append({"code": parts[0], "file": os.path.relpath(os.path.join(source, parts[2]), source),
                           "line": int(parts[3]) if parts[3].isdigit() else 0, "message": "\t".join(parts[7:])})
        elif len(parts) >= 8 and parts[1] == "span" and errors and "detail" not in errors[-1] \
                and errors[-1]["code"] == parts[0]:
            errors[-1]["detail"] = "\t".join(parts[7:])
    accepts = r.returncode == 0 and not errors
    if not accepts and not errors:
        errors.append({"file": rel, "line": 0, "message": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]})
    return {"accepts": accepts, "errors": errors[:20]}


def cache_key(slangc, rel, extra):
    h = hashlib.sha1()
    h.update(os.path.basename(slangc).encode())
    for a in extra:
        h.update(b"\0" + a.encode())
    return rel + "#" + h.hexdigest()[:16]


# --------------------------------------------------------------------- ours
def run_ours(ours, source, rel, extra):
    cmd = [ours, "check", "--json", *extra, os.path.join(source, rel)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=300, cwd=source)
    except subprocess.TimeoutExpired:
        return [{"line": 0, "message": "ours timed out"}]
    errors = []
    got = False
    for line in r.stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        got = True
        for d in obj.get("diagnostics", []):
            if d.get("severity") == "error":
                errors.append({"line": d.get("line", 0), "code": d.get("code", ""), "message": d.get("message", "")})
    if not got:
        errors.append({"line": 0, "code": "crash", "message": f"no JSON (exit {r.returncode}): "
                       + " ".join(r.stderr.strip().splitlines()[-1:])})
    return errors


def import_failure(e):
    """The reference's error at an import whose module has errors (the
    errors themselves are reported in that module)."""
    return e["message"].startswith("import failed") or "failed because of a compilation error" in e.get("detail", "")


def pattern(msg):
    m = re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"", "'_'", msg)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:140]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--falcor", default="/tmp/falcor", help="folder holding Falcor's Source/")
    ap.add_argument("--ours", default=os.path.join(ROOT, "target", "release", "slang-analyzer"))
    ap.add_argument("--slangc", default="slangc")
    ap.add_argument("--labels-cache", help="JSON file keeping the reference's verdicts between runs")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--failures", help="write ours' errors on files the reference accepts (TSV)")
    ap.add_argument("--no-defines", action="store_true", help="give neither compiler any -D")
    ap.add_argument("--reference-only", action="store_true", help="fill the cache, do not run ours")
    ap.add_argument("--show-rejects", action="store_true", help="list the reference's first error per rejected file")
    ap.add_argument("filters", nargs="*", help="keep files whose path under Source/ contains one of these")
    args = ap.parse_args()

    source = os.path.abspath(os.path.join(args.falcor, "Source"))
    if not os.path.isdir(source):
        sys.exit(f"no {source}: extract Falcor first (see --help)")
    files = []
    for dirpath, _, names in os.walk(source):
        for n in names:
            if n.endswith(".slang"):
                rel = os.path.relpath(os.path.join(dirpath, n), source)
                if not args.filters or any(f in rel for f in args.filters):
                    files.append(rel)
    files.sort()
    use_defines = not args.no_defines
    extra = {rel: args_for(source, rel, use_defines) for rel in files}

    cache = {}
    if args.labels_cache and os.path.exists(args.labels_cache):
        with open(args.labels_cache) as f:
            cache = json.load(f)
    keys = {rel: cache_key(args.slangc, rel, extra[rel]) for rel in files}
    todo = [rel for rel in files if keys[rel] not in cache]
    if todo:
        print(f"reference: {len(todo)} files to run ({len(files) - len(todo)} cached)", file=sys.stderr)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
            futs = {ex.submit(run_reference, args.slangc, source, rel, extra[rel]): rel for rel in todo}
            for i, fut in enumerate(concurrent.futures.as_completed(futs), 1):
                cache[keys[futs[fut]]] = fut.result()
                if args.labels_cache and (i % 20 == 0 or i == len(todo)):
                    tmp = args.labels_cache + ".tmp"
                    with open(tmp, "w") as f:
                        json.dump(cache, f, indent=0, sort_keys=True)
                    os.replace(tmp, args.labels_cache)
                if i % 20 == 0:
                    print(f"  reference {i}/{len(todo)}", file=sys.stderr)
    ref = {rel: cache[keys[rel]] for rel in files}
    if args.show_rejects:
        for rel in files:
            if not ref[rel]["accepts"]:
                e = ref[rel]["errors"][0]
                print(f"REJECT {rel}: {e['file']}:{e['line']}: {e['message']} | {e.get('detail', '')}")
    if args.reference_only:
        acc = sum(1 for r in ref.values() if r["accepts"])
        print(f"falcor: {len(files)} files; reference accepts {acc}; reference rejects {len(files) - acc}")
        return

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        ours = dict(zip(files, ex.map(lambda rel: run_ours(args.ours, source, rel, extra[rel]), files)))

    accepted = [rel for rel in files if ref[rel]["accepts"]]
    rejected = [rel for rel in files if not ref[rel]["accepts"]]
    clean = [rel for rel in accepted if not ours[rel]]
    own, flagged = 0, 0
    for rel in rejected:
        lines = {e["line"] for e in ref[rel]["errors"] if e["file"] == rel and not import_failure(e)}
        if lines:
            own += 1
            if lines & {e["line"] for e in ours[rel]}:
                flagged += 1
    pct = 100.0 * len(clean) / len(accepted) if accepted else 0.0
    print(f"falcor{'' if use_defines else ' (no defines)'}: {len(files)} files; reference accepts {len(accepted)}; "
          f"ours clean on {len(clean)} of them ({pct:.1f}%); reference rejects {len(rejected)}, "
          f"of which ours flags {flagged} on the reference's line ({own} with a reference error in the file itself)")
    # Files the reference rejects only for errors in modules they import
    # (ours checks the file itself: its own errors are what it can match).
    elsewhere = [rel for rel in rejected if all(e["file"] != rel or import_failure(e) for e in ref[rel]["errors"])]
    if elsewhere:
        why = Counter(f"{e['file']}:{e['line']}: {e.get('detail') or e['message']}"[:160]
                      for e in (ref[rel]["errors"][0] for rel in elsewhere))
        print(f"  {len(elsewhere)} rejected only for errors in imported modules; ours clean on "
              f"{sum(1 for rel in elsewhere if not ours[rel])} of them; the reference's first error there:")
        for p, n in why.most_common(8):
            print(f"  {n:5d}  {p}")

    groups = Counter()
    examples = defaultdict(list)
    rows = []
    for rel in accepted:
        for e in ours[rel]:
            p = pattern(e["message"])
            groups[p] += 1
            if len(examples[p]) < 3:
                examples[p].append(f"{rel}:{e['line']}: {e['message']}")
            rows.append((rel, e["line"], e["message"].replace("\t", " ").replace("\n", " ")))
    if args.failures:
        with open(args.failures, "w") as f:
            f.write("file\tline\tmessage\n")
            for r in rows:
                f.write(f"{r[0]}\t{r[1]}\t{r[2]}\n")
    if groups:
        print(f"\nours' errors on files the reference accepts: {len(rows)} in "
              f"{len(accepted) - len(clean)} files, by message pattern:")
        for p, n in groups.most_common():
            print(f"{n:5d}  {p}")
            for ex_line in examples[p]:
                print(f"         {ex_line}")


if __name__ == "__main__":
    main()
