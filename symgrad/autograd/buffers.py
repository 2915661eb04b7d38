"""The gradients a backward pass gathers for each node before it runs: one buffer per node,
one slot per output, the gradients arriving along several edges summed."""

from __future__ import annotations

from sys import getrefcount
from typing import Any
from weakref import ref

import numpy as np

from symgrad.autograd.placed import Placed, placed_sum

__all__ = ["SUMS", "add_to", "not_own", "sum_into", "summed", "sums_of"]

# A pass's arrays, ``foreign`` below: a dict of the gradients of one pass that a leaf must copy
# rather than keep as its ``.grad``, by id, with what a leaf needs to give its ``.grad`` the
# version PyTorch's counter reads. The value says why an array is there: the array itself for
# the caller's (PyTorch's AccumulateGrad copies it; the caller holds it for the pass, so its id
# stays its own), the ``.grad`` tensor for one a leaf kept, None for one user code made or holds.
# Under the key SUMS, made at a pass's first sum: the id of an array PyTorch would have summed
# into (``add_``) to a weak reference to it and its number of sums. A plain dict: its ``in`` is
# the engine's most frequent check.
SUMS = "sums"  # (no id is a string)


def not_own(foreign: dict, ids: Any) -> None:
    """The arrays of ``ids`` are not the pass's own: user code made or holds them."""
    for i in ids:
        foreign.setdefault(i, None)


def summed(foreign: dict, a: Any, out: Any) -> None:
    """``out`` is ``a`` plus a gradient, counted as PyTorch's ``add_`` into ``a``.

    Examples
    --------
    >>> import numpy as np
    >>> foreign = {}
    >>> a = np.ones(2)
    >>> out = a + 1
    >>> summed(foreign, a, out)
    >>> sums_of(foreign[SUMS], out), sums_of(foreign[SUMS], a)
    (1, 0)
    """
    sums = foreign.get(SUMS)
    if sums is None:
        sums = foreign[SUMS] = {}
    entry = sums.pop(id(a), None)
    before = entry[1] if entry is not None and entry[0]() is a else 0
    sums[id(out)] = (ref(out), before + 1)


def sums_of(sums: dict, g: Any) -> int:
    """The number of sums PyTorch's counter reads for ``g`` (0: none), by the mapping
    ``foreign[SUMS]``."""
    entry = sums.get(id(g))
    return entry[1] if entry is not None and entry[0]() is g else 0


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
    refs = getrefcount(a)
    if (
        type(a) is not np.ndarray
        or a.base is not None
        or not a.flags.writeable
        or refs > _ONLY_THE_BUFFER + 1
        or id(a) in foreign
    ):
        return a + g
    # only the buffer holds a (or it and the tuple of results of the rule that made it, which
    # PyTorch moves into the buffer): PyTorch sums into it (add_), so its version counts one more
    if (
        refs <= _ONLY_THE_BUFFER
        and type(g) is np.ndarray
        and a.size >= _IN_PLACE_FROM
        and a.shape == g.shape
        and a.dtype == g.dtype
    ):
        out = np.add(a, g, out=a)
    else:
        out = a + g
        if type(out) is not np.ndarray:
            if not isinstance(out, np.generic):
                return out
            out = np.array(out)  # (two 0-d arrays sum to a NumPy number)
    summed(foreign, a, out)
    return out
