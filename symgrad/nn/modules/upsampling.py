"""Resizing layers: ``Upsample``, ``UpsamplingNearest2d`` and ``UpsamplingBilinear2d`` over
:func:`symgrad.nn.functional.interpolate`, with PyTorch's arguments and reprs."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resize ``(N, C, *spatial)`` to ``size`` or by ``scale_factor`` (see
    :func:`symgrad.nn.functional.interpolate` for the modes).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> up = nn.Upsample(scale_factor=2, mode="nearest")
    >>> up
    Upsample(scale_factor=2.0, mode='nearest')
    >>> up(symgrad.tensor([[[1.0, 2.0]]]))
    tensor([[[1., 1., 2., 2.]]])
    """

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample(size, scale_factor, mode='nearest')`` of ``(N, C, H, W)``.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.UpsamplingNearest2d(scale_factor=2)
    UpsamplingNearest2d(scale_factor=2.0, mode='nearest')
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(size, scale_factor, mode='bilinear', align_corners=True)`` of
    ``(N, C, H, W)``.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.UpsamplingBilinear2d(size=(4, 6))
    UpsamplingBilinear2d(size=(4, 6), mode='bilinear')
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
