; Attributes an `__init__` sets on its receiver: `self.customers = CustomerService(self)`,
; `self.timeout: float = timeout`. Run on `__init__` bodies only; the extractor keeps the
; assignments to the method's first parameter that are not inside a nested function or lambda.

(assignment
  left: (attribute
    object: (identifier) @receiver
    attribute: (identifier) @name)
  type: (type)? @type
  right: (_)? @value) @attribute
