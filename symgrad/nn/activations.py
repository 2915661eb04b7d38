"""The activations of :mod:`symgrad.nn.functional` beyond ``relu``/``elu``/``gelu``: each one
element-wise primitive of the registry (so closed forms show its formula), or PyTorch's own
composition where PyTorch composes (``softsign``, ``tanhshrink``, ``softmin``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_floating as _floating
from symgrad._data import check_fill
from symgrad.ops import activations as A
from symgrad.ops import celu as _celu
from symgrad.ops import elementwise as E
from symgrad.ops import math as _math
from symgrad.ops.fused_backward import fused_backward
from symgrad.ops.inplace import inplace
from symgrad.ops.inplace import inplace as _in_place  # the name `inplace` is an argument below
from symgrad.ops.softmax_family import implicit_dim, softmax
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = [
    "elu",
    "elu_",
    "leaky_relu",
    "leaky_relu_",
    "selu",
    "celu",
    "mish",
    "hardtanh",
    "relu6",
    "hardswish",
    "hardsigmoid",
    "logsigmoid",
    "softsign",
    "tanhshrink",
    "softshrink",
    "hardshrink",
    "glu",
    "softmin",
    "selu_",
    "celu_",
    "hardtanh_",
]


def _maybe_inplace(input: Tensor, inplace_: bool, name: str, compute: Any) -> Tensor:
    return inplace(input, name + "_", compute) if inplace_ else compute(input)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(input, alpha)`` with PyTorch's constants (node ``EluBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.selu(symgrad.tensor([1.0, 0.0]))
    tensor([1.0507, 0.0000])
    """
    _floating(input, "elu_cpu")
    return _in_place(input, "selu_", A.SELU_) if inplace else A.SELU(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` where positive, ``alpha * (exp(input / alpha) - 1)`` elsewhere.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.celu(symgrad.tensor([2.0, 0.0]))
    tensor([2., 0.])
    """
    _floating(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return _in_place(input, "celu_", lambda x: _celu.CELU_(x, params=(float(alpha),)))
    return _celu.CELU(input, params=(float(alpha),))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * tanh(softplus(input))``, one node (``MishBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.mish(symgrad.tensor([0.0]))
    tensor([0.])
    """
    _floating(input, "mish_cpu")
    return _maybe_inplace(input, inplace, "mish", A.MISH)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``input`` clamped to ``[min_val, max_val]``; gradient 1 strictly inside, else 0.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.hardtanh(symgrad.tensor([-3.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh(input, min_val, max_val, inplace)


def _hardtanh(input: Tensor, min_val: float, max_val: float, inplace: bool) -> Tensor:
    bounds = (float(min_val), float(max_val))
    if isinstance(input, Tensor) and input.dtype.is_floating_point:
        for number in bounds:
            check_fill(number, input.dtype, "hardtanh")
    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        if input.dtype.scalar_type == "Bool":
            raise RuntimeError("Bool inputs not supported for hardtanh")
        if input.dtype.scalar_type == "Byte" and min(bounds) < 0:
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        # an integer tensor stays integer, as in PyTorch (it can't require grad)
        return _maybe_inplace(input, inplace, "hardtanh", lambda x: _int_hardtanh(x, bounds))
    # the node shows the bounds as given, ints as ints (as PyTorch's Scalars)
    shown = tuple(b if type(b) in (int, float) else n for b, n in zip((min_val, max_val), bounds))
    return _maybe_inplace(input, inplace, "hardtanh", lambda x: A.HARDTANH(x, params=shown))


def _int_hardtanh(x: Tensor, bounds: tuple) -> Tensor:
    data = x._data
    return Tensor._make(np.asanyarray(A._hardtanh(data, *bounds)).astype(data.dtype))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` where positive, ``alpha * (exp(input) - 1)`` elsewhere (in place:
    ``EluBackward1``, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.elu(symgrad.tensor([1.0, 0.0]))
    tensor([1., 0.])
    """
    _floating(input, "elu_cpu")
    if inplace:
        return _in_place(input, "elu_", lambda x: A.ELU_(x, params=(float(alpha),)))
    return _math.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> Tensor:
    """``elu(input, alpha, inplace=True)``; as ATen's ``elu_``, also ``scale * input`` where
    positive and ``scale * alpha * (exp(input_scale * input) - 1)`` elsewhere.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.elu_(symgrad.tensor([2.0]))
    tensor([2.])
    >>> F.elu_(symgrad.tensor([2.0, 0.0]), 1.0, 3.0, 0.5)
    tensor([6., 0.])
    """
    if scale == 1 and input_scale == 1:
        return elu(input, alpha, inplace=True)
    params = (float(scale), float(input_scale), float(alpha))
    return _in_place(input, "elu_", lambda x: A.SCALED_ELU_(x, params=params))


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` where positive, ``negative_slope * input`` elsewhere (in place:
    ``LeakyReluBackward1``, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.leaky_relu(symgrad.tensor([-1.0, 2.0]), 0.5)
    tensor([-0.5000,  2.0000])
    """
    _floating(input, "leaky_relu_cpu")
    if inplace:
        slope = (float(negative_slope),)
        return _in_place(input, "leaky_relu_", lambda x: A.LEAKY_RELU_(x, params=slope))
    return _math.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``leaky_relu(input, negative_slope, inplace=True)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.leaky_relu_(symgrad.tensor([-2.0]))
    tensor([-0.0200])
    """
    return leaky_relu(input, negative_slope, inplace=True)


def selu_(input: Tensor) -> Tensor:
    """``selu(input, inplace=True)`` (node ``EluBackward1``, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([1.0])
    >>> F.selu_(x) is x
    True
    """
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``celu(input, alpha, inplace=True)`` (node ``CeluBackward1``, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.celu_(symgrad.tensor([-1.0]), alpha=2.0)
    tensor([-0.7869])
    """
    return celu(input, alpha, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``hardtanh(input, min_val, max_val, inplace=True)``, but as ATen's ``hardtanh_`` it
    takes crossed bounds (``min_val > max_val``): each element becomes ``max_val``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.hardtanh_(symgrad.tensor([3.0]))
    tensor([1.])
    >>> F.hardtanh_(symgrad.tensor([3.0, 0.0]), 2.0)
    tensor([1., 1.])
    """
    for name, bound in (("min_val", min_val), ("max_val", max_val)):
        if not isinstance(bound, (int, float, np.number)):
            position = 2 if name == "min_val" else 3
            raise TypeError(
                f"hardtanh_(): argument '{name}' (position {position}) must be Number, not "
                f"{type(bound).__name__}"
            )
    return _hardtanh(input, min_val, max_val, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``hardtanh(input, 0, 6)`` (node ``HardtanhBackward0``, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.relu6(symgrad.tensor([-1.0, 7.0]))
    tensor([0., 6.])
    """
    return hardtanh(input, 0, 6, inplace)  # (its node shows the int bounds, as PyTorch's)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * relu6(input + 3) / 6``, one node (``HardswishBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.hardswish(symgrad.tensor([-1.0, 4.0]))
    tensor([-0.3333,  4.0000])
    """
    _floating(input, "hardswish_cpu")
    return _maybe_inplace(input, inplace, "hardswish", A.HARDSWISH)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(input + 3) / 6``, one node (``HardsigmoidBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.hardsigmoid(symgrad.tensor([0.0, 3.0]))
    tensor([0.5000, 1.0000])
    """
    _floating(input, "hardsigmoid_cpu")
    return _maybe_inplace(input, inplace, "hardsigmoid", A.HARDSIGMOID)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(input))``, computed without overflow.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.logsigmoid(symgrad.tensor([-1000.0]))
    tensor([-1000.])
    """
    _floating(input, "log_sigmoid_cpu")
    return A.LOGSIGMOID(input)


def softsign(input: Tensor) -> Tensor:
    """``input / (abs(input) + 1)`` (PyTorch's composition, node ``DivBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.softsign(symgrad.tensor([1.0, -3.0]))
    tensor([ 0.5000, -0.7500])
    """
    if isinstance(input, Tensor) and input.dtype.scalar_type == "Bool":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``input - tanh(input)`` (PyTorch's composition, node ``SubBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.tanhshrink(symgrad.tensor([0.0]))
    tensor([0.])
    """
    return input - input.tanh()


def _check_lambd(lambd: float, op: str) -> None:
    if lambd < 0:
        raise RuntimeError(
            f"{op}: lambda must be in range [0, 3.40282e+38] for input dtype Float, but found "
            f"{lambd:g}"
        )


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input - lambd`` above ``lambd``, ``input + lambd`` below ``-lambd``, else 0.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.softshrink(symgrad.tensor([-2.0, 0.25, 1.0]))
    tensor([-1.5000,  0.0000,  0.5000])
    """
    _floating(input, "softshrink_check")
    _check_lambd(lambd, "softshrink")
    return A.SOFTSHRINK(input, params=(float(lambd),))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` where ``|input| > lambd``, else 0.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.hardshrink(symgrad.tensor([-2.0, 0.25]))
    tensor([-2.,  0.])
    """
    _floating(input, "hardshrink_cpu")
    return A.HARDSHRINK(input, params=(float(lambd),))


def softmin(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``softmax(-input, dim)`` (node ``SoftmaxBackward0``, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.softmin(symgrad.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = implicit_dim("softmin", input.ndim, _stacklevel)
    return softmax(-input, dim, dtype)


# -- glu: one node, as PyTorch's GluBackward0 ----------------------------------------------------


def _halves(xp: Any, x: Any, dim: int) -> tuple:
    n = x.shape[dim] // 2
    before = (slice(None),) * dim
    return xp.getitem(x, before + (slice(0, n),)), xp.getitem(x, before + (slice(n, None),))


def _glu_forward(xp: Any, x: Any, dim: int) -> Any:
    a, b = _halves(xp, x, dim)
    return a * xp.elementwise(E.SIGMOID, (b,))


def _glu_vjp(xp: Any, g: Any, c: Any) -> tuple:
    dim = c.params["dim"]
    a, b = _halves(xp, c.inputs[0], dim)
    s = xp.elementwise(E.SIGMOID, (b,))
    ga = g * s
    return (xp.cat([ga, ga * a * (1 - s)], dim),)


def _glu_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    dim = c.params["dim"]
    a, b = _halves(xp, c.inputs[0], dim)
    ta, tb = _halves(xp, tangents[0], dim)
    s = xp.elementwise(E.SIGMOID, (b,))
    return ta * s + a * s * (1 - s) * tb


_GLU_VJP = fused_backward(_glu_vjp, "GluBackwardBackward0", lambda g, c: (g, c.inputs[0]))
_GLU = Structural("glu", _glu_forward, _GLU_VJP, saves=(0,), backward="GluBackward0", jvp=_glu_jvp)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: ``a * sigmoid(b)`` for the halves ``a``, ``b`` of ``dim``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.glu(symgrad.tensor([2.0, 0.0]))
    tensor([1.])
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not -input.ndim <= dim < input.ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-input.ndim}, "
            f"{input.ndim - 1}], but got {dim})"
        )
    d = dim % input.ndim
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    _floating(input, "glu_cpu")
    return _GLU(input, dim=d)
