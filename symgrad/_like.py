"""The ``*_like`` factories: a new tensor with the shape, dtype, device and memory layout of
another (PyTorch's ``preserve_format`` by default: the other's strides where its elements fill
a block, else dense strides in the same order)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import _memory_format as formats
from symgrad._arguments import require_tensor
from symgrad._device import as_device
from symgrad._factory import _finish as finish
from symgrad._layout import fill_order, is_contiguous
from symgrad._memory_format import preserve_format
from symgrad._meta_draws import META_DRAWS
from symgrad.creation import _random_dtype as random_dtype
from symgrad.creation import full, ones, rand, randint, randn, zeros
from symgrad.random import normal_values, numpy_generator
from symgrad.tensor import Tensor

__all__ = [
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "rand_like",
    "randn_like",
    "randint_like",
]


def _like(input: Tensor, dtype: Any, device: Any, fn: str) -> tuple[tuple, Any, Any]:
    if type(input) is not Tensor:
        require_tensor(fn, "input", 1, input)
    # the input's device, not the default one, when no device is given
    device = as_device(input.device if device is None else device)
    return input.shape, input.dtype if dtype is None else dtype, device


def _strides(input: Tensor, memory_format: Any, fn: str) -> tuple | None:
    """The strides ``memory_format`` gives a new tensor like ``input`` (PyTorch's errors for a
    wrong type or rank, before anything is made)."""
    return formats.target_strides(input._data, formats.checked(memory_format, fn))


def _laid_out(t: Tensor, strides: tuple | None) -> Tensor:
    """``t`` (just made) laid out with ``strides`` (None: as it is)."""
    if strides is None or strides == formats.element_strides(t._data):
        return t
    return Tensor._make(formats.copy_strided(t._data, strides), requires_grad=t.requires_grad)


def _drawn(make: Callable, shape: tuple, strides: tuple | None) -> Tensor:
    """``make(shape)``, a tensor of random values, laid out with ``strides``: where these hold
    the elements in another order than row-major (a transposed input's), the values are drawn
    in that memory order, as PyTorch's kernels fill the new tensor."""
    order = None if strides is None else fill_order(tuple(shape), strides)
    if order is None:
        return _laid_out(make(tuple(shape)), strides)
    t = make(tuple(shape[d] for d in order))
    return Tensor._make(t._data.transpose(np.argsort(order)), requires_grad=t.requires_grad)


def zeros_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = preserve_format,
) -> Tensor:
    """Zeros with the shape, dtype and memory layout of ``input``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, 3)
    >>> symgrad.zeros_like(x.t()).stride(), symgrad.zeros_like(x, dtype=symgrad.int64)
    ((1, 3), tensor([[0, 0, 0],
            [0, 0, 0]]))
    """
    shape, d, device = _like(input, dtype, device, "zeros_like")
    strides = _strides(input, memory_format, "zeros_like")
    return _laid_out(zeros(shape, dtype=d, device=device, requires_grad=requires_grad), strides)


def ones_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = preserve_format,
) -> Tensor:
    """Ones with the shape, dtype and memory layout of ``input``."""
    shape, d, device = _like(input, dtype, device, "ones_like")
    strides = _strides(input, memory_format, "ones_like")
    return _laid_out(ones(shape, dtype=d, device=device, requires_grad=requires_grad), strides)


def empty_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = preserve_format,
) -> Tensor:
    """Zeros with the shape, dtype and memory layout of ``input`` (symgrad never hands out
    uninitialised memory)."""
    shape, d, device = _like(input, dtype, device, "empty_like")
    strides = _strides(input, memory_format, "empty_like")
    return _laid_out(zeros(shape, dtype=d, device=device, requires_grad=requires_grad), strides)


def full_like(
    input: Tensor,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = preserve_format,
) -> Tensor:
    """``fill_value`` with the shape, dtype and memory layout of ``input``."""
    shape, d, device = _like(input, dtype, device, "full_like")
    strides = _strides(input, memory_format, "full_like")
    made = full(shape, fill_value, dtype=d, device=device, requires_grad=requires_grad)
    return _laid_out(made, strides)


def rand_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = preserve_format,
) -> Tensor:
    """Uniform random values with the shape, dtype and memory layout of ``input``."""
    shape, d, device = _like(input, dtype, device, "rand_like")
    strides = _strides(input, memory_format, "rand_like")
    made = lambda s: rand(s, dtype=d, device=device, requires_grad=requires_grad)  # noqa: E731
    return _drawn(made, shape, strides)


def randn_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = preserve_format,
) -> Tensor:
    """Standard normal values with the shape, dtype and memory layout of ``input``."""
    shape, d, device = _like(input, dtype, device, "randn_like")
    strides = _strides(input, memory_format, "randn_like")
    if strides is None or is_contiguous(tuple(shape), strides):
        return randn(shape, dtype=d, device=device, requires_grad=requires_grad)
    # PyTorch's scalar kernel fills a tensor that is not contiguous, in its memory order
    kind = random_dtype(d, "randn")
    stream = META_DRAWS if device.type == "meta" else numpy_generator(None)
    values = normal_values(stream, tuple(shape), kind, 0.0, 1.0, strides)
    return finish(values, requires_grad, device=device)


def randint_like(
    input: Tensor,
    low: int,
    high: Any = None,
    *,
    memory_format: Any = preserve_format,
    **kwargs: Any,
) -> Tensor:
    """Random integers in ``[low, high)`` (``[0, low)`` when ``high`` is not given), with the
    shape, memory layout and, unless ``dtype`` is given, the dtype of ``input``.

    Examples
    --------
    >>> import symgrad
    >>> r = symgrad.randint_like(symgrad.zeros(3), 5)
    >>> r.shape, r.dtype, bool((r < 5).all())
    (symgrad.Size([3]), symgrad.float32, True)
    """
    if type(input) is not Tensor:
        require_tensor("randint_like", "input", 1, input)
    low, high = (0, low) if high is None else (low, high)
    kwargs.setdefault("dtype", input.dtype)
    strides = _strides(input, memory_format, "randint_like")
    return _drawn(lambda s: randint(low, high, s, **kwargs), tuple(input.shape), strides)
