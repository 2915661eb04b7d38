"""Sums and differences with a scale ``alpha``, one node each as PyTorch records them:
``add(input, other, alpha=a)`` (``AddBackward0``) and ``sub(input, other, alpha=a)``
(``SubBackward0``), ``subtract(input, number, alpha)`` (``SubBackward1``) and ``rsub``'s
(``RsubBackward0``/``1``), all saving ``alpha``. As PyTorch's kernels, ``alpha * other + input``
is rounded once (a fused multiply-add), and float16 takes ``alpha`` as a float16 number."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.elementwise import _subtract, declare
from symgrad.prim.domains import Domain
from symgrad.prim.fused import fused_multiply_add

__all__ = [
    "ADD_SCALED",
    "SUB_SCALED",
    "SUB_NUMBER",
    "RSUB_TENSOR",
    "RSUB_NUMBER",
    "scaled_sum",
    "scaled_difference",
]


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


def _difference(a: Any, b: Any, alpha: Any) -> Any:
    """``a - alpha * b``."""
    return scaled_difference(b, a, alpha)


# (their chunks already run in the cache: cutting them into blocks for threads costs more)
scaled_sum.blockwise = scaled_difference.blockwise = _difference.blockwise = False


def _scaled(name: str, expr: Any, kernel: Any, backward: str) -> Any:
    return declare(
        name,
        "x y",
        expr,
        params="alpha",
        kernel=kernel,
        backward=backward,
        domain=Domain(params=((1,), (2.5,), (-0.5,))),
    )


ADD_SCALED = _scaled("add_scaled", lambda x, y, alpha: x + alpha * y, scaled_sum, "AddBackward0")
SUB_SCALED = _scaled("sub_scaled", lambda x, y, alpha: x - alpha * y, _difference, "SubBackward0")
# subtract(input, number, alpha): PyTorch's sub.Scalar overload, which only ``subtract``
# reaches with a positional alpha (``sub`` reads that call as its deprecated alpha form)
SUB_NUMBER = _scaled("sub_number", lambda x, y, alpha: x - alpha * y, _difference, "SubBackward1")
# rsub(input, other, alpha): other - alpha * input, for a tensor and for a number other
RSUB_TENSOR = _scaled(
    "rsub_tensor", lambda x, y, alpha: y - alpha * x, scaled_difference, "RsubBackward0"
)
RSUB_NUMBER = _scaled(
    "rsub_number", lambda x, y, alpha: y - alpha * x, scaled_difference, "RsubBackward1"
)
