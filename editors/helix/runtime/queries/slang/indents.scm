; Indentation for Helix.

[
  (compound_statement)
  (declaration_list)
  (enumerator_list)
  (accessor_list)
  (switch_body)
  (initializer_list)
  (parameter_list)
  (argument_list)
  (attribute_arguments)
  (case_clause)
  (target_case)
] @indent

[
  "case"
  "default"
  "}"
  "]"
  ")"
] @outdent

(if_statement
  consequence: (_) @indent
  (#not-kind-eq? @indent "compound_statement")
  (#set! "scope" "all"))

(else_clause
  (_) @indent
  (#not-kind-eq? @indent "compound_statement")
  (#not-kind-eq? @indent "if_statement")
  (#set! "scope" "all"))

(for_statement
  body: (_) @indent
  (#not-kind-eq? @indent "compound_statement")
  (#set! "scope" "all"))

(while_statement
  body: (_) @indent
  (#not-kind-eq? @indent "compound_statement")
  (#set! "scope" "all"))
