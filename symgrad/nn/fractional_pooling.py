"""Fractional max pooling of :mod:`symgrad.nn.functional` (Graham, 2014): the maximum of
``kernel_size`` windows placed at pseudo-random steps, each plane's steps drawn from its own
samples ``u`` in ``[0, 1)``: along a dimension of ``n`` inputs and ``o`` outputs, window ``i``
starts at ``floor((i + u) a) - floor(u a)`` with ``a = (n - k) / (o - 1)``, the last at
``n - k``, computed in the input's precision as PyTorch's CPU kernel computes it. Passing the
same ``_random_samples`` as to PyTorch gives PyTorch's values, indices and gradients."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import creation
from symgrad._arguments import require_tensor
from symgrad.nn.pooling import _window_maxima
from symgrad.tensor import Tensor

__all__ = [
    "fractional_max_pool2d",
    "fractional_max_pool3d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d_with_indices",
]

_DIMS = {2: ("height", "width"), 3: ("time", "height", "width")}


def _ints(value: Any, d: int, what: str, op: str) -> tuple:
    values = tuple(value) if isinstance(value, (list, tuple)) else (value,) * d
    if len(values) == 1:
        values = values * d
    if len(values) != d:
        raise RuntimeError(f"{op}: {what} must either be a single Int or tuple of Ints")
    return tuple(int(v) for v in values)


def _sizes(d: int, input: Any, output_size: Any, output_ratio: Any) -> Any:
    """PyTorch's Python-level choice of the output size."""
    op = f"fractional_max_pool{d}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return output_size
    if d == 2:
        if len(output_ratio) > 2:  # a bare float has no len() in PyTorch's code either
            raise ValueError(
                f"{op} requires output_ratio to either be a single Int or tuple of Ints."
            )
    ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,)
    ratio = ratio * d if len(ratio) == 1 else ratio
    return [int(n * r) for n, r in zip(input.shape[-d:], ratio)]


def _check(d: int, input: Tensor, k: tuple, out: tuple, samples: Tensor) -> None:
    """PyTorch's checks of the input, the sizes and the samples, in its order."""
    op = "fractional_max_pool2d()" if d == 2 else "fractional_max_pool3d_out()"
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"{op}: Expected {d + 1}D or {d + 2}D tensor, but got: {list(input.shape)}"
        )
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{op}: Expected input to have non-zero size for non-batch dimensions, but "
                f"got{list(input.shape)} with dimension {i} being empty."
            )
    for name, n, kk, o in zip(_DIMS[d], input.shape[-d:], k, out):
        if o + kk - 1 > n or (d == 3 and o + kk - 1 == n):  # PyTorch's 3-d check is strict
            raise RuntimeError(f"{op}: pool {name} {kk} too large relative to input {name} {n}")
    if any(o < 0 for o in out):
        shape = list(input.shape[:-d]) + list(out)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {shape}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch = input.shape[0] if input.ndim == d + 2 else 1
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-d - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != d:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {d}; got {samples.shape[2]}.")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"fractional_max_pool{d}d_out_frame\" not implemented for '{input.dtype.scalar_type}'"
        )


def _starts(u: np.ndarray, n: int, o: int, k: int) -> np.ndarray:
    """Each plane's window starts along one dimension (``u``: the planes' samples), in the
    samples' floating type, truncated as C++ converts to int."""
    starts = np.empty(u.shape + (o,), dtype=np.int64)
    if o > 1:
        alpha = u.dtype.type(n - k) / u.dtype.type(o - 1)
        i = np.arange(o - 1).astype(u.dtype)
        u = u[..., None]
        starts[..., :-1] = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if o > 0:
        starts[..., -1] = n - k
    return starts


def _pool(d: int, input, kernel_size, output_size, output_ratio, _random_samples) -> tuple:
    op = f"fractional_max_pool{d}d"
    if not isinstance(input, Tensor):
        require_tensor(op, "input", 1, input)
    out = _sizes(d, input, output_size, output_ratio)
    k = _ints(kernel_size, d, "kernel_size", op)
    out = _ints(out, d, "output_size", op)
    samples = _random_samples
    if samples is None:
        batch = input.shape[0] if input.ndim == d + 2 else 1
        samples = creation.rand(batch, input.shape[-d - 1], d, dtype=input.dtype)
    _check(d, input, k, out, samples)
    u = samples._data[: input.shape[0]] if input.ndim == d + 2 else samples._data[0]
    # PyTorch's sample order: (W, H) for 2-d, (T, H, W) for 3-d
    order = (1, 0) if d == 2 else (0, 1, 2)
    index = [
        _starts(u[..., order[j]], n, o, kk)[..., None] + np.arange(kk)
        for j, (n, o, kk) in enumerate(zip(input.shape[-d:], out, k))
    ]
    shown = (("kernel_size", tuple(k)), ("output_size", tuple(out)))
    return _window_maxima(input, index, f"FractionalMaxPool{d}DBackward0", shown)


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple:
    """:func:`fractional_max_pool2d` with its indices, always: ``(maxima, indices)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.arange(16.0).reshape(1, 4, 4)
    >>> F.fractional_max_pool2d_with_indices(
    ...     x, 2, output_size=2, _random_samples=symgrad.tensor([[[0.5, 0.5]]]))
    (tensor([[[ 5.,  7.],
             [13., 15.]]]), tensor([[[ 5,  7],
             [13, 15]]]))
    """
    return _pool(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """The maximum of ``kernel_size`` windows of ``(N, C, H, W)`` or ``(C, H, W)`` at
    pseudo-random steps giving ``output_size`` (or ``output_ratio`` times the input size);
    ``_random_samples`` ``(N, C, 2)`` in ``[0, 1)`` fixes the steps (drawn when not given).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.arange(25.0).reshape(1, 5, 5)
    >>> F.fractional_max_pool2d(x, 2, output_size=3,
    ...                         _random_samples=symgrad.tensor([[[0.2, 0.7]]]))
    tensor([[[ 6.,  7.,  9.],
             [11., 12., 14.],
             [21., 22., 24.]]])
    """
    out = _pool(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple:
    """:func:`fractional_max_pool3d` with its indices, always: ``(maxima, indices)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.arange(27.0).reshape(1, 3, 3, 3)
    >>> F.fractional_max_pool3d_with_indices(
    ...     x, 2, output_size=1, _random_samples=symgrad.tensor([[[0.5, 0.5, 0.5]]]))
    (tensor([[[[26.]]]]), tensor([[[[26]]]]))
    """
    return _pool(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """Fractional max pooling of ``(N, C, T, H, W)`` or ``(C, T, H, W)`` (see
    :func:`fractional_max_pool2d`; ``_random_samples`` is ``(N, C, 3)``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.arange(27.0).reshape(1, 3, 3, 3)
    >>> F.fractional_max_pool3d(x, 2, output_size=1,
    ...                         _random_samples=symgrad.tensor([[[0.5, 0.5, 0.5]]]))
    tensor([[[[26.]]]])
    """
    out = _pool(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]
