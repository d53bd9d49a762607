"""Faster transfers, when the optional ``fastxfer`` package is installed.

Written the way transformers guards what needs torch.
"""

from ._util import is_fastxfer_available


class OptionalDependencyNotAvailable(ImportError):
    """An optional package is not installed."""


if is_fastxfer_available():
    from ._fast import parallel_download

try:
    if not is_fastxfer_available():
        raise OptionalDependencyNotAvailable()
except OptionalDependencyNotAvailable:
    pass
else:
    from ._fast import ParallelUploader
