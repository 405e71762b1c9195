; Scopes, definitions and references (nvim-treesitter `@local.*` captures).

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
  name: (identifier) @local.definition.parameter)

(declaration_list
  (variable_declaration
    declarator: (declarator
      name: (identifier) @local.definition.field)))

(compound_statement
  (variable_declaration
    declarator: (declarator
      name: (identifier) @local.definition.var)))

(source_file
  (variable_declaration
    declarator: (declarator
      name: (identifier) @local.definition.var)))

(for_statement
  initializer: (variable_declaration
    declarator: (declarator
      name: (identifier) @local.definition.var)))

(let_declaration
  name: (identifier) @local.definition.var)

(let_condition
  name: (identifier) @local.definition.var)

(generic_value_parameter
  name: (identifier) @local.definition.parameter)

(generic_type_parameter
  name: (type_identifier) @local.definition.type)

(catch_clause
  name: (identifier) @local.definition.var)

(compile_time_for_statement
  name: (identifier) @local.definition.var)

(function_definition
  name: (identifier) @local.definition.function)

(struct_declaration
  name: (type_identifier) @local.definition.type)

(interface_declaration
  name: (type_identifier) @local.definition.type)

(enum_declaration
  name: (type_identifier) @local.definition.type)

(typedef_declaration
  name: (type_identifier) @local.definition.type)

(typealias_declaration
  name: (type_identifier) @local.definition.type)

(namespace_declaration
  name: (namespace_identifier) @local.definition.namespace)

(identifier) @local.reference

(type_identifier) @local.reference
