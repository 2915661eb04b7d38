"""Finite differences and integrals of samples: ``diff``, ``gradient``, ``trapezoid``
(``trapz``) and ``cumulative_trapezoid``, composed of slices, sums and products as PyTorch
records them (``SubBackward0`` of two ``SliceBackward0`` for ``diff``, ``CatBackward0`` of the
edge and interior quotients for ``gradient``), so closed forms come from their parts."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_int, require_tensor
from symgrad._data import _wrap_dim
from symgrad.ops.derivatives import _divided, _scaled
from symgrad.ops.joining import cat
from symgrad.tensor import Tensor

__all__ = ["diff", "gradient", "trapezoid", "trapz", "cumulative_trapezoid"]


def _slice(t: Tensor, dim: int, start: int, stop: int | None = None) -> Tensor:
    key = (slice(None),) * dim + (slice(start, stop),)
    return t[key]


def diff(
    input: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    """The ``n``-th forward difference along ``dim``: ``out[i] = input[i + 1] - input[i]``,
    after joining ``prepend`` and ``append`` to ``input`` (bools give their xor).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.diff(symgrad.tensor([1.0, 4.0, 9.0, 16.0]))
    tensor([3., 5., 7.])
    >>> symgrad.diff(symgrad.tensor([1.0, 4.0, 9.0, 16.0]), n=2)
    tensor([2., 2.])
    """
    if type(input) is not Tensor:
        require_tensor("diff", "input", 1, input)
    if type(n) is not int:
        require_int("diff", "n", n)
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional, got a 0-d tensor")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.ndim)
    pieces = [t for t in (prepend, input, append) if t is not None]
    x = cat(pieces, d) if len(pieces) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        after, before = _slice(x, d, 1), _slice(x, d, 0, length - 1)
        x = after ^ before if x.dtype.name == "bool" else after - before
    return x


def _spacings(spacing: Any, dims: list, ndim: int) -> list:
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(
                f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                f"and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}."
            )
        values = list(spacing)
    else:
        values = [spacing] * len(dims)
    for h in values:
        if isinstance(h, Tensor) and h.ndim > 0:
            raise NotImplementedError(
                "gradient: coordinates given as tensors are not supported yet; give the "
                "uniform spacing as a number for each dimension"
            )
    return [float(h.item() if isinstance(h, Tensor) else h) for h in values]


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:
    """The derivative of samples ``input`` along each of ``dim`` (all by default), by central
    differences inside and one-sided ones (first or second order) at the edges.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.gradient(symgrad.tensor([1.0, 4.0, 9.0, 16.0]))
    (tensor([3., 4., 6., 7.]),)
    >>> symgrad.gradient(symgrad.tensor([1.0, 4.0, 9.0, 16.0]), edge_order=2)
    (tensor([2., 4., 6., 8.]),)
    """
    if type(input) is not Tensor:
        require_tensor("gradient", "input", 1, input)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dim is None:
        dims = list(range(input.ndim))
    else:
        dims = [
            _wrap_dim(d, input.ndim) for d in (dim if isinstance(dim, (list, tuple)) else [dim])
        ]
    steps = _spacings(spacing, dims, input.ndim)
    return tuple(_gradient_along(input, d, h, edge_order) for d, h in zip(dims, steps))


def _gradient_along(x: Tensor, d: int, h: float, edge_order: int) -> Tensor:
    n = x.shape[d]
    if n < edge_order + 1:
        raise RuntimeError(
            f"torch.gradient expected each dimension size to be at least edge_order+1, got "
            f"size {n} along dimension {d}"
        )
    interior = _divided(_divided(_slice(x, d, 2) - _slice(x, d, 0, n - 2), 2.0), h)
    if edge_order == 1:
        first = _divided(_slice(x, d, 1, 2) - _slice(x, d, 0, 1), h)
        last = _divided(_slice(x, d, n - 1) - _slice(x, d, n - 2, n - 1), h)
    else:
        a, b, c = (_slice(x, d, k, k + 1) for k in range(3))
        first = _divided(_scaled(a, -1.5) + _scaled(b, 2.0) - _scaled(c, 0.5), h)
        a, b, c = (_slice(x, d, k, k + 1) for k in (n - 3, n - 2, n - 1))
        last = _divided(_scaled(a, 0.5) - _scaled(b, 2.0) + _scaled(c, 1.5), h)
    return cat([first, interior, last], d)


def _along(y: Tensor, x: Tensor, d: int) -> Tensor:
    """``x`` as a tensor that broadcasts against ``y``: a 1-d ``x`` lies along ``d``."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(
                f"trapezoid: There must be one `x` value for each sample point, but got "
                f"{x.shape[0]} values for {y.shape[d]} samples along dimension {d}"
            )
        shape = [1] * y.ndim
        shape[d] = x.shape[0]
        return x.view(tuple(shape))
    return x


