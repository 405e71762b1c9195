; Foldable regions.

[
  (function_definition)
  (init_declaration)
  (subscript_declaration)
  (property_declaration)
  (struct_declaration)
  (interface_declaration)
  (extension_declaration)
  (enum_declaration)
  (namespace_declaration)
  (cbuffer_declaration)
  (generic_declaration)
  (compound_statement)
  (switch_body)
  (case_clause)
  (target_case)
  (initializer_list)
  (parameter_list)
  (argument_list)
  (comment)
  (preproc_disabled)
] @fold
