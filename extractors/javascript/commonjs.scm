; CommonJS exports, as written by hand and as emitted by TypeScript and Babel.
; Read by src/extract/javascript/syntax.rs; matches inside functions are ignored there.

; module.exports = VALUE   (also `exports = module.exports = VALUE`)
(assignment_expression
  left: (member_expression
    object: (identifier) @_module
    property: (property_identifier) @_exports)
  right: (_) @module_exports
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

; exports.NAME = VALUE
(assignment_expression
  left: (member_expression
    object: (identifier) @_exports
    property: (property_identifier) @export_name)
  right: (_) @export_value
  (#eq? @_exports "exports"))

; module.exports.NAME = VALUE
(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports)
    property: (property_identifier) @export_name)
  right: (_) @export_value
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

; Object.defineProperty(exports, "NAME", { enumerable: true, get: function () { return m.NAME; } })
(call_expression
  function: (member_expression
    object: (identifier) @_object
    property: (property_identifier) @_define)
  arguments: (arguments
    (identifier) @_exports
    (string (string_fragment) @define_name)
    (object) @define_descriptor)
  (#eq? @_object "Object")
  (#eq? @_define "defineProperty")
  (#eq? @_exports "exports"))

; __exportStar(require("./a"), exports), tslib.__exportStar(...), __export(require("./a"))
(call_expression
  function: [
    (identifier) @_star
    (member_expression property: (property_identifier) @_star)
  ]
  arguments: (arguments
    .
    (call_expression
      function: (identifier) @_require
      arguments: (arguments . (string (string_fragment) @star_from)))
  )
  (#match? @_star "^__export(Star)?$")
  (#eq? @_require "require"))

; var m = require("./a"), var m = __importDefault(require("./a")), var m = tslib.__importStar(require("./a"))
(variable_declarator
  name: (identifier) @require_local
  value: [
    (call_expression
      function: (identifier) @_require
      arguments: (arguments . (string (string_fragment) @require_from)))
    (call_expression
      arguments: (arguments
        .
        (call_expression
          function: (identifier) @_require
          arguments: (arguments . (string (string_fragment) @require_from)))))
  ]
  (#eq? @_require "require"))

; const { a, b: c } = require("./a")
(variable_declarator
  name: (object_pattern) @require_pattern
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @require_pattern_from)))
  (#eq? @_require "require"))
