"""``torch.version``: what the build is (``__version__``; no CUDA, ROCm or XPU build).

``__version__`` is a string that also compares with version strings and tuples by its
numbers, as PyTorch's ``TorchVersion`` does: ``symgrad.__version__ >= (0, 1)``.

Examples
--------
>>> import symgrad
>>> symgrad.version.cuda is None, symgrad.version.debug
(True, False)
>>> symgrad.__version__ >= "0.1", symgrad.__version__ < (1, 0)
(True, True)
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["TorchVersion", "__version__", "cuda", "hip", "rocm", "xpu", "debug", "git_version"]


def _numbers(version: Any) -> tuple:
    """The release numbers of a version string (``'2.1.0+cpu'`` -> ``(2, 1, 0)``), tuple or
    list, trailing zeros dropped so that ``'2.1'`` equals ``(2, 1, 0)``."""
    if isinstance(version, str):
        match = re.match(r"\s*v?(\d+(?:\.\d+)*)", version)
        if match is None:
            raise ValueError(f"Invalid version: {version!r}")
        parts = [int(p) for p in match.group(1).split(".")]
    elif isinstance(version, (tuple, list)):
        parts = [int(p) for p in version]
    else:
        raise TypeError(f"can't compare a version with {type(version).__name__}")
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


class TorchVersion(str):
    """A version string that compares by its release numbers with strings and tuples.

    Examples
    --------
    >>> from symgrad.version import TorchVersion
    >>> TorchVersion("2.10.0") > "2.9", TorchVersion("2.1.0") == (2, 1)
    (True, True)
    """

    __module__ = "symgrad.torch_version"  # its home, as PyTorch's is torch.torch_version
    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        try:
            return _numbers(self) == _numbers(other)
        except (TypeError, ValueError):
            return str.__eq__(self, other)

    def __hash__(self) -> int:
        return str.__hash__(self)

    def __lt__(self, other: Any) -> bool:
        return _numbers(self) < _numbers(other)

    def __le__(self, other: Any) -> bool:
        return _numbers(self) <= _numbers(other)

    def __gt__(self, other: Any) -> bool:
        return _numbers(self) > _numbers(other)

    def __ge__(self, other: Any) -> bool:
        return _numbers(self) >= _numbers(other)


__version__ = TorchVersion("0.1.0")
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "Unknown"
