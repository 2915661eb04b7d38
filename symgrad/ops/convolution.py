"""Convolution as one primitive (PyTorch's ``ConvolutionBackward0``) for any number of
spatial dimensions, with stride, zero padding (possibly uneven), dilation and groups.

The rule is written in vocabulary words, so it runs on NumPy, on tensors (double backward)
and on SymPy arrays (closed forms): the input is zero-padded (``index_put_zeros``), its
windows gathered by one advanced index (``getitem``, "im2col"), and each group's windows
multiplied by that group's flattened kernels (``matmul``). The VJP runs the same steps
backwards; the input's gradient scatters the windows' gradients back, adding where windows
overlap. On NumPy (:mod:`symgrad.ops.conv_columns`), forward and backward copy the windows
of a few samples at a time into one matrix per group (im2col), multiply with BLAS, and add
the input's gradient back one kernel position at a time into slices (col2im), never through
an indexed scatter.

The pieces are public for the ops declared from them: a transposed convolution
(:mod:`symgrad.ops.convolution_transposed`) is the input's gradient of a convolution, and
``unfold``/``fold`` (:mod:`symgrad.ops.im2col`) are its window gathering and scattering.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.ops.conv_columns import PRODUCT, batch_parts, layout, scratch
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


def _kernel(xp: Any, x: np.ndarray, w: np.ndarray, *bias: np.ndarray, geo: Geometry) -> Any:
    """The same on NumPy: the windows copied into columns a few samples at a time
    (:mod:`symgrad.ops.conv_columns`), one matrix product per group."""
    n, d, g, o = x.shape[0], len(geo.kernel), geo.groups, w.shape[0]
    wg = w.reshape((g, o // g, math.prod(w.shape[1:])))
    cols = layout(geo)
    out = None
    for part in batch_parts(x, x.shape[1], cols):
        windows = cols.columns(x[part])
        shape = (g, o // g, windows.shape[-1])
        r = np.matmul(wg, windows, out=scratch(PRODUCT, shape, np.result_type(wg, windows)))
        if out is None:
            out = np.empty((n, o) + geo.out, dtype=r.dtype)
        out[part] = cols.output(r, o, part.stop - part.start)
    if bias:
        out = out + bias[0].reshape((o,) + (1,) * d)
    return np.ascontiguousarray(out, dtype=x.dtype)


def numpy_weight_grad(g: np.ndarray, x: np.ndarray, geo: Geometry, w_shape: tuple) -> np.ndarray:
    """The kernel's gradient on NumPy, from the columns of ``x``, summed over parts of the
    batch. Computed as its transpose, ``cols @ g^T``: BLAS runs the long inner dimension
    (N * Q) many times faster with the wide factor on the left."""
    cols = layout(geo)
    total = None
    for part in batch_parts(x, x.shape[1], cols):
        windows = cols.columns(x[part], clean=True)
        gw_t = np.matmul(windows, cols.gradient(g[part]).swapaxes(1, 2))  # (G, C/G*K, O/G)
        if total is None:
            total = gw_t
        else:
            total += gw_t
    return np.ascontiguousarray(total.swapaxes(1, 2).reshape(w_shape))


def numpy_input_grad(g: np.ndarray, w: np.ndarray, geo: Geometry, channels: int) -> np.ndarray:
    """The input's gradient on NumPy, a few samples at a time: the kernels' transposes times
    the output's gradient, each kernel position's share added back into place (col2im)."""
    n, o, gr = g.shape[0], w.shape[0], geo.groups
    wt = w.reshape((gr, o // gr, math.prod(w.shape[1:]))).swapaxes(1, 2)
    out = np.empty((n, channels) + geo.spatial, dtype=np.result_type(g, w))
    cols = layout(geo)
    for part in batch_parts(out, channels, cols):
        m = part.stop - part.start
        grads = cols.gradient(g[part])
        shape = (gr, wt.shape[1], grads.shape[-1])  # (G, C/G*K, m * Q)
        gcols = np.matmul(wt, grads, out=scratch(PRODUCT, shape, np.result_type(wt, grads)))
        out[part] = cols.padded_gradient(gcols, m, channels)[geo.inner()]
    return out


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


def tied_gradients(rule: Any, forward: Any) -> Any:
    """The VJP rule ``rule`` of a convolution (``forward``, its forward written against an
    interpreter) as PyTorch records it under ``create_graph``: its gradients are outputs of
    one ``ConvolutionBackwardBackward0`` node reading (g, input, weight), whatever each
    depends on, so each requires grad whenever one of those does, and differentiating them
    again goes through that node (see :func:`_double_vjp`)."""

    def gradient(xp: Any, g: Any, x: Any, w: Any, which: int, bias: bool, geo: Any) -> Any:
        needs = tuple(i == which for i in range(3 if bias else 2))
        shapes = (tuple(x.shape), tuple(w.shape), None)
        return rule(xp, g, Ctx((x, w, None), None, shapes, needs, {"geo": geo}))[which]

    node = Structural(
        "convolution_backward",
        gradient,
        _double_vjp(gradient, forward),
        saves=(0, 1, 2),
        backward="ConvolutionBackwardBackward0",
        jvp=_double_jvp(gradient),
    )

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        x, w = c.inputs[0], c.inputs[1]
        batched = any(isinstance(t, batching.BatchedTensor) for t in (g, x, w))
        if xp is not INTERPRETERS.tensor or batched:
            return rule(xp, g, c)
        bias = len(c.needs) > 2
        return tuple(
            node(g, x, w, which=i, bias=bias, **c.params) if need else None
            for i, need in enumerate(c.needs)
        )

    vjp.__wrapped__ = rule  # type: ignore[attr-defined]  # (what symgrad.compile calls)
    return vjp


# which inputs of (g, input, weight) each gradient (input's, weight's, bias's) depends on
_READS = {0: (0, 2), 1: (0, 1), 2: (0,)}


def _double_vjp(gradient: Any, forward: Any) -> Any:
    """The VJP of one of a convolution's gradients: the input's is linear in g and in the
    weight, the weight's in g and in the input, the bias's in g, so each derivative is the
    convolution itself or one of its gradients with the incoming gradient ``gg`` in the
    place of the input, the weight or the output's gradient."""

    def vjp(xp: Any, gg: Any, c: Any) -> tuple:
        g, x, w = c.inputs
        which, geo = c.params["which"], c.params["geo"]
        grads: list = [None, None, None]
        if which == 0:
            if c.needs[0]:
                grads[0] = forward(xp, gg, w, geo=geo)
            if c.needs[2]:
                grads[2] = gradient(xp, g, gg, w, 1, False, geo)
        elif which == 1:
            if c.needs[0]:
                grads[0] = forward(xp, x, gg, geo=geo)
            if c.needs[1]:
                grads[1] = gradient(xp, g, x, gg, 0, False, geo)
        elif c.needs[0]:
            lead = xp.reshape(gg, (gg.shape[0],) + (1,) * (len(g.shape) - 2))
            grads[0] = xp.expand(lead, tuple(g.shape))
        return tuple(grads)

    return vjp


