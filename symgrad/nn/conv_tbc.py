"""``conv_tbc``: a 1-d convolution of a (time, batch, channels) sequence, one
``ConvTbcBackward0`` node, and ``convolution``, ATen's generic convolution, which hands the
work to :func:`conv1d`/``2d``/``3d`` or the transposed ones (one ``ConvolutionBackward0``).

conv_tbc's rule is written in vocabulary words (one product per kernel position), so it runs
on NumPy, on tensors (double backward) and on SymPy arrays: the input, padded in time by
``pad`` steps at each end (cropped for a negative ``pad``), is read at each of the kernel's
``kw`` offsets and multiplied by that offset's ``(in, out)`` matrix.
"""

from __future__ import annotations

from typing import Any

from symgrad.nn.convolution import _conv
from symgrad.nn.convolution_transposed import _conv_transpose
from symgrad.prim.structural import Structural
from symgrad.prim.tangents import no_forward_rule
from symgrad.tensor import Tensor

__all__ = ["conv_tbc", "convolution"]


def _padded(xp: Any, x: Any, pad: int) -> Any:
    t = x.shape[0]
    if pad >= 0:
        return xp.index_put_zeros((t + 2 * pad,) + tuple(x.shape[1:]), (slice(pad, pad + t),), x)
    return xp.getitem(x, (slice(-pad, t + pad),))


def _unpadded(xp: Any, g: Any, shape: tuple, pad: int) -> Any:
    """The adjoint of :func:`_padded`."""
    if pad >= 0:
        return xp.getitem(g, (slice(pad, pad + shape[0]),))
    return xp.index_put_zeros(shape, (slice(-pad, shape[0] + pad),), g)


def _forward(xp: Any, x: Any, w: Any, b: Any, pad: int) -> Any:
    xp_ = _padded(xp, x, pad)
    steps = xp_.shape[0] - w.shape[0] + 1
    out = None
    for k in range(w.shape[0]):
        term = xp.matmul(xp.getitem(xp_, (slice(k, k + steps),)), xp.getitem(w, (k,)))
        out = term if out is None else out + term
    return out + b


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    x, w = c.inputs[0], c.inputs[1]
    pad = c.params["pad"]
    shape, kw = tuple(c.shapes[0]), c.shapes[1][0]
    steps = g.shape[0]
    gx = gw = gb = None
    if c.needs[0]:
        padded_shape = (steps + kw - 1,) + shape[1:]
        total = None
        for k in range(kw):
            back = xp.matmul(g, xp.transpose(xp.getitem(w, (k,)), 0, 1))
            term = xp.index_put_zeros(padded_shape, (slice(k, k + steps),), back)
            total = term if total is None else total + term
        gx = _unpadded(xp, total, shape, pad)
    if c.needs[1]:
        xp_ = _padded(xp, x, pad)
        flat_g = xp.reshape(g, (-1, g.shape[-1]))
        rows = []
        for k in range(kw):
            window = xp.reshape(xp.getitem(xp_, (slice(k, k + steps),)), (-1, shape[-1]))
            rows.append(xp.unsqueeze(xp.matmul(xp.transpose(window, 0, 1), flat_g), 0))
        gw = rows[0] if kw == 1 else xp.cat(rows, 0)
    if c.needs[2]:
        gb = xp.sum(g, (0, 1), False)
    return gx, gw, gb


_CONV_TBC = Structural(
    "conv_tbc",
    _forward,
    _vjp,
    saves=(0, 1),
    backward="ConvTbcBackward0",
    jvp=no_forward_rule("conv_tbc"),
)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-d convolution over time of ``input`` (time, batch, in_channels) by ``weight``
    (kernel_width, in_channels, out_channels) plus ``bias`` (out_channels), padded by ``pad``
    time steps at each end: output (time + 2 pad - kernel_width + 1, batch, out_channels).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[[1.0]], [[2.0]], [[3.0]]])
    >>> w = symgrad.tensor([[[1.0]], [[-1.0]]])
    >>> symgrad.conv_tbc(x, w, symgrad.zeros(1)).flatten()
    tensor([-1., -1.])
    """
    for position, (name, t) in enumerate((("input", input), ("weight", weight), ("bias", bias))):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"conv_tbc(): argument '{name}' (position {position + 1}) must be Tensor, not "
                f"{type(t).__name__}"
            )
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
        )
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if input.shape[0] + 2 * pad - weight.shape[0] + 1 < 0:
        raise RuntimeError(
            f"conv_tbc: the padded input ({input.shape[0] + 2 * pad} steps) is shorter than the "
            f"kernel ({weight.shape[0]})"
        )
    if input.dtype != weight.dtype or bias.dtype != input.dtype:
        raise RuntimeError(
            "expected the input, weight and bias of conv_tbc to share a dtype, got "
            f"{input.dtype}, {weight.dtype} and {bias.dtype}"
        )
    return _CONV_TBC(input, weight, bias, pad=int(pad))


def _int_list(value: Any, name: str, position: int) -> tuple:
    if not isinstance(value, (list, tuple)) or any(
        isinstance(v, bool) or not isinstance(v, int) for v in value
    ):
        raise TypeError(
            f"convolution(): argument '{name}' (position {position}) must be tuple of ints, not "
            f"{type(value).__name__}"
        )
    return tuple(value)


def convolution(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    transposed: bool,
    output_padding: Any,
    groups: int,
) -> Tensor:
    """ATen's convolution of a batched ``input`` (N, C, *spatial), of any of 1 to 3 spatial
    dims: :func:`symgrad.nn.functional.conv1d` (``2d``, ``3d``) or, when ``transposed``, the
    transposed convolution with ``output_padding``; lists of ints for the geometry.

    Examples
    --------
    >>> import symgrad
    >>> x, w = symgrad.tensor([[[1.0, 2.0, 3.0]]]), symgrad.tensor([[[1.0, 1.0]]])
    >>> symgrad.convolution(x, w, None, [1], [0], [1], False, [0], 1)
    tensor([[[3., 5.]]])
    """
    names = ("stride", "padding", "dilation")
    stride, padding, dilation = (
        _int_list(v, n, i + 4) for i, (n, v) in enumerate(zip(names, (stride, padding, dilation)))
    )
    output_padding = _int_list(output_padding, "output_padding", 8)
    d = weight.ndim - 2
    if input.ndim != weight.ndim:
        raise RuntimeError(
            f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
            f"{list(weight.shape)}, but got {input.ndim}-dimensional input of size "
            f"{list(input.shape)} instead"
        )
    if d not in (1, 2, 3):
        raise RuntimeError(f"convolution: {d} spatial dimensions are not supported (1 to 3)")
    if transposed:
        return _conv_transpose(
            d, input, weight, bias, stride, padding, output_padding, groups, dilation
        )
    return _conv(d, input, weight, bias, stride, padding, dilation, groups)
