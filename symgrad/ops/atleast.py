"""Small helpers of ``torch.functional``: ``atleast_1d``/``2d``/``3d``, ``broadcast_shapes``
and ``unravel_index``."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._data import Size, sizes
from symgrad.ops.shape import reshape, unsqueeze
from symgrad.tensor import Tensor

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "unravel_index"]


def _each(name: str, tensors: tuple, one: Any) -> Any:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{name}() expects tensors (one, several, or a list of them), got "
                f"{type(t).__name__}"
            )
    return one(tensors[0]) if len(tensors) == 1 else tuple(one(t) for t in tensors)


def _at_least_1d(t: Tensor) -> Tensor:
    return reshape(t, (1,)) if t.ndim == 0 else t


def _at_least_2d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return reshape(t, (1, 1))
    return unsqueeze(t, 0) if t.ndim == 1 else t


def _at_least_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return reshape(t, (1, 1, 1))
    if t.ndim == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if t.ndim == 2 else t


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least one dimension (a 0-d tensor becomes shape ``(1,)``); one
    tensor for one argument, else a tuple.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.atleast_1d(symgrad.tensor(1.5))
    tensor([1.5000])
    """
    return _each("atleast_1d", tensors, _at_least_1d)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least two dimensions (a vector becomes one row).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.atleast_2d(symgrad.tensor([1, 2])).shape
    symgrad.Size([1, 2])
    """
    return _each("atleast_2d", tensors, _at_least_2d)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dimensions (a vector of n becomes ``(1, n, 1)``, a
    matrix ``(m, n, 1)``), as PyTorch and NumPy do.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.atleast_3d(symgrad.ones(2, 3)).shape
    symgrad.Size([2, 3, 1])
    """
    return _each("atleast_3d", tensors, _at_least_3d)


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of ``shapes`` broadcast to (ints count as 1-d shapes).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.broadcast_shapes((2, 1), (3,))
    symgrad.Size([2, 3])
    """
    given = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*given))
    except ValueError:
        raise RuntimeError(
            f"broadcast_shapes: the shapes {', '.join(str(list(s)) for s in given)} don't "
            "broadcast: each dimension must match, be 1, or be missing (counting from the last)"
        ) from None


def unravel_index(indices: Tensor, shape: Any) -> tuple:
    """The coordinates in a tensor of ``shape`` of flat indices (one ``int64`` tensor per
    dimension, shaped as ``indices``). Indices outside the tensor wrap around, as in
    PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.unravel_index(symgrad.tensor([4, 7]), (3, 3))
    (tensor([1, 2]), tensor([1, 1]))
    """
    if not isinstance(indices, Tensor):
        raise TypeError(
            f"unravel_index(): 'indices' must be a Tensor, not {type(indices).__name__}"
        )
    if indices.dtype.is_floating_point or indices.dtype.name == "bool":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype!r}")
    dims = sizes((shape,) if isinstance(shape, int) else tuple(shape), "unravel_index")
    if any(n < 0 for n in dims):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(dims)}")
    flat = indices._data.astype(np.int64)
    coords = []
    for n in reversed(dims):
        coords.append(np.mod(flat, n) if n else np.zeros_like(flat))
        flat = np.floor_divide(flat, n) if n else flat
    return tuple(Tensor._make(np.asanyarray(c)) for c in reversed(coords))
