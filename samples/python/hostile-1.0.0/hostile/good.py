"""Behaves: binds one function at import."""


def _make():
    def answer():
        """The answer."""
        return 42

    return answer


globals()["answer"] = _make()
