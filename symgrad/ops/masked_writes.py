"""Writing a source's elements into chosen places of a tensor: ``masked_scatter`` (the places a
mask marks, filled in order from the source) and ``put`` (flat indices), with their in-place
forms and PyTorch's nodes (``MaskedScatterBackward0``, ``PutBackward0``). The input's gradient
is the incoming one (zero where an element was replaced, unless ``put`` accumulates), the
source's the incoming gradient at the places each of its elements went."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor_arguments
from symgrad._data import check_broadcast
from symgrad.autograd.modified import watch_indices
from symgrad.ops.inplace import inplace
from symgrad.ops.scattering import _prims
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["masked_scatter", "masked_scatter_", "put", "put_"]

_MASKED_SCATTER = _prims("masked_scatter", "MaskedScatterBackward0", "keep_tensor")
_PUT = _prims("put", "PutBackward0", "keep_tensor")
_PUT_ADD = _prims("put", "PutBackward0", "add")


class _Places:
    """The first ``count`` source elements (flat) placed at ``key`` in zeros of ``shape``,
    and the adjoint: the incoming gradient at ``key``, in the source's shape."""

    def __init__(self, shape: tuple, key: tuple, source_shape: tuple, unique: bool) -> None:
        self.shape, self.source_shape, self.unique = shape, source_shape, unique
        # a 0-d tensor's one place is its element: index it as a 1-element vector
        self.key = key if shape else tuple(np.nonzero(np.asarray(key, dtype=bool).reshape(1)))
        self.count = len(self.key[0])

    def put(self, xp: Any, src: Any) -> Any:
        values = xp.getitem(xp.reshape(src, (-1,)), (slice(0, self.count),))
        placed = xp.index_put_zeros(self.shape or (1,), self.key, values, self.unique)
        return placed if self.shape else xp.reshape(placed, ())

    def take(self, xp: Any, g: Any) -> Any:
        picked = xp.getitem(g if self.shape else xp.reshape(g, (1,)), self.key)
        size = int(np.prod(self.source_shape, dtype=np.int64))
        if size == self.count:
            return xp.reshape(picked, self.source_shape)
        first = (np.arange(self.count),)
        return xp.reshape(xp.index_put_zeros((size,), first, picked, True), self.source_shape)


class _MaskPlaces(_Places):
    """:class:`_Places` of ``masked_scatter``, whose source gradient PyTorch records as one
    node of its own, ``masked_scatter_backward(grad, mask, sizes)``."""

    def take(self, xp: Any, g: Any) -> Any:
        if xp is INTERPRETERS.tensor and type(g) is not BatchedTensor:
            return _SOURCE_GRAD(g, places=self)
        return super().take(xp, g)


_SOURCE_GRAD = Structural(
    "masked_scatter_backward",
    lambda xp, g, places: _Places.take(places, xp, g),
    lambda xp, g, c: (c.params["places"].put(xp, g),),
    backward="MaskedScatterBackwardBackward0",
)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` with the places where ``mask`` (broadcast to its shape) is True filled, in
    order, by the first elements of ``source``.

    Examples
    --------
    >>> import symgrad
    >>> mask = symgrad.tensor([[True, False, True], [False, True, False]])
    >>> symgrad.zeros(2, 3).masked_scatter(mask, symgrad.arange(1.0, 7.0))
    tensor([[1., 0., 2.],
            [0., 3., 0.]])
    """
    require_tensor_arguments("masked_scatter", "mask source", mask, source)
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got "
            f"{input.dtype.scalar_type} and {source.dtype.scalar_type}"
        )
    check_broadcast("masked_scatter", [input._data, mask._data])
    shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    x = input if tuple(input.shape) == shape else input.expand(shape)
    hit = np.broadcast_to(mask._data, shape)
    places = _MaskPlaces(shape, np.nonzero(hit) if shape else hit, tuple(source.shape), True)
    if places.count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    result = _MASKED_SCATTER(
        x, source, hit=np.array(hit), put=places.put, value=None, take=places.take
    )
    watch_indices(result, mask)
    return result


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with the elements at flat ``index`` (row-major, negative from the end)
    replaced by ``source``'s, or increased by them with ``accumulate=True``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.zeros(2, 3).put(symgrad.tensor([0, 4, -1]), symgrad.tensor([9.0, 8.0, 7.0]))
    tensor([[9., 0., 0.],
            [0., 8., 7.]])
    """
    require_tensor_arguments("put", "index source", index, source)
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype}")
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{input.dtype.scalar_type} and source.dtype = {source.dtype.scalar_type}"
        )
    if index.numel() != source.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    flat = index._data.reshape(-1).astype(np.int64)
    if flat.size and (flat.max() >= n or flat.min() < -n):
        bad = flat[(flat >= n) | (flat < -n)][0]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    shape = tuple(input.shape)
    key = np.unravel_index(flat % max(n, 1), shape) if shape else bool(flat.size)
    if accumulate:
        places = _Places(shape, key, tuple(source.shape), False)
        result = _PUT_ADD(input, source, put=places.put, take=places.take, alpha=1)
        if source._requires_grad:  # (only the source's gradient reads the index)
            watch_indices(result, index)
        return result
    # where an index repeats, the last write wins (PyTorch leaves it undefined)
    places = _Places(shape, key, tuple(source.shape), True)
    hit = np.zeros(shape, dtype=bool)
    hit[key if shape else ()] = bool(places.count)
    result = _PUT(input, source, hit=hit, put=places.put, value=None, take=places.take)
    watch_indices(result, index)
    return result


def masked_scatter_(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """:func:`masked_scatter` in place (the mask broadcast to ``input``'s shape).

    Examples
    --------
    >>> import symgrad
    >>> z = symgrad.tensor([0.0, 5.0, 0.0])
    >>> z.masked_scatter_(z == 0, symgrad.tensor([7.0, 8.0]))
    tensor([7., 5., 8.])
    """
    require_tensor_arguments("masked_scatter_", "mask source", mask, source)
    if np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)) != tuple(input.shape):
        raise RuntimeError(
            f"masked_scatter_: the mask of shape {list(mask.shape)} does not broadcast to the "
            f"tensor's shape {list(input.shape)}"
        )
    return inplace(
        input, "masked_scatter_", lambda t: masked_scatter(t, mask, source), mask, source
    )


def put_(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """:func:`put` in place.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.zeros(3).put_(symgrad.tensor([1]), symgrad.tensor([5.0]))
    tensor([0., 5., 0.])
    """
    require_tensor_arguments("put_", "index source", index, source)
    return inplace(input, "put_", lambda t: put(t, index, source, accumulate), index, source)
