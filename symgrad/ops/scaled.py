"""Sums and differences with a scale ``alpha``, one node each as PyTorch records them:
``add(input, other, alpha=a)`` (``AddBackward0``) and ``sub(input, other, alpha=a)``
(``SubBackward0``), ``subtract(input, number, alpha)`` (``SubBackward1``) and ``rsub``'s
(``RsubBackward0``/``1``), all saving ``alpha``. As PyTorch's kernels, ``alpha * other + input``
is rounded once (a fused multiply-add), and float16 takes ``alpha`` as a float16 number."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._meta import is_meta
from symgrad.ops.elementwise import _subtract, declare
from symgrad.prim.domains import Domain
from symgrad.prim.fused import fused_multiply_add
from symgrad.tensor import Tensor

__all__ = [
    "ADD_SCALED",
    "SUB_SCALED",
    "SUB_NUMBER",
    "RSUB_TENSOR",
    "RSUB_NUMBER",
    "scaled_sum",
    "scaled_difference",
    "integer_scaled_sum",
    "scaled",
]
_INT64 = np.iinfo(np.int64)


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


def integer_scaled_sum(input: Any, other: Any, alpha: Any) -> Tensor | None:
    """``input + alpha * other`` for an integer or bool result, or None for any other case.
    PyTorch leaves ``alpha`` out of the type promotion (``alpha=2`` keeps bool tensors bool)
    and the sum wraps around in the result's type (uint8 ``1 - 2 * 1`` is 255); integer
    tensors record no gradient."""
    if isinstance(input, Tensor) and input._data.dtype.kind == "f":
        return None  # a floating result (the common case: an optimizer's step), read cheaply
    result = dtypes.result_type(input, other)
    if result.numpy.kind not in "iub" or result in dtypes.LIMITED:
        return None
    values = []
    for v in (input, other):
        if isinstance(v, Tensor) and not is_meta(v._data):
            values.append(v._data.astype(np.int64))
        elif type(v) in (int, bool) and _INT64.min <= v <= _INT64.max:
            values.append(np.int64(v))
        else:
            return None  # the primitive gives the errors
    try:
        np.broadcast_shapes(*(np.shape(v) for v in values))
    except ValueError:
        return None
    with np.errstate(over="ignore"):
        out = np.asarray(values[0] + np.int64(alpha) * values[1])
    return Tensor._make(out.astype(result.numpy))


def scaled(prim: Any, input: Any, other: Any, alpha: Any) -> Tensor:
    """``prim`` (ADD_SCALED or SUB_SCALED) of ``input`` and ``other``: its node, or for an
    integer or bool result the wrapped-around values (see :func:`integer_scaled_sum`)."""
    sign = -1 if prim is SUB_SCALED else 1
    integer = integer_scaled_sum(input, other, sign * alpha)
    return integer if integer is not None else prim(input, other, params=(alpha,))


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
        # a number operand (PyTorch's Scalar overloads, ``...Backward1``) is no edge
        edges=(0,) if backward.endswith("1") else None,
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
