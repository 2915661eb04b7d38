"""Adaptive pooling of :mod:`symgrad.nn.functional`: average and max pooling of 1, 2 or 3
spatial dimensions to a given output size, output ``i`` of a dimension of ``n`` inputs and
``o`` outputs covering inputs ``floor(i n / o)`` to ``ceil((i + 1) n / o)``. PyTorch's checks
and messages, in its order (the average's and the maximum's differ), its node names, and its
shortcuts: an average to size 1 is a mean (``MeanBackward1``), 1-d pooling is 2-d pooling of
``input.unsqueeze(-2)`` ending in ``SqueezeBackward1``."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad.nn.pooling import _window_maxima
from symgrad.ops.pooling import pool_matrices
from symgrad.prim import batching as _batching
from symgrad.tensor import Tensor

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
]

_KERNELS = {
    ("avg", 2): "adaptive_avg_pool2d",
    ("avg", 3): "adaptive_avg_pool3d_cpu",
    ("max", 2): "adaptive_max_pool2d",
    ("max", 3): "adaptive_max_pool3d_cpu",
}


# -- arguments ------------------------------------------------------------------------------------
def _with_default(output_size: Any, input: Any) -> Any:
    """``None`` entries of a sequence ``output_size`` replaced by the input's sizes."""
    if isinstance(output_size, int):
        return output_size
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'size'")
    if input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    tail = input.shape[input.ndim - len(output_size) :]
    return [n if o is None else o for o, n in zip(output_size, tail)]


def _ints(output_size: Any, d: int, op: str) -> tuple:
    """``output_size`` as PyTorch's argument parser reads an int list: one int for all."""
    where = f"{op}(): argument 'output_size' (position 2) must be tuple of ints"
    if isinstance(output_size, bool) or not isinstance(output_size, (int, list, tuple)):
        raise TypeError(f"{where}, not {type(output_size).__name__}")
    if isinstance(output_size, int):
        return (output_size,) * d
    sizes = []
    for pos, o in enumerate(output_size):
        try:
            sizes.append(operator.index(o))
        except TypeError:
            raise TypeError(
                f"{where}, but found element of type {type(o).__name__} at pos {pos}"
            ) from None
    return tuple(sizes)


def _check_nonempty(input: Tensor, dims: Any, op: str) -> None:
    for i in dims:
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {i % input.ndim} being empty"
            )


def _check_floating(input: Tensor, kind: str, d: int) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{_KERNELS[kind, d]}\" not implemented for '{input.dtype.scalar_type}'"
        )


def _windows(n: int, o: int) -> np.ndarray:
    """The ``(o, span)`` input positions of each output's window (short ones repeat their
    last position)."""
    starts = np.arange(o) * n // o
    ends = -(-(np.arange(o) + 1) * n // o)
    span = int((ends - starts).max()) if o else 1
    return np.minimum(starts[:, None] + np.arange(span), ends[:, None] - 1)


# -- average --------------------------------------------------------------------------------------
def _adaptive_avg(d: int, input: Any, output_size: Any) -> Tensor:
    op = f"adaptive_avg_pool{d}d"
    sizes = _ints(_with_default(output_size, input), d, op)
    if not isinstance(input, Tensor):
        require_tensor(op, "input", 1, input)
    if len(sizes) != d:
        raise RuntimeError(f"{op}: output_size must be {d}")
    if any(o < 0 for o in sizes):
        shown = ", ".join(map(str, sizes[:2])) + "".join(f",{o}" for o in sizes[2:])
        raise RuntimeError(
            f"{op}: elements of output_size must be greater than or equal to 0 but received "
            f"{{{shown}}}"
        )
    if all(o == 1 for o in sizes):  # PyTorch's shortcut, with no further checks
        return input.mean(tuple(range(-1, -d - 1, -1)), keepdim=True)  # (its dims' order)
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"{op}(): Expected {d + 1}D or {d + 2}D tensor, but got {list(input.shape)}"
        )
    _check_nonempty(input, range(-2, 0) if d == 2 else range(1, input.ndim), op)
    _check_floating(input, "avg", d)
    matrices = []
    for n, o in zip(input.shape[-d:], sizes):
        m = np.zeros((o, n))
        for i, row in enumerate(_windows(n, o)):
            lo, hi = row[0], row[-1] + 1
            m[i, lo:hi] = 1.0 / (hi - lo)
        matrices.append(m)
    name = f"AdaptiveAvgPool{d}DBackward0"
    return pool_matrices(input, tuple(matrices), name, reads_input=True)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a given output size: output ``i`` averages inputs
    ``floor(i n / o)`` to ``ceil((i + 1) n / o)`` (the mean over ``H, W`` for output 1;
    ``None`` keeps a size).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.adaptive_avg_pool2d(symgrad.arange(6.0).reshape(1, 2, 3), (1, 2))
    tensor([[[2., 3.]]])
    """
    return _adaptive_avg(2, input, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Adaptive average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to
    ``output_size`` (an int, or three ints or ``None`` to keep a size); node
    ``AdaptiveAvgPool3DBackward0``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.adaptive_avg_pool3d(symgrad.arange(8.0).reshape(1, 2, 2, 2), (2, 1, 1))
    tensor([[[[1.5000]],
    <BLANKLINE>
             [[5.5000]]]])
    """
    return _adaptive_avg(3, input, output_size)


