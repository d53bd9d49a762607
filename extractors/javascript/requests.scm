; Calls that may send an HTTP request, run on the bodies of functions and methods in `.js`
; files whose text holds a path literal. The extractor keeps a call when its callee is named
; like an HTTP method and its first argument is a path (`this._client.post('/files', ...)`,
; `this._client.get(`/files/${id}`)`), or when its arguments name a method and a path
; (`request('post', '/v1/x')`, `request({ method: 'POST', path: '/v1/x' })`);
; src/extract/requests.rs states the rules.

(call_expression
  function: [
    (identifier) @callee
    (member_expression property: (property_identifier) @callee)
  ]
  arguments: (arguments) @arguments) @call
