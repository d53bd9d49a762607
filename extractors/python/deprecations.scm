; Run-time deprecation signals: `warnings.warn(msg, DeprecationWarning)` and friends (project
; categories such as `RemovedInDjango60Warning` or `MarshmallowDeprecationWarning` too), also
; with the category as a keyword argument and with the `warn` function imported bare.

(call
  function: [
    (identifier) @function
    (attribute attribute: (identifier) @function)
  ]
  arguments: (argument_list
    [
      (identifier) @category
      (attribute attribute: (identifier) @category)
      (keyword_argument
        name: (identifier) @keyword
        value: [
          (identifier) @category
          (attribute attribute: (identifier) @category)
        ])
    ])
  (#eq? @function "warn")
  (#match? @category "^(FutureWarning|[A-Za-z_]*DeprecationWarning|RemovedIn[A-Za-z0-9_]*Warning)$")) @deprecation.warning
