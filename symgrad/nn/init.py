"""``torch.nn.init``: fill a tensor in place (under ``no_grad``) with values drawn for a
layer's initial weights, and return it."""

from __future__ import annotations

import math
import warnings
from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.init_structured import (
    deprecated,
    dirac_,
    eye_,
    orthogonal_,
    sparse_,
    trunc_normal_,
)
from symgrad.ops.sampling import _check_range, _check_std, _floating
from symgrad.tensor import Tensor

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "constant_",
    "ones_",
    "zeros_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "trunc_normal_",
    "eye_",
    "dirac_",
    "sparse_",
    "uniform",
    "normal",
    "constant",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
    "dirac",
    "eye",
]

_LINEAR = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "sigmoid",
)


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The gain PyTorch recommends for ``nonlinearity`` (``param``: leaky_relu's slope).

    Examples
    --------
    >>> from symgrad.nn import init
    >>> init.calculate_gain("tanh"), init.calculate_gain("relu")
    (1.6666666666666667, 1.4142135623730951)
    """
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fill(tensor: Tensor, values: Tensor) -> Tensor:
    with no_grad():
        return tensor.copy_(values)


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill ``tensor`` with values drawn uniformly from ``[a, b)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn import init
    >>> w = init.uniform_(symgrad.empty(2, 3), -0.1, 0.1)
    >>> bool((w.abs() <= 0.1).all())
    True
    """
    _floating(tensor, "check_uniform_bounds")
    _check_range(a, b, tensor.dtype)
    with no_grad():  # the tensor's own fill, as PyTorch: its numbers
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill ``tensor`` with values drawn from the normal distribution N(``mean``, ``std``²)."""
    _floating(tensor, "normal_kernel_cpu")
    _check_std(std)
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with ``val``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn import init
    >>> init.constant_(symgrad.empty(3), 0.5)
    tensor([0.5000, 0.5000, 0.5000])
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with zeros."""
    with no_grad():
        return tensor.zero_()


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(inputs, outputs) of a weight: ``size(1)`` and ``size(0)`` times the receptive field."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot's uniform initialization: bound ``gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot's normal initialization: std ``gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He's uniform initialization: bound ``gain * sqrt(3 / fan)`` (``Linear`` uses
    ``a=sqrt(5)``, which makes the bound ``1 / sqrt(fan_in)``).

    Examples
    --------
    >>> import math, symgrad
    >>> from symgrad.nn import init
    >>> w = init.kaiming_uniform_(symgrad.empty(3, 4), a=math.sqrt(5))
    >>> bool((w.abs() <= 0.5).all())
    True
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    bound = None if std is None else math.sqrt(3.0) * std
    return tensor if bound is None else uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He's normal initialization: std ``gain / sqrt(fan)``."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else normal_(tensor, 0.0, std, generator)


# PyTorch's deprecated names (a FutureWarning, then the function)
uniform = deprecated(uniform_)
normal = deprecated(normal_)
constant = deprecated(constant_)
xavier_uniform = deprecated(xavier_uniform_)
xavier_normal = deprecated(xavier_normal_)
kaiming_uniform = deprecated(kaiming_uniform_)
kaiming_normal = deprecated(kaiming_normal_)
orthogonal = deprecated(orthogonal_)
sparse = deprecated(sparse_)
dirac = deprecated(dirac_)
eye = deprecated(eye_)
