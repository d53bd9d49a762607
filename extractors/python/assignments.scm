; Name bindings by assignment: `Alias = Target`, `__all__ = [...]`, `__all__ += [...]`,
; `__all__.extend([...])` / `__all__.append("x")`, annotated class fields (`x: int = 0`), and
; unpacking (`A, B = ...`, `(A, B) = ...`, `[A, *rest] = ...`).

(expression_statement
  (assignment
    left: (identifier) @name
    type: (type)? @type
    right: (_)? @value)) @assignment

(expression_statement
  (augmented_assignment
    left: (identifier) @name
    operator: "+="
    right: (_) @value)) @assignment.augmented

(expression_statement
  (call
    function: (attribute
      object: (identifier) @name
      attribute: (identifier) @method)
    arguments: (argument_list) @value)
  (#eq? @name "__all__")
  (#any-of? @method "extend" "append")) @assignment.call

; `base.dialect = dialect = pysqlite.dialect` (SQLAlchemy): a chain whose first target is an
; attribute still binds the plain names after it, and sets the attribute on the object.
(expression_statement
  (assignment
    left: (attribute
      object: (_) @object
      attribute: (identifier) @name)
    right: (_) @value)) @assignment.attribute

; `A, B = pair()`, `__all__, __getattr__, __dir__ = relative_import(...)`: every plain name of
; the pattern is bound, each to a value only the run time knows.
(expression_statement
  (assignment
    left: [(pattern_list) (tuple_pattern) (list_pattern)] @targets
    right: (_) @value)) @assignment.unpack
