"""A gradient that is zero but for one block: the gradient of a basic index (``x[0]``,
``x[:, 2:5]``, ``q, k, v = proj[0], proj[1], proj[2]``), kept as its shape, its key and the
block's values while it waits in a backward pass's buffers.

The index's rule writes the incoming gradient into zeros of the input's shape. Where several
indexes of one tensor meet (the three heads of a packed attention projection, the halves of a
coupling layer), each such array is mostly zeros and the buffer sums them: fresh memory and
whole-array passes for every one. Kept as (shape, key, block) until the buffer sums them,
the zeros are made once and each block is added into its place; a single one becomes the
array its rule would have given when the next node reads it. The values are the same: the
blocks are added into zeros in the order the gradients arrive, as the sums of whole arrays
add them (every other element adds zeros).

Only the engine's buffers hold them, in passes without ``create_graph``, anomaly mode or
forward-mode tangents; hooks, ``autograd.grad``'s results, ``.grad`` and every rule see
arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd.current_pass import CURRENT

__all__ = ["Placed", "index_gradient", "materialized", "placed_gradient", "placed_sum"]


class Placed:
    """Zeros of ``shape`` and ``dtype`` with ``value`` at the basic index ``key``."""

    __slots__ = ("shape", "dtype", "key", "value")

    def __init__(self, shape: tuple, dtype: Any, key: Any, value: np.ndarray) -> None:
        self.shape, self.dtype, self.key, self.value = shape, dtype, key, value

    def array(self) -> np.ndarray:
        """The gradient as its array."""
        out = np.zeros(self.shape, self.dtype)
        out[self.key] = self.value
        return out


def placed_gradient(shape: tuple, key: Any, g: Any) -> Placed | None:
    """``g`` placed at ``key`` in zeros of ``shape``, kept as a :class:`Placed` when the pass
    running on this thread holds them; None otherwise (the rule's array then)."""
    run = CURRENT.run
    if run is None or not run.placed_ok or type(g) is not np.ndarray:
        return None
    run.made_placed = True
    return Placed(shape, g.dtype, key, g)


def index_gradient(g: Any, arrays: list, out: Any, needs: list, params: dict, meta: tuple) -> Any:
    """The ``numeric_vjp`` of a basic index (``params["key"]``): its gradient as a block in
    place where the pass holds them; None (the rule's array) otherwise."""
    placed = placed_gradient(meta[0][0], params["key"], g)
    return None if placed is None else (placed,)


def materialized(grads: list) -> list:
    """``grads`` (a buffer, a list) with every :class:`Placed` made its array."""
    for i, g in enumerate(grads):
        if type(g) is Placed:
            grads[i] = g.array()
    return grads


def placed_sum(a: Any, g: Any, owned: bool) -> np.ndarray:
    """``a + g`` where one of them is a :class:`Placed`: a placed block is added into the
    other's array (into ``a`` itself when ``owned``: only the buffer holds it), two placed
    blocks into one array of zeros."""
    if type(a) is Placed:
        a, owned = a.array(), True
    if type(g) is not Placed:
        if owned and type(g) is np.ndarray and g.shape == a.shape and g.dtype == a.dtype:
            return np.add(a, g, out=a)
        return a + g
    if type(a) is not np.ndarray or a.dtype != g.dtype or a.shape != g.shape:
        return a + g.array()
    out = a if owned else a.copy()
    out[g.key] += g.value
    return out
