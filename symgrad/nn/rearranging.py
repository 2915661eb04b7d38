"""``pixel_shuffle``, ``pixel_unshuffle``, ``unfold`` and ``fold`` of
:mod:`symgrad.nn.functional`: PyTorch's argument checks in front of the primitives of
:mod:`symgrad.ops.pixel_shuffle` and :mod:`symgrad.ops.im2col`."""

from __future__ import annotations

import math
from typing import Any

from symgrad.ops.convolution import Geometry
from symgrad.ops.im2col import col2im_node, im2col
from symgrad.ops.pixel_shuffle import pixel_shuffle_node, pixel_unshuffle_node
from symgrad.tensor import Tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle", "unfold", "fold"]


def _factor(op: str, input: Any, value: Any, name: str) -> int:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{op}(): argument '{name}' must be int, not {type(value).__name__}")
    if input.ndim < 3:
        raise RuntimeError(
            f"{op} expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if value <= 0:
        raise RuntimeError(f"{op} expects a positive {name}, but got {value}")
    return value


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearrange ``(*, C r^2, H, W)`` into ``(*, C, H r, W r)`` (``r = upscale_factor``):
    channel ``c r^2 + i r + j`` fills the positions ``(h r + i, w r + j)`` of channel ``c``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.pixel_shuffle(symgrad.arange(4.0).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    r = _factor("pixel_shuffle", input, upscale_factor, "upscale_factor")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    return pixel_shuffle_node(input, r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """The inverse of :func:`pixel_shuffle`: ``(*, C, H r, W r)`` into
    ``(*, C r^2, H, W)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.pixel_unshuffle(symgrad.arange(4.0).reshape(1, 1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
    """
    r = _factor("pixel_unshuffle", input, downscale_factor, "downscale_factor")
    for name, n in (("height", input.shape[-2]), ("width", input.shape[-1])):
        if n % r:
            dim = -2 if name == "height" else -1
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                f"input.size({dim})={n} is not divisible by {r}"
            )
    return pixel_unshuffle_node(input, r)


def _check_floating(input: Tensor, kernel: str) -> None:
    if not (
        input.dtype.is_floating_point or input.dtype.is_complex or input.dtype.scalar_type == "Bool"
    ):
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{input.dtype.scalar_type}': convert the input "
            "with .float()"
        )


def _pair(op: str, value: Any, name: str, position: int) -> tuple:
    values = tuple(value) if isinstance(value, (list, tuple)) else (value, value)
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(
                f"{op}(): argument '{name}' (position {position}) must be tuple of ints, but "
                f"found element of type {type(v).__name__} at pos {i}"
            )
    if len(values) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    return values


def _window_params(op: str, kernel_size, dilation, padding, stride) -> tuple:
    k = _pair(op, kernel_size, "kernel_size", 2)
    dil = _pair(op, dilation, "dilation", 3)
    pad = _pair(op, padding, "padding", 4)
    s = _pair(op, stride, "stride", 5)
    for name, v, ok in (
        ("kernel size", k, k[0] > 0 and k[1] > 0),
        ("stride", s, s[0] > 0 and s[1] > 0),
        ("dilation", dil, dil[0] > 0 and dil[1] > 0),
    ):
        if not ok:
            raise RuntimeError(
                f"{name} should be greater than zero, but got {name.split()[0]}_height: {v[0]} "
                f"{name.split()[0]}_width: {v[1]}"
            )
    if pad[0] < 0 or pad[1] < 0:
        raise RuntimeError(
            f"padding should be non-negative, but got pad_height: {pad[0]} pad_width: {pad[1]}"
        )
    return k, dil, pad, s


def _check_image(input: Tensor) -> None:
    """PyTorch's checks of im2col's input, in its order (a dimension it reads that is not
    there is an ``IndexError``)."""
    shape, ndim = tuple(input.shape), input.ndim
    for dim in (1, 2):
        if ndim <= dim and not (dim == 2 and shape[1] == 0):
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
                f"{max(ndim, 1) - 1}], but got {dim}): unfold takes (N, C, H, W) or (C, H, W)"
            )
    spatial = ndim > 2 and shape[1] != 0 and shape[2] != 0
    if not ((ndim == 3 and shape[0] and spatial) or (ndim == 4 and spatial and shape[3])):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list(shape)}"
        )


def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """The sliding ``kernel_size`` windows of ``(N, C, H, W)`` (or ``(C, H, W)``) as
    columns ``(N, C * kH * kW, L)`` ("im2col", ``Im2ColBackward0``), ``L`` windows in
    row-major order.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.unfold(symgrad.arange(6.0).reshape(1, 1, 2, 3), (2, 2))
    tensor([[[0., 1.],
             [1., 2.],
             [3., 4.],
             [4., 5.]]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"unfold(): argument 'input' must be Tensor, not {type(input).__name__}")
    k, dil, pad, s = _window_params("im2col", kernel_size, dilation, padding, stride)
    _check_image(input)
    _check_floating(input, "im2col_out_cpu")
    x4 = tuple(input.shape) if input.ndim == 4 else (1,) + tuple(input.shape)
    geo = Geometry(x4, k, s, tuple((p, p) for p in pad), dil, 1)
    if any(o < 1 for o in geo.out):
        raise RuntimeError(
            f"Given input with spatial size {tuple(input.shape[-2:])}, kernel_size={k}, "
            f"dilation={dil}, padding={pad}, calculated shape of the array of sliding blocks "
            f"as {geo.out}, but its components must be at least one."
        )
    return im2col(input, geo)


def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """The inverse arrangement of :func:`unfold` ("col2im", ``Col2ImBackward0``): columns
    ``(N, C * kH * kW, L)`` (or without ``N``) summed into ``(N, C, *output_size)``, where
    windows overlap the values add up.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.fold(symgrad.ones(1, 4, 2), (2, 3), (2, 2))
    tensor([[[[1., 2., 1.],
              [1., 2., 1.]]]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"fold(): argument 'input' must be Tensor, not {type(input).__name__}")
    size = _pair("col2im", output_size, "output_size", 2)
    k, dil, pad, s = _window_params("col2im", kernel_size, dilation, padding, stride)
    if input.ndim not in (2, 3) or any(n == 0 for n in input.shape[-2:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    _check_floating(input, "col2im_out_cpu")
    rows, blocks = input.shape[-2], input.shape[-1]
    if rows % math.prod(k):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={rows} and kernel_size={k}."
        )
    n = input.shape[0] if input.ndim == 3 else 1
    geo = Geometry((n, rows // math.prod(k)) + size, k, s, tuple((p, p) for p in pad), dil, 1)
    if any(o < 1 for o in geo.out) or math.prod(geo.out) != blocks:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={k}, dilation={dil}, padding={pad}, "
            f"stride={s}, expected size of input's dimension 2 to match the calculated number "
            f"of sliding blocks {geo.out[0]} * {geo.out[1]} = {math.prod(geo.out)}, but got "
            f"input.size(2)={blocks}."
        )
    return col2im_node(input, geo)
