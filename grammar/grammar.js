/**
 * @file Tree-sitter grammar for the Slang shading language.
 *
 * Accepts the language of the Rust parser in `syntax/` (see
 * `syntax/src/parser/grammar/`): C-like declarations and statements, HLSL
 * semantics and attributes, Slang generics, interfaces, extensions,
 * properties, modules and automatic differentiation.
 *
 * Preprocessor lines are handled by the external scanner (`src/scanner.c`):
 * every directive line is an extra (`preproc_directive` + `preproc_arg`).
 * Like the Rust preprocessor, the scanner evaluates `#if` conditions (with
 * the built-in defines and the file's `#define`s) and only the branch taken
 * is parsed; the others become `preproc_disabled` extras. The scanner also
 * recognizes raw strings and the uses of macros the Rust parser accepts
 * (see `grammar/README.md`).
 */

/* eslint-disable arrow-parens, camelcase, max-len */
/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const PREC = {
  COMMA: -1,
  ASSIGN: 1,
  CONDITIONAL: 2,
  LOGICAL_OR: 3,
  LOGICAL_AND: 4,
  INCLUSIVE_OR: 5,
  EXCLUSIVE_OR: 6,
  BITWISE_AND: 7,
  EQUAL: 8,
  RELATIONAL: 9,
  SHIFT: 10,
  ADD: 11,
  MULTIPLY: 12,
  CAST: 13,
  UNARY: 14,
  POSTFIX: 15,
  CALL: 16,
  FIELD: 17,
};

// Modifiers that are keywords wherever a declaration may start.
const HARD_MODIFIERS = [
  'public', 'private', 'internal', 'static', 'const', 'constexpr', 'constref',
  '__ref', 'uniform', 'groupshared', 'extern', 'export', 'inline',
  'nointerpolation', 'noperspective', 'volatile', 'globallycoherent',
  'row_major', 'column_major', '__exported', '__constref',
  '__prefix', '__postfix', '__extern_cpp', '__global', '__builtin',
  '__implicit_conversion', '__readNone', '__unsafeForceInlineEarly',
  '__noinline', '__forceinline', '__requiresNVAPI',
];

// `__keyword(args)` modifiers.
const CALL_MODIFIERS = [
  '__intrinsic_op', '__target_intrinsic', '__specialized_for_target',
  '__glsl_extension', '__glsl_version', '__spirv_version', '__cuda_sm_version',
  '__attributeTarget', '__builtin_type', '__magic_type', '__intrinsic_type',
  '__implicit_conversion', '__requiresNVAPI',
];

// Modifiers that are ordinary words elsewhere (only recognized where a
// declaration of a member, a global or a parameter starts).
const SOFT_MODIFIERS = [
  'in', 'out', 'inout', 'varying', 'shared', 'buffer', 'override', 'linear',
  'centroid', 'sample', 'precise', 'coherent', 'readonly', 'writeonly',
  'restrict', 'snorm', 'unorm', 'mutating', 'nonmutating', 'highp', 'mediump',
  'lowp', 'flat', 'smooth', 'triangle', 'point', 'line', 'lineadj',
  'triangleadj', 'indices', 'vertices', 'primitives', 'payload',
  'dynamic_uniform', 'ref',
  // GLSL ray-tracing / mesh qualifiers and `pervertex`.
  'pervertex', 'rayPayloadEXT', 'rayPayloadNV', 'rayPayloadInEXT', 'rayPayloadInNV',
  'hitAttributeEXT', 'hitAttributeNV', 'callableDataEXT', 'callableDataNV',
  'callableDataInEXT', 'callableDataInNV', 'shaderRecordEXT', 'shaderRecordNV',
  'hitObjectAttributeNV', 'hitObjectAttributeEXT', 'perprimitiveEXT', 'perprimitiveNV',
  'taskPayloadSharedEXT',
];

// Hard keywords: never identifiers.
const RESERVED = [
  'struct', 'class', 'enum', 'interface', 'typedef', 'typealias', 'namespace', 'extension',
  'import', 'associatedtype', 'cbuffer', 'tbuffer', 'if', 'else', 'for', 'while', 'do', 'switch',
  'case', 'default', 'break', 'continue', 'return', 'discard', 'true', 'false', 'nullptr', 'this',
  'This', 'let', 'var', 'static', 'const', 'constexpr', 'constref', 'uniform', 'groupshared',
  'no_diff', 'public', 'private', 'internal', 'extern', 'export', 'inline', 'operator', 'sizeof',
  'alignof', 'static_assert', 'spirv_asm', 'nointerpolation', 'noperspective', 'row_major',
  'column_major', 'volatile', 'globallycoherent',
  '__generic', '__init', '__subscript', '__include', '__exported', '__ref', '__fwd_diff', '__bwd_diff',
  '__target_switch', '__stage_switch', '__intrinsic_asm', '__ignored_block', '__transparent_block',
  '__file_decl', '__prefix', '__postfix', '__extern_cpp', '__global', '__builtin', '__intrinsic_op',
  '__target_intrinsic', '__specialized_for_target', '__glsl_extension', '__glsl_version',
  '__spirv_version', '__cuda_sm_version', '__implicit_conversion', '__attributeTarget',
  '__builtin_type', '__magic_type', '__intrinsic_type', '__requiresNVAPI', '__readNone',
  '__unsafeForceInlineEarly', '__noinline', '__forceinline',
  '__func_extension', '__constraint', '__import', '__extension',
];

// Punctuation inside token trees (macro arguments, `layout(...)` …).
const TOKEN_TREE_PUNCTUATION = [
  ',', ';', ':', '::', '.', '...', '=', '+', '-', '*', '/', '%', '&', '|', '^', '!', '~', '<', '>',
  '?', '#', '##', '@', '$', '->', '=>', '==', '!=', '<=', '>=', '&&', '||', '<<', '++', '--',
  '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '\\',
];

