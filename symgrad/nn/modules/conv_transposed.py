"""Transposed convolution layers ``ConvTranspose1d``/``2d``/``3d``, with PyTorch's
parameters (weight ``(in_channels, out_channels / groups, *kernel_size)``), initialisation,
``output_size=`` in ``forward`` and reprs."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn.convolution import expand_param
from symgrad.nn.modules.conv import _ConvNd
from symgrad.tensor import Tensor

__all__ = ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        name = type(self).__name__
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        if isinstance(padding, str):
            raise TypeError(f"{name}: padding must be an int or a tuple of ints, not a string")
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )
        self.output_padding = expand_param(output_padding, self._dims, "output_padding", name)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:
        """The output padding that gives ``output_size`` (PyTorch's rule: the sizes without
        output padding up to one stride less than the next size)."""
        if output_size is None:
            return self.output_padding
        d = self._dims
        lead = 2 if input.ndim == d + 2 else 1
        output_size = list(output_size)
        if len(output_size) == lead + d:
            output_size = output_size[lead:]
        if len(output_size) != d:
            raise ValueError(
                f"ConvTranspose{d}D: for {input.ndim}D input, output_size must have {d} or "
                f"{lead + d} elements (got {len(output_size)})"
            )
        smallest = [
            (input.shape[i + lead] - 1) * s - 2 * p + dil * (k - 1) + 1
            for i, (s, p, dil, k) in enumerate(
                zip(self.stride, self.padding, self.dilation, self.kernel_size)
            )
        ]
        largest = [n + s - 1 for n, s in zip(smallest, self.stride)]
        if any(not lo <= n <= hi for n, lo, hi in zip(output_size, smallest, largest)):
            raise ValueError(
                f"requested an output size of {output_size}, but valid sizes range from "
                f"{smallest} to {largest} (for an input of {input.shape[lead:]})"
            )
        return tuple(n - lo for n, lo in zip(output_size, smallest))

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        output_padding = self._output_padding(input, output_size)
        conv = getattr(F, f"conv_transpose{self._dims}d")
        return conv(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution layer over ``(N, C_in, L)`` (see
    :func:`symgrad.nn.functional.conv_transpose1d`).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> up = nn.ConvTranspose1d(4, 2, 4, stride=2, padding=1)
    >>> up
    ConvTranspose1d(4, 2, kernel_size=(4,), stride=(2,), padding=(1,))
    >>> up(symgrad.randn(3, 4, 5)).shape
    symgrad.Size([3, 2, 10])
    """

    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution layer over ``(N, C_in, H, W)``: weight
    ``(in_channels, out_channels / groups, kH, kW)``; ``forward(input, output_size=None)``
    picks the output padding that gives ``output_size``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> up = nn.ConvTranspose2d(8, 3, 3, stride=2, padding=1)
    >>> up
    ConvTranspose2d(8, 3, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))
    >>> x = symgrad.randn(1, 8, 4, 4)
    >>> up(x).shape, up(x, output_size=[8, 8]).shape
    (symgrad.Size([1, 3, 7, 7]), symgrad.Size([1, 3, 8, 8]))
    """

    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution layer over ``(N, C_in, D, H, W)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> up = nn.ConvTranspose3d(2, 3, 2)
    >>> up
    ConvTranspose3d(2, 3, kernel_size=(2, 2, 2), stride=(1, 1, 1))
    >>> up(symgrad.ones(1, 2, 2, 2, 2)).shape
    symgrad.Size([1, 3, 3, 3, 3])
    """

    _dims = 3
