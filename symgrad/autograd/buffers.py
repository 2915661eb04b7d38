"""The gradients a backward pass gathers for each node before it runs: one buffer per node,
one slot per output, the gradients arriving along several edges summed."""

from __future__ import annotations

from sys import getrefcount
from typing import Any

import numpy as np

from symgrad.autograd.placed import Placed, placed_sum

__all__ = ["add_to", "sum_into"]


def add_to(buffers: dict, node: Any, nr: int, g: Any, foreign: Any) -> None:
    """Gradient ``g`` of output ``nr`` of ``node`` into its buffer, summed with what is there
    (``foreign``: the ids of arrays the pass does not own)."""
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node.num_outputs
    buf[nr] = g if buf[nr] is None else sum_into(buf[nr], g, foreign)


# a gradient summed in place from this many elements on: below, a new array costs no more
# than the checks (NumPy keeps small blocks for reuse)
_IN_PLACE_FROM = 1 << 14
# the references to a buffered gradient no one else holds: its buffer's slot, sum_into's argument
# and getrefcount's own
_ONLY_THE_BUFFER = 3


def sum_into(a: Any, g: Any, foreign: Any) -> Any:
    """``a + g`` for gradients arriving at one buffer: written into ``a`` when ``a`` is a large
    array only the buffer holds (a rule's fresh result, not a view, not the caller's, not one
    also sent elsewhere), as PyTorch sums into a buffer it alone uses; a new array otherwise.
    A :class:`~symgrad.autograd.placed.Placed` gradient's block is added into the other's
    array."""
    if type(g) is Placed or type(a) is Placed:
        owned = (
            type(a) is np.ndarray
            and a.base is None
            and a.flags.writeable
            and getrefcount(a) <= _ONLY_THE_BUFFER
            and id(a) not in foreign
        )
        return placed_sum(a, g, owned)
    if (
        type(a) is np.ndarray
        and type(g) is np.ndarray
        and a.size >= _IN_PLACE_FROM
        and a.shape == g.shape
        and a.dtype == g.dtype
        and a.base is None
        and a.flags.writeable
        and getrefcount(a) <= _ONLY_THE_BUFFER
        and id(a) not in foreign
    ):
        return np.add(a, g, out=a)
    return a + g
