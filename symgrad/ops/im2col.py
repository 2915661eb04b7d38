"""``unfold`` and ``fold`` of :mod:`symgrad.nn.functional` as two primitives (PyTorch's
``Im2ColBackward0`` and ``Col2ImBackward0``): the sliding windows of an image as columns
("im2col") and the columns added back into an image ("col2im"). They are the two halves of
a convolution (:mod:`symgrad.ops.convolution`), declared from its pieces; each one's VJP is
the other. Both take an unbatched input too (no batch dimension in or out, one node).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.ops.conv_columns import window_view
from symgrad.ops.convolution import Geometry, col2im, columns
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES

__all__ = ["im2col", "col2im_node"]


def _unfold(xp: Any, x: Any, geo: Geometry) -> Any:
    batched = x.ndim == 4
    if not batched:
        x = xp.reshape(x, (1,) + tuple(x.shape))
    n, c = x.shape[0], x.shape[1]
    cols = xp.reshape(columns(xp, x, geo), (n, c * math.prod(geo.kernel), math.prod(geo.out)))
    return cols if batched else xp.reshape(cols, tuple(cols.shape[1:]))


def _unfold_kernel(xp: Any, x: np.ndarray, geo: Geometry) -> np.ndarray:
    """The windows as a strided view, copied once into the columns."""
    x4 = x if x.ndim == 4 else x[None]
    n, c = x4.shape[:2]
    view = window_view(x4, geo).transpose(0, 1, 4, 5, 2, 3)  # (N, C, *kernel, *out)
    cols = view.reshape(n, c * math.prod(geo.kernel), math.prod(geo.out))
    return cols if x.ndim == 4 else cols[0]


def _fold(xp: Any, cols: Any, geo: Geometry) -> Any:
    batched = cols.ndim == 3
    if not batched:
        cols = xp.reshape(cols, (1,) + tuple(cols.shape))
    n, c = cols.shape[0], cols.shape[1] // math.prod(geo.kernel)
    blocks = xp.reshape(cols, (n, c) + geo.kernel + geo.out)
    out = col2im(xp, blocks, (n, c), geo)
    return out if batched else xp.reshape(out, tuple(out.shape[1:]))


def _fold_kernel(xp: Any, cols: np.ndarray, geo: Geometry) -> np.ndarray:
    """Each kernel position's column added into its strided slice of one padded image."""
    c3 = cols if cols.ndim == 3 else cols[None]
    n, c = c3.shape[0], c3.shape[1] // math.prod(geo.kernel)
    blocks = c3.reshape((n, c) + geo.kernel + geo.out)
    padded = np.zeros((n, c) + geo.padded, dtype=cols.dtype)
    for pos in np.ndindex(*geo.kernel):
        key = tuple(
            slice(k * dil, k * dil + s * (m - 1) + 1, s)
            for k, dil, s, m in zip(pos, geo.dilation, geo.stride, geo.out)
        )
        padded[(slice(None), slice(None)) + key] += blocks[(slice(None), slice(None)) + pos]
    out = np.ascontiguousarray(padded[geo.inner()])
    return out if cols.ndim == 3 else out[0]


def _unfold_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (_fold(xp, g, c.params["geo"]),)


def _fold_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (_unfold(xp, g, c.params["geo"]),)


def _batch_rule(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """Inside ``vmap``: an unbatched input with the batch in front is a batched one; a
    batched one gets the batch folded into its own."""
    p = args[0]._physical
    image = prim is _IM2COL
    if p.ndim == (4 if image else 3):
        return prim(p, **params)
    out = prim(p.reshape((-1,) + tuple(p.shape[2:])), **params)
    return out.reshape(tuple(p.shape[:2]) + tuple(out.shape[1:]))


_IM2COL = Structural(
    "im2col",
    _unfold,
    _unfold_vjp,
    backward="Im2ColBackward0",
    kernel=_unfold_kernel,
    jvp="linear",
    text=COPIES,
    batch=_batch_rule,
)
_COL2IM = Structural(
    "col2im",
    _fold,
    _fold_vjp,
    backward="Col2ImBackward0",
    kernel=_fold_kernel,
    jvp="linear",
    batch=_batch_rule,
)


def im2col(x: Any, geo: Geometry) -> Any:
    """The ``Im2ColBackward0`` node of a checked ``(N, C, H, W)`` or ``(C, H, W)`` input:
    ``(N, C * kH * kW, L)`` (or without ``N``)."""
    return _IM2COL(x, geo=geo)


def col2im_node(cols: Any, geo: Geometry) -> Any:
    """The ``Col2ImBackward0`` node of checked columns ``(N, C * kH * kW, L)`` (or without
    ``N``) summed into ``(N, C, H, W)`` of ``geo``."""
    return _COL2IM(cols, geo=geo)
