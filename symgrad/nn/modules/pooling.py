"""More pooling layers: ``MaxUnpool1d``/``2d``/``3d``, ``AdaptiveAvgPool3d``,
``AdaptiveMaxPool3d``, ``LPPool1d``/``2d``/``3d`` and ``FractionalMaxPool2d``/``3d``, with
PyTorch's attributes, checks and reprs, over the functions of :mod:`symgrad.nn.functional`."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn.modules.conv import _Adaptive
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor

__all__ = [
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
]


def _tuple(value: Any, d: int) -> tuple:
    """PyTorch's ``_ntuple``: a sequence as it is, anything else repeated ``d`` times."""
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * d


class _MaxUnpoolNd(Module):
    _dims = 0

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        d = self._dims
        self.kernel_size = _tuple(kernel_size, d)
        self.stride = _tuple(stride if stride is not None else kernel_size, d)
        self.padding = _tuple(padding, d)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        unpool = getattr(F, f"max_unpool{self._dims}d")
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of :class:`MaxPool1d` (see
    :func:`symgrad.nn.functional.max_unpool1d`); ``forward(input, indices, output_size=None)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.MaxUnpool1d(2)(symgrad.tensor([[3.0, 2.0]]), symgrad.tensor([[1, 2]]))
    tensor([[0., 3., 2., 0.]])
    """

    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of :class:`MaxPool2d` (see
    :func:`symgrad.nn.functional.max_unpool2d`).

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.MaxUnpool2d(2)
    MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    """

    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of :class:`MaxPool3d` (see
    :func:`symgrad.nn.functional.max_unpool3d`).

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.MaxUnpool3d(2, stride=1)
    MaxUnpool3d(kernel_size=(2, 2, 2), stride=(1, 1, 1), padding=(0, 0, 0))
    """

    _dims = 3


class AdaptiveAvgPool3d(_Adaptive):
    """Adaptive average pooling to ``output_size`` over ``(N, C, D, H, W)`` (an int or three;
    None keeps a size).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.AdaptiveAvgPool3d(1)(symgrad.arange(8.0).reshape(1, 2, 2, 2))
    tensor([[[[3.5000]]]])
    """

    _function = "adaptive_avg_pool3d"


class AdaptiveMaxPool3d(_Adaptive):
    """Adaptive max pooling to ``output_size`` over ``(N, C, D, H, W)``; ``return_indices``
    also gives the flat positions of the maxima.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.AdaptiveMaxPool3d(1)(symgrad.arange(8.0).reshape(1, 2, 2, 2))
    tensor([[[[7.]]]])
    """

    _function = "adaptive_max_pool3d"


class _LPPoolNd(Module):
    _dims = 0

    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        pool = getattr(F, f"lp_pool{self._dims}d")
        return pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over ``(N, C, L)`` (see :func:`symgrad.nn.functional.lp_pool1d`).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.LPPool1d(2, 2)(symgrad.tensor([[3.0, 4.0]]))
    tensor([[5.]])
    """

    _dims = 1


class LPPool2d(_LPPoolNd):
    """Power-average pooling over ``(N, C, H, W)``.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.LPPool2d(2, 3)
    LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    _dims = 2


class LPPool3d(_LPPoolNd):
    """Power-average pooling over ``(N, C, D, H, W)``.

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.LPPool3d(1.5, 2, stride=1)
    LPPool3d(norm_type=1.5, kernel_size=2, stride=1, ceil_mode=False)
    """

    _dims = 3


class _FractionalMaxPoolNd(Module):
    _dims = 0

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        d = self._dims
        self.kernel_size = _tuple(kernel_size, d)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _tuple(output_size, d) if output_size is not None else None
        self.output_ratio = _tuple(output_ratio, d) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        pool = getattr(F, f"fractional_max_pool{self._dims}d")
        return pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over ``(N, C, H, W)`` to ``output_size`` or ``output_ratio``
    (see :func:`symgrad.nn.functional.fractional_max_pool2d`); ``_random_samples`` is kept
    as a buffer.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> pool = nn.FractionalMaxPool2d(2, output_size=1,
    ...                               _random_samples=symgrad.tensor([[[0.5, 0.5]]]))
    >>> pool(symgrad.tensor([[[1.0, 4.0], [3.0, 2.0]]]))
    tensor([[[4.]]])
    """

    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over ``(N, C, T, H, W)`` (see
    :func:`symgrad.nn.functional.fractional_max_pool3d`).

    Examples
    --------
    >>> from symgrad import nn
    >>> nn.FractionalMaxPool3d(2, output_ratio=0.5).output_ratio
    (0.5, 0.5, 0.5)
    """

    _dims = 3
