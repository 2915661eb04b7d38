"""Sums and differences with a scale ``alpha``, one node each as PyTorch records them:
``add(input, other, alpha=a)`` (``AddBackward0``) and ``sub(input, other, alpha=a)``
(``SubBackward0``), ``subtract(input, number, alpha)`` (``SubBackward1``) and ``rsub``'s
(``RsubBackward0``/``1``), all saving ``alpha``. As PyTorch's kernels, ``alpha * other + input``
is rounded once (a fused multiply-add), and float16 takes ``alpha`` as a float16 number; the
float16 elements PyTorch's scalar loop computes (the tail of each contiguous run past its
vectors of 32) round the product to float16 first."""

from __future__ import annotations

import math
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


# PyTorch's CPU loop over float16 tensors computes 32 elements at a time in float32 vectors;
# the last n % 32 of each contiguous run go through its scalar loop, in float16 arithmetic
_HALF_BLOCK = 32


def _half_scalar_part(shape: tuple, *operands: Any) -> Any:
    """Where PyTorch's float16 loop leaves elements to its scalar loop: the tail of each
    contiguous run (the whole result, or the block a broadcast operand spans), as a mask of
    ``shape``; None where there is no tail or the layout is one it walks otherwise."""
    size = math.prod(shape)
    run = size
    arrays = [v for v in operands if np.size(v) > 1]  # (a number or a single value: the
    for v in arrays:  # loop's scalar operand)
        if not v.flags.c_contiguous:
            if all(w.strides == v.strides and w.shape == v.shape for w in arrays):
                return _memory_tail(v)  # one layout: walked in memory order
            if v.strides[-1] != v.itemsize:  # no contiguous rows: all in the scalar loop
                return np.ones(shape, dtype=bool)
            run = min(run, shape[-1])
            continue
        dims = v.shape[next((i for i, d in enumerate(v.shape) if d != 1), v.ndim) :]
        if dims[-1:] == (1,) and shape[-1] > 1:  # a column broadcast along the rows
            run = min(run, shape[-1])
        elif dims == tuple(shape[len(shape) - len(dims) :]):
            run = min(run, math.prod(dims))
        else:
            return None
    if run % _HALF_BLOCK == 0:
        return None
    return (np.arange(size) % run >= run - run % _HALF_BLOCK).reshape(shape)


def _memory_tail(v: np.ndarray) -> Any:
    """The last ``size % 32`` elements of ``v`` in memory order, for a dense layout."""
    place = sum(
        np.arange(n).reshape((-1,) + (1,) * (v.ndim - 1 - d)) * (step // v.itemsize)
        for d, (n, step) in enumerate(zip(v.shape, v.strides))
    )
    place = place - place.min()
    if place.max() != v.size - 1 or v.size % _HALF_BLOCK == 0:
        return None
    return place >= v.size - v.size % _HALF_BLOCK


def scaled_sum(a: Any, b: Any, alpha: Any) -> Any:
    """``a + alpha * b``, the product not rounded on its own (PyTorch's fused kernel); on
    float16, the tail its scalar loop computes rounds the product to float16 first."""
    if alpha == 1:
        return np.add(a, b)
    if np.result_type(a, b) != np.float16:
        return fused_multiply_add(alpha, b, a)
    # numbers as float16 numbers
    alpha, a, b = (np.float16(v) if isinstance(v, (int, float)) else v for v in (alpha, a, b))
    out = fused_multiply_add(*(float(v) if np.ndim(v) == 0 else v for v in (alpha, b, a)))
    tail = _half_scalar_part(np.shape(out), a, b)
    if tail is None:
        return out
    product = np.multiply(alpha, b, dtype=np.float16)
    scalar = (np.add(a, product, dtype=np.float32)).astype(np.float16)
    return np.where(tail, scalar, out)


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
    prim = declare(
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
    prim.half_in_float32 = False  # float16 operands as they are: scaled_sum rounds as PyTorch
    return prim


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
