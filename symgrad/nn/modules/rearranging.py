"""Rearranging layers: ``PixelShuffle``, ``PixelUnshuffle``, ``Unfold`` and ``Fold`` over
the functions of :mod:`symgrad.nn.rearranging`, with PyTorch's attributes and reprs."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor

__all__ = ["PixelShuffle", "PixelUnshuffle", "Unfold", "Fold"]


class PixelShuffle(Module):
    """``(*, C r^2, H, W)`` to ``(*, C, H r, W r)`` (see
    :func:`symgrad.nn.functional.pixel_shuffle`).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.PixelShuffle(3)
    PixelShuffle(upscale_factor=3)
    >>> nn.PixelShuffle(3)(symgrad.zeros(1, 18, 4, 4)).shape
    symgrad.Size([1, 2, 12, 12])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H r, W r)`` to ``(*, C r^2, H, W)`` (see
    :func:`symgrad.nn.functional.pixel_unshuffle`).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.PixelUnshuffle(2)(symgrad.zeros(1, 1, 4, 6)).shape
    symgrad.Size([1, 4, 2, 3])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class Unfold(Module):
    """The sliding windows as columns (see :func:`symgrad.nn.functional.unfold`).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Unfold(kernel_size=(2, 3))
    Unfold(kernel_size=(2, 3), dilation=1, padding=0, stride=1)
    >>> nn.Unfold(2, stride=2)(symgrad.zeros(2, 3, 4, 4)).shape
    symgrad.Size([2, 12, 4])
    """

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )


class Fold(Module):
    """Columns summed back into an image (see :func:`symgrad.nn.functional.fold`).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> fold = nn.Fold(output_size=(4, 4), kernel_size=2, stride=2)
    >>> fold
    Fold(output_size=(4, 4), kernel_size=2, dilation=1, padding=0, stride=2)
    >>> fold(symgrad.zeros(1, 12, 4)).shape
    symgrad.Size([1, 3, 4, 4])
    """

    def __init__(
        self,
        output_size: Any,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
    ) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )
