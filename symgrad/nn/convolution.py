"""``conv1d``, ``conv2d`` and ``conv3d`` of :mod:`symgrad.nn.functional`: one
``ConvolutionBackward0`` node each (see :mod:`symgrad.ops.convolution`), with PyTorch's
argument forms and checks. An unbatched input gets a batch dimension for the node and loses
it after (``SqueezeBackward1``, as PyTorch)."""

from __future__ import annotations

from typing import Any

from symgrad import dtypes
from symgrad._arguments import int_value, require_same_dtype
from symgrad.ops.convolution import Geometry, convolution
from symgrad.ops.index_keys import warn_at_user
from symgrad.ops.pooling import constant_pad
from symgrad.tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv3d", "expand_param"]


def expand_param(value: Any, d: int, name: str, op: str = "convolution") -> tuple:
    """An int, or a list of ``d`` ints, as a tuple of ``d`` ints (PyTorch's ``_ntuple``)."""
    if isinstance(value, (list, tuple)):
        values = tuple(value)
        if len(values) == 1:
            values = values * d
        if len(values) != d:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {d} values to match "
                f"the convolution dimensions, but got {name}={list(values)}"
            )
    else:
        values = (value,) * d
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(
                f"{op}(): argument '{name}' must be a tuple of ints, but found element of type "
                f"{type(v).__name__}"
            )
    return values


def _pads(padding: Any, d: int, kernel: tuple, stride: tuple, dilation: tuple) -> tuple:
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * d
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [dil * (k - 1) for k, dil in zip(kernel, dilation)]
        if any(t % 2 for t in totals):
            _warn_uneven_same()
        return tuple((t // 2, t - t // 2) for t in totals)
    pads = expand_param(padding, d, "padding")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in pads)


# PyTorch warns about an uneven 'same' padding once per process
_WARNED = {"same": False}


def _warn_uneven_same() -> None:
    if not _WARNED["same"]:
        _WARNED["same"] = True
        warn_at_user(
            "Using padding='same' with even kernel lengths and odd dilation may require a "
            "zero-padded copy of the input be created"
        )


def check_operands(op: str, d: int, input: Any, weight: Any, layout: str) -> None:
    """PyTorch's errors for a convolution's input and weight of the wrong type or number of
    dimensions (``layout``: the weight's first two dimensions, for the message)."""
    for name, t in (("input", input), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {op}, but got input "
            f"of size: {list(input.shape)}"
        )
    if weight.ndim != d + 2:
        raise RuntimeError(
            f"weight should have {d + 2} dimensions ({layout}, *kernel_size) for {op}, but got "
            f"weight of size {list(weight.shape)}"
        )


def _conv(
    d: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
) -> Tensor:
    op = f"conv{d}d"
    check_operands(op, d, input, weight, "out_channels, in_channels / groups")
    if bias is not None and bias.dtype is not input.dtype:  # PyTorch checks the bias first
        raise RuntimeError(
            f"Input type ({dtypes.cpp_name(input.dtype)}) and bias type "
            f"({dtypes.cpp_name(bias.dtype)}) should be the same\n(give the bias and the "
            "weight the input's dtype)"
        )
    require_same_dtype(input, weight, "the weight")
    if input.dtype.scalar_type == "Bool":
        kernel = "compute_columns3d" if d == 3 else "slow_conv2d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    stride = expand_param(stride, d, "stride", op)
    dilation = expand_param(dilation, d, "dilation", op)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(v <= 0 for v in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if type(groups) is not int:
        groups = int_value(op, "groups", groups)
    if groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported (got groups={groups})")
    kernel = tuple(weight.shape[2:])
    pads = _pads(padding, d, kernel, stride, dilation)
    batched = input.ndim == d + 2
    x = input if batched else input.unsqueeze(0)
    if any(lo != hi for lo, hi in pads):
        # an uneven 'same' padding: PyTorch pads a copy of the input by the difference
        # (ConstantPadNdBackward0), then convolves with the even part
        x = constant_pad(x, [(0, hi - lo) for lo, hi in pads], 0.0)
        pads = tuple((lo, lo) for lo, _ in pads)
    _check_shapes(x, weight, bias, groups, pads, kernel, dilation)
    geo = Geometry(x.shape, kernel, stride, pads, dilation, groups)
    out = convolution(x, weight, bias, geo)
    return out if batched else out.squeeze(0)


def _check_shapes(x, weight, bias, groups, pads, kernel, dilation) -> None:
    c, o = x.shape[1], weight.shape[0]
    if o < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {list(weight.shape)} instead"
        )
    if o % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(weight.shape)}] instead"
        )
    if weight.shape[1] * groups != c:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {weight.shape[1] * groups} channels, but got {c} channels "
            "instead"
        )
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != o):
        raise RuntimeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{o} elements, but got bias of size {list(bias.shape)} instead"
        )
    padded = [n + lo + hi for n, (lo, hi) in zip(x.shape[2:], pads)]
    spans = [dil * (k - 1) + 1 for k, dil in zip(kernel, dilation)]
    if any(s > p for s, p in zip(spans, padded)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be greater than "
            "actual input size"
        )


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """1-d convolution (cross-correlation, as PyTorch): ``input`` ``(N, C_in, L)`` or
    ``(C_in, L)``, ``weight`` ``(C_out, C_in / groups, k)``; ``padding`` an int, a tuple,
    ``"valid"`` or ``"same"``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[[1.0, 2.0, 3.0, 4.0]]])
    >>> F.conv1d(x, symgrad.tensor([[[1.0, -1.0]]]))
    tensor([[[-1., -1., -1.]]])
    """
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-d convolution: ``input`` ``(N, C_in, H, W)`` or ``(C_in, H, W)``, ``weight``
    ``(C_out, C_in / groups, kH, kW)``; ``stride``, ``padding`` (ints, pairs, ``"valid"``,
    ``"same"``), ``dilation`` and ``groups`` as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.arange(9.0).reshape(1, 1, 3, 3)
    >>> F.conv2d(x, symgrad.ones(1, 1, 2, 2))
    tensor([[[[ 8., 12.],
              [20., 24.]]]])
    """
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """3-d convolution: ``input`` ``(N, C_in, D, H, W)`` or unbatched, ``weight``
    ``(C_out, C_in / groups, kD, kH, kW)``."""
    return _conv(3, input, weight, bias, stride, padding, dilation, groups)
