"""Transposed convolution as one primitive (PyTorch's ``ConvolutionBackward0``, the same
node name as a convolution's): the input's gradient of a convolution, so it is declared from
the pieces of :mod:`symgrad.ops.convolution` with the roles exchanged.

For a convolution ``y = conv(z, w)`` (``w`` of shape ``(C_in, C_out / groups, *kernel)``),
``conv_transpose(x, w)`` is ``z``'s gradient for ``y``'s gradient ``x``. Its own VJP is then
a convolution for the input (``conv(g, w)``) and the convolution's kernel gradient with the
roles of input and output gradient exchanged for the weight. The geometry is that of the
convolution over the transposed convolution's output, with as many windows as the input has
positions (an output padding can leave room for more).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops import convolution as conv
from symgrad.ops.convolution import Geometry
from symgrad.prim.numpy_xp import NP
from symgrad.prim.structural import Structural

__all__ = ["convolution_transposed", "transposed_geometry"]


def transposed_geometry(
    in_shape: tuple,
    kernel: tuple,
    stride: tuple,
    pads: tuple,
    dilation: tuple,
    groups: int,
    output_padding: tuple,
    out_channels: int,
) -> Geometry:
    """The geometry of the convolution whose input's gradient is the transposed convolution
    of an input of ``in_shape``: its input is the transposed convolution's output."""
    spatial = tuple(in_shape[2:])
    out = tuple(
        (n - 1) * s - 2 * p + dil * (k - 1) + op + 1
        for n, s, p, dil, k, op in zip(spatial, stride, pads, dilation, kernel, output_padding)
    )
    shape = (in_shape[0], out_channels) + out
    return Geometry(shape, kernel, stride, tuple((p, p) for p in pads), dilation, groups, spatial)


def _out_shape(x: Any, w: Any, geo: Geometry) -> tuple:
    return (x.shape[0], w.shape[1] * geo.groups) + geo.spatial


def _bias(xp: Any, out: Any, bias: tuple, geo: Geometry) -> Any:
    if not bias:
        return out
    return out + xp.reshape(bias[0], (bias[0].shape[0],) + (1,) * len(geo.spatial))


def _forward(xp: Any, x: Any, w: Any, *bias: Any, geo: Geometry) -> Any:
    out = conv.input_grad(xp, x, w, geo, w.shape[1] * geo.groups)
    return _bias(xp, out, bias, geo)


def _kernel(xp: Any, x: np.ndarray, w: np.ndarray, *bias: np.ndarray, geo: Geometry) -> Any:
    out = conv.numpy_input_grad(x, w, geo, w.shape[1] * geo.groups)
    return np.ascontiguousarray(_bias(xp, out, bias, geo), dtype=x.dtype)


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    x, w, geo = c.inputs[0], c.inputs[1], c.params["geo"]
    grads: list = [None, None]
    if xp is NP:
        if c.needs[0]:
            grads[0] = conv._kernel(xp, g, w, geo=geo).astype(x.dtype, copy=False)
        if c.needs[1]:
            gw = conv.numpy_weight_grad(x, g, geo, w.shape)
            grads[1] = gw.astype(w.dtype, copy=False)
    else:
        if c.needs[0]:
            grads[0] = conv._forward(xp, g, w, geo=geo)
        if c.needs[1]:
            grads[1] = conv.weight_grad(xp, x, g, geo, w.shape)
    if len(c.needs) > 2:
        axes = (0,) + tuple(range(2, 2 + len(geo.spatial)))
        grads.append(xp.sum(g, axes, False) if c.needs[2] else None)
    return tuple(grads)


_CONVOLUTION_TRANSPOSED = Structural(
    "convolution_transposed",
    _forward,
    conv.tied_gradients(_vjp, _forward),
    saves=(0, 1),
    backward="ConvolutionBackward0",
    kernel=_kernel,
    jvp=conv.bilinear_jvp(_forward, _out_shape),
    batch=conv.batch_rule,
    edges=conv.bias_edges,
    suggested=(4, 5),  # a channels-last 3-d input gives channels-last 3-d, as PyTorch's
)


def convolution_transposed(input: Any, weight: Any, bias: Any, geo: Geometry) -> Any:
    """The transposed convolution node of a batched ``input`` (checked by the caller)."""
    tensors = (input, weight) if bias is None else (input, weight, bias)
    return _CONVOLUTION_TRANSPOSED(*tensors, geo=geo)
