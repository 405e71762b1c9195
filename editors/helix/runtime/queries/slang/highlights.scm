; Slang highlights for Helix.
; Generated from editors/neovim/queries/slang/highlights.scm by
; grammar/scripts/gen_queries.py. The first matching pattern wins.

(variadic_parameter) @punctuation.special

(conditional_expression
  ":" @operator)

[
  ";"
  ","
  "."
  "::"
  ":"
] @punctuation.delimiter

(generic_parameters
  [
    "<"
    ">"
  ] @punctuation.bracket)

(generic_arguments
  [
    "<"
    ">"
  ] @punctuation.bracket)

[
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

(binary_expression
  operator: _ @operator)

[
  "+" "-" "*" "/" "%" "=" "+=" "-=" "*=" "/=" "%=" "&=" "|=" "^=" "<<=" "==" "!=" "<="
  ">=" "&&" "||" "!" "~" "&" "|" "^" "<<" "++" "--" "->" "=>" "?"
] @operator

((comment) @comment.block.documentation
  (#match? @comment.block.documentation "^/[*][*][^*].*[*]/$"))

((comment) @comment.block.documentation
  (#match? @comment.block.documentation "^///[^/]"))

(comment) @comment

(macro_item
  name: (identifier) @function.macro)

(preproc_disabled) @comment

(preproc_arg) @constant

(preproc_directive) @keyword.directive

(this) @variable.builtin

(null) @constant.builtin

[
  (true)
  (false)
] @constant.builtin.boolean

(char_literal) @constant.character

(concatenated_string
  (identifier) @constant)

(string_literal) @string

((number_literal) @constant.numeric.float
  (#match? @constant.numeric.float "^[0-9]*\\.[0-9]*"))

(number_literal) @constant.numeric.integer

(modified_type
  modifier: "no_diff" @keyword.storage.modifier.autodiff)

(modifier
  "no_diff" @keyword.storage.modifier.autodiff)

(packoffset_keyword) @keyword

(register_keyword) @keyword

(modified_type
  modifier: _ @keyword.storage.modifier)

(modifier) @keyword.storage.modifier

"operator" @keyword.operator

[
  "is"
  "as"
  "new"
  "sizeof"
  "alignof"
  "countof"
] @keyword.operator

"discard" @keyword

[
  "try"
  "catch"
  "throw"
  "throws"
  "defer"
] @keyword.control.exception

[
  "for"
  "while"
  "do"
  "break"
  "continue"
] @keyword.control.repeat

[
  "if"
  "else"
  "switch"
  "case"
  "default"
] @keyword.control.conditional

"return" @keyword.control.return

[
  "import"
  "module"
  "implementing"
  "using"
] @keyword.control.import

(accessor
  kind: "ref" @keyword)

[
  "let"
  "var"
  "where"
  "optional"
  "each"
  "expand"
  "functype"
  "__include"
  "__ignored_block"
  "__transparent_block"
  "__file_decl"
  "__intrinsic_asm"
  "__target_switch"
  "__stage_switch"
  "spirv_asm"
  "static_assert"
  "precision"
  "get"
  "set"
  "modify"
  "$"
] @keyword

[
  "func"
] @keyword.function

[
  "struct"
  "class"
  "enum"
  "interface"
  "extension"
  "typedef"
  "typealias"
  "namespace"
  "cbuffer"
  "tbuffer"
  "associatedtype"
  "type_param"
  "property"
  "__generic"
  "typename"
] @keyword.storage.type

(this_type) @type.builtin

([
  (type_identifier) @type.builtin
  (call_expression
    function: (identifier) @type.builtin)
 ]
  (#any-of? @type.builtin
    "bool" "bool1" "bool2" "bool3" "bool4" "bool1x1" "bool1x2" "bool1x3" "bool1x4" "bool2x1"
    "bool2x2" "bool2x3" "bool2x4" "bool3x1" "bool3x2" "bool3x3" "bool3x4" "bool4x1" "bool4x2"
    "bool4x3" "bool4x4" "int" "int1" "int2" "int3" "int4" "int1x1" "int1x2" "int1x3" "int1x4"
    "int2x1" "int2x2" "int2x3" "int2x4" "int3x1" "int3x2" "int3x3" "int3x4" "int4x1" "int4x2"
    "int4x3" "int4x4" "uint" "uint1" "uint2" "uint3" "uint4" "uint1x1" "uint1x2" "uint1x3" "uint1x4"
    "uint2x1" "uint2x2" "uint2x3" "uint2x4" "uint3x1" "uint3x2" "uint3x3" "uint3x4" "uint4x1"
    "uint4x2" "uint4x3" "uint4x4" "half" "half1" "half2" "half3" "half4" "half1x1" "half1x2"
    "half1x3" "half1x4" "half2x1" "half2x2" "half2x3" "half2x4" "half3x1" "half3x2" "half3x3"
    "half3x4" "half4x1" "half4x2" "half4x3" "half4x4" "float" "float1" "float2" "float3" "float4"
    "float1x1" "float1x2" "float1x3" "float1x4" "float2x1" "float2x2" "float2x3" "float2x4"
    "float3x1" "float3x2" "float3x3" "float3x4" "float4x1" "float4x2" "float4x3" "float4x4" "double"
    "double1" "double2" "double3" "double4" "double1x1" "double1x2" "double1x3" "double1x4"
    "double2x1" "double2x2" "double2x3" "double2x4" "double3x1" "double3x2" "double3x3" "double3x4"
    "double4x1" "double4x2" "double4x3" "double4x4" "min16float" "min16float1" "min16float2"
    "min16float3" "min16float4" "min16float1x1" "min16float1x2" "min16float1x3" "min16float1x4"
    "min16float2x1" "min16float2x2" "min16float2x3" "min16float2x4" "min16float3x1" "min16float3x2"
    "min16float3x3" "min16float3x4" "min16float4x1" "min16float4x2" "min16float4x3" "min16float4x4"
    "min16int" "min16int1" "min16int2" "min16int3" "min16int4" "min16int1x1" "min16int1x2"
    "min16int1x3" "min16int1x4" "min16int2x1" "min16int2x2" "min16int2x3" "min16int2x4"
    "min16int3x1" "min16int3x2" "min16int3x3" "min16int3x4" "min16int4x1" "min16int4x2"
    "min16int4x3" "min16int4x4" "min16uint" "min16uint1" "min16uint2" "min16uint3" "min16uint4"
    "min16uint1x1" "min16uint1x2" "min16uint1x3" "min16uint1x4" "min16uint2x1" "min16uint2x2"
    "min16uint2x3" "min16uint2x4" "min16uint3x1" "min16uint3x2" "min16uint3x3" "min16uint3x4"
    "min16uint4x1" "min16uint4x2" "min16uint4x3" "min16uint4x4" "int16_t" "int16_t1" "int16_t2"
    "int16_t3" "int16_t4" "int16_t1x1" "int16_t1x2" "int16_t1x3" "int16_t1x4" "int16_t2x1"
    "int16_t2x2" "int16_t2x3" "int16_t2x4" "int16_t3x1" "int16_t3x2" "int16_t3x3" "int16_t3x4"
    "int16_t4x1" "int16_t4x2" "int16_t4x3" "int16_t4x4" "uint16_t" "uint16_t1" "uint16_t2"
    "uint16_t3" "uint16_t4" "uint16_t1x1" "uint16_t1x2" "uint16_t1x3" "uint16_t1x4" "uint16_t2x1"
    "uint16_t2x2" "uint16_t2x3" "uint16_t2x4" "uint16_t3x1" "uint16_t3x2" "uint16_t3x3"
    "uint16_t3x4" "uint16_t4x1" "uint16_t4x2" "uint16_t4x3" "uint16_t4x4" "int64_t" "int64_t1"
    "int64_t2" "int64_t3" "int64_t4" "int64_t1x1" "int64_t1x2" "int64_t1x3" "int64_t1x4"
    "int64_t2x1" "int64_t2x2" "int64_t2x3" "int64_t2x4" "int64_t3x1" "int64_t3x2" "int64_t3x3"
    "int64_t3x4" "int64_t4x1" "int64_t4x2" "int64_t4x3" "int64_t4x4" "uint64_t" "uint64_t1"
    "uint64_t2" "uint64_t3" "uint64_t4" "uint64_t1x1" "uint64_t1x2" "uint64_t1x3" "uint64_t1x4"
    "uint64_t2x1" "uint64_t2x2" "uint64_t2x3" "uint64_t2x4" "uint64_t3x1" "uint64_t3x2"
    "uint64_t3x3" "uint64_t3x4" "uint64_t4x1" "uint64_t4x2" "uint64_t4x3" "uint64_t4x4" "float16_t"
    "float16_t1" "float16_t2" "float16_t3" "float16_t4" "float16_t1x1" "float16_t1x2" "float16_t1x3"
    "float16_t1x4" "float16_t2x1" "float16_t2x2" "float16_t2x3" "float16_t2x4" "float16_t3x1"
    "float16_t3x2" "float16_t3x3" "float16_t3x4" "float16_t4x1" "float16_t4x2" "float16_t4x3"
    "float16_t4x4" "void" "dword" "int8_t" "int32_t" "uint8_t" "uint32_t" "float32_t" "float64_t"
    "vector" "matrix" "String" "NativeString"))

((attribute_name) @attribute.autodiff
  (#any-of? @attribute.autodiff
    "Differentiable" "ForwardDifferentiable" "BackwardDifferentiable" "ForwardDerivative"
    "BackwardDerivative" "ForwardDerivativeOf" "BackwardDerivativeOf" "PrimalSubstitute"
    "PrimalSubstituteOf" "TreatAsDifferentiable" "NoDiffThis" "PreferRecompute"
    "PreferCheckpoint" "DerivativeMember" "MaxIters" "ForceUnroll" "BackwardDerivativeFunction"
    "ForwardDerivativeFunction" "DifferentiableGeneric" "CUDAKernel" "AutoPyBindCUDA"))

(double_bracket_attribute
  name: (attribute_name) @attribute)

(attribute
  name: (attribute_name) @attribute)

((type_identifier) @type.builtin.autodiff
  (#any-of? @type.builtin.autodiff
    "DifferentialPair" "IDifferentiable" "IDifferentiablePtrType" "Differential"))

(modifier
  "no_diff" @keyword.storage.modifier.autodiff)

(modified_type
  modifier: "no_diff" @keyword.storage.modifier.autodiff)

(no_diff_expression
  "no_diff" @keyword.storage.modifier.autodiff)

((call_expression
  function: (identifier) @function.builtin.autodiff)
  (#any-of? @function.builtin.autodiff
    "detach" "diffPair" "updatePrimal" "updateDiff" "updatePair" "isDifferentialNull"))

(differentiate_expression
  operator: _ @function.builtin.autodiff)

((call_expression
  function: (identifier) @function.builtin)
  (#any-of? @function.builtin
    "abs" "acos" "all" "any" "asin" "atan" "atan2" "ceil" "clamp" "cos" "cosh" "cross" "ddx" "ddy"
    "degrees" "determinant" "distance" "dot" "exp" "exp2" "floor" "fmod" "frac" "length" "lerp"
    "log" "log2" "mad" "max" "min" "mul" "normalize" "pow" "radians" "rcp" "reflect" "refract"
    "round" "rsqrt" "saturate" "sign" "sin" "sincos" "sinh" "smoothstep" "sqrt" "step" "tan"
    "tanh" "transpose" "trunc" "asfloat" "asint" "asuint" "printf" "makeTuple" "reinterpret"
    "GroupMemoryBarrierWithGroupSync" "AllMemoryBarrierWithGroupSync" "DeviceMemoryBarrier"
    "InterlockedAdd" "InterlockedMax" "InterlockedMin" "InterlockedOr" "InterlockedAnd"
    "InterlockedExchange" "InterlockedCompareExchange" "WaveActiveSum" "WaveGetLaneIndex"))

(call_expression
  function: (qualified_identifier
    name: (identifier) @function))

(call_expression
  function: (field_expression
    field: (generic_expression
      name: (field_identifier) @function.method)))

(call_expression
  function: (field_expression
    field: (field_identifier) @function.method))

(call_expression
  function: (generic_expression
    name: (identifier) @function))

(call_expression
  function: (identifier) @function)

(subscript_declaration
  "__subscript" @function.method)

(init_declaration
  "__init" @constructor)

(function_definition
  name: (operator_name) @operator)

(declaration_list
  (function_definition
    name: (identifier) @function.method))

(function_definition
  name: (identifier) @function)

(property_declaration
  name: (identifier) @variable.other.member)

(declaration_list
  (variable_declaration
    declarator: (declarator
      name: (identifier) @variable.other.member)))

(generic_value_parameter
  name: (identifier) @variable.parameter)

(parameter
  name: (identifier) @variable.parameter)

(target_case
  target: (identifier) @constant.builtin)

(continue_statement
  label: (identifier) @label)

(break_statement
  label: (identifier) @label)

(labeled_statement
  label: (identifier) @label)

(enumerator
  name: (identifier) @constant)

(semantic_name
  (identifier) @attribute)

(module_path
  (identifier) @namespace)

(namespace_identifier) @namespace

(field_identifier) @variable.other.member

(type_identifier) @type

((identifier) @constant
  (#match? @constant "^[A-Z][A-Z0-9_]+$"))

(identifier) @variable
