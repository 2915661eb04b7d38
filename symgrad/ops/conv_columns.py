"""A convolution's windows on NumPy as the columns of one matrix (im2col), a few samples of
the batch at a time, in one of two layouts.

- Windows (any stride): each window's elements copied from a strided view of the
  zero-padded input; the columns are the output positions. The input's gradient adds each
  kernel position's share back into a strided slice (col2im).
- Wide (stride 1): the padded input flattened per channel; the columns are the positions of
  the output grown to the padded extent along every dimension but the first, so each
  kernel position's row of the matrix is one contiguous slice of the flat input, at the
  offset of that position. The extra columns are computed and dropped (forward); for the
  gradients they are zeros (the output's gradient is zero-padded to them, and the columns
  and the columns' gradient are zeroed there, so an infinite weight or input adds no NaN
  of ``inf * 0``), and the input's gradient adds one contiguous slice per kernel position.
  Copies and sums then run along rows of hundreds of elements, not of the output's width:
  15-30% faster for 3x3 kernels, most on small images, for a tenth more columns in the
  products.

A layout gives the columns ``(G, C/G * prod(kernel), m * Q)`` of ``m`` samples, the
output's gradient in the same columns ``(G, O/G, m * Q)``, the output from the product's
columns, and the input's gradient from the columns' gradient, each in this thread's scratch
memory (:func:`scratch`): read at once, then written again by the next part. The parts of
the batch hold about :data:`CHUNK_BYTES` of columns, so each copy is still in the cache when
BLAS reads it.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

__all__ = ["CHUNK_BYTES", "PRODUCT", "batch_parts", "layout", "scratch", "window_view"]

# Bytes of columns copied at once: the whole batch's (42 MB for a 64x32x26x26 float32 batch
# and 3x3 kernels) leaves the cache before BLAS reads it, a third slower
CHUNK_BYTES = 6 << 20


# This thread's scratch memory, one block per use: the columns, the products, the padded
# input, the output's gradient grown, the padded input's gradient. A part's arrays are used
# before the next part's are made, and made again for every part of every call: fresh
# memory each time costs the operating system's new pages (on a virtual machine, several
# times the copies themselves), so they live in blocks kept from call to call.
COLUMNS, PRODUCT, PADDED, GROWN, SUMS = range(5)
_SCRATCH = threading.local()


def scratch(slot: int, shape: tuple, dtype: Any, zero: bool = False) -> np.ndarray:
    """An array of ``shape`` and ``dtype`` in this thread's scratch block ``slot`` (zeros
    with ``zero``), which the next call for the same slot reuses: for an array used and
    done with before then. A fresh array past twice :data:`CHUNK_BYTES` (a single sample's
    columns can be larger: not kept)."""
    size = math.prod(shape) * np.dtype(dtype).itemsize
    if size > 2 * CHUNK_BYTES:
        return np.zeros(shape, dtype) if zero else np.empty(shape, dtype)
    held = getattr(_SCRATCH, "blocks", None)
    if held is None:
        held = _SCRATCH.blocks = [None] * 5
    block = held[slot]
    if block is None or block.size < size:
        block = held[slot] = np.empty(size, np.uint8)
    out = block[:size].view(dtype).reshape(shape)
    if zero:
        out.fill(0)
    return out


def window_view(x: np.ndarray, geo: Any, kept: bool = False) -> np.ndarray:
    """The windows of the zero-padded ``x`` as a strided view ``(N, C, *out, *kernel)``
    (``kept``: of the padded input in scratch memory, for a view used at once)."""
    n, c, d = x.shape[0], x.shape[1], len(geo.kernel)
    shape = (n, c) + geo.padded
    padded = scratch(PADDED, shape, x.dtype, True) if kept else np.zeros(shape, dtype=x.dtype)
    padded[geo.inner()] = x
    span = tuple(dil * (k - 1) + 1 for k, dil in zip(geo.kernel, geo.dilation))
    view = np.lib.stride_tricks.sliding_window_view(padded, span, axis=tuple(range(2, 2 + d)))
    # the first ``out`` windows: a transposed convolution's output padding can leave room
    # for more than its input's positions
    view = view[
        (slice(None), slice(None))
        + tuple(slice(None, s * (o - 1) + 1, s) for s, o in zip(geo.stride, geo.out))
    ]
    return view[(Ellipsis,) + tuple(slice(None, None, dil) for dil in geo.dilation)]


def layout(geo: Any) -> Any:
    """The columns' layout for ``geo``: wide for stride 1 (every window inside the padded
    input), windows otherwise."""
    fits = all(
        o == p - dil * (k - 1)
        for o, p, dil, k in zip(geo.out, geo.padded, geo.dilation, geo.kernel)
    )
    return _Wide(geo) if all(s == 1 for s in geo.stride) and fits else _Windows(geo)


def batch_parts(x: np.ndarray, channels: int, cols: Any) -> list[slice]:
    """The samples of ``x``'s batch taken together (``cols``: the layout): whole for float16
    (whose products round their sums; one product keeps its order) and for an empty batch."""
    n = x.shape[0]
    per_sample = channels * math.prod(cols.geo.kernel) * cols.width * x.itemsize
    step = n if x.itemsize < 4 else max(1, CHUNK_BYTES // max(per_sample, 1))
    return [slice(s, min(s + step, n)) for s in range(0, n, step)] or [slice(0, 0)]


class _Windows:
    """Columns that are the output positions (any stride)."""

    def __init__(self, geo: Any) -> None:
        self.geo = geo
        self.width = math.prod(geo.out)  # columns per sample

    def columns(self, x: np.ndarray, clean: bool = False) -> np.ndarray:
        """The columns of ``x`` (every one a window: ``clean`` changes nothing)."""
        geo = self.geo
        n, c, d, g = x.shape[0], x.shape[1], len(geo.kernel), geo.groups
        view = window_view(x, geo, True).reshape((n, g, c // g) + geo.out + geo.kernel)
        # (N, G, C/G, *out, *kernel) -> (G, C/G, *kernel, N, *out): output positions last,
        # so the copy reads rows of the input
        axes = (1, 2) + tuple(range(3 + d, 3 + 2 * d)) + (0,) + tuple(range(3, 3 + d))
        windows = view.transpose(axes)
        cols = scratch(COLUMNS, windows.shape, x.dtype)
        np.copyto(cols, windows)
        return cols.reshape((g, c // g * math.prod(geo.kernel), n * self.width))

    def gradient(self, g: np.ndarray) -> np.ndarray:
        """``(N, O, *out)`` as ``(G, O/G, N * P)``."""
        n, o = g.shape[0], g.shape[1]
        groups = self.geo.groups
        flat = g.reshape((n, o, self.width)).swapaxes(0, 1)
        return flat.reshape((groups, o // groups, n * self.width))

    def output(self, r: np.ndarray, o: int, m: int) -> np.ndarray:
        return r.reshape((o, m) + self.geo.out).swapaxes(0, 1)

    def padded_gradient(self, gcols: np.ndarray, m: int, channels: int) -> np.ndarray:
        """The padded input's gradient ``(m, C, *padded)`` from the columns' gradient: each
        kernel position's share added into a strided slice."""
        geo = self.geo
        gcols = gcols.reshape((channels,) + geo.kernel + (m,) + geo.out)
        out = scratch(SUMS, (m, channels) + geo.padded, gcols.dtype, True)
        for pos in np.ndindex(*geo.kernel):
            key = tuple(
                slice(k * dil, k * dil + s * (n - 1) + 1, s)
                for k, dil, s, n in zip(pos, geo.dilation, geo.stride, geo.out)
            )
            out[(slice(None), slice(None)) + key] += gcols[(slice(None),) + pos].swapaxes(0, 1)
        return out


