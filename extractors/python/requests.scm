; Calls that may send an HTTP request, run on function bodies whose text holds a path literal.
; The extractor keeps a call when its callee is named like an HTTP method and its first
; argument is a path (`self._post("/chat/completions")`), or when one string argument is an
; HTTP method and the next a path (`self._request("post", "/v1/customers/{c}".format(c=c))`);
; src/extract/requests.rs states the rules. The path may be a plain or f-string, a
; `"...".format(...)` call, or `"..." % x`.

(call
  function: [
    (identifier) @callee
    (attribute attribute: (identifier) @callee)
  ]
  arguments: (argument_list) @arguments) @call
