"""``nonzero_static``: the indices of the nonzero elements in a result of a fixed number of
rows, cut short or padded with ``fill_value`` (for compilers, which need static shapes)."""

from __future__ import annotations

import numpy as np

from symgrad._arguments import require_int, require_tensor
from symgrad.tensor import Tensor, bind_methods

__all__ = ["nonzero_static"]


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """The indices of ``input``'s nonzero elements, one row each in row-major order, as
    :func:`symgrad.nonzero`, but exactly ``size`` rows: the first ``size`` of them, then rows
    of ``fill_value``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nonzero_static(symgrad.tensor([0.0, 2.0, 3.0]), size=3)
    tensor([[ 1],
            [ 2],
            [-1]])
    """
    if type(input) is not Tensor:
        require_tensor("nonzero_static", "input", 1, input)
    require_int("nonzero_static", "size", size)
    require_int("nonzero_static", "fill_value", fill_value)
    size = int(size)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = np.argwhere(np.asarray(input._data) != 0).astype(np.int64)[:size]
    out = np.full((size, input.ndim), int(fill_value), dtype=np.int64)
    out[: found.shape[0]] = found
    return Tensor._make(out)


def _method(self: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    return nonzero_static(self, size=size, fill_value=fill_value)


_method.__name__ = _method.__qualname__ = "nonzero_static"
_method.__doc__ = nonzero_static.__doc__
bind_methods({"nonzero_static": _method})
