"""The gradient of ``cumprod`` of an input holding zeros under ``create_graph``, as PyTorch's
``cumprod_backward`` records it: the slice ``k`` of the gradient along ``dim`` is the sum of
the incoming gradient from ``k`` on times the products of the input up to each place but
``k``, each slice copied into zeros in place (a chain of ``CopySlices`` nodes).

Examples
--------
>>> import symgrad
>>> x = symgrad.tensor([2.0, 0.0, 3.0], requires_grad=True)
>>> (g,) = symgrad.autograd.grad(x.cumprod(0).pow(2).sum(), x, create_graph=True)
>>> g, type(g.grad_fn).__name__
(tensor([4., 0., 0.], grad_fn=<CopySlices>), 'CopySlices')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["cumprod_gradient_with_zeros"]


def cumprod_gradient_with_zeros(xp: Any, g: Tensor, x: Tensor, dim: int) -> Tensor:
    """The gradient of ``x.cumprod(dim)`` for the incoming ``g``, recorded step by step
    (``x`` holds a zero and has more than one element along ``dim``)."""
    n = x.shape[dim]
    ones_shape = tuple(1 if i == dim else s for i, s in enumerate(x.shape))
    ones = xp.constant(np.ones(ones_shape, dtype=g._data.dtype))
    grad = xp.constant(np.zeros(tuple(x.shape), dtype=g._data.dtype))
    for k in range(n):
        if k == 0:
            omitted = xp.cat([ones, x.narrow(dim, 1, n - 1).cumprod(dim)], dim)
        else:
            until_k = x.narrow(dim, 0, k).prod(dim, keepdim=True)
            if k < n - 1:
                from_k_plus_1 = x.narrow(dim, k + 1, n - k - 1).cumprod(dim)
                later = until_k.expand_as(from_k_plus_1) * from_k_plus_1
                omitted = xp.cat([until_k, later], dim)
            else:
                omitted = until_k
        grad.select(dim, k).copy_((g.narrow(dim, k, n - k) * omitted).sum(dim))
    return grad
