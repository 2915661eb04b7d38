"""More padding layers: the 3-d ``ZeroPad3d``, ``ConstantPad3d``, ``ReflectionPad3d``,
``ReplicationPad3d`` and the circular ``CircularPad1d``/``2d``/``3d``, with PyTorch's
attributes, checks and reprs, over :func:`symgrad.nn.functional.pad`."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn.modules.conv import _PadNd
from symgrad.tensor import Tensor

__all__ = [
    "ZeroPad3d",
    "ConstantPad3d",
    "ReflectionPad3d",
    "ReplicationPad3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
]


class ConstantPad3d(_PadNd):
    """Pad the last three dimensions with ``value``: ``padding`` an int or
    ``(left, right, top, bottom, front, back)``.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.ConstantPad3d(1, 2.5)
    ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=2.5)
    """

    _dims = 3


class ZeroPad3d(_PadNd):
    """Pad the last three dimensions with zeros.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.ZeroPad3d((1, 0, 0, 0, 0, 0))(symgrad.ones(1, 1, 1, 1)).flatten()
    tensor([0., 1.])
    """

    _dims = 3

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)


class ReflectionPad3d(_PadNd):
    """Pad the last three dimensions by reflection (``ReflectionPad3DBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.ReflectionPad3d((1, 1, 0, 0, 0, 0))(symgrad.tensor([[[[1.0, 2.0]]]]))
    tensor([[[[2., 1., 2., 1.]]]])
    """

    _dims, _mode = 3, "reflect"


class ReplicationPad3d(_PadNd):
    """Pad the last three dimensions by repeating the edges (``ReplicationPad3DBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.ReplicationPad3d((1, 1, 0, 0, 0, 0))(symgrad.tensor([[[[1.0, 2.0]]]]))
    tensor([[[[1., 1., 2., 2.]]]])
    """

    _dims, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        d = self._dims
        if input.ndim not in (d + 1, d + 2):
            raise ValueError(f"expected {d + 1}D or {d + 2}D input (got {input.ndim}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pad the last dimension circularly (its other end wraps around).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.CircularPad1d((1, 2))(symgrad.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 1., 2., 3., 1., 2.]])
    """

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Pad the last two dimensions circularly.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.CircularPad2d(1)
    CircularPad2d((1, 1, 1, 1))
    """

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last three dimensions circularly.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.CircularPad3d((1, 2, 3, 4, 5, 6))
    CircularPad3d((1, 2, 3, 4, 5, 6))
    """

    _dims = 3
