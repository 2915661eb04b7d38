"""Copies that stay in the graph, laid out in a memory format: ``clone`` and ``contiguous``;
and the copy clamped below whose gradient passes through unchanged (``clamped_copy``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import _memory_format as formats
from symgrad._arguments import require_tensor
from symgrad._lazy import sympy as sp
from symgrad._memory_format import contiguous_format, preserve_format
from symgrad.prim.elementwise import Elementwise
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor

__all__ = ["clone", "contiguous"]


def _copy(xp: Any, a: Any, order: str = "K", strides: tuple | None = None) -> Any:
    return a.copy(order=order) if strides is None else formats.copy_strided(a, strides)


_CLONE = Structural(
    "clone",
    lambda xp, a, order="K", strides=None: a.copy(order=order),
    lambda xp, g, c: (g,),
    kernel=_copy,
    jvp="linear",
    text=COPIES,
    batch="reduction",
)


def clone(input: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
    """A copy that stays in the graph (gradients flow back to ``input``), laid out in
    ``memory_format``: by default ``input``'s own layout, as PyTorch's ``preserve_format``
    (its strides where its elements fill a block, else dense strides in the same order).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, 3, requires_grad=True)
    >>> x.t().clone().is_contiguous(), x.clone().grad_fn
    (False, <CloneBackward0 object at ...>)
    >>> x.reshape(1, 2, 3, 1).clone(memory_format=symgrad.channels_last).stride()
    (6, 1, 2, 2)
    """
    if type(input) is not Tensor:
        require_tensor("clone", "input", 1, input)
    fmt = formats.checked(memory_format, "clone")
    if fmt in (None, preserve_format):
        data = input._data
        if not isinstance(data, np.ndarray) or data.flags.c_contiguous:  # (or batched: vmap)
            return _CLONE(input)
        return _CLONE(input, strides=formats.target_strides(data, fmt))
    return _CLONE(input, strides=formats.format_strides(fmt, input.shape))


def contiguous(input: Tensor, *, memory_format: Any = contiguous_format) -> Tensor:
    """``input`` itself when its elements lie in ``memory_format``'s order (row-major by
    default), else such a copy (``CloneBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, 3, requires_grad=True)
    >>> x.contiguous() is x, x.t().contiguous().grad_fn
    (True, <CloneBackward0 object at ...>)
    """
    fmt = formats.checked(memory_format, "contiguous", none=False)
    if fmt is contiguous_format:
        return input if input._data.flags.c_contiguous else _CLONE(input, order="C")
    if input.is_contiguous(memory_format=fmt):
        return input
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _CLONE(input, strides=formats.format_strides(fmt, input.shape))


# max(x, low): only a value here, never differentiated (clamped_copy passes the gradient through)
_AT_LEAST = Elementwise(
    "at_least",
    "x",
    lambda x, low: sp.Max(x, low),
    params="low",
    kernel=lambda v, low: np.maximum(v, low),
)


def _clamped_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """PyTorch's forward rule of the clamp, which forward mode sees under ``no_grad`` too:
    the tangent where the input is at least ``low``, 0 where it was clamped."""
    x = c.inputs[0]
    kept = np.asarray(getattr(x, "_data", x)) >= c.params["low"]
    return xp.where(xp.constant(kept), tangents[0], 0.0)


_CLAMPED_CLONE = Structural(
    "clone",
    lambda xp, a, low: xp.elementwise(_AT_LEAST, (a,), (low,)),
    lambda xp, g, c: (g,),  # the clamp ran under no_grad: the gradient passes through
    jvp=_clamped_jvp,
    batch="reduction",
)


def clamped_copy(input: Tensor, low: float) -> Tensor:
    """``input.clone()`` then ``clamp_(min=low)`` under ``no_grad``, as PyTorch's functions
    write a denominator kept away from 0: the value is clamped, the gradient passes through
    (``CloneBackward0``), the tangent is the clamp's (0 where clamped: forward mode ignores
    ``no_grad``), and closed forms read the clamped value, ``Max(input, low)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.ops.copies import clamped_copy
    >>> x = symgrad.tensor([0.0, 2.0], requires_grad=True)
    >>> y = clamped_copy(x, 0.5)
    >>> y, y.grad_fn
    (tensor([0.5000, 2.0000], grad_fn=<CloneBackward0>), <CloneBackward0 object at ...>)
    """
    return _CLAMPED_CLONE(input, low=low)