def _one_int(output_size: Any, op: str) -> int:
    size = _ints(output_size, 1, op)
    if len(size) != 1:
        raise RuntimeError(
            f"{op}() argument 'output_size' should contain one int (got {len(size)})"
        )
    return size[0]


def _check_1d(input: Any, op: str) -> None:
    if not isinstance(input, Tensor):
        require_tensor(op, "input", 1, input)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            f"#1 'self' (while checking arguments for {op})"
        )


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Adaptive average pooling of ``(N, C, L)`` or ``(C, L)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.adaptive_avg_pool1d(symgrad.tensor([[1.0, 2.0, 3.0, 5.0]]), 2)
    tensor([[1.5000, 4.0000]])
    """
    size = _one_int(output_size, "adaptive_avg_pool1d")
    _check_1d(input, "adaptive_avg_pool1d")
    return _adaptive_avg(2, input.unsqueeze(-2), (1, size)).squeeze(-2)


# -- maximum --------------------------------------------------------------------------------------
def _adaptive_max(d: int, input: Any, output_size: Any, op: str | None = None) -> tuple:
    """The maxima and their flat indices in each plane."""
    op = op or f"adaptive_max_pool{d}d"
    sizes = _ints(_with_default(output_size, input), d, op)
    if not isinstance(input, Tensor):
        require_tensor(op, "input", 1, input)
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"{op}(): Expected {d + 1}D or {d + 2}D tensor, but got: {list(input.shape)}"
        )
    _check_nonempty(input, range(1, input.ndim), op)
    if len(sizes) != d:
        raise RuntimeError(f"{op}(): internal error: output_size.size() must be {d}")
    if any(o < 0 for o in sizes):
        shape = list(input.shape[:-d]) + list(sizes)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {shape}")
    _check_floating(input, "max", d)
    index = [_windows(n, o) for n, o in zip(input.shape[-d:], sizes)]
    name = f"AdaptiveMaxPool{d}DBackward0"
    return _batching.on_storage(input, lambda x: _window_maxima(x, index, name))


def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple:
    """:func:`adaptive_max_pool2d` with its indices, always: ``(maxima, indices)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.adaptive_max_pool2d_with_indices(symgrad.tensor([[[1.0, 4.0], [3.0, 2.0]]]), 1)
    (tensor([[[4.]]]), tensor([[[1]]]))
    """
    return _adaptive_max(2, input, output_size)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum of each adaptive window (see :func:`adaptive_avg_pool2d`); the gradient
    goes to each window's first maximum (a NaN wins); ``return_indices`` also gives their flat
    positions in the ``H * W`` plane.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.adaptive_max_pool2d(symgrad.tensor([[[1.0, 4.0, 0.0], [3.0, 2.0, 5.0]]]), (1, 2))
    tensor([[[4., 5.]]])
    """
    out = _adaptive_max(2, input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple:
    """:func:`adaptive_max_pool3d` with its indices, always: ``(maxima, indices)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.adaptive_max_pool3d_with_indices(symgrad.arange(8.0).reshape(1, 2, 2, 2), 1)
    (tensor([[[[7.]]]]), tensor([[[[7]]]]))
    """
    return _adaptive_max(3, input, output_size)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Adaptive max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (node
    ``AdaptiveMaxPool3DBackward0``); indices are flat positions in the ``D * H * W`` volume.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.adaptive_max_pool3d(symgrad.arange(8.0).reshape(1, 2, 2, 2), (2, 1, 1))
    tensor([[[[3.]],
    <BLANKLINE>
             [[7.]]]])
    """
    out = _adaptive_max(3, input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple:
    """:func:`adaptive_max_pool1d` with its indices, always: ``(maxima, indices)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.adaptive_max_pool1d_with_indices(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    (tensor([[3., 2.]]), tensor([[1, 2]]))
    """
    op = "adaptive_max_pool1d"
    size = _one_int(output_size, op)
    _check_1d(input, op)
    _check_nonempty(input, range(1, input.ndim), op)
    out, indices = _adaptive_max(2, input.unsqueeze(-2), (1, size), op)
    return out.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Adaptive max pooling of ``(N, C, L)`` or ``(C, L)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.adaptive_max_pool1d(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[3., 2.]])
    """
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]
