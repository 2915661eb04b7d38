"""Sums and differences with a scale ``alpha``, one node each as PyTorch records them:
``add(input, other, alpha=a)`` (``AddBackward0``) and ``sub(input, other, alpha=a)``
(``SubBackward0``), both saving ``alpha``. As PyTorch's kernels, ``alpha * other + input``
is rounded once (a fused multiply-add), and float16 takes ``alpha`` as a float16 number."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.elementwise import _subtract, declare
from symgrad.prim.domains import Domain
from symgrad.prim.kernels import fused_multiply_add

__all__ = ["ADD_SCALED", "SUB_SCALED", "scaled_sum", "scaled_difference"]


def scaled_sum(a: Any, b: Any, alpha: Any) -> Any:
    """``a + alpha * b``, the product not rounded on its own (PyTorch's fused kernel)."""
    if alpha == 1:
        return np.add(a, b)
    if np.result_type(a, b) == np.float16:  # numbers as float16 numbers
        alpha = float(np.float16(alpha))
        b = float(np.float16(b)) if isinstance(b, (int, float)) else b
    return fused_multiply_add(alpha, b, a)


def scaled_difference(a: Any, b: Any, alpha: Any) -> Any:
    """``b - alpha * a`` (PyTorch's ``rsub``)."""
    return _subtract(b, a) if alpha == 1 else scaled_sum(b, a, -alpha)


ADD_SCALED = declare(
    "add_scaled",
    "x y",
    lambda x, y, alpha: x + alpha * y,
    params="alpha",
    kernel=scaled_sum,
    backward="AddBackward0",
    domain=Domain(params=((2.5,), (-0.5,), (3.0,))),
)
SUB_SCALED = declare(
    "sub_scaled",
    "x y",
    lambda x, y, alpha: x - alpha * y,
    params="alpha",
    kernel=lambda a, b, alpha: scaled_difference(b, a, alpha),
    backward="SubBackward0",
    domain=Domain(params=((2.5,), (-0.5,), (3.0,))),
)