def _refuse_bools(op: str, y: Tensor, x: Any) -> None:
    """PyTorch integrates no bool samples or points."""
    if isinstance(x, Tensor):
        if y.dtype.category == 0 or x.dtype.category == 0:
            raise RuntimeError(
                f"{op}: received a bool input for `x` or `y`, but bool is not supported"
            )
    elif y.dtype.category == 0:
        raise RuntimeError(f"{op}: received a bool input for `y`, but bool is not supported")


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The integral of samples ``y`` along ``dim`` by the trapezoidal rule, at points ``x`` or
    spaced ``dx`` apart (1 by default).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.trapezoid(symgrad.tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    >>> symgrad.trapezoid(symgrad.tensor([1.0, 2.0, 3.0]), symgrad.tensor([0.0, 1.0, 3.0]))
    tensor(6.5000)
    """
    if type(y) is not Tensor:
        require_tensor("trapezoid", "y", 1, y)
    if isinstance(x, Tensor) and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx; give one of them")
    _refuse_bools("trapezoid", y, x)
    d = _wrap_dim(dim, max(y.ndim, 1))
    if isinstance(x, Tensor):
        if y.shape[d] == 0:
            return _zeros_without(y, d)
        xs = _along(y, x, d)
        n = xs.shape[d]
        widths = _slice(xs, d, 1) - _slice(xs, d, 0, n - 1)
        m = y.shape[d]
        return _divided(((_slice(y, d, 1) + _slice(y, d, 0, m - 1)) * widths).sum(d), 2.0)
    step = _step(x, dx)
    if y.shape[d] == 0:
        return _zeros_without(y, d)
    ends = y[(slice(None),) * d + (0,)] + y[(slice(None),) * d + (-1,)]
    return _scaled(y.sum(d) - _scaled(ends, 0.5), step)


def _zeros_without(y: Tensor, d: int) -> Tensor:
    """PyTorch's integral over no samples: zeros, with no graph."""
    shape = tuple(n for k, n in enumerate(y.shape) if k != d)
    return Tensor._make(np.zeros(shape, dtype=y._data.dtype))


def _step(x: Any, dx: Any) -> float:
    step = 1 if x is None and dx is None else (dx if dx is not None else x)
    return float(step.item() if isinstance(step, Tensor) else step)


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """PyTorch's older name of :func:`trapezoid`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.trapz(symgrad.tensor([1.0, 2.0, 3.0]), dx=0.5)
    tensor(2.)
    """
    if type(y) is not Tensor:
        require_tensor("trapz", "y", 1, y)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running integrals of samples ``y`` along ``dim`` by the trapezoidal rule (one
    fewer than the samples).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.cumulative_trapezoid(symgrad.tensor([1.0, 2.0, 3.0]))
    tensor([1.5000, 4.0000])
    """
    if type(y) is not Tensor:
        require_tensor("cumulative_trapezoid", "y", 1, y)
    if isinstance(x, Tensor) and dx is not None:
        raise RuntimeError("cumulative_trapezoid: received both x and dx; give one of them")
    _refuse_bools("cumulative_trapezoid", y, x)
    d = _wrap_dim(dim, max(y.ndim, 1))
    m = y.shape[d]
    sums = _slice(y, d, 1) + _slice(y, d, 0, m - 1)
    if isinstance(x, Tensor):
        xs = _along(y, x, d)
        widths = _slice(xs, d, 1) - _slice(xs, d, 0, xs.shape[d] - 1)
        return _divided(widths * sums, 2.0).cumsum(d)
    return _scaled(sums, _step(x, dx) / 2.0).cumsum(d)
