"""The window functions of signal processing: ``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window`` and ``kaiser_window``.

As in PyTorch, a window is computed in its own floating dtype; a periodic window (the default)
of length ``N`` is the symmetric window of length ``N + 1`` without its last element, and a
window of length 1 is ``[1]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.creation import _check_device, _finish
from symgrad.tensor import Tensor

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


def _window(
    op: str,
    window_length: Any,
    periodic: bool,
    values: Callable[[np.ndarray, int], np.ndarray],
    dtype: Any,
    device: Any,
    requires_grad: bool,
) -> Tensor:
    """The window ``values(n, N)`` over the positions ``n`` (in the window's dtype) of a
    symmetric window of length ``N``."""
    on = _check_device(device)
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(
            f"{op}(): argument 'window_length' (position 1) must be int, not "
            f"{type(window_length).__name__}"
        )
    kind = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    if not kind.is_floating_point:
        raise RuntimeError(f"{op} expects floating point dtypes, got: {kind}")
    if window_length < 0:
        raise RuntimeError(
            f"{op} requires non-negative window_length, got window_length={window_length}"
        )
    if window_length <= 1:
        out = np.ones(window_length, dtype=kind.numpy)
    else:
        n = int(window_length) + (1 if periodic else 0)
        positions = np.arange(n, dtype=kind.numpy)
        with np.errstate(all="ignore"):
            out = np.asarray(values(positions, n), dtype=kind.numpy)[: int(window_length)]
    return _finish(np.ascontiguousarray(out), requires_grad, device=on)


def _cosine_sum(*weights: float) -> Callable[[np.ndarray, int], np.ndarray]:
    """``sum_k (-1)^k a_k cos(2 pi k n / (N - 1))``: the Hann, Hamming and Blackman windows."""

    def values(n: np.ndarray, length: int) -> np.ndarray:
        phase = n * n.dtype.type(2 * np.pi / (length - 1))
        total = np.full_like(n, weights[0])
        for k, a in enumerate(weights[1:], start=1):
            total = total + n.dtype.type((-1) ** k * a) * np.cos(phase * k)
        return total

    return values


def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    >>> symgrad.hann_window(3, periodic=False)
    tensor([0., 1., 0.])
    """
    return _window(
        "hann_window", window_length, periodic, _cosine_sum(0.5, 0.5), dtype, device, requires_grad
    )


def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hamming window ``alpha - beta cos(2 pi n / (N - 1))``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.hamming_window(3, periodic=False)
    tensor([0.0800, 1.0000, 0.0800])
    """
    rule = _cosine_sum(alpha, beta)
    return _window("hamming_window", window_length, periodic, rule, dtype, device, requires_grad)


def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.blackman_window(5, periodic=False)[1:4]
    tensor([0.3400, 1.0000, 0.3400])
    """
    rule = _cosine_sum(0.42, 0.5, 0.08)
    return _window("blackman_window", window_length, periodic, rule, dtype, device, requires_grad)


def _triangle(n: np.ndarray, length: int) -> np.ndarray:
    return 1 - np.abs(n * n.dtype.type(2 / (length - 1)) - 1)


def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Bartlett (triangular) window ``1 - |2 n / (N - 1) - 1|``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window(
        "bartlett_window", window_length, periodic, _triangle, dtype, device, requires_grad
    )


def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)``, ``I0`` the
    modified Bessel function of order 0.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.kaiser_window(3, periodic=False, beta=0.0)
    tensor([1., 1., 1.])
    """

    def values(n: np.ndarray, length: int) -> np.ndarray:
        x = n.astype(np.float64) * (2 / (length - 1)) - 1
        return np.i0(beta * np.sqrt(np.maximum(1 - x * x, 0))) / np.i0(beta)

    return _window("kaiser_window", window_length, periodic, values, dtype, device, requires_grad)
