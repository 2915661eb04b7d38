"""The gradient of a product holding a zero as PyTorch's graph records it (the
``create_graph`` path of :func:`symgrad.prod`'s rule)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["prod_gradient_with_zeros"]


def prod_gradient_with_zeros(g: Tensor, a: Tensor, dim: Any) -> Tensor:
    """PyTorch's prod_safe_zeros_backward, the gradient of a product of ``a`` (along the one
    axis of ``dim``, or all of it flattened for None) holding a zero, as its graph records
    it: ``g`` (its reduced axis put back) times the running products before each element and
    after it (``cumprod`` of a row of ones and the elements shifted on); a whole product's
    is viewed as ``a``."""
    from symgrad import ops

    line = ops.view(a.contiguous(), (-1,)) if dim is None else a
    d = 0 if dim is None else dim[0]
    n = line.shape[d]
    if n == 1:  # (the product of no others)
        return ops.view(g, tuple(a.shape)) if dim is None else g
    ones = Tensor._make(
        np.ones([1 if i == d else k for i, k in enumerate(line.shape)], g._data.dtype)
    )
    before = ops.cat([ones, ops.narrow(line, d, 0, n - 1)], d)
    after = ops.cat([ones, ops.flip(ops.narrow(line, d, 1, n - 1), (d,))], d)
    others = ops.cumprod(before, d) * ops.flip(ops.cumprod(after, d), (d,))
    return ops.view(g * others, tuple(a.shape)) if dim is None else g * others
