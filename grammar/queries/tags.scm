; Code navigation tags (`tree-sitter tags`).

(function_definition
  name: (identifier) @name) @definition.function

(declaration_list
  (function_definition
    name: (identifier) @name) @definition.method)

(struct_declaration
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(enum_declaration
  name: (type_identifier) @name) @definition.type

(typedef_declaration
  name: (type_identifier) @name) @definition.type

(typealias_declaration
  name: (type_identifier) @name) @definition.type

(namespace_declaration
  name: (namespace_identifier) @name) @definition.module

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    field: (field_identifier) @name)) @reference.call

(import_declaration
  module: (_) @name) @reference.module

(type_identifier) @name @reference.type
