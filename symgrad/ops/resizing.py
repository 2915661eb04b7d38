"""``resize_`` and ``resize_as_``: a tensor given a new shape over its memory, in place, and the
deprecated ``resize``/``resize_as``, which only reshape.

As in PyTorch, ``resize_`` lays the tensor out contiguously from where it starts in the memory
it shares (its storage), taking the elements in memory order, not in the order the tensor
reads them: a view keeps sharing that memory while it fits. Growing past the end of the memory
moves the tensor to new memory holding the old elements and then zeros (PyTorch leaves the new
elements uninitialised; symgrad never hands out uninitialised memory). A tensor that requires
grad can't be resized, and the version counter counts a resize that changes the shape.

The out-of-place ``resize(*sizes)`` is ``contiguous().view(sizes)`` recorded as
``ResizeBackward``: it keeps the number of elements, and warns that it is deprecated.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad._data import sizes
from symgrad._memory_format import checked, contiguous_format, format_strides, preserve_format
from symgrad._meta import is_meta, meta_array
from symgrad.prim.structural import Structural, reshaped_back
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor, bind_methods, live_aliases

__all__ = ["resize_as_"]

_RESIZE = Structural(
    "resize",
    lambda xp, a, shape: xp.reshape(a, shape),
    lambda xp, g, c: (xp.reshape(g, c.shapes[0]),),
    backward="ResizeBackward",
    # contiguous().view(shape): a copy only when the tensor is not contiguous
    kernel=lambda xp, a, shape: np.ascontiguousarray(a).reshape(shape),
    jvp="linear",
    text=COPIES,
    numeric_vjp=reshaped_back,
)


def _shape(size: tuple, op: str) -> tuple:
    shape = sizes(size, op)
    if any(n < 0 for n in shape):
        bad = next(n for n in shape if n < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(shape)}")
    return shape


def _memory(x: Tensor) -> tuple[np.ndarray, int]:
    """The whole block of memory ``x`` lies in (the array that owns it, flat, in memory order)
    and where ``x`` starts in it: after a resize that shrank a tensor, its memory is still
    the block it had."""
    root, _, _ = live_aliases(x)
    block = (x if root is None else root)._data
    while isinstance(block.base, np.ndarray):
        block = block.base
    if not (block.flags.c_contiguous or block.flags.f_contiguous):  # x's elements, copied
        return np.ascontiguousarray(x._data).reshape(-1), 0
    flat = block.reshape(-1, order="C" if block.flags.c_contiguous else "F")
    address = x._data.__array_interface__["data"][0] - block.__array_interface__["data"][0]
    return flat, address // block.itemsize if x._data.size else 0


def _laid_out(x: Tensor, shape: tuple, strides: tuple) -> np.ndarray:
    """``x``'s memory from where ``x`` starts, as an array of ``shape`` and ``strides`` (in
    elements); new memory (the old elements, then zeros) where it does not hold enough."""
    n = math.prod(shape)
    flat, start = _memory(x)
    if start + n > flat.size:
        grown = np.zeros(n, dtype=flat.dtype)
        grown[: flat.size - start] = flat[start:]
        flat, start = grown, 0
        x._view_base, x._views = None, None  # the others keep the old memory
    outer_first = sorted(range(len(shape)), key=lambda d: -strides[d])
    physical = flat[start : start + n].reshape([shape[d] for d in outer_first])
    return physical.transpose(np.argsort(outer_first))


def _given(size: tuple, op: str) -> tuple:
    if not size:
        raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
    return size


def resize_(self: Tensor, *size: Any, memory_format: Any = None) -> Tensor:
    """Give this tensor the shape ``size``, in place, over the memory it starts in (its
    elements taken in memory order; new memory, zero-filled past the old end, where it
    grows beyond it).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.arange(6.0)
    >>> x.resize_(2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    >>> x.resize_(7)
    tensor([0., 1., 2., 3., 4., 5., 0.])
    """
    shape = _shape(_given(size, "resize_"), "resize_")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    fmt = checked(memory_format, "resize_")
    if fmt is None and shape == tuple(self.shape):  # nothing changes, not even the strides
        return self
    strides = format_strides(contiguous_format if fmt is None else fmt, shape)
    if is_meta(self._data):
        self._data = meta_array(shape, self._data.dtype, strides)
    else:
        self._data = _laid_out(self, shape, strides)
    self._counter.value += 1
    return self


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """Give ``input`` the shape of ``the_template``, in place (see :meth:`Tensor.resize_`).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.resize_as_(symgrad.arange(6.0), symgrad.zeros(2, 2))
    tensor([[0., 1.],
            [2., 3.]])
    """
    if type(input) is not Tensor:
        require_tensor("resize_as_", "input", 1, input)
    if type(the_template) is not Tensor:
        require_tensor("resize_as_", "the_template", 2, the_template)
    fmt = checked(memory_format, "resize_as_")
    return resize_(input, the_template.shape, memory_format=None if fmt is preserve_format else fmt)


def _resize_as_method(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    if type(the_template) is not Tensor:
        require_tensor("resize_as_", "the_template", 1, the_template)
    return resize_as_(self, the_template, memory_format=memory_format)


def _reshaped(x: Tensor, shape: tuple, op: str, given: bool = True) -> Tensor:
    warnings.warn(f"non-inplace {op} is deprecated", UserWarning, stacklevel=3)
    n = math.prod(shape)
    if n != x.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, shape))} ({n} elements in total), but the "
            f"given tensor has a size of {'x'.join(map(str, x.shape))} ({x.numel()} elements). "
            "autograd's resize can only change the shape of a given tensor, while preserving "
            "the number of elements. "
        )
    if not given:  # PyTorch's resize ends in view(), which takes no empty size
        raise TypeError(
            "view() received an invalid combination of arguments - got (), but "
            "expected one of:\n * (symgrad.dtype dtype)\n * (tuple of ints size)"
        )
    return _RESIZE(x, shape=shape)


def resize(self: Tensor, *sizes: Any) -> Tensor:
    """This tensor's elements, in order, in the shape ``sizes`` (the same number of them):
    deprecated, it warns; prefer :meth:`Tensor.reshape`.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.arange(4.0).resize(2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    return _reshaped(self, _shape(sizes, "view"), "resize", given=bool(sizes))


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """This tensor's elements in the shape of ``tensor``: deprecated, it warns; prefer
    :meth:`Tensor.reshape_as`.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.arange(2.0).resize_as(symgrad.zeros(1, 2))
    tensor([[0., 1.]])
    """
    return _reshaped(self, tuple(tensor.size()), "resize_as")


_resize_as_method.__name__ = _resize_as_method.__qualname__ = "resize_as_"
_resize_as_method.__doc__ = resize_as_.__doc__
bind_methods(
    {
        "resize_": resize_,
        "resize_as_": _resize_as_method,
        "resize": resize,
        "resize_as": resize_as,
    }
)