class _Wide:
    """Columns that are the positions of the output grown to the padded extent along every
    dimension but the first (stride 1): each kernel position's row is one slice of the
    flat padded input."""

    def __init__(self, geo: Any) -> None:
        self.geo = geo
        padded = geo.padded
        strides = [math.prod(padded[i + 1 :]) for i in range(len(padded))]
        self.plane = math.prod(padded)
        self.width = geo.out[0] * strides[0]
        self.offsets = [
            sum(k * dil * s for k, dil, s in zip(pos, geo.dilation, strides))
            for pos in np.ndindex(*geo.kernel)
        ]
        # the last kernel position's slice of the last positions runs past the plane
        self.slack = self.offsets[-1] if self.offsets else 0
        self.wide = (geo.out[0],) + tuple(padded[1:])  # the output grown
        self.cut = (Ellipsis,) + tuple(slice(0, o) for o in geo.out[1:])  # and cut back

    def _flat(self, x: np.ndarray) -> np.ndarray:
        """``x`` zero-padded, each channel's plane flat, with room past the last plane."""
        m, c = x.shape[0], x.shape[1]
        flat = scratch(PADDED, (m, c, self.plane + self.slack), x.dtype, True)
        plane = flat[:, :, : self.plane].reshape((m, c) + self.geo.padded)
        plane[self.geo.inner()] = x
        return flat

    def columns(self, x: np.ndarray, clean: bool = False) -> np.ndarray:
        """The columns of ``x``; ``clean``: zero in the extra columns (for a gradient)."""
        geo = self.geo
        m, c, g = x.shape[0], x.shape[1], geo.groups
        flat = self._flat(x)
        cols = scratch(COLUMNS, (c, len(self.offsets), m, self.width), x.dtype)
        for i, off in enumerate(self.offsets):
            cols[:, i] = flat[:, :, off : off + self.width].swapaxes(0, 1)
        if clean:
            self._zero_extra(cols)
        return cols.reshape((g, c // g * len(self.offsets), m * self.width))

    def _zero_extra(self, cols: np.ndarray) -> None:
        """Zeros in the extra columns of ``cols`` (its last axis: ``m`` grown outputs)."""
        grown = cols.reshape(cols.shape[:-1] + self.wide)
        d = len(self.wide)
        for j in range(1, d):
            grown[(Ellipsis, slice(self.geo.out[j], None)) + (slice(None),) * (d - 1 - j)] = 0

    def gradient(self, g: np.ndarray) -> np.ndarray:
        """``(m, O, *out)`` zero-padded to the grown output, as ``(G, O/G, m * Q)``."""
        m, o = g.shape[0], g.shape[1]
        groups = self.geo.groups
        wide = scratch(GROWN, (o, m) + self.wide, g.dtype, True)
        wide[self.cut] = g.swapaxes(0, 1)
        return wide.reshape((groups, o // groups, m * self.width))

    def output(self, r: np.ndarray, o: int, m: int) -> np.ndarray:
        return r.reshape((o, m) + self.wide)[self.cut].swapaxes(0, 1)

    def padded_gradient(self, gcols: np.ndarray, m: int, channels: int) -> np.ndarray:
        """The padded input's gradient ``(m, C, *padded)``: each kernel position's share
        added into one slice of the flat planes."""
        gcols = gcols.reshape((channels, len(self.offsets), m, self.width))
        self._zero_extra(gcols)
        flat = scratch(SUMS, (m, channels, self.plane + self.slack), gcols.dtype, True)
        for i, off in enumerate(self.offsets):
            flat[:, :, off : off + self.width] += gcols[:, i].swapaxes(0, 1)
        return flat[:, :, : self.plane].reshape((m, channels) + self.geo.padded)