def _double_jvp(gradient: Any) -> Any:
    """The forward rule of one of a convolution's gradients: the product rule over the
    inputs it reads (it is linear in each)."""

    def jvp(xp: Any, tangents: tuple, c: Any) -> Any:
        primals = list(c.inputs)
        which, bias, geo = c.params["which"], c.params["bias"], c.params["geo"]
        total = None
        for i in _READS[which]:
            if tangents[i] is not None:
                args = primals[:i] + [tangents[i]] + primals[i + 1 :]
                term = gradient(xp, *args, which, bias, geo)
                total = term if total is None else total + term
        return total if total is not None else gradient(xp, *primals, which, bias, geo) * 0

    return jvp


def bias_edges(node: Any) -> tuple | None:
    """PyTorch's edges (input, weight, bias): the bias's None when there is none."""
    return (0, 1, None) if len(node._meta) == 2 else None


_CONVOLUTION = Structural(
    "convolution",
    _forward,
    tied_gradients(_vjp, _forward),
    saves=(0, 1),
    backward="ConvolutionBackward0",
    kernel=_kernel,
    jvp=bilinear_jvp(_forward, lambda x, w, geo: (x.shape[0], w.shape[0]) + geo.out),
    batch=batch_rule,
    edges=bias_edges,
    suggested=(4, 5),  # a channels-last 3-d input gives channels-last 3-d, as PyTorch's
)


def convolution(input: Any, weight: Any, bias: Any, geo: Geometry) -> Any:
    """The convolution node of a batched ``input`` (checked by the caller)."""
    tensors = (input, weight) if bias is None else (input, weight, bias)
    return _CONVOLUTION(*tensors, geo=geo)
