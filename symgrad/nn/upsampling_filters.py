"""The resize matrices of :func:`symgrad.nn.functional.interpolate` built from filters:
``'bicubic'`` (Keys' cubic convolution, ``A = -0.75``, four taps whose source indices are
clamped to the border) and the anti-aliased modes (``antialias=True``: ``'bilinear'``,
``'bicubic'`` with Pillow's ``A = -0.5``, ``'lanczos'``), whose filter support widens by the
scale when downsampling and whose weights are normalized to sum to one.

Each function returns one constant ``(out, in)`` matrix for one spatial dimension, computed
as PyTorch's CPU kernels compute their indices and weights (``compute_indices_weights_cubic``,
``_compute_indices_min_size_weights_aa``), in the input's precision where they use it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["cubic_matrix", "antialias_matrix", "cubic_coefficients", "cubic_slopes"]


def _convolution1(x: Any, a: float, c: Callable) -> Any:
    """Keys' cubic on ``|x| <= 1``; ``c`` makes a constant of ``x``'s kind."""
    return (c(a + 2) * x - c(a + 3)) * x * x + c(1)


def _convolution2(x: Any, a: float, c: Callable) -> Any:
    """Keys' cubic on ``1 < |x| < 2``."""
    return ((c(a) * x - c(5 * a)) * x + c(8 * a)) * x - c(4 * a)


def cubic_coefficients(t: Any, c: Callable, a: float = -0.75) -> list:
    """The four tap weights at fraction ``t`` of the way from the second tap to the third
    (PyTorch's ``get_cubic_upsample_coefficients``); ``c`` makes a constant of ``t``'s kind
    (a NumPy scalar type, or an interpreter's ``constant``).

    Examples
    --------
    >>> import numpy as np
    >>> from symgrad.nn.upsampling_filters import cubic_coefficients
    >>> [float(w) for w in cubic_coefficients(np.float64(0.5), np.float64)]
    [-0.09375, 0.59375, 0.59375, -0.09375]
    """
    return [
        _convolution2(t + c(1), a, c),
        _convolution1(t, a, c),
        _convolution1(c(1) - t, a, c),
        _convolution2(c(2) - t, a, c),
    ]


def cubic_slopes(t: Any, c: Callable, a: float = -0.75) -> list:
    """The derivatives of :func:`cubic_coefficients` with respect to ``t``.

    Examples
    --------
    >>> import numpy as np
    >>> from symgrad.nn.upsampling_filters import cubic_slopes
    >>> [float(w) for w in cubic_slopes(np.float64(0.0), np.float64)]
    [-0.75, -0.0, 0.75, 0.0]
    """

    def slope1(x: Any) -> Any:
        return (c(3 * (a + 2)) * x - c(2 * (a + 3))) * x

    def slope2(x: Any) -> Any:
        return (c(3 * a) * x - c(10 * a)) * x + c(8 * a)

    return [slope2(t + c(1)), slope1(t), c(0) - slope1(c(1) - t), c(0) - slope2(c(2) - t)]


def _scale(n: int, o: int, scale: float | None, align: bool, t: Any) -> Any:
    """PyTorch's ``area_pixel_compute_scale``: input steps per output step."""
    if align:
        return t(n - 1) / t(o - 1) if o > 1 else t(0)
    return t(1.0 / scale) if scale else t(n) / t(o)


def cubic_matrix(n: int, o: int, scale: float | None, align: bool, dtype: Any) -> np.ndarray:
    """``'bicubic'`` along one dimension of ``n`` inputs and ``o`` outputs (``scale``: the
    user's scale factor, None to take it from the sizes).

    Examples
    --------
    >>> import numpy as np
    >>> from symgrad.nn.upsampling_filters import cubic_matrix
    >>> cubic_matrix(2, 4, None, False, np.float64)
    array([[ 1.10546875, -0.10546875],
           [ 0.7734375 ,  0.2265625 ],
           [ 0.2265625 ,  0.7734375 ],
           [-0.10546875,  1.10546875]])
    """
    t = np.dtype(dtype).type
    s = _scale(n, o, scale, align, t)
    j = np.arange(o).astype(dtype)
    # unlike the linear modes, a cubic source position is not clipped at 0
    pos = s * j if align else s * (j + t(0.5)) - t(0.5)
    # PyTorch floors with floorf, in single precision
    lo = np.minimum(np.floor(pos.astype(np.float32)).astype(np.int64), n - 1)
    frac = np.clip(pos - lo.astype(dtype), 0, 1).astype(dtype)
    m = np.zeros((o, n), dtype=dtype)
    rows = np.arange(o)
    for k, w in enumerate(cubic_coefficients(frac, t)):
        np.add.at(m, (rows, np.clip(lo + k - 1, 0, n - 1)), w.astype(dtype))
    return m


def _linear_filter(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < 1, 1 - x, 0)


def _cubic_filter(x: np.ndarray) -> np.ndarray:
    x, c = np.abs(x), x.dtype.type
    near, far = _convolution1(x, -0.5, c), _convolution2(x, -0.5, c)  # Pillow's bicubic
    return np.where(x < 1, near, np.where(x < 2, far, 0))


def _lanczos_filter(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0)


AA_FILTERS: dict[str, tuple[Callable, int]] = {
    "bilinear": (_linear_filter, 2),
    "bicubic": (_cubic_filter, 4),
    "lanczos": (_lanczos_filter, 6),
}


def antialias_matrix(
    n: int, o: int, scale: float | None, align: bool, dtype: Any, mode: str
) -> np.ndarray:
    """``mode`` with ``antialias=True`` along one dimension of ``n`` inputs and ``o``
    outputs: every output averages the inputs within the filter's support around its centre,
    the support and the filter stretched by the scale when downsampling.

    Examples
    --------
    >>> import numpy as np
    >>> from symgrad.nn.upsampling_filters import antialias_matrix
    >>> antialias_matrix(4, 2, None, False, np.float64, "bilinear") * 7
    array([[3., 3., 1., 0.],
           [0., 1., 3., 3.]])
    """
    t = np.dtype(dtype).type
    filter_fn, taps = AA_FILTERS[mode]
    s = _scale(n, o, scale, align, t)
    support = t(taps * 0.5 * s) if s >= 1 else t(taps * 0.5)
    inverse = t(1.0 / float(s)) if s >= 1 else t(1)
    width = math.ceil(support) * 2 + 1
    # the centre is stored in the input's precision, the bounds computed in double
    centre = (float(s) * (np.arange(o) + 0.5)).astype(dtype).astype(np.float64)
    low = np.maximum(np.trunc(centre - float(support) + 0.5), 0).astype(np.int64)
    high = np.minimum(np.trunc(centre + float(support) + 0.5).astype(np.int64), n)
    count = np.clip(high - low, 0, width)
    k = np.arange(width)
    inside = k[None, :] < count[:, None]
    where = low[:, None] + k[None, :]
    x = ((where - centre[:, None] + 0.5) * float(inverse)).astype(dtype)
    w = np.where(inside, filter_fn(x), 0).astype(dtype)
    total = w.sum(axis=1, keepdims=True)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(dtype)
    m = np.zeros((o, n), dtype=dtype)
    rows = np.broadcast_to(np.arange(o)[:, None], w.shape)
    m[rows[inside], where[inside]] = w[inside]
    return m
