; Scopes, definitions and references (standard `@local.*` captures).

[
  (compound_statement)
  (function_definition)
  (init_declaration)
  (subscript_declaration)
  (accessor)
  (lambda_expression)
  (for_statement)
  (compile_time_for_statement)
  (if_statement)
  (catch_clause)
  (declaration_list)
  (generic_declaration)
] @local.scope

(parameter
  name: (identifier) @local.definition)

(declarator
  name: (identifier) @local.definition)

(let_declaration
  name: (identifier) @local.definition)

(let_condition
  name: (identifier) @local.definition)

(generic_value_parameter
  name: (identifier) @local.definition)

(generic_type_parameter
  name: (type_identifier) @local.definition)

(catch_clause
  name: (identifier) @local.definition)

(compile_time_for_statement
  name: (identifier) @local.definition)

(function_definition
  name: (identifier) @local.definition)

(identifier) @local.reference

(type_identifier) @local.reference
