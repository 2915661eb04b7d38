"""``as_strided``: a view of a tensor's memory with sizes, strides and offset given in
elements, as PyTorch's ``torch.as_strided`` and ``Tensor.as_strided``.

The memory is that of the tensor the input views (its storage): strides and offset count
elements of it, and the result shares it, so writes show through both ways. The gradient
(``AsStridedBackward0``) adds each output element's gradient into the input element that
holds the same memory (several, where the strides overlap).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd import grad_mode
from symgrad.ops.views import _AS_STRIDED, has_overlap, positions
from symgrad.prim.primitive import recorded
from symgrad.tensor import Tensor, bind_methods, link_view, live_aliases

__all__ = ["as_strided"]


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """The view of ``input``'s memory with shape ``size``, steps ``stride`` (in elements)
    and first element at ``storage_offset`` (``input``'s own offset if None).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.arange(6.0)
    >>> symgrad.as_strided(x, (2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    >>> x.as_strided((3,), (2,), 1)
    tensor([1., 3., 5.])
    """
    shape, steps = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(shape) != len(steps):
        raise RuntimeError(
            f"mismatch in length of strides and shape: size {list(shape)} has {len(shape)} "
            f"dimensions, stride {list(steps)} has {len(steps)}"
        )
    if any(s < 0 for s in steps):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(steps)}"
        )
    storage = _storage(input)
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in shape else offset + 1 + sum((n - 1) * s for n, s in zip(shape, steps))
    if needed > storage.size:
        raise RuntimeError(
            f"setStorage: sizes {list(shape)}, strides {list(steps)}, storage offset {offset}, "
            f"and itemsize {storage.itemsize} requiring a storage size of "
            f"{needed * storage.itemsize} are out of bounds for storage of size "
            f"{storage.size * storage.itemsize}"
        )
    out = np.lib.stride_tricks.as_strided(
        storage[offset:] if 0 not in shape else storage[:0],
        shape,
        tuple(s * storage.itemsize for s in steps),
    )
    if has_overlap(out) or not storage.flags.writeable:
        out.flags.writeable = False
    recording = grad_mode.is_grad_enabled()
    if recording and input.requires_grad:
        index = _held_positions(input, out)
        unique = np.unique(index).size == index.size
        result = recorded(_AS_STRIDED, (input,), {"index": index, "unique": unique}, out)
    else:
        result = Tensor._make(out)
    link_view(input, result, "view" if recording else "no_grad")
    return result


def _storage(input: Tensor) -> np.ndarray:
    """The flat memory ``input`` shares, in memory order, as a view."""
    root = live_aliases(input)[0]
    data = (input if root is None else root)._data
    if type(data) is not np.ndarray:
        raise NotImplementedError("as_strided needs a tensor with data (not a meta tensor)")
    if data.flags.c_contiguous or data.flags.f_contiguous:
        return np.lib.stride_tricks.as_strided(data, (data.size,), (data.itemsize,))
    raise RuntimeError(
        "as_strided: the memory of this tensor is a strided NumPy view (from_numpy of a "
        "sliced array); clone() it first"
    )


def _held_positions(input: Tensor, out: np.ndarray) -> np.ndarray:
    """For each element of ``out``, the flat position of the element of ``input`` with the
    same memory (the gradient goes there)."""
    try:
        return positions(input._data, out)
    except RuntimeError:
        raise RuntimeError(
            "as_strided: with gradients recorded, every element of the view must be an "
            f"element of the input (shape {list(input.shape)}); take the view of the tensor "
            "that holds the memory, or detach() the input"
        ) from None


bind_methods({"as_strided": as_strided})
