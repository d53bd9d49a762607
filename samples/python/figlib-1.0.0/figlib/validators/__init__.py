from figlib._importers import relative_import

__all__, __getattr__, __dir__ = relative_import(
    __name__, [], ["._pad.PadValidator", "._font.FontValidator"]
)
