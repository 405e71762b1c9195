; Text objects for Helix (`]f`, `maf`, `mia` …).

(function_definition
  body: (_) @function.inside) @function.around

(init_declaration
  body: (_) @function.inside) @function.around

(subscript_declaration
  body: (_) @function.inside) @function.around

(lambda_expression
  body: (_) @function.inside) @function.around

(struct_declaration
  body: (_) @class.inside) @class.around

(interface_declaration
  body: (_) @class.inside) @class.around

(extension_declaration
  body: (_) @class.inside) @class.around

(enum_declaration
  body: (_) @class.inside) @class.around

(cbuffer_declaration
  body: (_) @class.inside) @class.around

(parameter_list
  ((_) @parameter.inside . ","? @parameter.around) @parameter.around)

(argument_list
  ((_) @parameter.inside . ","? @parameter.around) @parameter.around)

(generic_parameters
  ((_) @parameter.inside . ","? @parameter.around) @parameter.around)

(generic_arguments
  ((_) @parameter.inside . ","? @parameter.around) @parameter.around)

(comment) @comment.inside

(comment)+ @comment.around

; Functions of the Slang test suite style (`computeMain`, `test*`).
((function_definition
  name: (identifier) @_name
  body: (_) @test.inside) @test.around
  (#match? @_name "^(test|computeMain)"))
