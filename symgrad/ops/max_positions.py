"""Where each window's maximum is (max pooling), found on the numbers: the key ``pick``
reads the maxima with (its leading entries broadcast against the positions), and the
positions along the pooled dimensions (PyTorch's flat ``indices``)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

__all__ = ["first_maximum", "max_positions", "window_maximum"]


def max_positions(d: int, x: np.ndarray, k, s, p, dil, out) -> tuple:
    """The key of each window's first maximum in ``x`` and its positions along the last
    ``d`` dimensions (the key's leading entries broadcast against its positions)."""
    if tuple(s) == tuple(k) and not any(p) and all(dd == 1 for dd in dil):
        found = _tiled_maximum(d, x, k, out)
        if found is not None:
            return found
    lead = x.shape[:-d]
    spatial = x.shape[-d:]
    # windows over the input padded with -inf, far enough for every window
    pads = [
        (pp, max(0, (o - 1) * ss + dd * (kk - 1) + 1 - n - pp))
        for n, kk, pp, ss, dd, o in zip(spatial, k, p, s, dil, out)
    ]
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min  # integers: their least
    padded = np.pad(x, [(0, 0)] * len(lead) + pads, constant_values=low)
    span = tuple(dd * (kk - 1) + 1 for kk, dd in zip(k, dil))
    axes = tuple(range(len(lead), len(lead) + d))
    view = np.lib.stride_tricks.sliding_window_view(padded, span, axis=axes)
    view = view[(Ellipsis,) + tuple(slice(None, None, ss) for ss in s) + (slice(None),) * d]
    view = view[(Ellipsis,) + tuple(slice(None, None, dd) for dd in dil)]
    view = view[(Ellipsis,) + tuple(slice(0, o) for o in out) + (slice(None),) * d]
    flat = view.reshape(view.shape[: len(lead) + d] + (math.prod(k),))
    best = first_maximum(flat)
    if any(hi or lo for lo, hi in pads):
        best = _inside(best, spatial, pads, span, s, dil, out, k)
    return _key(lead, out, np.unravel_index(best, k), s, p, dil)


def _inside(best: np.ndarray, spatial, pads, span, s, dil, out, k) -> np.ndarray:
    """``best`` where it is inside the input, else the window's first position inside it: a
    window whose inputs are all the least value (-inf) ties with its padding, and PyTorch's
    scan, starting at the first input and replacing only on a greater value, keeps that."""
    inside = np.pad(np.ones(spatial, bool), pads, constant_values=False)
    view = np.lib.stride_tricks.sliding_window_view(inside, span)
    view = view[tuple(slice(None, None, ss) for ss in s) + (slice(None),) * len(k)]
    view = view[(Ellipsis,) + tuple(slice(None, None, dd) for dd in dil)]
    view = view[tuple(slice(0, o) for o in out) + (slice(None),) * len(k)]
    flat = view.reshape(tuple(out) + (math.prod(k),))
    picked = np.take_along_axis(
        np.broadcast_to(flat, best.shape + flat.shape[-1:]), best[..., None], -1
    )[..., 0]
    return np.where(picked, best, np.argmax(flat, -1))


def _key(lead: tuple, out: tuple, offsets: tuple, s, p, dil) -> tuple:
    """The key of the picked elements (leading entries that broadcast, then each pooled
    dimension's positions) and those positions: window ``i``'s start ``i * s - p`` plus the
    maximum's ``offset * dil``."""
    n = len(lead)
    grids = np.meshgrid(*[np.arange(m) for m in lead + out], indexing="ij", sparse=True)
    positions = [grids[n + i] * s[i] - p[i] + offsets[i] * dil[i] for i in range(len(out))]
    return tuple(grids[:n]) + tuple(positions), positions


def _tiled_maximum(d: int, x: np.ndarray, k: tuple, out: tuple) -> tuple | None:
    """``max_positions`` for windows that tile ``x`` (stride the kernel size, no padding or
    dilation: the common ``max_pool2d(x, 2)``): the window's elements compared in PyTorch's
    scan order, each a strided view of ``x``, a strictly greater one replacing the maximum
    (so the first maximum wins); None where ``x`` holds a NaN (PyTorch picks a window's last
    NaN: the general path's)."""
    lead = x.shape[:-d]
    if type(x) is not np.ndarray or x.size == 0:  # (a meta array has no values to compare)
        return None
    if x.dtype.kind == "f" and np.isnan(np.max(x)):
        return None
    if any(o * kk > n for o, kk, n in zip(out, k, x.shape[-d:])):
        return None  # ceil_mode's last window runs past the edge: the general path pads it
    crop = x[(Ellipsis,) + tuple(slice(0, o * kk) for o, kk in zip(out, k))]
    tiles = crop.reshape(lead + tuple(v for o, kk in zip(out, k) for v in (o, kk)))
    # the maximum's offset along each dimension, kept by arithmetic on small integers (masked
    # writes such as ``copyto(where=)``, and integer division, run ten times slower)
    small = np.int8 if max(k) <= 127 else np.intp
    offsets = [np.zeros(lead + out, small) for _ in k]
    top: Any = None
    for offset in itertools.product(*[range(kk) for kk in k]):
        element = tiles[(Ellipsis,) + tuple(v for o in offset for v in (slice(None), o))]
        if top is None:
            top = element.copy()
            continue
        greater = np.greater(element, top)
        np.maximum(top, element, out=top)
        for best, o in zip(offsets, offset):
            best += greater * (small(o) - best)
    return _key(lead, out, tuple(offsets), k, (0,) * d, (1,) * d)


def first_maximum(flat: np.ndarray) -> np.ndarray:
    """The position of the first maximum along the last axis of ``flat``; a NaN wins, the
    last one (PyTorch's scan ``if (val > max || isnan(val))``)."""
    if flat.shape[-1] == 0 or flat.size == 0:
        return np.zeros(flat.shape[:-1], dtype=np.int64)
    nan = np.isnan(flat)
    last_nan = flat.shape[-1] - 1 - np.argmax(nan[..., ::-1], -1)
    return np.where(nan.any(-1), last_nan, np.argmax(flat, -1))


def window_maximum(x: np.ndarray, index: list) -> tuple:
    """The key of each window's first maximum in ``x`` and its positions, for windows over
    the last ``len(index)`` dimensions given per dimension: window ``i`` along dimension
    ``j`` covers the positions ``index[j][..., i, :]`` (a short window repeats its last one;
    leading dimensions of ``index[j]``, if any, give each plane its own windows)."""
    d = len(index)
    lead = x.shape[:-d]
    index = [np.broadcast_to(idx, lead + idx.shape[-2:]) for idx in index]
    out = tuple(idx.shape[-2] for idx in index)
    spans = tuple(idx.shape[-1] for idx in index)
    grids = np.meshgrid(*[np.arange(n) for n in lead + out], indexing="ij")
    lead_grids = [g[(Ellipsis,) + (slice(0, 1),) * d][(Ellipsis,) + (None,) * d] for g in grids]
    keys = lead_grids[: len(lead)]
    for j, idx in enumerate(index):
        shape = [1] * (2 * d)
        shape[j], shape[d + j] = idx.shape[-2:]
        keys.append(idx.reshape(lead + tuple(shape)))
    windows = x[tuple(keys)]
    best = first_maximum(windows.reshape(lead + out + (math.prod(spans),)))
    offsets = np.unravel_index(best, spans)
    plane = tuple(grids[: len(lead)])
    positions = [index[j][plane + (grids[len(lead) + j], offsets[j])] for j in range(d)]
    return plane + tuple(positions), positions
