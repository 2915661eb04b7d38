"""``index_put`` and ``index_put_``: ``values`` written (or added, ``accumulate=True``) at the
places a tuple of index tensors picks, PyTorch's ``IndexPutBackward0``.

Where an index repeats without ``accumulate``, the last write wins, as on PyTorch's CPU; the
gradient is PyTorch's all the same: ``input``'s is the incoming gradient with zeros at the
written places (none with ``accumulate``), ``values``' is the incoming gradient read at the
places, for every entry of ``values``, overwritten or not. (``x[key] = v``, which takes any
key, is :func:`symgrad.ops.indexing.put` written into ``x``.)"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.ops.batched_indexing import batched_put
from symgrad.ops.index_keys import check_uint8_fill, index_array
from symgrad.ops.indexing import _probe, check_key_device
from symgrad.ops.inplace import inplace
from symgrad.prim import batching
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["index_put", "index_put_"]


def _forward(xp: Any, a: Any, v: Any, **p: Any) -> Any:
    """The meaning, in the rule vocabulary: the values spread over their places (each place
    keeping only its last writer), added to ``input`` or replacing its entries there."""
    spread = xp.expand(v, p["target"])
    if p["accumulate"]:
        return a + xp.index_put_zeros(p["shape"], p["key"], spread)
    last = xp.where(xp.constant(p["last"]), spread, 0.0)
    return xp.where(xp.constant(p["hit"]), xp.index_put_zeros(p["shape"], p["key"], last), a)


def _kernel(xp: Any, a: np.ndarray, v: np.ndarray, **p: Any) -> np.ndarray:
    out = np.array(a, copy=True)
    if p["accumulate"]:
        np.add.at(out, p["key"], np.broadcast_to(v, p["target"]))
    else:
        out[p["key"]] = v
    return out


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    p = c.params
    g_input = g_values = None
    if c.needs[0]:
        g_input = g if p["accumulate"] else _zeroed(xp, g, p["hit"])
    if c.needs[1]:
        g_values = xp.sum_to_size(xp.getitem(g, p["key"]), c.shapes[1])
    return g_input, g_values


def _zeroed(xp: Any, g: Any, hit: np.ndarray) -> Any:
    # PyTorch's formula: grad.index_put(indices, zeros_like(values), accumulate)
    return xp.masked_fill(g, xp.constant(hit), 0.0, node="IndexPutBackward0")


_INDEX_PUT = Structural(
    "index_put",
    _forward,
    _vjp,
    backward="IndexPutBackward0",
    kernel=_kernel,
    jvp="linear",
)


def _is_key(indices: Any) -> bool:
    return isinstance(indices, (tuple, list)) and not isinstance(indices, Tensor)


def _key(input: Tensor, indices: Any) -> tuple:
    """The NumPy index of a tuple of index tensors, checked as PyTorch checks it."""
    if isinstance(indices, Tensor) or not isinstance(indices, (tuple, list)):
        raise TypeError(
            "index_put(): argument 'indices' (position 1) must be tuple of Tensors, not "
            f"{type(indices).__name__}; wrap a single index tensor as (index,)"
        )
    if not indices:
        raise RuntimeError("index_put(): indices is empty; give one index tensor per dimension")
    key = []
    for k, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(
                f"expected Tensor as element {k} in argument 0, but got {type(index).__name__}"
            )
        if index.dtype.is_floating_point:
            raise IndexError(
                "tensors used as indices must be long, int, byte or bool tensors\n(got "
                f"{index.dtype!r} at position {k})"
            )
        key.append(index_array(index))  # (a uint8 tensor is a mask, as a bool one)
    if len(key) > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got {len(key)})")
    return _probe(tuple(key), tuple(input.shape))


def _check_values(input: Tensor, values: Any) -> None:
    if not isinstance(values, Tensor):
        raise TypeError(
            "index_put(): argument 'values' (position 2) must be Tensor, not "
            f"{type(values).__name__}; wrap a number as symgrad.tensor(number)"
        )
    if values.dtype is not input.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{input.dtype.scalar_type} for the destination and {values.dtype.scalar_type} "
            "for the source; convert the values with .to(input.dtype)"
        )


def _check_shape(shape: tuple, target: tuple) -> None:
    try:
        fits = np.broadcast_shapes(shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast "
            f"to indexing result of shape {list(target)}"
        )


def _last_writers(shape: tuple, key: tuple, target: tuple) -> tuple:
    """Which places are written (``hit``), and which entries of the spread values are the last
    to write to their place (NumPy's assignment, like PyTorch's CPU kernel, lets it win)."""
    writer = np.full(shape, -1, dtype=np.int64)
    writer[key] = np.arange(math.prod(target)).reshape(target)
    hit = writer >= 0
    last = np.zeros(math.prod(target), dtype=bool)
    last[writer[hit]] = True
    return hit, last.reshape(target)


def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``values`` (broadcast) written at ``input[indices]``, or added
    there with ``accumulate=True`` (repeated places add up); ``indices`` is a tuple of integer
    or boolean tensors, one per leading dimension.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.zeros(2, 3)
    >>> rows, cols = symgrad.tensor([0, 1, 0]), symgrad.tensor([2, 0, 2])
    >>> x.index_put((rows, cols), symgrad.tensor([1.0, 2.0, 3.0]), accumulate=True)
    tensor([[0., 0., 4.],
            [2., 0., 0.]])
    """
    check_key_device(input, indices)
    _check_values(input, values)
    tensors = [i for i in indices if isinstance(i, Tensor)] if _is_key(indices) else []
    if batching.any_batched(input, values, *tensors):  # inside vmap: one scatter
        return batched_put(input, tuple(indices), values, accumulate, _check_shape)
    key = _key(input, indices)
    if not accumulate and values.numel() == 1:
        check_uint8_fill(tuple(indices), values, tuple(input.shape), zero_dim=True)
    shape = tuple(input.shape)
    target = np.empty(shape, dtype=np.bool_)[key].shape
    _check_shape(tuple(values.shape), target)
    params: dict = {"key": key, "shape": shape, "target": target, "accumulate": bool(accumulate)}
    if not accumulate:
        params["hit"], params["last"] = _last_writers(shape, key, target)
    return _INDEX_PUT(input, values, **params)


def index_put_(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """:func:`index_put` written into ``input`` (returned).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.zeros(3)
    >>> symgrad.index_put_(x, (symgrad.tensor([1, 1]),), symgrad.tensor(2.0), accumulate=True)
    tensor([0., 4., 0.])
    """
    tensors = [i for i in indices if isinstance(i, Tensor)] if _is_key(indices) else []
    return inplace(
        input, "index_put_", lambda x: index_put(x, indices, values, accumulate), *tensors, values
    )
