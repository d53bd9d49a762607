from typing import TYPE_CHECKING, Any

from modelhub._errors import ModelhubError

INSTRUCTIONS = """

You tried to access modelhub.{symbol}, but this is no longer supported in modelhub>=1.0.0.
Use `modelhub.Client` instead; see the README for the 1.x API.
"""


class APIRemovedInV1(ModelhubError):
    def __init__(self, *, symbol: str) -> None:
        super().__init__(INSTRUCTIONS.format(symbol=symbol))


class APIRemovedInV1Proxy:
    """Stands for a removed name: attribute access returns the proxy, a call raises."""

    def __init__(self, *, symbol: str) -> None:
        self._symbol = symbol

    def __getattr__(self, attr: str) -> Any:
        return self

    def __call__(self, *_args: Any, **_kwargs: Any) -> Any:
        raise APIRemovedInV1(symbol=self._symbol)


SYMBOLS = [
    "Completion",
    "Embedding",
    "FineTune",
]

# Type checkers see no exports, so editors do not offer the old names.
if TYPE_CHECKING:
    __all__: list[str] = []
else:
    __all__ = SYMBOLS

__locals = locals()
for symbol in SYMBOLS:
    __locals[symbol] = APIRemovedInV1Proxy(symbol=symbol)
