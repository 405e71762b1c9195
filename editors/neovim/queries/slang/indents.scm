; Indentation (nvim-treesitter `@indent.*` captures).

[
  (compound_statement)
  (declaration_list)
  (enumerator_list)
  (accessor_list)
  (switch_body)
  (case_clause)
  (target_case)
  (initializer_list)
  (parameter_list)
  (argument_list)
  (attribute_arguments)
] @indent.begin

(compound_statement
  "}" @indent.end)

(declaration_list
  "}" @indent.end)

(enumerator_list
  "}" @indent.end)

(switch_body
  "}" @indent.end)

[
  "else"
  ")"
  "}"
  "]"
] @indent.branch

(if_statement
  consequence: (_) @indent.begin
  (#not-kind-eq? @indent.begin "compound_statement"))

(preproc_directive) @indent.zero

[
  (comment)
  (preproc_arg)
  (preproc_disabled)
  (string_literal)
  (raw_string_literal)
] @indent.auto
