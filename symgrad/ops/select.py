"""``select(input, dim, index)``: one index along one dimension, that dimension dropped (a
view, ``SelectBackward0``), as ``input[..., index, ...]``."""

from __future__ import annotations

from symgrad._arguments import int_value
from symgrad._data import _wrap_dim
from symgrad.ops.indexing import select_along
from symgrad.ops.shown import shown
from symgrad.tensor import Tensor, bind_methods

__all__ = ["select"]


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice of ``input`` at ``index`` along ``dim`` (that dimension removed).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.arange(6.0).reshape(2, 3)
    >>> symgrad.select(x, 1, -1), x.select(0, 1)
    (tensor([2., 5.]), tensor([3., 4., 5.]))
    """
    if type(index) is not int:
        index = int_value("select", "index", index, 2, sized=True)
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
            f"dimension {d}"
        )
    return select_along(input, d, index, shown(dim=dim))


bind_methods({"select": select})
