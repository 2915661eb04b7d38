"""``addcmul`` and ``addcdiv``: ``input + value * tensor1 * tensor2`` and ``input + value *
tensor1 / tensor2`` as element-wise primitives of their own, so the graph records PyTorch's one
``AddcmulBackward0``/``AddcdivBackward0`` node with gradients to all three tensors."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.elementwise import declare
from symgrad.prim.domains import Domain
from symgrad.prim.fused import fused_multiply_add

__all__: list[str] = []


def addcmul_values(x: Any, a: Any, b: Any, value: Any) -> Any:
    """``(value * a) * b + x``, the last product rounded with the sum (PyTorch's fused
    kernel; float16 in float32, its computing type)."""
    dtype = np.result_type(x, a, b, value)
    if dtype == np.float16:
        x, a, b = (np.asarray(v, np.float32) for v in (x, a, b))
    if dtype.kind == "f" and dtype != np.float64:
        value = np.float32(value)
    return np.asarray(fused_multiply_add(value * a, b, x)).astype(dtype, copy=False)


def _addcdiv(x: Any, a: Any, b: Any, value: Any) -> Any:
    """``x + (value * a) / b`` (float16 in float32, rounded once at the end)."""
    dtype = np.result_type(x, a, b, value)
    if dtype != np.float16:
        return x + value * a / b
    x, a, b = (np.asarray(v, np.float32) for v in (x, a, b))
    return (x + np.float32(value) * a / b).astype(dtype)


addcmul_values.blockwise = False  # (its chunks already run in the cache)


# PyTorch's kernels multiply the value into tensor1 first: (value * t1) * t2, (value * t1) / t2
ADDCMUL = declare(
    "addcmul",
    "x a b",
    lambda x, a, b, value: x + value * a * b,
    params="value",
    kernel=addcmul_values,
    backward="AddcmulBackward0",
    domain=Domain(params=((1.0,), (0.5,), (-2.0,))),
)
ADDCDIV = declare(
    "addcdiv",
    "x a b",
    lambda x, a, b, value: x + value * a / b,
    params="value",
    kernel=_addcdiv,
    backward="AddcdivBackward0",
    domain=Domain({"b": "nonzero"}, params=((1.0,), (0.5,), (-2.0,))),
)
