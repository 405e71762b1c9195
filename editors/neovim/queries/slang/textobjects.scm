; Text objects (nvim-treesitter-textobjects capture names).

(function_definition
  body: (_) @function.inner) @function.outer

(init_declaration
  body: (_) @function.inner) @function.outer

(subscript_declaration
  body: (_) @function.inner) @function.outer

(accessor
  body: (_) @function.inner) @function.outer

(lambda_expression
  body: (_) @function.inner) @function.outer

(struct_declaration
  body: (_) @class.inner) @class.outer

(interface_declaration
  body: (_) @class.inner) @class.outer

(extension_declaration
  body: (_) @class.inner) @class.outer

(enum_declaration
  body: (_) @class.inner) @class.outer

(cbuffer_declaration
  body: (_) @class.inner) @class.outer

(namespace_declaration
  body: (_) @class.inner) @class.outer

(parameter) @parameter.inner

(parameter_list
  "," @parameter.outer)

(parameter_list
  (parameter) @parameter.outer)

(argument_list
  (_) @parameter.inner)

(generic_parameters
  (_) @parameter.inner)

(generic_arguments
  (_) @parameter.inner)

(comment) @comment.outer

(for_statement
  body: (_) @loop.inner) @loop.outer

(compile_time_for_statement
  body: (_) @loop.inner) @loop.outer

(while_statement
  body: (_) @loop.inner) @loop.outer

(do_statement
  body: (_) @loop.inner) @loop.outer

(if_statement
  consequence: (_) @conditional.inner) @conditional.outer

(if_statement
  alternative: (else_clause
    (_) @conditional.inner))

(switch_statement
  body: (_) @conditional.inner) @conditional.outer

(call_expression
  arguments: (argument_list) @call.inner) @call.outer

(compound_statement) @block.outer

(attribute) @attribute.outer

(return_statement
  (_)? @return.inner) @return.outer

[
  (expression_statement)
  (variable_declaration)
  (let_declaration)
  (return_statement)
  (if_statement)
  (for_statement)
  (while_statement)
  (do_statement)
  (switch_statement)
] @statement.outer

(number_literal) @number.inner

(assignment_expression
  left: (_) @assignment.lhs
  right: (_) @assignment.rhs) @assignment.outer
