"""``as_strided``: a view of a tensor's memory with any sizes, strides and offset.

As in PyTorch, the strides and the offset count elements of the memory the tensor shares (its
storage), not of the tensor: ``x.as_strided((2, 2), (1, 2))`` of a contiguous ``x`` of 4
elements is its transpose. The view shares that memory (writes through it change ``x``, with
one version counter). Its node, ``AsStridedBackward0``, sums the incoming gradient into the
places of ``x`` each element was read from (an element read twice gets both gradients).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._data import sizes
from symgrad.autograd import dual, grad_mode
from symgrad.ops.inplace import check_leaf, check_view_change
from symgrad.ops.views import (
    _AS_STRIDED,
    _as_strided_forward,
    _as_strided_vjp,
    reads_once,
    storage_offset,
)
from symgrad.prim import tangents
from symgrad.prim.primitive import recorded
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor, link_view, live_aliases

__all__ = ["as_strided", "as_strided_"]

_AS_STRIDED_ = Structural(
    "as_strided",
    _as_strided_forward,
    _as_strided_vjp,
    backward="AsStridedBackward1",
    jvp="linear",
    text=COPIES,
)


def _storage(x: Tensor) -> tuple[np.ndarray, int]:
    """The flat memory ``x`` shares (its root's elements, in memory order) and where ``x``
    starts in it."""
    root, _, _ = live_aliases(x)
    owner = x if root is None else root
    data = owner._data
    # its dimensions from the outermost in memory: one block (row-major, channels-last, ...)
    # reads as one row-major array
    in_memory = data.transpose(sorted(range(data.ndim), key=lambda d: -data.strides[d]))
    if not in_memory.flags.c_contiguous:
        raise NotImplementedError(
            f"as_strided of a tensor whose memory is not one contiguous block (shape "
            f"{list(data.shape)}, strides {[s // data.itemsize for s in data.strides]}): "
            "call it on a contiguous tensor (x.contiguous().as_strided(...))"
        )
    return in_memory.reshape(-1), storage_offset(x)


def as_strided(
    input: Tensor, size: Any = None, stride: Any = None, storage_offset: int | None = None
) -> Tensor:
    """A view of ``input``'s memory with the given ``size`` and ``stride`` (in elements),
    starting ``storage_offset`` elements into that memory (``input``'s own offset by default).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.arange(6.0, requires_grad=True)
    >>> y = x.as_strided((2, 2), (1, 2), 1)
    >>> y
    tensor([[1., 3.],
            [2., 4.]], grad_fn=<AsStridedBackward0>)
    >>> y.sum().backward()
    >>> x.grad
    tensor([0., 1., 1., 1., 1., 0.])
    """
    _check_arguments("as_strided", input, size, stride)
    return _view(_AS_STRIDED, input, size, stride, storage_offset)


def _view(prim: Any, input: Tensor, size: Any, stride: Any, offset: int | None) -> Tensor:
    """The strided view of ``input``, recorded as ``prim`` (as_strided's node, or unfold's)."""
    data, index = _strided(input, size, stride, offset)
    params = None if index is None else {"index": index, "unique": reads_once(data, index)}
    if index is not None and input._requires_grad and grad_mode.is_grad_enabled():
        result = recorded(prim, (input,), params, data)
    else:
        result = Tensor._make(data)
    link_view(input, result, "view" if grad_mode.is_grad_enabled() else "no_grad")
    if params is not None and dual.active():  # forward mode: the tangent read the same way
        result = tangents.propagate(prim, (input,), params, result)
    return result


def _unfold_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # PyTorch's formula: unfold_backward(grad, sizes, dimension, size, step), a node of its own
    shape = c.shapes[0]
    key = np.unravel_index(c.params["index"], shape)
    unique = c.params.get("unique", True)
    return (xp.index_put_zeros(shape, key, g, unique, node="UnfoldBackwardBackward0"),)


# Tensor.unfold: the windows as a strided view of the input's memory, as in PyTorch
_UNFOLD = Structural(
    "unfold",
    _as_strided_forward,
    _unfold_vjp,
    backward="UnfoldBackward0",
    jvp="linear",
    text=COPIES,
)


def unfold_view(x: Tensor, d: int, size: int, step: int) -> Tensor | None:
    """``x.unfold(d, size, step)`` as a view sharing ``x``'s memory (``UnfoldBackward0``): the
    windows along ``d`` as that dimension, their elements as a new last one. None where
    ``x``'s memory is not one block (the caller copies)."""
    strides = [s // x._data.itemsize for s in x._data.strides]
    windows = (x.shape[d] - size) // step + 1
    shape = [*x.shape[:d], windows, *x.shape[d + 1 :], size]
    stride = [*strides[:d], strides[d] * step, *strides[d + 1 :], strides[d]]
    try:
        return _view(_UNFOLD, x, shape, stride, None)
    except NotImplementedError:
        return None


def as_strided_(
    input: Tensor, size: Any = None, stride: Any = None, storage_offset: int | None = None
) -> Tensor:
    """``input`` itself given the sizes, strides and offset of :func:`as_strided`, in place
    (recorded as ``AsStridedBackward1``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.arange(6.0, requires_grad=True) * 1
    >>> x.as_strided_((2, 2), (1, 2), 1)
    tensor([[1., 3.],
            [2., 4.]], grad_fn=<AsStridedBackward1>)
    """
    _check_arguments("as_strided_", input, size, stride)
    check_leaf(input, "as_strided_")
    check_view_change(input, "as_strided_")
    if dual.active() and dual.tangent_of(input) is not None:
        raise NotImplementedError(
            "as_strided_ of a tensor with a forward-mode tangent is not supported: use the "
            "out-of-place x.as_strided(...), whose tangent is read the same way"
        )
    data, index = _strided(input, size, stride, storage_offset)
    if index is not None and input._requires_grad and grad_mode.is_grad_enabled():
        params = {"index": index, "unique": reads_once(data, index)}
        node = recorded(_AS_STRIDED_, (input,), params, data).grad_fn
        input.grad_fn, input._output_nr = node, 0
    input._data = data
    input._counter.value += 1
    return input


def _check_arguments(op: str, input: Any, size: Any, stride: Any) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    for name, value in (("size", size), ("stride", stride)):
        if value is None:
            raise TypeError(f"{op}() missing required argument '{name}'")


def _strided(
    x: Tensor, size: Any, stride: Any, storage_offset: int | None, index: bool = False
) -> tuple:
    """The view's array, and (when ``x`` requires grad, or ``index`` asks) where each element
    lies in ``x``."""
    size = tuple(sizes((size,), "as_strided"))
    stride = tuple(sizes((stride,), "as_strided"))
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: got {len(size)} sizes {list(size)} and "
            f"{len(stride)} strides {list(stride)}"
        )
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    if any(n < 0 for n in size):
        raise RuntimeError(f"as_strided: negative sizes are not allowed, got {list(size)}")
    flat, own_offset = _storage(x)
    offset = own_offset if storage_offset is None else storage_offset
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if needed > flat.size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {flat.itemsize} requiring a storage size of {needed * flat.itemsize} "
            f"are out of bounds for storage of size {flat.size * flat.itemsize}"
        )
    data = np.lib.stride_tricks.as_strided(
        flat[offset:],
        shape=size,
        strides=tuple(s * flat.itemsize for s in stride),
        writeable=flat.flags.writeable,
    )
    if type(x._data) is not np.ndarray:  # a meta tensor: a meta view of its (unread) memory
        data = data.view(type(x._data))
    recording = x._requires_grad and grad_mode.is_grad_enabled()
    if not (recording or index) and not (dual.active() and dual.tangent_of(x) is not None):
        return data, None
    return data, _positions_in(x, flat, own_offset, offset, size, stride)


def _positions_in(
    x: Tensor, flat: np.ndarray, own: int, offset: int, size: tuple, stride: tuple
) -> np.ndarray:
    """For each element of the view, the flat (C-order) position in ``x`` of the element it
    reads; every one must be one of ``x``'s (the gradient has nowhere else to go)."""
    where = np.full(flat.size, -1, dtype=np.int64)
    steps = [s // x._data.itemsize for s in x._data.strides] if x._data.size else []
    mine = _places(x.shape, steps, own)
    where[mine.reshape(-1)] = np.arange(mine.size, dtype=np.int64)
    wanted = _places(size, stride, offset)
    index = where[wanted]
    if (index < 0).any():
        raise NotImplementedError(
            f"as_strided of a tensor that requires grad (shape {list(x.shape)}) reaching memory "
            "outside it: its gradient has nowhere to go; call as_strided on the tensor whose "
            "memory it is (its ._base)"
        )
    return index


def _places(size: tuple, stride: Any, start: int) -> np.ndarray:
    """The memory position of each element of a view of ``size`` and ``stride``."""
    out = np.full(size, start, dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        out = out + (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(size) - d - 1))
    return out
