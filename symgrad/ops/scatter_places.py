"""Where the writes along a dimension land, kept as node parameters: placing a source (or a
value) into zeros of the input's shape, and the adjoint reading the incoming gradient at those
places, each written once against an interpreter ``xp``."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.prim.batching import BatchedTensor
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__: list = []


class _Filled:
    """A 0-d value spread over the places ``hit`` (``index_fill`` by a tensor), and its
    adjoint: the incoming gradient summed over those places."""

    def __init__(self, hit: np.ndarray) -> None:
        self.hit = hit

    def put(self, xp: Any, value: Any) -> Any:
        return xp.expand(value, self.hit.shape)

    def take(self, xp: Any, g: Any) -> Any:
        return xp.sum(xp.where(xp.constant(self.hit), g, 0.0))


class _Along:
    """Placing ``src`` into zeros of ``shape`` along ``dim`` at ``index`` (scatter), and its
    adjoint (gather): callables kept as node parameters."""

    def __init__(self, shape: tuple, dim: int, index: np.ndarray, weights: Any = None) -> None:
        self.shape, self.dim, self.index, self.weights = shape, dim, index, weights

    def put(self, xp: Any, src: Any) -> Any:
        if self.weights is not None:
            src = src * xp.constant(self.weights)
        return xp.scatter_zeros(self.shape, self.dim, self.index, src)

    def take(self, xp: Any, g: Any) -> Any:
        return xp.gather(g, self.dim, self.index)


class _Rows:
    """Placing ``source`` into zeros along ``dim`` at the entries of a vector ``index``
    (index_add), and its adjoint (index_select)."""

    def __init__(self, shape: tuple, dim: int, index: np.ndarray) -> None:
        self.shape, self.dim, self.index = shape, dim, index
        # a 0-d tensor's one entry, which the checked index (all 0) picks: itself
        self.key = (slice(None),) * dim + (index,) if shape else Ellipsis

    def put(self, xp: Any, src: Any) -> Any:
        return xp.index_put_zeros(self.shape, self.key, src, False)

    def take(self, xp: Any, g: Any) -> Any:
        if self.shape and xp is INTERPRETERS.tensor and type(g) is not BatchedTensor:
            # PyTorch's formula: grad.index_select(dim, index).expand_as(source)
            picked = g.index_select(self.dim, Tensor._make(self.index.astype(np.int64)))
            return picked.expand(tuple(picked.shape))
        return xp.getitem(g, self.key)


class _LastRows(_Rows):
    """``source`` copied into zeros along ``dim`` at the entries of ``index`` (index_copy):
    where an entry repeats, the last row written to it wins, as on PyTorch's CPU."""

    def __init__(self, shape: tuple, dim: int, index: np.ndarray) -> None:
        super().__init__(shape, dim, index)
        last = np.zeros(index.size, dtype=bool)
        last[np.unique(index[::-1], return_index=True)[1]] = True
        self.rows = None if last.all() else (slice(None),) * dim + (np.flatnonzero(last[::-1]),)
        if self.rows is not None:
            self.placed = (slice(None),) * dim + (index[self.rows[dim]],)

    def put(self, xp: Any, src: Any) -> Any:
        if self.rows is None:  # each entry written once: copied in (a -0.0 keeps its sign)
            return xp.index_put_zeros(self.shape, self.key, src, True)
        return xp.index_put_zeros(self.shape, self.placed, xp.getitem(src, self.rows), True)
