"""Whether memory laid out with some strides can be seen in another shape without copying."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._data import sizes
from symgrad.prim.numpy_xp import NP

__all__ = ["expanded", "new_shape", "reshaped", "unsqueezed", "view_strides"]


def view_strides(shape: tuple, strides: tuple, new_shape: tuple) -> tuple | None:
    """The strides showing the memory of ``shape``/``strides`` in ``new_shape`` (same number of
    elements), or None where only a copy can (PyTorch's ``computeStride``, NumPy's
    ``_attempt_nocopy_reshape``).

    It walks the old dimensions from the last, in chunks whose memory is contiguous, and
    splits each chunk among the new dimensions that exactly cover it; it never touches the
    data (NumPy's ``a.shape = new`` copies the whole array before refusing).

    Examples
    --------
    >>> view_strides((2, 3), (12, 4), (3, 2))
    (8, 4)
    >>> view_strides((3, 2), (4, 12), (6,)) is None  # a transposed matrix cannot flatten
    True
    """
    if math.prod(shape) == 0 or not shape:
        return _contiguous(new_shape, strides[-1] if strides else 1)
    new = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    base = strides[-1]
    chunk = view = 1
    for d in range(len(shape) - 1, -1, -1):
        chunk *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != chunk * base):
            while view_d >= 0 and (view < chunk or new_shape[view_d] == 1):
                new[view_d] = view * base
                view *= new_shape[view_d]
                view_d -= 1
            if view != chunk:
                return None
            if d > 0:
                base, chunk, view = strides[d - 1], 1, 1
    return tuple(new) if view_d == -1 else None


def _contiguous(shape: tuple, item: int) -> tuple:
    out, step = [], item
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def check_sizes(target: tuple, numel: int, known: int) -> None:
    """PyTorch's errors for ``target`` sizes of a view or reshape of ``numel`` elements that
    no NumPy reshape should guess at (``known``: the product of the sizes other than -1)."""
    for i, n in enumerate(target):
        if n < -1:
            raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape {list(target)}")
    if target.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in target and numel == 0 and known == 0:
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {list(target)} because the "
            "unspecified dimension size -1 can be any value and is ambiguous"
        )


def new_shape(old: tuple, shape: tuple, op: str) -> tuple:
    """The sizes ``shape`` (PyTorch's two ways of giving them, one of them -1 at most) for
    ``numel(old)`` elements, with PyTorch's errors."""
    target = sizes(shape, op)
    numel = math.prod(old)
    known = math.prod(n for n in target if n != -1)
    if min(target, default=0) >= -1 and known > 0:  # (what NumPy's reshape would find)
        missing = target.count(-1)
        if missing == 0 and known == numel:
            return target
        if missing == 1 and numel % known == 0:
            return tuple(numel // known if n == -1 else n for n in target)
    check_sizes(target, numel, known)
    try:
        return np.empty(old, dtype=np.bool_).reshape(target).shape
    except ValueError:
        raise RuntimeError(f"shape '{list(target)}' is invalid for input of size {numel}") from None


def expanded(xp: Any, a: Any, shape: tuple) -> Any:
    """The NumPy kernel of ``expand``: ``a`` broadcast to ``shape`` with PyTorch's strides.

    Examples
    --------
    >>> [s // 8 for s in expanded(NP, np.ones(3), (1, 3)).strides]
    [3, 1]
    """
    out = NP.expand(a, shape)
    if 1 not in shape or type(out) is not np.ndarray or not a.ndim or not out.size:
        return out
    # PyTorch's strides where NumPy gives 0: a kept dimension of size 1 keeps its stride, a
    # new one of size 1 takes the size times the stride of the dimension after it
    strides = [0] * len(shape)
    lead = len(shape) - a.ndim
    for i in range(len(shape) - 1, -1, -1):
        if i >= lead:
            strides[i] = a.strides[i - lead] if a.shape[i - lead] == shape[i] else 0
        elif shape[i] == 1:
            strides[i] = shape[i + 1] * strides[i + 1]
    if tuple(strides) == out.strides:
        return out
    return np.lib.stride_tricks.as_strided(out, shape, strides, writeable=False)


def unsqueezed(xp: Any, a: Any, dim: int, saved_as: tuple = ()) -> Any:
    """The NumPy kernel of ``unsqueeze``: ``a`` with a dimension of size 1 at ``dim`` whose
    stride is PyTorch's (the size times the stride of the dimension it goes before, one
    element at the end), the others' kept (NumPy's reshape may choose others for size 1).

    Examples
    --------
    >>> a = np.arange(2.0).reshape(1, 2, 1).transpose(2, 1, 0)
    >>> [s // 8 for s in unsqueezed(NP, a, 1).strides]
    [1, 2, 1, 2]
    """
    out = NP.unsqueeze(a, dim)
    if type(out) is not np.ndarray or not out.size:
        return out
    strides = list(a.strides)
    strides.insert(dim, a.shape[dim] * a.strides[dim] if dim < a.ndim else a.itemsize)
    if tuple(strides) == out.strides:
        return out
    return np.lib.stride_tricks.as_strided(
        out, out.shape, strides, writeable=bool(out.flags.writeable)
    )


def reshaped(xp: Any, a: Any, shape: tuple) -> Any:
    """The NumPy kernel of ``view`` and ``reshape``'s views: ``a`` in ``shape``, its
    dimensions of size 1 with PyTorch's strides (``computeStride``'s, where NumPy's reshape
    chooses others).

    Examples
    --------
    >>> a = np.arange(6.0).reshape(3, 2)[:, :1]
    >>> [s // 8 for s in reshaped(NP, a, (3, 1)).strides]
    [2, 1]
    """
    out = NP.reshape(a, shape)
    if 1 not in shape or type(out) is not np.ndarray or not out.size:
        return out
    strides = view_strides(a.shape, a.strides, tuple(shape))
    if strides is None or strides == out.strides:
        return out
    return np.lib.stride_tricks.as_strided(
        out, out.shape, strides, writeable=bool(out.flags.writeable)
    )


# the rules' very values, only the strides of dimensions of size 1 told apart (which no value
# reads): compiled programs write the rules' lines instead of calling these
for _kernel in (expanded, unsqueezed, reshaped):
    _kernel.faster_only = True  # type: ignore[attr-defined]
