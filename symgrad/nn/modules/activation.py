"""Activation modules: ``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``, ``LogSoftmax``."""

from __future__ import annotations

from typing import Any

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.ops.inplace import inplace
from symgrad.tensor import Tensor

__all__ = ["ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax"]


class ReLU(Module):
    """``max(0, x)`` element-wise (``inplace=True`` overwrites the input).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.ReLU()(symgrad.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        if self.inplace:
            return inplace(input, "relu_", F.relu)
        return F.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """``tanh(x)`` element-wise.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Tanh()(symgrad.tensor([0.0]))
    tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` element-wise.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Sigmoid()(symgrad.tensor([0.0]))
    tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Softmax(Module):
    """Softmax along ``dim``: non-negative values summing to 1.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Softmax(dim=1)(symgrad.zeros(1, 4))
    tensor([[0.2500, 0.2500, 0.2500, 0.2500]])
    """

    def __init__(self, dim: Any = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log of the softmax along ``dim``, computed without overflow.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.LogSoftmax(dim=0)(symgrad.zeros(2))
    tensor([-0.6931, -0.6931])
    """

    def __init__(self, dim: Any = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Threshold(Module):
    """``value`` where the input is at or below ``threshold``, else the input.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Threshold(0.1, 20)(symgrad.tensor([0.0, 1.0]))
    tensor([20.,  1.])
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        extra = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{extra}"


class RReLU(Module):
    """Randomized leaky ReLU: random slopes from ``U(lower, upper)`` in training, the mean
    slope in eval mode.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.RReLU(0.1, 0.3).eval()(symgrad.tensor([-1.0, 1.0]))
    tensor([-0.2000,  1.0000])
    """

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        extra = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{extra}"
