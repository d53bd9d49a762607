; Classes and functions at any depth; the extractor keeps those whose nearest enclosing
; definition is the module or a class (methods), and drops functions nested in functions.
; Captures follow the tree-sitter tags convention (@definition.<kind>, @name); the docstring is the
; first statement of @body when it is a string.

(class_definition
  name: (identifier) @name
  superclasses: (argument_list)? @bases
  body: (block) @body) @definition.class

(function_definition
  name: (identifier) @name
  parameters: (parameters) @params
  return_type: (type)? @returns
  body: (block) @body) @definition.function
