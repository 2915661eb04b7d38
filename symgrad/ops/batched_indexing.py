"""``x[key]`` inside ``vmap`` where the key holds batched index tensors (each element its own
indices), with PyTorch's placement of the indexed dimensions.

PyTorch applies the basic part of a key first (ints, slices, None, ``...``) and then indexes
the result with the tensors: their broadcast dimensions go where the first of them stood when
they are next to each other, else first. On the physical tensor the batch is one more index,
``arange(B)`` in front, so every element reads from its own row; NumPy then puts the indexed
dimensions first, and they are moved to where PyTorch puts them."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.ops.shape import expand_to
from symgrad.prim import batching
from symgrad.tensor import Tensor

__all__ = ["batched_key", "batched_getitem", "batched_put", "MASK_REFUSED"]

MASK_REFUSED = (
    "vmap: We do not support batching operators that can support dynamic shape. Attempting to "
    "batch over indexing with a boolean mask."
)


def batched_key(key: Any) -> bool:
    """Whether ``key`` holds a batched tensor (only ever inside ``vmap``)."""
    if not batching.STATE.depth:
        return False
    items = key if isinstance(key, tuple) else (key,)
    return any(type(k) is batching.BatchedTensor for k in items)


def _positions(items: tuple, ndim: int) -> tuple:
    """``(basic key, dims)``: the key with each tensor replaced by a full slice, and the
    dimension of that basic result each tensor then indexes."""
    used = sum(1 for k in items if k is not None and k is not Ellipsis)
    basic, dims, out = [], [], 0
    for k in items:
        if isinstance(k, Tensor):
            basic.append(slice(None))
            dims.append(out)
            out += 1
        elif k is Ellipsis:
            basic.append(k)
            out += ndim - used
        else:
            basic.append(k)
            out += 0 if isinstance(k, (int, np.integer)) else 1
    return tuple(basic), dims


def batched_getitem(input: Tensor, key: Any) -> Tensor:
    """``input[key]`` for a key with integer index tensors, some batched."""
    items = key if isinstance(key, tuple) else (key,)
    tensors = [k for k in items if isinstance(k, Tensor)]
    for t in tensors:
        if t.dtype in (dtypes.bool_, dtypes.uint8) and type(t) is batching.BatchedTensor:
            # a batched mask picks a different number of entries per element: PyTorch refuses
            raise batching.Refused(MASK_REFUSED)
    if any(t.dtype not in (dtypes.int64, dtypes.int32) for t in tensors):
        raise batching.Unbatchable("indexing by a batched tensor that is not of integers")
    basic, dims = _positions(items, input.ndim)
    y = input[basic] if any(k != slice(None) for k in basic) else input
    together = dims == list(range(dims[0], dims[0] + len(dims)))
    at = dims[0] if together else 0
    m = max(t.ndim for t in tensors)

    def physical(y: Any, *index: Any) -> Any:
        size = y.shape[0]
        rows = Tensor._make(np.arange(size, dtype=np.int64).reshape((size,) + (1,) * m))
        phys = [rows] + [slice(None)] * (y.ndim - 1)
        for d, t, i in zip(dims, tensors, index):
            if i is not t:  # batched here: the batch in front, padded after it
                i = i.reshape((size,) + (1,) * (m - t.ndim) + tuple(i.shape[1:]))
            phys[1 + d] = i
        out = y[tuple(phys)]
        if at == 0:
            return out
        order = list(range(out.ndim))
        block = order[1 : 1 + m]
        rest = order[1 + m :]
        return out.permute([0] + rest[:at] + block + rest[at:])

    level = max(t._level for t in (y, *tensors) if type(t) is batching.BatchedTensor)
    return _per_level(physical, level, y, tensors)


def _per_level(fn: Any, level: int, y: Tensor, tensors: list) -> Tensor:
    """``fn(y, *tensors)`` on ``level``'s physical tensors: ``y`` always with the batch in
    front (repeated if not batched), an index tensor only where it is batched."""
    size = batching.batch_size([y, *tensors], level)
    py = batching.unwrap_level(y, level, size)
    index = [batching.physical(t, level) for t in tensors]
    return batching.BatchedTensor(fn(py, *index), level)


def batched_put(
    input: Tensor, key: Any, values: Tensor, accumulate: bool, check: Callable
) -> Tensor:
    """``input`` with ``values`` written (or added) at ``input[key]``, inside ``vmap`` with some
    of ``input``, ``key``'s tensors and ``values`` batched: the places of ``input``'s elements
    are read at ``key`` (each element's own where the key is batched), and ``values``,
    broadcast to them, are scattered into the flattened ``input`` (one scatter for the whole
    batch; where a place repeats, the last write wins, as ``index_put``). ``check(values'
    shape, indexed shape)`` raises where the values don't fit."""
    shape = tuple(input.shape)
    places = Tensor._make(np.arange(math.prod(shape), dtype=np.int64).reshape(shape))[key]
    target = tuple(places.shape)
    check(tuple(values.shape), target)
    if values.ndim > len(target):  # only leading 1s are extra (checked by the caller)
        values = values.reshape(tuple(values.shape)[values.ndim - len(target) :])
    if values.dtype is not input.dtype:
        values = values.to(input.dtype)
    spread = expand_to(values, tuple(target)).reshape(-1)
    flat, index = input.reshape(-1), places.reshape(-1)
    out = flat.scatter_add(0, index, spread) if accumulate else flat.scatter(0, index, spread)
    return out.reshape(shape)
