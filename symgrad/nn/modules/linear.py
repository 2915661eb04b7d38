"""``Linear`` (an affine map with learnable weight and bias), ``Identity`` and ``Flatten``."""

from __future__ import annotations

import math
from typing import Any

from symgrad import creation
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = ["Linear", "Identity", "Flatten", "Bilinear"]


class Linear(Module):
    """``y = x @ weight.T + bias``, with weight of shape (out_features, in_features).

    Initialized as PyTorch does: weight ``kaiming_uniform_(a=sqrt(5))`` and bias uniform,
    both within ``1 / sqrt(in_features)`` (drawn from symgrad's generator).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> fc = nn.Linear(3, 2)
    >>> fc
    Linear(in_features=3, out_features=2, bias=True)
    >>> fc.weight.shape, fc.bias.shape
    (symgrad.Size([2, 3]), symgrad.Size([2]))
    >>> fc(symgrad.ones(5, 3)).shape
    symgrad.Size([5, 2])
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(
            creation.empty((out_features, in_features), device=device, dtype=dtype)
        )
        if bias:
            self.bias = Parameter(creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw new initial values (PyTorch's scheme, see the class)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Identity(Module):
    """Returns its input (arguments are accepted and ignored).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> x = symgrad.ones(2)
    >>> nn.Identity(54, unused="x")(x) is x
    True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Flatten(Module):
    """Flattens dimensions ``start_dim`` to ``end_dim`` (by default all but the batch's).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> nn.Flatten()(symgrad.ones(2, 3, 4)).shape
    symgrad.Size([2, 12])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Bilinear(Module):
    """``y[..., o] = x1 @ weight[o] @ x2 + bias[o]``, weight of shape (out, in1, in2),
    initialized uniform within ``1 / sqrt(in1_features)`` as PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> m = nn.Bilinear(3, 2, 4)
    >>> m
    Bilinear(in1_features=3, in2_features=2, out_features=4, bias=True)
    >>> m(symgrad.ones(5, 3), symgrad.ones(5, 2)).shape
    symgrad.Size([5, 4])
    """

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if in1_features <= 0:  # its initialisation divides by it
            raise ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        shape = (out_features, in1_features, in2_features)
        self.weight = Parameter(creation.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight and bias uniform within ``1 / sqrt(in1_features)``."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
