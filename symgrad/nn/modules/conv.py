"""Convolution, pooling and padding layers: ``Conv1d``/``Conv2d``/``Conv3d``, the pooling
layers and the padding layers, with PyTorch's parameters, initialisation and reprs."""

from __future__ import annotations

import math
from typing import Any

from symgrad import creation
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.convolution import expand_param
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReplicationPad1d",
    "ReplicationPad2d",
]


class _ConvNd(Module):
    _dims = 0
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        d, name = self._dims, type(self).__name__
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                "padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], "
                f"but got padding_mode='{padding_mode}'"
            )
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = expand_param(kernel_size, d, "kernel_size", name)
        self.stride = expand_param(stride, d, "stride", name)
        self.dilation = expand_param(dilation, d, "dilation", name)
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(
                    f"Invalid padding string '{padding}', should be one of ['valid', 'same']"
                )
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = expand_param(padding, d, "padding", name)
        self.padding_mode = padding_mode
        self.output_padding, self.transposed = (0,) * d, self._transposed
        self.weight = Parameter(creation.empty(self._weight_shape(), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _weight_shape(self) -> tuple:
        """``(out_channels, in_channels / groups, *kernel_size)``, the channels the other way
        round when transposed."""
        outer, inner = self.out_channels, self.in_channels
        if self.transposed:
            outer, inner = inner, outer
        return (outer, inner // self.groups, *self.kernel_size)

    def reset_parameters(self) -> None:
        """PyTorch's initialisation: weight ``kaiming_uniform_(a=sqrt(5))``, bias uniform
        within ``1 / sqrt(fan_in)``."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            if fan_in:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        conv = getattr(F, f"conv{self._dims}d")
        if self.padding_mode == "zeros":
            return conv(
                input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
            )
        pads = self._reversed_padding()
        padded = F.pad(input, pads, mode=self.padding_mode)
        return conv(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    def _reversed_padding(self) -> tuple:
        if isinstance(self.padding, str):
            if self.padding == "valid":
                return (0, 0) * self._dims
            pads = []
            for k, dil in zip(reversed(self.kernel_size), reversed(self.dilation)):
                total = dil * (k - 1)
                pads += [total // 2, total - total // 2]
            return tuple(pads)
        return tuple(p for p in reversed(self.padding) for _ in range(2))

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * self._dims:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._dims:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._dims:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-d convolution layer over ``(N, C_in, L)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> conv = nn.Conv1d(2, 4, 3, padding=1)
    >>> conv
    Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=(1,))
    >>> conv(symgrad.randn(5, 2, 10)).shape
    symgrad.Size([5, 4, 10])
    """

    _dims = 1


class Conv2d(_ConvNd):
    """2-d convolution layer over ``(N, C_in, H, W)``: weight
    ``(out_channels, in_channels / groups, kH, kW)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> conv = nn.Conv2d(3, 6, 5)
    >>> conv
    Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1))
    >>> conv(symgrad.randn(1, 3, 32, 32)).shape
    symgrad.Size([1, 6, 28, 28])
    """

    _dims = 2


class Conv3d(_ConvNd):
    """3-d convolution layer over ``(N, C_in, D, H, W)``."""

    _dims = 3


class _MaxPoolNd(Module):
    _dims = 0

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:
        pool = getattr(F, f"max_pool{self._dims}d")
        return pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """1-d max pooling layer."""

    _dims = 1


class MaxPool2d(_MaxPoolNd):
    """2-d max pooling layer (see :func:`symgrad.nn.functional.max_pool2d`).

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _dims = 2


class MaxPool3d(_MaxPoolNd):
    """3-d max pooling layer."""

    _dims = 3


class _AvgPoolNd(Module):
    _dims = 0

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        one = self._dims == 1  # AvgPool1d keeps its arguments as 1-tuples, as PyTorch
        self.kernel_size = expand_param(kernel_size, 1, "kernel_size") if one else kernel_size
        stride = kernel_size if stride is None or stride == [] else stride
        self.stride = expand_param(stride, 1, "stride") if one else stride
        self.padding = expand_param(padding, 1, "padding") if one else padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        if not one:
            self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        args = (
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )
        if self._dims == 1:
            return F.avg_pool1d(*args)
        return getattr(F, f"avg_pool{self._dims}d")(*args, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-d average pooling layer."""

    _dims = 1


class AvgPool2d(_AvgPoolNd):
    """2-d average pooling layer (see :func:`symgrad.nn.functional.avg_pool2d`)."""

    _dims = 2


class AvgPool3d(_AvgPoolNd):
    """3-d average pooling layer."""

    _dims = 3


class _Adaptive(Module):
    _function = ""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        if "max" in self._function:
            self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        function = getattr(F, self._function)
        if "max" in self._function:
            return function(input, self.output_size, self.return_indices)
        return function(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    """Adaptive average pooling to ``output_size`` over ``(N, C, L)``."""

    _function = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_Adaptive):
    """Adaptive average pooling to ``output_size`` (an int or a pair; None keeps a size)."""

    _function = "adaptive_avg_pool2d"


class AdaptiveMaxPool1d(_Adaptive):
    """Adaptive max pooling to ``output_size`` over ``(N, C, L)``."""

    _function = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_Adaptive):
    """Adaptive max pooling to ``output_size``."""

    _function = "adaptive_max_pool2d"


class _PadNd(Module):
    _dims = 0
    _mode = "constant"

    def __init__(self, padding: Any, value: float | None = None) -> None:
        super().__init__()
        if isinstance(padding, int):
            padding = (padding,) * (2 * self._dims)
        self.padding = tuple(padding)
        if self._mode == "constant":
            self.value = 0.0 if value is None else value

    def forward(self, input: Tensor) -> Tensor:
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        if self._mode == "constant" and not type(self).__name__.startswith("Zero"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


class ZeroPad1d(_PadNd):
    """Pad the last dimension with zeros."""

    _dims = 1

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)


class ZeroPad2d(_PadNd):
    """Pad the last two dimensions with zeros: ``padding`` an int or
    ``(left, right, top, bottom)``."""

    _dims = 2

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)


class ConstantPad1d(_PadNd):
    """Pad the last dimension with ``value``."""

    _dims = 1


class ConstantPad2d(_PadNd):
    """Pad the last two dimensions with ``value``."""

    _dims = 2


class ReflectionPad1d(_PadNd):
    """Pad the last dimension by reflection."""

    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pad the last two dimensions by reflection."""

    _dims, _mode = 2, "reflect"


class ReplicationPad1d(_PadNd):
    """Pad the last dimension by repeating the edge."""

    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pad the last two dimensions by repeating the edges."""

    _dims, _mode = 2, "replicate"
