"""``conv_transpose1d``, ``conv_transpose2d`` and ``conv_transpose3d`` of
:mod:`symgrad.nn.functional`: one ``ConvolutionBackward0`` node each (see
:mod:`symgrad.ops.convolution_transposed`), with PyTorch's argument forms and checks. An
unbatched input gets a batch dimension for the node and loses it after (``SqueezeBackward1``,
as PyTorch)."""

from __future__ import annotations

from typing import Any

from symgrad._arguments import require_same_dtype
from symgrad.nn.convolution import check_operands, expand_param
from symgrad.ops.convolution_transposed import convolution_transposed, transposed_geometry
from symgrad.tensor import Tensor

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _conv_transpose(
    d: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
) -> Tensor:
    op = f"conv_transpose{d}d"
    check_operands(op, d, input, weight, "in_channels, out_channels / groups")
    require_same_dtype(input, weight, "the weight")
    if not input.dtype.is_floating_point and input.dtype.scalar_type != "Long":
        # PyTorch's transposed kernels: floating dtypes and int64 only
        kernel = f"slow_conv_transpose{max(d, 2)}d_out_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.scalar_type}'")
    if bias is not None and bias.dtype != input.dtype:
        bias = bias.to(input.dtype)  # PyTorch's kernel reads the bias in the input's dtype
    stride = expand_param(stride, d, "stride", op)
    dilation = expand_param(dilation, d, "dilation", op)
    pads = expand_param(padding, d, "padding", op)
    output_padding = expand_param(output_padding, d, "output_padding", op)
    _check_params(d, stride, dilation, pads, output_padding, groups)
    batched = input.ndim == d + 2
    x = input if batched else input.unsqueeze(0)
    _check_shapes(x, weight, bias, groups)
    if x.numel() == 0 and x.shape[0] and x.shape[1]:
        shape = list(x.shape) if d > 1 else [*x.shape[:2], 1, x.shape[2]]  # 1-d runs as 2-d
        raise RuntimeError(
            f"Only zero batch or zero channel inputs are supported, but got input shape: {shape}"
        )
    geo = transposed_geometry(
        tuple(x.shape),
        tuple(weight.shape[2:]),
        stride,
        pads,
        dilation,
        groups,
        output_padding,
        weight.shape[1] * groups,
    )
    sizes = [p - lo - hi for p, (lo, hi) in zip(geo.padded, geo.pads)]
    if any(n <= 0 for n in sizes):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, x.shape[2:]))}). Calculated "
            f"output size per channel: ({' x '.join(map(str, geo.spatial))}). Output size is "
            "too small"
        )
    out = convolution_transposed(x, weight, bias, geo)
    return out if batched else out.squeeze(0)


def _check_params(d, stride, dilation, pads, output_padding, groups) -> None:
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(v <= 0 for v in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(p >= s and p >= dil for p, s, dil in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding={list(output_padding)}, stride={list(stride)}, "
            f"dilation={list(dilation)}"
        )
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported (got groups={groups})")


def _check_shapes(x: Tensor, weight: Tensor, bias: Tensor | None, groups: int) -> None:
    c, o = weight.shape[0], weight.shape[1] * groups
    if c < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {list(weight.shape)} instead"
        )
    if c % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(weight.shape)}] instead"
        )
    if x.shape[1] != c:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {c} channels, but got {x.shape[1]} channels instead"
        )
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != o):
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
            f"1-dimensional with {o} elements, but got bias of size {list(bias.shape)} instead"
        )


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """1-d transposed convolution ("deconvolution"), the input's gradient of
    :func:`conv1d`: ``input`` ``(N, C_in, L)`` or ``(C_in, L)``, ``weight``
    ``(C_in, C_out / groups, k)``; the output has length
    ``(L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[[1.0, 2.0, 3.0]]])
    >>> F.conv_transpose1d(x, symgrad.tensor([[[1.0, 10.0]]]), stride=2)
    tensor([[[ 1., 10.,  2., 20.,  3., 30.]]])
    """
    args = (stride, padding, output_padding, groups, dilation)
    return _conv_transpose(1, input, weight, bias, *args)


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """2-d transposed convolution: ``input`` ``(N, C_in, H, W)`` or ``(C_in, H, W)``,
    ``weight`` ``(C_in, C_out / groups, kH, kW)``; ``stride``, ``padding``,
    ``output_padding``, ``groups`` and ``dilation`` as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> F.conv_transpose2d(x, symgrad.ones(1, 1, 2, 2))
    tensor([[[[ 1.,  3.,  2.],
              [ 4., 10.,  6.],
              [ 3.,  7.,  4.]]]])
    """
    args = (stride, padding, output_padding, groups, dilation)
    return _conv_transpose(2, input, weight, bias, *args)


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """3-d transposed convolution: ``input`` ``(N, C_in, D, H, W)`` or unbatched, ``weight``
    ``(C_in, C_out / groups, kD, kH, kW)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.conv_transpose3d(symgrad.ones(1, 1, 1, 1, 2), symgrad.ones(1, 1, 1, 1, 2))
    tensor([[[[[1., 2., 1.]]]]])
    """
    args = (stride, padding, output_padding, groups, dilation)
    return _conv_transpose(3, input, weight, bias, *args)
