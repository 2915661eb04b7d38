"""``Tensor.unfold``: the sliding windows of one dimension, as a new last dimension."""

from __future__ import annotations

import numpy as np

from symgrad import creation
from symgrad._arguments import require_int
from symgrad.ops.strided_views import unfold_view
from symgrad.tensor import Tensor, bind_methods

__all__: list = []


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every window of ``size`` elements along ``dimension``, ``step`` apart: that dimension
    becomes the number of windows and the windows' elements a new last dimension. A view of
    ``self``'s memory (``UnfoldBackward0``), as in PyTorch: writes through it change
    ``self``; an element in several windows gets each window's gradient.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.arange(5.0).unfold(0, 2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    for name, value in (("dimension", dimension), ("size", size), ("step", step)):
        if type(value) is not int:
            require_int("unfold", name, value)
    ndim = max(self.ndim, 1)
    if not -ndim <= dimension < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but "
            f"got {dimension})"
        )
    d = dimension % ndim
    length = self.shape[d] if self.ndim else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if self.ndim and type(self) is Tensor and type(self._data) is np.ndarray:
        view = unfold_view(self, d, size, step)
        if view is not None:
            return view
    x = self.reshape(1) if self.ndim == 0 else self
    starts = creation.arange(0, length - size + 1, step)
    index = (starts.unsqueeze(1) + creation.arange(size)).reshape(-1)
    picked = x.index_select(d, index)
    windows = picked.reshape(*x.shape[:d], starts.numel(), size, *x.shape[d + 1 :])
    out = windows.movedim(d + 1, -1)
    return out.reshape(size) if self.ndim == 0 else out


bind_methods({"unfold": unfold})
