"""Python's ``in`` and ``reversed()`` on a tensor, as PyTorch's ``Tensor.__contains__`` and
``Tensor.__reversed__``."""

from __future__ import annotations

import numbers
from typing import Any

from symgrad.tensor import Tensor

__all__ = ["contains", "reversed_"]


def contains(self: Tensor, element: Any) -> bool:
    """``element in t``: whether ``element`` (a number, or a tensor broadcast against ``t``)
    equals ``t`` somewhere, as PyTorch's ``(element == t).any()``."""
    if not isinstance(element, (Tensor, numbers.Number)):
        raise RuntimeError(
            "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
            f"{type(element)}."
        )
    return bool((element == self).any())


def reversed_(self: Tensor) -> Tensor:
    """``reversed(t)``: ``t`` flipped along its first dimension (a 0-d tensor itself)."""
    return self if self.ndim == 0 else self.flip(0)
