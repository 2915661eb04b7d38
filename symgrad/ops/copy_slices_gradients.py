"""The gradients of a write into a basic view (``y[1:3] = v``, PyTorch's ``CopySlices``)
under ``create_graph``, as PyTorch's ``CopySlices`` node records them: the incoming gradient
copied (``CopyBackwards``); the value's part read from the copy as a strided view and cloned
(``AsStridedBackward0``, ``CloneBackward0``); the base's, the copy with zeros written into
that view (``CopySlices``).

Examples
--------
>>> import symgrad
>>> x = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> v = symgrad.tensor([5.0], requires_grad=True)
>>> y = x * 1
>>> y[1:2] = v
>>> gx, gv = symgrad.autograd.grad(y.pow(2).sum(), (x, v), create_graph=True)
>>> type(gx.grad_fn).__name__, type(gv.grad_fn).__name__
('MulBackward0', 'CloneBackward0')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.views import _AS_STRIDED, _COPY_SLICES
from symgrad.tensor import Tensor

__all__ = ["copy_slices_gradients"]


def copy_slices_gradients(g: Tensor, key: tuple, needs: tuple) -> tuple:
    """The base's and the view's gradients (None where not needed) of a write at the basic
    ``key`` (slices, integers, None, Ellipsis)."""
    data = g._data
    index = np.arange(data.size).reshape(data.shape)[key]
    copied = Tensor._make(np.empty_like(data)).copy_(g)
    view = _AS_STRIDED(copied, index=index, unique=True).clone() if needs[1] else None
    if not needs[0]:
        return None, view
    zeros = Tensor._make(np.zeros(np.shape(index), dtype=data.dtype))
    return _COPY_SLICES(copied, zeros, index=np.asarray(index)), view


def is_basic(key: Any) -> bool:
    """Whether ``key`` (a normalized tuple) holds no index array."""
    return not any(isinstance(k, np.ndarray) for k in key)
