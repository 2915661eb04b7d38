"""Convolution as one primitive (PyTorch's ``ConvolutionBackward0``) for any number of
spatial dimensions, with stride, zero padding (possibly uneven), dilation and groups.

The rule is written in vocabulary words, so it runs on NumPy, on tensors (double backward)
and on SymPy arrays (closed forms): the input is zero-padded (``index_put_zeros``), its
windows gathered by one advanced index (``getitem``, "im2col"), and each group's windows
multiplied by that group's flattened kernels (``matmul``). The VJP runs the same steps
backwards; the input's gradient scatters the windows' gradients back, adding where windows
overlap. On NumPy, forward and backward read the windows as a strided view copied once into
one matrix per group (im2col), multiply with BLAS, and add the input's gradient back one
kernel position at a time into strided slices (col2im), never through an indexed scatter.

The pieces are public for the ops declared from them: a transposed convolution
(:mod:`symgrad.ops.convolution_transposed`) is the input's gradient of a convolution, and
``unfold``/``fold`` (:mod:`symgrad.ops.im2col`) are its window gathering and scattering.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.prim import batching
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS

__all__ = ["convolution", "Geometry"]


class Geometry:
    """The index arithmetic of one convolution: padded shape, output sizes, the key that
    gathers every window and the key that removes the padding."""

    __slots__ = ("spatial", "kernel", "stride", "pads", "dilation", "groups", "out", "padded")

    def __init__(self, in_shape, kernel, stride, pads, dilation, groups, out=None) -> None:
        self.spatial, self.kernel = tuple(in_shape[2:]), tuple(kernel)
        self.stride, self.pads, self.dilation = tuple(stride), tuple(pads), tuple(dilation)
        self.groups = groups
        self.padded = tuple(n + lo + hi for n, (lo, hi) in zip(self.spatial, self.pads))
        # a transposed convolution names its windows (its input's size): with an output
        # padding of at least the stride, fewer than would fit
        self.out = (
            tuple(out)
            if out is not None
            else tuple(
                (p - d * (k - 1) - 1) // s + 1
                for p, k, s, d in zip(self.padded, self.kernel, self.stride, self.dilation)
            )
        )

    def regrouped(self, groups: int) -> Geometry:
        """The same windows in ``groups`` groups (a batch of kernels inside ``vmap``)."""
        pads, dil = self.pads, self.dilation
        shape = (0, 0) + self.spatial
        return Geometry(shape, self.kernel, self.stride, pads, dil, groups, self.out)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Geometry) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__
        )

    __hash__ = None  # type: ignore[assignment]

    def inner(self) -> tuple:
        """The key of the unpadded input inside the padded one."""
        return (slice(None), slice(None)) + tuple(
            slice(lo, lo + n) for n, (lo, _) in zip(self.spatial, self.pads)
        )

    def windows(self) -> tuple:
        """The advanced key taking, from the padded input, ``(N, C, *kernel, *out)``."""
        d = len(self.kernel)
        key = []
        for i, (k, o, s, dil) in enumerate(zip(self.kernel, self.out, self.stride, self.dilation)):
            idx = np.arange(k)[:, None] * dil + np.arange(o)[None, :] * s
            shape = [1] * (2 * d)
            shape[i], shape[d + i] = k, o
            key.append(idx.reshape(shape))
        return (slice(None), slice(None), *key)


def columns(xp: Any, x: Any, geo: Geometry) -> Any:
    """The windows of ``x`` as ``(N, groups, C/groups * prod(kernel), prod(out))``."""
    n, c = x.shape[0], x.shape[1]
    padded = xp.index_put_zeros((n, c) + geo.padded, geo.inner(), x, True)
    cols = xp.getitem(padded, geo.windows())
    return xp.reshape(
        cols, (n, geo.groups, c // geo.groups * math.prod(geo.kernel), math.prod(geo.out))
    )


def _forward(xp: Any, x: Any, w: Any, *bias: Any, geo: Geometry) -> Any:
    o = w.shape[0]
    cols = columns(xp, x, geo)
    wr = xp.reshape(w, (geo.groups, o // geo.groups, -1))
    out = xp.reshape(xp.matmul(wr, cols), (x.shape[0], o) + geo.out)
    if bias:
        out = out + xp.reshape(bias[0], (o,) + (1,) * len(geo.out))
    return out


def window_view(x: np.ndarray, geo: Geometry) -> np.ndarray:
    """The windows of the zero-padded ``x`` as a strided view ``(N, C, *out, *kernel)``."""
    n, c, d = x.shape[0], x.shape[1], len(geo.kernel)
    padded = np.zeros((n, c) + geo.padded, dtype=x.dtype)
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


def _im2col(x: np.ndarray, geo: Geometry) -> np.ndarray:
    """The windows copied once into ``(G, C/G * prod(kernel), N * prod(out))``, the right
    factor of one batched matrix product per group (output positions last, so the copy reads
    rows of the input)."""
    n, c, d, g = x.shape[0], x.shape[1], len(geo.kernel), geo.groups
    view = window_view(x, geo).reshape((n, g, c // g) + geo.out + geo.kernel)
    # (N, G, C/G, *out, *kernel) -> (G, C/G, *kernel, N, *out)
    axes = (1, 2) + tuple(range(3 + d, 3 + 2 * d)) + (0,) + tuple(range(3, 3 + d))
    cols = view.transpose(axes)
    return cols.reshape((g, c // g * math.prod(geo.kernel), n * math.prod(geo.out)))


# Bytes of windows (im2col) copied at once on NumPy: a batch goes through the matrix
# products a few samples at a time, so each copy is still in the cache when BLAS reads it
# (a third faster on a 64x32x26x26 batch than the whole batch's 42 MB at once), and a large
# batch never holds all its windows
CHUNK_BYTES = 6 << 20


def batch_parts(x: np.ndarray, channels: int, geo: Geometry) -> list[slice]:
    """The samples of ``x``'s batch taken together: whole for float16 (whose products
    round their sums; one product keeps its order) and for an empty batch."""
    n = x.shape[0]
    per_sample = channels * math.prod(geo.kernel) * math.prod(geo.out) * x.itemsize
    step = n if x.itemsize < 4 else max(1, CHUNK_BYTES // max(per_sample, 1))
    return [slice(s, min(s + step, n)) for s in range(0, n, step)] or [slice(0, 0)]


def _kernel(xp: Any, x: np.ndarray, w: np.ndarray, *bias: np.ndarray, geo: Geometry) -> Any:
    """The same on NumPy: the windows copied (im2col) a few samples at a time, one matrix
    product per group."""
    n, d, g, o = x.shape[0], len(geo.kernel), geo.groups, w.shape[0]
    wg = w.reshape((g, o // g, math.prod(w.shape[1:])))
    out = None
    for part in batch_parts(x, x.shape[1], geo):
        r = np.matmul(wg, _im2col(x[part], geo))  # (G, O/G, m * P)
        if out is None:
            out = np.empty((n, o) + geo.out, dtype=r.dtype)
        out[part] = r.reshape((o, part.stop - part.start) + geo.out).swapaxes(0, 1)
    if bias:
        out = out + bias[0].reshape((o,) + (1,) * d)
    return np.ascontiguousarray(out, dtype=x.dtype)


def _numpy_groups(g: np.ndarray, geo: Geometry) -> np.ndarray:
    """``(N, O, *out)`` as ``(G, O/G, N * P)``."""
    n, o = g.shape[0], g.shape[1]
    size = math.prod(geo.out)
    return g.reshape((n, o, size)).swapaxes(0, 1).reshape((geo.groups, o // geo.groups, n * size))


def numpy_weight_grad(g: np.ndarray, x: np.ndarray, geo: Geometry, w_shape: tuple) -> np.ndarray:
    """The kernel's gradient on NumPy, from the im2col matrix of ``x``, summed over parts of
    the batch. Computed as its transpose, ``cols @ g^T``: BLAS runs the long inner dimension
    (N * P) many times faster with the wide factor on the left."""
    total = None
    for part in batch_parts(x, x.shape[1], geo):
        gw_t = np.matmul(_im2col(x[part], geo), _numpy_groups(g[part], geo).swapaxes(1, 2))
        if total is None:
            total = gw_t  # (G, C/G*K, O/G)
        else:
            total += gw_t
    return np.ascontiguousarray(total.swapaxes(1, 2).reshape(w_shape))


def numpy_input_grad(g: np.ndarray, w: np.ndarray, geo: Geometry, channels: int) -> np.ndarray:
    """The input's gradient on NumPy, a few samples at a time: each kernel position's share
    of the windows' gradient added into a strided slice (col2im)."""
    n, o, gr = g.shape[0], w.shape[0], geo.groups
    wt = w.reshape((gr, o // gr, math.prod(w.shape[1:]))).swapaxes(1, 2)
    gpad = np.zeros((n, channels) + geo.padded, dtype=np.result_type(g, w))
    places = [
        (
            pos,
            (slice(None), slice(None))
            + tuple(
                slice(k * dil, k * dil + s * (m - 1) + 1, s)
                for k, dil, s, m in zip(pos, geo.dilation, geo.stride, geo.out)
            ),
        )
        for pos in np.ndindex(*geo.kernel)
    ]
    for part in batch_parts(gpad, channels, geo):
        m = part.stop - part.start
        gcols = np.matmul(wt, _numpy_groups(g[part], geo))
        gcols = gcols.reshape((channels,) + geo.kernel + (m,) + geo.out)
        target = gpad[part]
        for pos, key in places:
            target[key] += gcols[(slice(None),) + pos].swapaxes(0, 1)
    return np.ascontiguousarray(gpad[geo.inner()])


def _numpy_vjp(g: np.ndarray, c: Any) -> tuple:
    """The VJP on NumPy: the weight's gradient from the same im2col matrix, the input's by
    adding each kernel position's share into a strided slice (col2im)."""
    x, w, geo = c.inputs[0], c.inputs[1], c.params["geo"]
    grads: list = [None, None]
    if c.needs[1]:
        grads[1] = numpy_weight_grad(g, x, geo, w.shape).astype(w.dtype, copy=False)
    if c.needs[0]:
        grads[0] = numpy_input_grad(g, w, geo, x.shape[1]).astype(x.dtype, copy=False)
    if len(c.needs) > 2:
        grads.append(g.sum(axis=(0,) + tuple(range(2, g.ndim))) if c.needs[2] else None)
    return tuple(grads)


def weight_grad(xp: Any, g: Any, x: Any, geo: Geometry, w_shape: tuple) -> Any:
    """The kernel's gradient: the output's gradient times the windows of ``x``."""
    n, o = g.shape[0], g.shape[1]
    g2 = xp.reshape(g, (n, geo.groups, o // geo.groups, math.prod(geo.out)))
    cols = columns(xp, x, geo)
    gw = xp.sum(xp.matmul(g2, xp.transpose(cols, 2, 3)), (0,), False)
    return xp.reshape(gw, tuple(w_shape))


def input_grad(xp: Any, g: Any, w: Any, geo: Geometry, channels: int) -> Any:
    """The input's gradient: the kernels' transposes times the output's gradient, the
    windows' shares added back into place (col2im)."""
    n, o = g.shape[0], w.shape[0]
    g2 = xp.reshape(g, (n, geo.groups, o // geo.groups, math.prod(geo.out)))
    wr = xp.reshape(w, (geo.groups, o // geo.groups, -1))
    gcols = xp.reshape(xp.matmul(xp.transpose(wr, 1, 2), g2), (n, channels) + geo.kernel + geo.out)
    return col2im(xp, gcols, (n, channels), geo)


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    if xp is NP:
        return _numpy_vjp(g, c)
    x, w, geo = c.inputs[0], c.inputs[1], c.params["geo"]
    grads: list = [None, None]
    if c.needs[1]:
        grads[1] = weight_grad(xp, g, x, geo, w.shape)
    if c.needs[0]:
        grads[0] = input_grad(xp, g, w, geo, x.shape[1])
    if len(c.needs) > 2:
        axes = (0,) + tuple(range(2, 2 + len(geo.out)))
        grads.append(xp.sum(g, axes, False) if c.needs[2] else None)
    return tuple(grads)


def col2im(xp: Any, gcols: Any, lead: tuple, geo: Geometry) -> Any:
    """The (unpadded) input's gradient from the windows' ``(N, C, *kernel, *out)``: each
    kernel position's share, less what falls on the padding, placed at its strided slice
    and summed. Strided slices, not one index that repeats positions, so that the placing is
    a plain write (also per sample in vmap); no slice of a padded gradient, so the result is
    a fresh tensor, as PyTorch's (``.view`` works on it)."""
    total = None
    for pos in np.ndindex(*geo.kernel):
        shares, places = [], []
        for k, dil, s, m, n, (lo, _) in zip(
            pos, geo.dilation, geo.stride, geo.out, geo.spatial, geo.pads
        ):
            first = max(0, -((k * dil - lo) // s))  # the first window inside the input
            last = min(m - 1, (lo + n - 1 - k * dil) // s)
            count = max(0, last - first + 1)
            start = k * dil + s * first - lo if count else 0
            shares.append(slice(first, first + count))
            places.append(slice(start, start + s * (count - 1) + 1 if count else 0, s))
        share = xp.getitem(gcols, (slice(None), slice(None)) + pos + tuple(shares))
        key = (slice(None), slice(None)) + tuple(places)
        part = xp.index_put_zeros(lead + geo.spatial, key, share, True)
        total = part if total is None else total + part
    return total


def bilinear_jvp(forward: Any, out_shape: Any) -> Any:
    """The forward rule of a convolution ``forward(xp, x, w, *bias, geo=...)`` whose output
    has ``out_shape(x, w, geo)``: bilinear in input and weight, linear in the bias."""

    def jvp(xp: Any, tangents: tuple, c: Any) -> Any:
        x, w, geo = c.inputs[0], c.inputs[1], c.params["geo"]
        terms = []
        if tangents[0] is not None:
            terms.append(forward(xp, tangents[0], w, geo=geo))
        if tangents[1] is not None:
            terms.append(forward(xp, x, tangents[1], geo=geo))
        if len(tangents) > 2 and tangents[2] is not None:
            shape = out_shape(x, w, geo)
            tb = xp.reshape(tangents[2], (shape[1],) + (1,) * (len(shape) - 2))
            terms.append(tb if terms else xp.expand(tb, shape))
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    return jvp


def batch_rule(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """Inside ``vmap``: a batch of inputs with one kernel is a bigger batch (the batch folded
    into N); a batch of kernels is a grouped convolution (the batch folded into the groups).
    The same for a transposed convolution, whose kernels' first dimension also splits into
    the groups."""
    x, w, *bias = args
    geo = params["geo"]
    size = batching.batch_size(args, level)
    if not any(batching.is_batched(t, level) for t in (w, *bias)):
        px = x._physical
        folded = px.reshape((-1,) + tuple(px.shape[2:]))
        out = prim(folded, w, *bias, geo=geo)
        return out.reshape(tuple(px.shape[:2]) + tuple(out.shape[1:]))
    # x: (B, N, C, *s) -> (N, B * C, *s); w: (B, O, C/g, *k) -> (B * O, C/g, *k)
    px = batching.unwrap_level(x, level, size)
    n, c = px.shape[1], px.shape[2]
    px = px.transpose(0, 1).reshape((n, size * c) + tuple(px.shape[3:]))
    pw = batching.unwrap_level(w, level, size)
    pw = pw.reshape((-1,) + tuple(pw.shape[2:]))
    pb = [batching.unwrap_level(b, level, size).reshape((-1,)) for b in bias]
    out = prim(px, pw, *pb, geo=geo.regrouped(geo.groups * size))  # (N, B * O, *out)
    out = out.reshape((n, size, -1) + tuple(out.shape[2:]))
    return out.transpose(0, 1)


def tied_gradients(rule: Any) -> Any:
    """The VJP rule ``rule`` of a convolution as PyTorch records it under ``create_graph``:
    its gradients are outputs of one ``ConvolutionBackwardBackward0`` node reading (g, input,
    weight), so each requires grad whenever one of those does. A gradient the rule gives
    as a constant (a constant incoming gradient and weight: the input's gradient of
    ``conv2d(x, w).sum()`` for a frozen ``w``) becomes that node's output, with no
    derivative for anything (PyTorch's None)."""

    def forward(xp: Any, g: Any, x: Any, w: Any, which: int, bias: bool, geo: Any) -> Any:
        needs = tuple(i == which for i in range(3 if bias else 2))
        shapes = (tuple(x.shape), tuple(w.shape), None)
        return rule(xp, g, Ctx((x, w, None), None, shapes, needs, {"geo": geo}))[which]

    node = Structural(
        "convolution_backward",
        forward,
        lambda xp, gg, c: (None, None, None),
        saves=(0, 1, 2),
        backward="ConvolutionBackwardBackward0",
    )

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        grads = rule(xp, g, c)
        x, w = c.inputs[0], c.inputs[1]
        batched = any(isinstance(t, batching.BatchedTensor) for t in (g, x, w))
        if xp is not INTERPRETERS.tensor or batched:
            return grads
        bias = len(c.needs) > 2
        return tuple(
            node(g, x, w, which=i, bias=bias, **c.params)
            if grad is not None and not grad.requires_grad
            else grad
            for i, grad in enumerate(grads)
        )

    vjp.__wrapped__ = rule  # type: ignore[attr-defined]  # (what symgrad.compile calls)
    return vjp


def bias_edges(node: Any) -> tuple | None:
    """PyTorch's edges (input, weight, bias): the bias's None when there is none."""
    return (0, 1, None) if len(node._meta) == 2 else None


_CONVOLUTION = Structural(
    "convolution",
    _forward,
    tied_gradients(_vjp),
    saves=(0, 1),
    backward="ConvolutionBackward0",
    kernel=_kernel,
    jvp=bilinear_jvp(_forward, lambda x, w, geo: (x.shape[0], w.shape[0]) + geo.out),
    batch=batch_rule,
    edges=bias_edges,
    suggested=True,
)


def convolution(input: Any, weight: Any, bias: Any, geo: Geometry) -> Any:
    """The convolution node of a batched ``input`` (checked by the caller)."""
    tensors = (input, weight) if bias is None else (input, weight, bias)
    return _CONVOLUTION(*tensors, geo=geo)
