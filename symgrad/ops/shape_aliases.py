"""PyTorch's other spellings of shape ops: ``diagflat`` (``diag_embed`` of the flattened
input), ``split_with_sizes`` (``split`` at listed sizes) and the function ``detach``."""

from __future__ import annotations

import numbers
from typing import Any

from symgrad.ops import joining, triangular
from symgrad.tensor import Tensor, bind_methods

__all__ = ["diagflat", "split_with_sizes", "detach"]


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix whose ``offset``-th diagonal holds the elements of ``input``,
    flattened (PyTorch's node ``DiagEmbedBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.diagflat(symgrad.tensor([[1, 2], [3, 4]]))
    tensor([[1, 0, 0, 0],
            [0, 2, 0, 0],
            [0, 0, 3, 0],
            [0, 0, 0, 4]])
    >>> symgrad.diagflat(symgrad.tensor([1.0, 2.0]), 1)
    tensor([[0., 1., 0.],
            [0., 0., 2.],
            [0., 0., 0.]])
    """
    return triangular.diag_embed(input.reshape(-1), offset, 0, 1)


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Split into pieces of the listed sizes along ``dim``: views of ``input``, the outputs of
    one node (``SplitWithSizesBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> [t.tolist() for t in symgrad.arange(5).split_with_sizes([2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    if isinstance(split_sizes, (numbers.Number, Tensor)) or not hasattr(split_sizes, "__iter__"):
        raise TypeError(
            "split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, "
            f"not {type(split_sizes).__name__}"
        )
    sizes = [int(k) for k in split_sizes]
    if any(k < 0 for k in sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={sizes}"
        )
    return joining.split(input, sizes, dim)


def detach(input: Tensor) -> Tensor:
    """``input.detach()``: the same values (shared memory), cut from the graph.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, requires_grad=True)
    >>> symgrad.detach(x * 2)
    tensor([2., 2.])
    """
    return input.detach()


bind_methods({"diagflat": diagflat, "split_with_sizes": split_with_sizes})
