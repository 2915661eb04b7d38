"""``Tensor.view(dtype)``: the same memory read as another dtype (PyTorch's bit-level
reinterpretation), next to ``Tensor.view(*shape)``.

As in PyTorch the result shares the memory and the version counter but no history: it does
not require grad and is not recorded as a view (``_base`` is None). Between dtypes of
different sizes the last dimension shrinks or grows, which needs it contiguous (stride 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.ops import shape as _shape
from symgrad.tensor import Tensor, bind_methods, link_view

__all__: list[str] = []


def _view(self: Tensor, *shape: Any, dtype: Any = None, **keyword: Any) -> Tensor:
    """The same memory seen in a new shape (one size may be -1), or, given a dtype, read as
    that dtype.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.arange(6.0).view(2, 3).shape
    symgrad.Size([2, 3])
    >>> symgrad.tensor([1.0, 2.0]).view(symgrad.int32)
    tensor([1065353216, 1073741824], dtype=symgrad.int32)
    """
    first = shape[0] if len(shape) == 1 and isinstance(shape[0], (dtypes.dtype, type)) else None
    # (PyTorch reads Python's float, int and bool as dtypes here too)
    if dtype is None and (isinstance(first, dtypes.dtype) or first in (float, int, bool)):
        dtype, shape = shape[0], ()
    if dtype is not None and (shape or keyword):
        raise TypeError("view(): give either sizes or a dtype, not both")
    if dtype is None:
        return _shape.view(self, *shape, **keyword)
    return _reinterpreted(self, dtypes.as_dtype(dtype))


def _reinterpreted(self: Tensor, target: dtypes.dtype) -> Tensor:
    data = self._data
    if type(data) is not np.ndarray:
        raise NotImplementedError("view(dtype) needs a tensor with data (not a meta tensor)")
    old, new = data.itemsize, np.dtype(target.numpy).itemsize
    if old != new:
        _check_resizable(self, target, old, new)
    out = data.view(target.numpy)
    result = Tensor._make(out)
    link_view(self, result, "alias")
    return result


def _check_resizable(self: Tensor, target: dtypes.dtype, old: int, new: int) -> None:
    what = f"view {self.dtype.scalar_type} as {target.scalar_type} (different element sizes)"
    if self.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 to {what}")
    if self.stride(-1) != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 to {what}, but got {self.stride(-1)}")
    if new > old and (self.shape[-1] * old) % new:
        raise RuntimeError(
            f"self.size(-1) must be divisible by {new // old} to {what}, but got {self.shape[-1]}"
        )
    if new > old and self.storage_offset() % (new // old):
        raise RuntimeError(
            f"self.storage_offset() must be divisible by {new // old} to {what}, but got "
            f"{self.storage_offset()}"
        )


bind_methods({"view": _view})
