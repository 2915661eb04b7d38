"""Lazy convolutions: ``LazyConv1d``/``2d``/``3d`` and ``LazyConvTranspose1d``/``2d``/``3d``,
whose ``in_channels`` is read from their first input (see :mod:`symgrad.nn.modules.lazy`)."""

from __future__ import annotations

from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.conv import Conv1d, Conv2d, Conv3d
from symgrad.nn.modules.conv_transposed import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from symgrad.nn.modules.lazy import LazyModuleMixin
from symgrad.nn.parameter import UninitializedParameter
from symgrad.tensor import Tensor

__all__ = [
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]


class _LazyConvMixin(LazyModuleMixin):
    def _make_lazy(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        """Replace the placeholder weight (and bias) by uninitialized ones."""
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """The convolution's initialization, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _in_channels(self, input: Tensor) -> int:
        unbatched = self._dims + 1
        if input.ndim not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.ndim == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """``in_channels`` from ``input``'s channel dimension; weight and bias materialized
        and initialized."""
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        with no_grad():
            self.weight.materialize(self._weight_shape())
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


class _LazyConvNd(_LazyConvMixin):
    def __init__(
        self,
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
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self._make_lazy(out_channels, bias, device, dtype)


class _LazyConvTransposeNd(_LazyConvMixin):
    def __init__(
        self,
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
        super().__init__(
            0,
            0,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            False,
            dilation,
            padding_mode,
            device,
            dtype,
        )
        self._make_lazy(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    """:class:`Conv1d` whose ``in_channels`` is read from its first input (``(N, C, L)`` or
    unbatched ``(C, L)``); ``cls_to_become`` is ``Conv1d``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> conv = nn.LazyConv1d(4, 3)
    >>> conv
    LazyConv1d(0, 4, kernel_size=(3,), stride=(1,))
    >>> conv(symgrad.ones(2, 5, 8)).shape, conv
    (symgrad.Size([2, 4, 6]), Conv1d(5, 4, kernel_size=(3,), stride=(1,)))
    """

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    """:class:`Conv2d` whose ``in_channels`` is read from its first input.

    Examples
    --------
    >>> import symgrad
    >>> conv = symgrad.nn.LazyConv2d(4, 3)
    >>> conv(symgrad.ones(1, 2, 5, 5)).shape, conv.weight.shape
    (symgrad.Size([1, 4, 3, 3]), symgrad.Size([4, 2, 3, 3]))
    """

    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd, Conv3d):
    """:class:`Conv3d` whose ``in_channels`` is read from its first input.

    Examples
    --------
    >>> import symgrad
    >>> conv = symgrad.nn.LazyConv3d(2, 1)
    >>> conv(symgrad.ones(3, 2, 2, 2)).shape
    symgrad.Size([2, 2, 2, 2])
    """

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """:class:`ConvTranspose1d` whose ``in_channels`` is read from its first input.

    Examples
    --------
    >>> import symgrad
    >>> conv = symgrad.nn.LazyConvTranspose1d(4, 3)
    >>> conv(symgrad.ones(1, 2, 5)).shape, conv.weight.shape
    (symgrad.Size([1, 4, 7]), symgrad.Size([2, 4, 3]))
    """

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """:class:`ConvTranspose2d` whose ``in_channels`` is read from its first input.

    Examples
    --------
    >>> import symgrad
    >>> conv = symgrad.nn.LazyConvTranspose2d(4, 3, groups=2)
    >>> conv(symgrad.ones(1, 2, 5, 5)).shape, conv.weight.shape
    (symgrad.Size([1, 4, 7, 7]), symgrad.Size([2, 2, 3, 3]))
    """

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """:class:`ConvTranspose3d` whose ``in_channels`` is read from its first input.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.LazyConvTranspose3d(2, 2)(symgrad.ones(1, 3, 1, 1, 1)).shape
    symgrad.Size([1, 2, 2, 2, 2])
    """

    cls_to_become = ConvTranspose3d
