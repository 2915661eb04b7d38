"""Tensor versions of the rule vocabulary items that are not public ops (see ``xp.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops._primitive import Elementwise
from symgrad.tensor import Tensor

__all__ = ["xp_constant", "xp_count", "xp_prod_others", "xp_elementwise_vjp", "xp_elementwise"]


def xp_constant(a: np.ndarray) -> Tensor:
    return Tensor._make(np.asarray(a))


def xp_count(mask: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return Tensor._make(np.asarray(np.sum(mask._data, axis=dim, keepdims=keepdim), np.float64))


def xp_prod_others(a: Tensor, dim: Any) -> Tensor:
    # differentiable form: the product divided by the element (exact where no element is 0)
    from symgrad.ops.reductions import prod

    p = a
    for d in sorted(range(a.ndim) if dim is None else dim, reverse=True):
        p = prod(p, d, keepdim=True)
    return p / a


def xp_elementwise_vjp(prim: Elementwise, i: int, args: tuple, out: Any, g: Tensor,
                       params: tuple = ()) -> Tensor:
    return prim.vjp_primitive(i)(*args, 0 if out is None else out, g, params=params)


def xp_elementwise(prim: Elementwise, args: tuple, params: tuple = ()) -> Tensor:
    return prim(*args, params=params)