// Modifiers allowed before a local declaration in a function body.
const LOCAL_MODIFIERS = ['precise', 'highp', 'mediump', 'lowp'];

module.exports = grammar({
  name: 'slang',

  word: $ => $.identifier,

  // Words that are never names (the Rust lexer's hard keywords). After `.`
  // a keyword may be a member name (`t.default`).
  reserved: {
    global: _ => RESERVED,
    members: _ => [],
  },

  externals: $ => [
    $.preproc_directive,
    $.preproc_arg,
    $.preproc_disabled,
    $._preproc_error,
    $.raw_string_literal,
    $.bare_macro,
    $.macro_modifier,
    $.empty_macro,
    $._object_macro,
    $._function_macro,
  ],

  extras: $ => [
    /\s|\\\r?\n/,
    $.comment,
    $.preproc_directive,
    $.preproc_arg,
    $.preproc_disabled,
    $.empty_macro,
  ],

  inline: $ => [
    $._field_name,
  ],

  // Slang, like C++, needs more than one token of lookahead in many places
  // (`a < b` or `f<T>(x)`, `T * x;`, `(T)x` or `(a)`, `sample` as a
  // modifier or a name …): these conflicts let the GLR parser try both
  // readings, and `prec.dynamic` picks one when both succeed. The list is
  // what `tree-sitter generate` asks for.
  conflicts: $ => [
    [$.try_statement],
    [$.do_statement],
    [$.array_suffix, $.array_type],
    [$.binary_expression, $.conditional_expression, $.assignment_expression],
    [$._local_variable_declaration, $.let_declaration],
    [$.where_predicate, $.array_type],
    [$.attributed_statement],
    [$._expression, $.initializer_list],
    [$.compound_statement, $.initializer_list],
    [$.macro_statement],
    [$.binary_expression, $.assignment_expression],
    [$.field_expression, $._generic_field],
    [$._type_path_segment, $.generic_type],
    [$._generic_operand, $._expression_no_comma, $._expression_name],
    [$._expression_no_comma, $.concatenated_string],
    [$._attribute_word, $._token_tree_item],
    [$.tuple_type, $._paren_token_tree],
    [$._reserved_word, $.modified_type],
    [$._expression_name, $.generic_expression],
    [$._local_variable_declaration, $._local_function_definition, $.attributed_statement],
    [$.let_declaration, $.struct_declaration, $.enum_declaration, $.typedef_declaration, $.typealias_declaration, $.attributed_statement],
    [$._local_variable_declaration, $.let_declaration, $.struct_declaration, $.enum_declaration, $.typedef_declaration, $.typealias_declaration, $._local_function_definition, $.attributed_statement],
    [$.macro_type, $._expression_no_comma],
    [$.throw_statement, $._soft_keyword],
    [$.defer_statement, $._soft_keyword],
    [$._local_function_definition, $._soft_keyword],
    [$.modifier, $._local_modifier, $._soft_keyword],
    [$._local_modifier, $._soft_keyword],
    [$._local_modifier, $.modified_type],
    [$.modifier, $._local_modifier, $.modified_type],
    [$.modifier, $._local_modifier],
    [$.return_type, $.array_type],
    [$.throws_clause, $.array_type],
    [$.macro_type, $.concatenated_string],
    [$._type, $.qualified_type],
    [$._type, $._type_path_segment],
    [$._type, $.generic_type],
    [$._type_identifier, $._expression_name, $.generic_expression],
    [$._type_identifier, $._expression_name],
    [$.parameter, $.tuple_type],
    [$._type_identifier, $._expression_no_comma, $._lambda_name_parameter],
    [$.modifier, $.modified_type, $._soft_keyword],
    [$.modifier, $._soft_keyword],
    [$._generic_argument_expression, $._expression_no_comma],
    [$._generic_operand, $._type_identifier, $._expression_no_comma, $._expression_name],
    [$._generic_operand, $._type_identifier, $._expression_no_comma],
    [$._generic_operand, $._expression_no_comma],
    [$.function_definition, $._declarator_suffix],
    [$.function_definition],
    [$.parameter, $._token_tree_item],
    [$._type_identifier, $._token_tree_item],
    [$._reserved_word, $.this_type],
    [$.qualified_type, $._token_tree_item],
    [$.variadic_parameter, $._token_tree_item],
    [$.parameter_list, $._paren_token_tree],
    [$.modifier, $._reserved_word, $.modified_type],
    [$.modifier, $._reserved_word],
    [$._expression_no_comma, $.generic_expression],
    [$.cbuffer_declaration],
    [$.extension_declaration],
    [$.interface_declaration],
    [$._expression_no_comma, $._expression_name],
    [$._expression_no_comma, $.qualified_identifier],
    [$._type_path_segment, $._expression_no_comma],
    [$._type_path_segment, $._expression_no_comma, $.qualified_identifier],
    [$.generic_type, $._expression_no_comma],
    [$._type, $._expression_no_comma],
    [$._type_identifier, $._expression_no_comma, $._expression_name],
    [$._type_identifier, $._expression_no_comma, $.generic_expression],
    [$._type_identifier, $._expression_no_comma],
    [$.modified_type, $._soft_keyword],
    [$.macro_item, $.macro_type],
    [$.macro_item],
    [$.namespace_declaration],
    [$.enum_declaration],
    [$.struct_declaration],
    [$.glsl_block],
    [$.function_definition, $._type_identifier],
    [$.modifier],
    [$.modifier, $.modified_type],
  ],

  rules: {
    source_file: $ => repeat($._item),

    // ------------------------------------------------------------------
    // Declarations

    _item: $ => choice(
      $.function_definition,
      $.variable_declaration,
      $.let_declaration,
      $.struct_declaration,
      $.enum_declaration,
      $.interface_declaration,
      $.extension_declaration,
      $.typedef_declaration,
      $.typealias_declaration,
      $.namespace_declaration,
      $.import_declaration,
      $.module_declaration,
      $.implementing_declaration,
      $.include_declaration,
      $.using_declaration,
      $.associated_type_declaration,
      $.property_declaration,
      $.subscript_declaration,
      $.init_declaration,
      $.cbuffer_declaration,
      $.generic_declaration,
      $.func_extension_declaration,
      $.constraint_declaration,
      $.static_assert,
      $.glsl_block,
      $.glsl_layout_declaration,
      $.precision_declaration,
      $.block_declaration,
      $.macro_item,
      $.bare_macro,
      ';',
    ),


    _decl_prefix: $ => repeat1(choice($.attribute, $.modifier)),

    modifier: $ => choice(
      ...HARD_MODIFIERS,
      ...SOFT_MODIFIERS,
      'no_diff',
      seq(choice(...CALL_MODIFIERS), alias($._paren_token_tree, $.token_tree)),
      seq('layout', alias($._paren_token_tree, $.token_tree)),
      $.macro_modifier,
    ),

    _local_modifier: $ => choice(
      ...HARD_MODIFIERS,
      ...LOCAL_MODIFIERS,
      'no_diff',
      seq('layout', alias($._paren_token_tree, $.token_tree)),
    ),

    generic_declaration: $ => seq(
      optional($._decl_prefix),
      '__generic',
      field('generic_parameters', $.generic_parameters),
      choice(
        $.function_definition,
        $.struct_declaration,
        $.interface_declaration,
        $.extension_declaration,
        $.typealias_declaration,
        $.subscript_declaration,
        $.init_declaration,
        $.generic_declaration,
        $.variable_declaration,
      ),
    ),

    function_definition: $ => prec.dynamic(1, seq(
      optional($._decl_prefix),
      optional('func'),
      choice(
        seq(
          field('type', $._type),
          field('name', choice($.identifier, $.operator_name)),
          optional(field('generic_parameters', $.generic_parameters)),
          field('parameters', choice(
            $.parameter_list,
            // `Type name PARAMS(float a, float b) { ... }`
            prec.dynamic(-1, alias($.macro_type, $.macro_call)),
          )),
        ),
        // A C++-style constructor: `Foo(int x) { ... }`, or
        // `func f(x: int) -> int` (the return type follows).
        seq(
          field('name', $.identifier),
          optional(field('generic_parameters', $.generic_parameters)),
          field('parameters', $.parameter_list),
        ),
      ),
      repeat($._function_suffix),
      choice(
        field('body', $.compound_statement),
        ';',
        // A macro standing for the body: `void f() BODY(...)`.
        seq(field('body', prec.dynamic(-1, alias($.macro_type, $.macro_call))), optional(';')),
        seq('=', $._expression_no_comma, ';'),
        seq('__intrinsic_asm', repeat(choice($.string_literal, $.raw_string_literal, $.identifier, $.number_literal, ',')), ';'),
      ),
    )),

    // `__func_extension<T : IFloat> fwd_diff(f<T>)(params) -> R { ... }`:
    // a derivative (or `__apply`) given for an existing function.
    func_extension_declaration: $ => seq(
      optional($._decl_prefix),
      '__func_extension',
      optional(field('generic_parameters', $.generic_parameters)),
      field('function', choice(
        $.differentiate_expression,
        $.sizeof_expression,
        alias($._func_extension_call, $.call_expression),
      )),
      field('parameters', $.parameter_list),
      repeat($._function_suffix),
      choice(field('body', $.compound_statement), ';'),
    ),

    _func_extension_call: $ => seq(field('function', $.identifier), field('arguments', $.argument_list)),

    // `__constraint A.B : IFoo;` in an interface.
    constraint_declaration: $ => seq('__constraint', $.where_predicate, ';'),

    _function_suffix: $ => choice(
      // An object-like macro of the file (`COMMON_CONSTRAINTS` for `where`s).
      alias($._object_macro, $.macro_call),
      $.throws_clause,
      $.return_type,
      $.semantic,
      $.where_clause,
      $.double_bracket_attribute,
      'const',
    ),

    throws_clause: $ => seq('throws', $._type),
    return_type: $ => seq('->', $._type),

    operator_name: $ => seq('operator', choice(
      seq('(', ')'), seq('[', ']'),
      '+', '-', '*', '/', '%', '^', '&', '|', '~', '!', '=', '<', '>',
      '+=', '-=', '*=', '/=', '%=', '^=', '&=', '|=', '<<', seq('>', token.immediate('>')), seq('>', token.immediate('>=')), '<<=',
      '==', '!=', '<=', '>=', '&&', '||', '++', '--', ',', '->',
    )),

    parameter_list: $ => seq('(', commaSep(choice($.parameter, $.variadic_parameter)), ')'),

    variadic_parameter: _ => '...',

    parameter: $ => prec.dynamic(1, choice(
      seq(
        optional($._decl_prefix),
        field('type', $._type),
        optional(seq(field('name', $.identifier), repeat($._declarator_suffix))),
        optional(seq('=', field('default', $._expression_no_comma))),
      ),
      seq(
        optional($._decl_prefix),
        field('name', $.identifier),
        ':',
        optional($._decl_prefix),
        field('type', $._type),
        repeat($._declarator_suffix),
        optional(seq('=', field('default', $._expression_no_comma))),
      ),
    )),

    _declarator_suffix: $ => choice(
      $.array_suffix,
      $.semantic,
      $.double_bracket_attribute,
      // A macro standing for a semantic: `Buffer b SLOT(t0);`.
      alias($.macro_type, $.macro_semantic),
      alias($._object_macro, $.macro_semantic),
    ),

    array_suffix: $ => seq('[', optional($._expression), ']'),

    semantic: $ => seq(':', choice(
      seq(alias('register', $.register_keyword), alias($._paren_token_tree, $.token_tree)),
      seq(alias('packoffset', $.packoffset_keyword), alias($._paren_token_tree, $.token_tree)),
      field('bit_width', $.number_literal),
      seq(field('name', $.semantic_name), optional(alias($._paren_token_tree, $.token_tree))),
    )),

    semantic_name: $ => $.identifier,

    variable_declaration: $ => seq(
      optional($._decl_prefix),
      field('type', choice($._type, $.macro_type)),
      commaSep1(field('declarator', $.declarator)),
      ';',
    ),

    _local_variable_declaration: $ => seq(
      repeat(choice($.attribute, alias($._local_modifier, $.modifier))),
      field('type', choice($._type, $.macro_type)),
      commaSep1(field('declarator', $.declarator)),
      ';',
    ),

    declarator: $ => seq(
      field('name', $.identifier),
      repeat($._declarator_suffix),
      optional(seq('=', field('value', $._expression_no_comma))),
    ),

    let_declaration: $ => seq(
      optional($._decl_prefix),
      choice('let', 'var'),
      commaSep1(seq(
        field('name', $.identifier),
        optional(seq(':', field('type', $._type))),
        optional(seq('=', field('value', $._expression_no_comma))),
      )),
      ';',
    ),

    struct_declaration: $ => seq(
      optional($._decl_prefix),
      choice('struct', 'class'),
      repeat($.attribute),
      optional(field('name', $._type_identifier)),
      optional($._type_header),
      choice(
        seq(field('body', $.declaration_list), optional(seq(commaSep1($.declarator), ';')), optional(';')),
        seq('=', $._type, ';'),
        ';',
      ),
    ),

    _type_header: $ => choice(
      seq(
        field('generic_parameters', $.generic_parameters),
        optional($.inheritance_list),
        repeat($.where_clause),
      ),
      seq($.inheritance_list, repeat($.where_clause)),
      repeat1($.where_clause),
    ),

    // (`IFoo & IBar`: a conjunction, side by side as with `,`.)
    inheritance_list: $ => seq(':', sep1($._type, choice(',', '&'))),

    declaration_list: $ => seq('{', repeat($._item), '}'),

    enum_declaration: $ => seq(
      optional($._decl_prefix),
      'enum',
      optional(choice('class', 'struct')),
      optional(field('name', $._type_identifier)),
      optional(field('generic_parameters', $.generic_parameters)),
      optional($.inheritance_list),
      repeat($.where_clause),
      choice(
        seq(field('body', $.enumerator_list), optional(';')),
        ';',
      ),
    ),

    enumerator_list: $ => seq('{', commaSep($.enumerator), optional(','), '}'),

    enumerator: $ => seq(
      repeat($.attribute),
      field('name', $.identifier),
      optional(seq('=', field('value', $._expression_no_comma))),
    ),

    interface_declaration: $ => seq(
      optional($._decl_prefix),
      'interface',
      field('name', $._type_identifier),
      optional($._type_header),
      field('body', $.declaration_list),
      optional(';'),
    ),

    extension_declaration: $ => seq(
      optional($._decl_prefix),
      choice('extension', '__extension'),
      optional(field('generic_parameters', $.generic_parameters)),
      field('type', $._type),
      optional($.inheritance_list),
      repeat($.where_clause),
      field('body', $.declaration_list),
      optional(';'),
    ),

    typedef_declaration: $ => seq(
      optional($._decl_prefix),
      'typedef',
      field('type', choice($._type, $.anonymous_struct_type)),
      field('name', $._type_identifier),
      repeat($.array_suffix),
      ';',
    ),

    typealias_declaration: $ => seq(
      optional($._decl_prefix),
      'typealias',
      field('name', $._type_identifier),
      optional(field('generic_parameters', $.generic_parameters)),
      optional(seq(':', sep1($._type, '&'))),
      // `= __packBranch(...)`: a type-level intrinsic call.
      optional(seq('=', field('type', choice($._type, $.macro_type)), repeat(seq('&', $._type)))),
      repeat($.where_clause),
      ';',
    ),

    namespace_declaration: $ => seq(
      optional($._decl_prefix),
      'namespace',
      optional(field('name', sep1($.namespace_identifier, choice('::', '.')))),
      field('body', $.declaration_list),
      optional(';'),
    ),

    namespace_identifier: $ => $.identifier,

    _module_name: $ => choice(
      $.string_literal,
      alias($._dotted_name, $.module_path),
    ),

    _dotted_name: $ => sep1($.identifier, choice('.', '::')),

    import_declaration: $ => seq(optional($._decl_prefix), choice('import', '__import'), field('module', $._module_name), ';'),

    module_declaration: $ => seq(
      optional($._decl_prefix),
      'module',
      field('module', choice($.string_literal, alias(sep1($.identifier, choice('.', '-')), $.module_path))),
      ';',
    ),

    implementing_declaration: $ => seq('implementing', field('module', $._module_name), ';'),

    include_declaration: $ => seq('__include', field('module', $._module_name), ';'),

    using_declaration: $ => seq('using', optional('namespace'), field('name', alias($._dotted_name, $.module_path)), ';'),

    associated_type_declaration: $ => seq(
      optional($._decl_prefix),
      choice('associatedtype', 'type_param'),
      field('name', $._type_identifier),
      optional(seq(':', commaSep1(sep1($._type, '&')))),
      repeat($.where_clause),
      optional(seq('=', $._type)),
      ';',
    ),

    property_declaration: $ => seq(
      optional($._decl_prefix),
      'property',
      choice(
        seq(field('name', $.identifier), ':', field('type', $._type)),
        seq(field('type', $._type), field('name', $.identifier)),
      ),
      // An indexed property: `property float b[2] { get; }`.
      repeat($.array_suffix),
      choice(field('body', $.accessor_list), ';'),
    ),

    accessor_list: $ => seq('{', repeat($.accessor), '}'),

    accessor: $ => seq(
      optional($._decl_prefix),
      field('kind', choice('get', 'set', 'ref', 'modify')),
      optional(field('parameters', $.parameter_list)),
      choice(field('body', $.compound_statement), ';'),
    ),

    subscript_declaration: $ => seq(
      optional($._decl_prefix),
      '__subscript',
      optional(field('generic_parameters', $.generic_parameters)),
      field('parameters', $.parameter_list),
      repeat($._function_suffix),
      choice(field('body', $.accessor_list), ';'),
    ),

    init_declaration: $ => seq(
      optional($._decl_prefix),
      '__init',
      optional(field('generic_parameters', $.generic_parameters)),
      field('parameters', $.parameter_list),
      repeat($._function_suffix),
      choice(field('body', $.compound_statement), ';'),
    ),

    cbuffer_declaration: $ => seq(
      optional($._decl_prefix),
      choice('cbuffer', 'tbuffer'),
      field('name', $._type_identifier),
      repeat(choice($.semantic, seq($.identifier, alias($._paren_token_tree, $.token_tree)))),
      field('body', $.declaration_list),
      optional(';'),
    ),

    static_assert: $ => seq('static_assert', $.argument_list, ';'),

    // `layout(std430) buffer Name { ... } inst;`
    glsl_block: $ => prec.dynamic(2, seq(
      optional($._decl_prefix),
      field('name', $.identifier),
      field('body', $.declaration_list),
      // (Without an instance name, the `;` is optional, as after a struct.)
      choice(seq(commaSep1($.declarator), ';'), optional(';')),
    )),

    // `layout(local_size_x = 8) in;`
    glsl_layout_declaration: $ => seq($._decl_prefix, ';'),

    precision_declaration: $ => seq('precision', $.identifier, $.identifier, ';'),

    block_declaration: $ => choice(
      seq('__ignored_block', alias($._brace_token_tree, $.token_tree)),
      seq(choice('__transparent_block', '__file_decl'), $.declaration_list),
    ),

    // A macro used as a declaration: `DECLARE_THING(Foo, 1)` or
    // `END_NAMESPACE;` (defined in an included header).
    macro_item: $ => prec.dynamic(-2, choice(
      seq(field('name', $.identifier), field('arguments', alias($._paren_token_tree, $.token_tree)), optional(';')),
      seq(field('name', $.identifier), ';'),
    )),

    // A macro standing for a type: `CONST(float) kPi = 3.14;`.
    macro_type: $ => seq(field('name', $.identifier), field('arguments', alias($._paren_token_tree, $.token_tree))),

    // ------------------------------------------------------------------
    // Generics

    generic_parameters: $ => seq('<', commaSep($._generic_parameter), '>'),

    _generic_parameter: $ => choice(
      $.generic_type_parameter,
      $.generic_value_parameter,
    ),

    generic_type_parameter: $ => seq(
      repeat($.attribute),
      optional('each'),
      optional('typename'),
      // (`__generic<This : IFoo>`: a parameter named `This`.)
      field('name', choice($._type_identifier, alias($.this_type, $.type_identifier))),
      optional(seq(':', sep1($._type, '&'))),
      optional(seq('=', field('default', $._type))),
    ),

    generic_value_parameter: $ => seq(
      repeat($.attribute),
      choice(
        seq('let', optional('each'), field('name', $.identifier), optional(seq(':', field('type', $._type)))),
        seq(field('type', $._type), field('name', $.identifier)),
      ),
      optional(seq('=', field('default', $._generic_operand))),
    ),

    where_clause: $ => seq(
      'where',
      commaSep1($.where_predicate),
    ),

    where_predicate: $ => choice(
      seq(optional('optional'), $._type, ':', sep1($._type, '&')),
      seq($._type, '==', $._type),
      prec(-1, $._expression_no_comma),
    ),

    generic_arguments: $ => prec.dynamic(1, seq(
      '<',
      commaSep(choice(prec.dynamic(1, $._type), $._generic_argument_expression)),
      '>',
    )),

    // Value arguments of a generic: no `>` or `>>` at the top level.
    // A value argument of a generic. A lone name (`Foo<N>`) is parsed as a
    // type: the two cannot be told apart without name resolution.
    _generic_argument_expression: $ => choice(
      $.number_literal,
      $.true,
      $.false,
      alias($._generic_unary, $.unary_expression),
      alias($._generic_binary, $.binary_expression),
      alias($._generic_conditional, $.conditional_expression),
      $.parenthesized_expression,
      $.call_expression,
      $.sizeof_expression,
      alias($._generic_member, $.field_expression),
      alias($._generic_qualified, $.qualified_identifier),
    ),

    _generic_operand: $ => choice($._generic_argument_expression, $.identifier),

    _generic_member: $ => prec(PREC.FIELD, seq(
      field('argument', $._generic_operand),
      '.',
      field('field', alias($.identifier, $.field_identifier)),
    )),

    _generic_qualified: $ => prec(PREC.FIELD, seq(
      field('scope', $._generic_operand),
      '::',
      field('name', $.identifier),
    )),

    _generic_conditional: $ => prec.right(PREC.CONDITIONAL, seq(
      field('condition', $._generic_operand),
      '?',
      field('consequence', $._generic_operand),
      ':',
      field('alternative', $._generic_operand),
    )),

    _generic_unary: $ => prec(PREC.UNARY, seq(choice('-', '+', '~', '!'), $._generic_operand)),

    _generic_binary: $ => {
      const table = [
        ['+', PREC.ADD], ['-', PREC.ADD], ['*', PREC.MULTIPLY], ['/', PREC.MULTIPLY],
        ['%', PREC.MULTIPLY], ['<<', PREC.SHIFT], ['&', PREC.BITWISE_AND], ['|', PREC.INCLUSIVE_OR],
        ['^', PREC.EXCLUSIVE_OR], ['==', PREC.EQUAL], ['!=', PREC.EQUAL], ['<=', PREC.RELATIONAL],
        ['&&', PREC.LOGICAL_AND], ['||', PREC.LOGICAL_OR],
      ];
      return choice(...table.map(([op, p]) => prec.left(p, seq(
        field('left', $._generic_operand),
        field('operator', op),
        field('right', $._generic_operand),
      ))));
    },

    // ------------------------------------------------------------------
    // Attributes

    attribute: $ => choice(
      seq('[', commaSep1($._attribute_item), ']'),
      $._double_bracket_attribute_inner,
    ),

    double_bracket_attribute: $ => $._double_bracket_attribute_inner,

    // (`[[A(0) B(1)]]`: the comma may be left out.)
    _double_bracket_attribute_inner: $ => seq('[', '[', sep1($._attribute_item, optional(',')), ']', ']'),

    _attribute_item: $ => seq(
      field('name', $.attribute_name),
      optional(field('arguments', $.attribute_arguments)),
    ),

    attribute_name: $ => sep1($._attribute_word, choice('::', '.')),

    // Keywords are attribute names too: `[mutating]`, `[__unsafeForceInlineEarly]`.
    _attribute_word: $ => choice($.identifier, alias($._reserved_word, $.identifier)),

    _reserved_word: _ => choice(...RESERVED),

    attribute_arguments: $ => seq('(', commaSep($._expression_no_comma), optional(','), ')'),

    // ------------------------------------------------------------------
    // Types

    _type: $ => choice(
      $._type_identifier,
      $.qualified_type,
      $.generic_type,
      $.modified_type,
      $.expand_type,
      $.each_type,
      $.function_type,
      $.tuple_type,
      $.pointer_type,
      $.array_type,
      $.this_type,
    ),

    _type_identifier: $ => alias($.identifier, $.type_identifier),

    this_type: _ => 'This',

    _type_path_segment: $ => choice($._type_identifier, $.generic_type, $.this_type),

    generic_type: $ => seq(field('name', choice($._type_identifier, $.this_type)), field('arguments', $.generic_arguments)),

    qualified_type: $ => prec.left(seq(
      choice(seq(optional(field('scope', $._type_path_segment)), '::'), seq(field('scope', choice($._type_path_segment, $.qualified_type)), choice('::', '.'))),
      field('name', $._type_path_segment),
    )),

    modified_type: $ => prec.right(seq(
      field('modifier', choice('no_diff', 'const', 'row_major', 'column_major', 'dyn', 'unorm', 'snorm')),
      $._type,
    )),

    expand_type: $ => prec.right(seq('expand', $._type)),
    each_type: $ => prec.right(seq('each', $._type)),

    function_type: $ => prec.right(seq('functype', '(', commaSep($._type), ')', optional(seq('->', $._type)))),

    tuple_type: $ => seq('(', commaSep($._type), ')'),

    // `*` after a type is a pointer, also in `x is T*` (as in the Rust parser).
    pointer_type: $ => prec.left(PREC.CALL, seq($._type, choice('*', seq(choice('constant', 'device', 'threadgroup', 'thread'), choice('*', '&'))))),

    array_type: $ => prec.left(seq($._type, '[', optional($._expression), ']')),

    anonymous_struct_type: $ => seq('struct', optional(field('name', $._type_identifier)), $.declaration_list),

    // ------------------------------------------------------------------
    // Statements

    _statement: $ => choice(
      $.compound_statement,
      $.expression_statement,
      $.if_statement,
      $.for_statement,
      $.compile_time_for_statement,
      $.while_statement,
      $.do_statement,
      $.switch_statement,
      $.target_switch_statement,
      $.return_statement,
      $.break_statement,
      $.continue_statement,
      $.discard_statement,
      $.defer_statement,
      $.try_statement,
      $.throw_statement,
      $.labeled_statement,
      $.attributed_statement,
      $.asm_statement,
      $._declaration_statement,
      $.bare_macro,
      $.macro_statement,
      $.empty_statement,
    ),

    // `LOG(x)` where `LOG` is a function-like macro of the file.
    macro_statement: $ => seq(
      field('name', alias($._function_macro, $.identifier)),
      field('arguments', alias($._paren_token_tree, $.token_tree)),
      optional(';'),
    ),

    empty_statement: _ => ';',

    _declaration_statement: $ => choice(
      alias($._local_variable_declaration, $.variable_declaration),
      $.let_declaration,
      $.struct_declaration,
      $.enum_declaration,
      $.typedef_declaration,
      $.typealias_declaration,
      $.static_assert,
      $.using_declaration,
      alias($._local_function_definition, $.function_definition),
    ),

    _local_function_definition: $ => seq(
      repeat(choice($.attribute, alias($._local_modifier, $.modifier))),
      optional('func'),
      field('type', $._type),
      field('name', $.identifier),
      optional(field('generic_parameters', $.generic_parameters)),
      field('parameters', $.parameter_list),
      repeat($._function_suffix),
      field('body', $.compound_statement),
    ),

    compound_statement: $ => seq('{', repeat($._statement), '}'),

    expression_statement: $ => seq($._expression, ';'),

    attributed_statement: $ => seq(repeat1($.attribute), $._statement),

    if_statement: $ => prec.right(seq(
      'if',
      field('condition', $._condition),
      field('consequence', $._statement),
      optional(field('alternative', $.else_clause)),
    )),

    else_clause: $ => seq('else', $._statement),

    _condition: $ => seq('(', choice($._expression, $.let_condition), ')'),

    let_condition: $ => seq(
      choice('let', 'var'),
      field('name', $.identifier),
      optional(seq(':', field('type', $._type))),
      '=',
      field('value', $._expression),
    ),

    for_statement: $ => seq(
      'for',
      '(',
      choice(
        field('initializer', choice(alias($._local_variable_declaration, $.variable_declaration), $.let_declaration)),
        seq(optional(field('initializer', $._expression)), ';'),
      ),
      optional(field('condition', $._expression)),
      ';',
      optional(field('update', $._expression)),
      ')',
      field('body', $._statement),
    ),

    compile_time_for_statement: $ => seq(
      '$', 'for', '(', field('name', $.identifier), 'in', field('range', $._expression), ')',
      field('body', $._statement),
    ),

    while_statement: $ => seq('while', field('condition', $._condition), field('body', $._statement)),

    do_statement: $ => seq('do', field('body', $._statement), choice(
      seq('while', field('condition', $._condition), ';'),
      repeat1($.catch_clause),
    )),

    switch_statement: $ => seq('switch', field('condition', $._condition), field('body', $.switch_body)),

    // (Statements before the first `case` are unreachable, not an error.)
    switch_body: $ => seq('{', repeat($._statement), repeat($.case_clause), '}'),

    case_clause: $ => prec.right(seq(
      choice(seq('case', field('value', $._expression_no_comma)), 'default'),
      ':',
      repeat($._statement),
    )),

    target_switch_statement: $ => seq(
      choice('__target_switch', '__stage_switch'),
      '{',
      repeat($.target_case),
      '}',
    ),

    target_case: $ => prec.right(seq(
      choice(seq('case', field('target', $.identifier)), 'default'),
      ':',
      repeat($._statement),
    )),

    return_statement: $ => seq('return', optional($._expression), ';'),
    break_statement: $ => seq('break', optional(field('label', $.identifier)), ';'),
    continue_statement: $ => seq('continue', optional(field('label', $.identifier)), ';'),
    discard_statement: _ => seq('discard', ';'),
    defer_statement: $ => seq('defer', $._statement),
    try_statement: $ => seq('try', $.compound_statement, repeat1($.catch_clause)),
    catch_clause: $ => seq(
      'catch',
      optional(seq('(', optional(field('name', $.identifier)), optional(seq(':', field('type', $._type))), ')')),
      $.compound_statement,
    ),
    throw_statement: $ => seq('throw', $._expression, ';'),
    labeled_statement: $ => seq(field('label', $.identifier), ':', $._statement),
    asm_statement: $ => seq('__intrinsic_asm', repeat(choice($.string_literal, $.raw_string_literal, $.identifier, $.number_literal, ',')), ';'),

    // ------------------------------------------------------------------
    // Expressions

    _expression: $ => choice(
      $._expression_no_comma,
      $.comma_expression,
    ),

    comma_expression: $ => prec.left(PREC.COMMA, seq(
      field('left', $._expression),
      ',',
      field('right', $._expression_no_comma),
    )),

    _expression_no_comma: $ => choice(
      $.identifier,
      alias($._soft_keyword, $.identifier),
      $.qualified_identifier,
      $.generic_expression,
      $.number_literal,
      $.string_literal,
      $.raw_string_literal,
      $.concatenated_string,
      $.char_literal,
      $.true,
      $.false,
      $.null,
      $.this,
      $.this_type,
      $.parenthesized_expression,
      $.initializer_list,
      $.call_expression,
      $.subscript_expression,
      $.field_expression,
      $.update_expression,
      $.unary_expression,
      $.pointer_expression,
      $.binary_expression,
      $.conditional_expression,
      $.assignment_expression,
      $.cast_expression,
      $.sizeof_expression,
      $.differentiate_expression,
      $.no_diff_expression,
      $.try_expression,
      $.expand_expression,
      $.each_expression,
      $.is_expression,
      $.as_expression,
      $.new_expression,
      $.lambda_expression,
      $.spirv_asm_expression,
    ),

    _expression_name: $ => choice($.identifier, $.generic_expression),

    qualified_identifier: $ => prec.left(seq(
      optional(field('scope', choice($._expression_name, $.qualified_identifier, $.this_type))),
      '::',
      field('name', $._expression_name),
    )),

    generic_expression: $ => seq(
      field('name', $.identifier),
      field('arguments', $.generic_arguments),
    ),

    parenthesized_expression: $ => seq('(', $._expression, ')'),

    initializer_list: $ => seq('{', commaSep($._expression_no_comma), optional(','), '}'),

    call_expression: $ => prec(PREC.CALL, seq(
      field('function', $._expression_no_comma),
      field('arguments', $.argument_list),
    )),

    argument_list: $ => seq('(', commaSep($._expression_no_comma), ')'),

    subscript_expression: $ => prec(PREC.CALL, seq(
      field('argument', $._expression_no_comma),
      '[',
      field('index', $._expression),
      ']',
    )),

    field_expression: $ => prec(PREC.FIELD, seq(
      field('argument', $._expression_no_comma),
      choice('.', '->', '::'),
      field('field', $._field_name),
    )),

    _field_name: $ => choice(
      alias(reserved('members', $.identifier), $.field_identifier),
      alias($.number_literal, $.field_identifier),
      alias($._generic_field, $.generic_expression),
    ),

    _generic_field: $ => prec(PREC.FIELD, seq(
      field('name', alias(reserved('members', $.identifier), $.field_identifier)),
      field('arguments', $.generic_arguments),
    )),

    update_expression: $ => choice(
      prec.right(PREC.UNARY, seq(field('operator', choice('++', '--')), field('argument', $._expression_no_comma))),
      prec(PREC.POSTFIX, seq(field('argument', $._expression_no_comma), field('operator', choice('++', '--')))),
    ),

    unary_expression: $ => prec.right(PREC.UNARY, seq(
      field('operator', choice('-', '+', '!', '~')),
      field('argument', $._expression_no_comma),
    )),

    pointer_expression: $ => prec.right(PREC.UNARY, seq(
      field('operator', choice('*', '&')),
      field('argument', $._expression_no_comma),
    )),

    binary_expression: $ => {
      const table = [
        ['+', PREC.ADD], ['-', PREC.ADD],
        ['*', PREC.MULTIPLY], ['/', PREC.MULTIPLY], ['%', PREC.MULTIPLY],
        ['||', PREC.LOGICAL_OR], ['&&', PREC.LOGICAL_AND],
        ['|', PREC.INCLUSIVE_OR], ['^', PREC.EXCLUSIVE_OR], ['&', PREC.BITWISE_AND],
        ['==', PREC.EQUAL], ['!=', PREC.EQUAL],
        ['>', PREC.RELATIONAL], ['>=', PREC.RELATIONAL], ['<=', PREC.RELATIONAL], ['<', PREC.RELATIONAL],
        ['<<', PREC.SHIFT], [seq('>', token.immediate('>')), PREC.SHIFT],
      ];
      return choice(...table.map(([op, p]) => prec.left(p, seq(
        field('left', $._expression_no_comma),
        field('operator', op),
        field('right', $._expression_no_comma),
      ))));
    },

    conditional_expression: $ => prec.right(PREC.CONDITIONAL, seq(
      field('condition', $._expression_no_comma),
      '?',
      field('consequence', $._expression),
      ':',
      field('alternative', $._expression_no_comma),
    )),

    assignment_expression: $ => prec.right(PREC.ASSIGN, seq(
      field('left', $._expression_no_comma),
      field('operator', choice('=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', seq('>', token.immediate('>=')))),
      field('right', $._expression_no_comma),
    )),

    cast_expression: $ => prec.dynamic(1, prec(PREC.CAST, seq(
      '(',
      field('type', $._type),
      ')',
      field('value', $._expression_no_comma),
    ))),

    sizeof_expression: $ => seq(
      choice('sizeof', 'alignof', 'countof'),
      '(',
      choice(field('type', $._type), field('value', $._expression)),
      ')',
    ),

    differentiate_expression: $ => seq(
      field('operator', choice('fwd_diff', 'bwd_diff', '__fwd_diff', '__bwd_diff')),
      '(',
      field('function', $._expression),
      ')',
    ),

    no_diff_expression: $ => prec.right(PREC.UNARY, seq('no_diff', $._expression_no_comma)),
    try_expression: $ => prec.right(PREC.UNARY, seq('try', $._expression_no_comma)),
    expand_expression: $ => prec.right(PREC.ASSIGN, seq('expand', $._expression_no_comma)),
    each_expression: $ => prec.right(PREC.UNARY, seq('each', $._expression_no_comma)),

    is_expression: $ => prec.left(PREC.RELATIONAL, seq(field('value', $._expression_no_comma), 'is', field('type', $._type))),
    as_expression: $ => prec.left(PREC.RELATIONAL, seq(field('value', $._expression_no_comma), 'as', field('type', $._type))),

    new_expression: $ => prec.right(seq('new', field('type', $._type), optional(field('arguments', $.argument_list)))),

    lambda_expression: $ => seq(
      field('parameters', choice(
        $.parameter_list,
        alias($._lambda_name_parameters, $.parameter_list),
      )),
      '=>',
      field('body', choice($.compound_statement, $._expression_no_comma)),
    ),

    _lambda_name_parameters: $ => seq('(', alias($._lambda_name_parameter, $.parameter), ')'),

    _lambda_name_parameter: $ => field('name', $.identifier),

    spirv_asm_expression: $ => seq('spirv_asm', alias($._brace_token_tree, $.token_tree)),

    // ------------------------------------------------------------------
    // Token trees (macro arguments, `layout(...)`, `register(...)`,
    // `spirv_asm { ... }`): balanced brackets around any tokens.

    token_tree: $ => choice(
      $._paren_token_tree,
      seq('[', repeat($._token_tree_item), ']'),
      $._brace_token_tree,
    ),

    _paren_token_tree: $ => seq('(', repeat($._token_tree_item), ')'),

    _brace_token_tree: $ => seq('{', repeat($._token_tree_item), '}'),

    _token_tree_item: $ => choice(
      $.token_tree,
      $.string_literal,
      $.char_literal,
      $.number_literal,
      $.identifier,
      alias($._reserved_word, $.identifier),
      ...TOKEN_TREE_PUNCTUATION,
    ),

    // ------------------------------------------------------------------
    // Lexical

    // Soft keywords are names in expressions: `sample.x = 1;`.
    _soft_keyword: _ => choice(...SOFT_MODIFIERS, 'func', 'defer', 'try', 'throw', 'layout'),

    identifier: _ => /[a-zA-Z_\u00A0-\uFFFF]([a-zA-Z0-9_\u00A0-\uFFFF]|\\\r?\n)*/,

    number_literal: _ => token(choice(
      // hex (integer or float)
      /0[xX][0-9a-fA-F_]*(\.[0-9a-fA-F_]*)?([pP][+-]?[0-9_]+)?(#INF|#IND)?[a-zA-Z0-9_]*/,
      // binary
      /0[bB][01_]+[a-zA-Z0-9_]*/,
      // decimal
      /[0-9][0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9_]+)?(#INF|#IND)?[a-zA-Z0-9_]*/,
      /\.[0-9][0-9_]*([eE][+-]?[0-9_]+)?[a-zA-Z0-9_]*/,
    )),

    string_literal: _ => token(choice(
      seq('"', repeat(choice(/[^"\\\n]+/, /\\(.|\r?\n)/)), '"'),
      /R"\([^)]*(\)[^"][^)]*)*\)"/,
    )),

    // `"a" "b"`, also with a macro in between: `"v" VERSION "\n"`.
    concatenated_string: $ => prec.right(seq($.string_literal, repeat1(choice(
      $.string_literal,
      $.identifier,
      alias($.macro_type, $.macro_call),
    )))),

    char_literal: _ => token(seq("'", repeat1(choice(/[^'\\\n]/, /\\./)), "'")),

    true: _ => 'true',
    false: _ => 'false',
    null: _ => choice('nullptr', 'none'),
    this: _ => 'this',

    comment: _ => token(choice(
      seq('//', /([^\\\r\n]|\\\r?\n|\\[^\r\n])*/),
      seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/'),
    )),
  },
});

/**
 * @param {RuleOrLiteral} rule
 * @param {RuleOrLiteral} separator
 */
function sep1(rule, separator) {
  return seq(rule, repeat(seq(separator, rule)));
}

/** @param {RuleOrLiteral} rule */
function commaSep1(rule) {
  return sep1(rule, ',');
}

/** @param {RuleOrLiteral} rule */
function commaSep(rule) {
  return optional(commaSep1(rule));
}
