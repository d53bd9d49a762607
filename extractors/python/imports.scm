; Import statements anywhere; the extractor keeps the module-level ones (including those inside
; module-level `if`/`try` blocks such as `if TYPE_CHECKING:` and import fallbacks).

(import_statement) @import

(import_from_statement) @import.from
