"""``Tensor.fill_diagonal_``: the main diagonal (``x[i, i, ..., i]``) set to one value in
place.

As in PyTorch it is a ``fill_`` of a diagonal view, so a recorded tensor gets a
``CopySlices`` node over its history; with ``wrap=True`` a tall matrix starts the diagonal
again ``N + 1`` rows down (every ``N + 1``-th element of the flattened matrix).
"""

from __future__ import annotations

from typing import Any

from symgrad._arguments import require_python_bool
from symgrad.tensor import Tensor

__all__ = ["fill_diagonal_"]


def _main_diagonal(x: Tensor) -> Tensor:
    """The view ``x[i, i, ..., i]`` (all sizes of ``x`` equal, or a matrix)."""
    view = x.diagonal(0, 0, 1)
    while view.ndim > 1:
        view = view.diagonal(0, 0, view.ndim - 1)
    return view


def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Set the main diagonal to ``fill_value`` in place and return the tensor. The tensor
    needs at least 2 dimensions, all of the same size beyond 2; a matrix with more rows than
    columns fills only its top square, or with ``wrap=True`` restarts the diagonal after
    every ``columns + 1`` rows.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.zeros(2, 3).fill_diagonal_(5)
    tensor([[5., 0., 0.],
            [0., 5., 0.]])
    >>> symgrad.zeros(5, 2).fill_diagonal_(1, wrap=True)
    tensor([[1., 0.],
            [0., 1.],
            [0., 0.],
            [1., 0.],
            [0., 1.]])
    """
    if type(wrap) is not bool:
        require_python_bool("fill_diagonal_", "wrap", wrap, position=2)
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    rows, cols = self.shape[0], self.shape[1]
    if self.ndim == 2 and wrap and rows > cols + 1:
        for start in range(0, rows, cols + 1):
            _main_diagonal(self[start : start + cols]).fill_(fill_value)
    else:
        _main_diagonal(self).fill_(fill_value)
    return self
