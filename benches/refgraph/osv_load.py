"""The Python reference of the openapi benchmark: load one spec file and validate all of it
with openapi-spec-validator (every error collected, so an invalid spec is read as fully as a
valid one); prints the number of paths and of validation errors."""
import sys

from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator
from openapi_spec_validator.readers import read_from_filename

spec, _ = read_from_filename(sys.argv[1])
cls = OpenAPIV31SpecValidator if str(spec.get("openapi", "")).startswith("3.1") else OpenAPIV30SpecValidator
errors = sum(1 for _ in cls(spec).iter_errors())
print(len(spec.get("paths") or {}), "paths,", errors, "validation errors")
