"""The differentiating transforms inside ``vmap``, and Jacobians as a ``vmap`` over a basis.

Inside ``vmap`` a transform runs on the physical tensors: the batch of the inputs' level
becomes a leading dimension (:class:`Lowering`), the function sees batched tensors again, and
since the batch elements share nothing, one derivative of the physical function holds each
element's own derivative in its row. ``jacrev`` and ``jacfwd`` map one product (``vjp`` or
``jvp``) over the rows of an identity matrix with ``vmap`` (:func:`over_basis`), so the
backward pass runs once on a batch of cotangents instead of once per row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.func._pytree import tree_map
from symgrad.func.vmap import join_chunks, vmap
from symgrad.prim import batching
from symgrad.tensor import Tensor

__all__ = ["Lowering", "over_basis"]

# rows of the identity handed to one vmap call: a bound on the basis' memory (jacrev of a
# Jacobian with 16384 elements maps over 16384 x 16384 cotangents, in chunks)
_BASIS_ELEMENTS = 1 << 24


def _levels(tree: Any) -> list:
    found: list = []
    tree_map(lambda t: found.append(t._level) if type(t) is batching.BatchedTensor else t, tree)
    return found


class Lowering:
    """The batch of one ``vmap`` level moved to a leading dimension and back.

    ``Lowering.of(tree)`` is None when nothing in ``tree`` is batched, else the lowering of its
    innermost level."""

    def __init__(self, level: int, size: int) -> None:
        self.level = level
        self.size = size

    @classmethod
    def of(cls, tree: Any) -> Lowering | None:
        levels = _levels(tree)
        if not batching.STATE.depth or not levels:
            return None
        level = max(levels)
        found: list = []
        tree_map(lambda t: found.append(t) if batching.is_batched(t, level) else t, tree)
        return cls(level, batching.batch_size(found, level))

    def down(self, tree: Any, every: bool) -> tuple:
        """``(tree lowered, flags)``: the leaves batched at this level or above (``every``: all
        tensor leaves, an unbatched one repeated per element), and which leaves those were."""
        flags: list = []

        def one(t: Any) -> Any:
            hit = isinstance(t, Tensor) and (
                every or (type(t) is batching.BatchedTensor and t._level >= self.level)
            )
            flags.append(hit)
            return batching.unwrap_level(t, self.level, self.size) if hit else t

        return tree_map(one, tree), flags

    def up_flagged(self, tree: Any, flags: list) -> Any:
        """The inverse of :meth:`down`."""
        marks = iter(flags)
        return tree_map(lambda t: batching.wrap_level(t, self.level) if next(marks) else t, tree)

    def unwrap(self, tree: Any) -> Any:
        return tree_map(lambda t: batching.unwrap_level(t, self.level, self.size), tree)

    def wrap(self, tree: Any) -> Any:
        return tree_map(lambda t: batching.wrap_level(t, self.level), tree)


def over_basis(
    fn: Callable,
    shape: tuple,
    dtype: Any,
    out_dims: Any = 0,
    chunk_size: Any = None,
    randomness: str = "error",
) -> Any:
    """``fn`` mapped over the rows of the identity of ``shape``'s elements, each row shaped
    as ``shape``: results with a leading dimension of ``numel`` (the pytree ``fn`` returns,
    ``out_dims`` a prefix of it as ``vmap`` takes it); None for an empty ``shape``. At most
    ``chunk_size`` rows go to one ``vmap`` call, with ``vmap``'s ``randomness``."""
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return None
    step = chunk_size or max(1, _BASIS_ELEMENTS // max(n, 1))
    parts = []
    for start in range(0, n, step):
        stop = min(n, start + step)
        rows = np.zeros((stop - start, n), dtype=dtype.numpy)
        rows[np.arange(stop - start), np.arange(start, stop)] = 1
        basis = Tensor._make(rows.reshape((stop - start,) + tuple(shape)))
        parts.append(vmap(fn, out_dims=out_dims, randomness=randomness)(basis))
    if len(parts) == 1:
        return parts[0]
    return join_chunks(parts, out_dims)
