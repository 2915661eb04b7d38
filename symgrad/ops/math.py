"""Element-wise functions with PyTorch's signatures, applying the declared primitives."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import (
    deprecated_alpha,
    no_overload,
    require_floating,
    require_tensor,
    require_tensor_input,
    require_tensors,
)
from symgrad._data import check_fill, check_number
from symgrad.ops import clamp_bounds as C
from symgrad.ops import elementwise as E
from symgrad.ops import gelu as _gelu
from symgrad.ops.division import rounded_div
from symgrad.ops.index_keys import warn_at_user
from symgrad.ops.operand_checks import bool_subtraction, check_alpha, is_bool
from symgrad.ops.operand_checks import subtract_operator as subtract_operator  # the `-` method
from symgrad.ops.scaled import ADD_SCALED, SUB_SCALED, scaled
from symgrad.prim.primitive import as_operand
from symgrad.tensor import Tensor

__all__ = [
    "add",
    "sub",
    "subtract",
    "mul",
    "multiply",
    "div",
    "divide",
    "true_divide",
    "neg",
    "negative",
    "pow",
    "reciprocal",
    "square",
    "exp",
    "expm1",
    "log",
    "log1p",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "erf",
    "abs",
    "absolute",
    "sign",
    "relu",
    "leaky_relu",
    "elu",
    "clamp",
    "clip",
    "clamp_min",
    "clamp_max",
    "maximum",
    "minimum",
    "where",
    "sigmoid",
    "softplus",
    "gelu",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_not",
    "logical_and",
    "logical_or",
    "isnan",
    "isinf",
    "isfinite",
]


def add(input: Any, other: Any, *deprecated: Any, alpha: Any = 1) -> Tensor:
    """``input + alpha * other``, broadcasting.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.add(symgrad.tensor([1.0, 2.0]), 1.5)
    tensor([2.5000, 3.5000])
    """
    if deprecated:
        other, alpha = deprecated_alpha("add", other, deprecated, alpha)
    if type(alpha) is not int or alpha != 1:
        alpha = check_alpha(input, other, alpha, "add")
    if alpha == 1:
        return E.ADD(input, other)
    return scaled(ADD_SCALED, input, other, alpha)  # one node, alpha saved, as PyTorch


def sub(input: Any, other: Any, *deprecated: Any, alpha: Any = 1) -> Tensor:
    """``input - alpha * other``, broadcasting.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.sub(symgrad.tensor([1.0, 2.0]), 0.5, alpha=2)
    tensor([0., 1.])
    """
    if deprecated:
        other, alpha = deprecated_alpha("sub", other, deprecated, alpha)
    if is_bool(input) or is_bool(other):
        raise bool_subtraction(input, other)
    if type(alpha) is not int or alpha != 1:
        alpha = check_alpha(input, other, alpha, "sub")
    if alpha == 1 and not isinstance(input, Tensor) and isinstance(other, Tensor):
        return E.RSUB(other, input)
    if alpha == 1:
        return E.SUB(input, other)
    return scaled(SUB_SCALED, input, other, alpha)


def mul(input: Any, other: Any) -> Tensor:
    """``input * other``, broadcasting."""
    return E.MUL(input, other)


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """``input / other`` (true division; ``rounding_mode`` 'floor' or 'trunc' is not
    differentiable, and raises for an integer division by zero, as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.div(symgrad.tensor([1, -1, 0]), 0)
    tensor([inf, -inf, nan])
    """
    if rounding_mode is None:
        return E.DIV(input, other)
    if not isinstance(rounding_mode, str):
        raise TypeError(
            f"div(): argument 'rounding_mode' must be str or None, not "
            f"{type(rounding_mode).__name__}"
        )
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"{rounding_mode!r}"
        )
    return rounded_div(input, other, rounding_mode)


def neg(input: Any) -> Tensor:
    """``-input``."""
    if type(input) is not Tensor:
        require_tensor("neg", "input", 1, input)
    if input._data.dtype == np.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported; use `~` or "
            "logical_not() to invert a mask"
        )
    return E.NEG(input)


def pow(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent``, broadcasting (either may be a number).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.pow(symgrad.tensor([2.0, 3.0]), 2)
    tensor([4., 9.])
    """
    input, exponent = as_operand(input, "pow"), as_operand(exponent, "pow")
    if isinstance(exponent, Tensor) and is_bool(input) and is_bool(exponent):
        # PyTorch has no bool kernel for a tensor exponent (b ** True is a plain copy)
        raise NotImplementedError(
            "\"pow\" not implemented for 'Bool': both the base and the exponent are bool; "
            "convert one first, e.g. base.int() ** exponent"
        )
    if not isinstance(input, Tensor):
        return E.POW_SCALAR_BASE(exponent, params=(input,))
    if isinstance(exponent, Tensor):
        return E.POW_TENSOR(input, exponent)
    if input._data.dtype.kind in "biu" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError(
            f"Integers to negative integer powers are not allowed: {input.dtype!r} ** "
            f"{exponent}; convert first, e.g. x.double() ** {exponent}"
        )
    return E.POW(input, params=(exponent,))


def _unary(prim: Any, doc: str, name: str | None = None) -> Any:
    """The function ``name`` (the primitive's by default) of a one-tensor primitive."""
    name = name or prim.name

    def op(input: Any) -> Tensor:
        if type(input) is not Tensor:
            require_tensor(name, "input", 1, input)
        return prim(input)

    op.__name__ = op.__qualname__ = name
    op._prim = prim  # type: ignore[attr-defined]  # what with_out calls straight
    op.__doc__ = f"{doc}\n\n    Examples\n    --------\n    >>> import symgrad\n" + (
        f"    >>> symgrad.{name}(symgrad.tensor([0.5])).shape\n    symgrad.Size([1])\n"
    )
    return op


reciprocal = _unary(E.RECIPROCAL, "``1 / input``, element-wise.")
_square_float = _unary(E.SQUARE, "``input ** 2``, element-wise.", "square")


def square(input: Any) -> Tensor:
    """``input ** 2``, element-wise (of a bool tensor, an int64 one, as PyTorch's
    ``pow(input, 2)``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.square(symgrad.tensor([True, False]))
    tensor([1, 0])
    """
    if type(input) is Tensor and input.dtype is dtypes.bool_:
        input = input.to(dtypes.int64)
    return _square_float(input)


exp = _unary(E.EXP, "The exponential, element-wise.")
expm1 = _unary(E.EXPM1, "``exp(input) - 1``, accurate near 0.")
log = _unary(E.LOG, "The natural logarithm, element-wise.")
log1p = _unary(E.LOG1P, "``log(1 + input)``, accurate near 0.")
sqrt = _unary(E.SQRT, "The square root, element-wise.")
rsqrt = _unary(E.RSQRT, "``1 / sqrt(input)``, element-wise.")
sin = _unary(E.SIN, "The sine, element-wise.")
cos = _unary(E.COS, "The cosine, element-wise.")
tan = _unary(E.TAN, "The tangent, element-wise.")
tanh = _unary(E.TANH, "The hyperbolic tangent, element-wise.")
erf = _unary(E.ERF, "The error function, element-wise.")
abs = _unary(E.ABS, "The absolute value (derivative 0 at 0, as PyTorch).")
sign = _unary(E.SIGN, "The sign, -1, 0 or 1 (derivative 0 everywhere, as PyTorch).")


def relu(input: Any) -> Tensor:
    """``max(input, 0)`` (derivative 0 at 0, as PyTorch; a bool tensor is refused).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.relu(symgrad.tensor([-1, 2]))
    tensor([0, 2])
    """
    if type(input) is not Tensor:
        require_tensor("relu", "input", 1, input)
    if input._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return E.RELU(input)


relu._prim = E.RELU  # type: ignore[attr-defined]  # what with_out calls straight
sigmoid = _unary(E.SIGMOID, "``1 / (1 + exp(-input))``, computed without overflow.")
absolute = _unary(E.ABS, "Another name of ``abs``.", "absolute")
subtract, multiply, divide, true_divide, negative = sub, mul, div, div, neg


def leaky_relu(input: Any, negative_slope: float = 0.01) -> Tensor:
    """``input`` where positive, ``negative_slope * input`` elsewhere."""
    return E.LEAKY_RELU(input, params=(negative_slope,))


def elu(input: Any, alpha: float = 1.0) -> Tensor:
    """``input`` where positive, ``alpha * (exp(input) - 1)`` elsewhere."""
    return E.ELU(input, params=(alpha,))


def softplus(input: Any, beta: float = 1, threshold: float = 20) -> Tensor:
    """``log(1 + exp(beta * input)) / beta``, linear where ``beta * input > threshold``."""
    require_floating(input, "softplus_cpu")
    return E.SOFTPLUS(input, params=(beta, threshold))


def gelu(input: Any, approximate: str = "none") -> Tensor:
    """The Gaussian error linear unit; ``approximate='tanh'`` for the tanh formula."""
    require_floating(input, "GeluKernelImpl")
    if not isinstance(approximate, str):
        raise TypeError(
            f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__} "
            "(give 'none' or 'tanh')"
        )
    if approximate == "none":
        return _gelu.GELU(input)
    if approximate == "tanh":
        return _gelu.GELU_TANH(input)
    raise RuntimeError(
        f"approximate argument must be either none or tanh. (gelu got approximate={approximate!r})"
    )


def clamp(input: Any, min: Any = None, max: Any = None) -> Tensor:
    """Limit ``input`` to ``[min, max]`` (gradient 1 inside and on the bounds, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.clamp(symgrad.tensor([1, 5]), 0.5, 2.5)
    tensor([1.0000, 2.5000])
    """
    if type(input) is not Tensor:
        require_tensor_input("clamp", input, min, max)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        min, max = C.number_bounds(min, max)
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            return C.clamp_tensor(input, min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    input = _promoted(input, min, max)
    integer = isinstance(input, Tensor) and not input.dtype.is_floating_point
    if (min is None or max is None) and integer:
        # the missing bound as ±inf would make the integer result floating
        return clamp_max(input, max) if min is None else clamp_min(input, min)
    low = -float("inf") if min is None else min
    high = float("inf") if max is None else max
    return E.CLAMP(input, params=(low, high))


def _promoted(input: Any, *bounds: Any) -> Any:
    """An integer tensor becomes floating when a bound is a float, as in PyTorch (an int
    bound it can't hold is an error)."""
    for b in bounds:
        if b is not None:
            b = as_operand(b, "clamp")
            if isinstance(input, Tensor) and (
                isinstance(b, int) or isinstance(b, float) and input.dtype.is_floating_point
            ):
                check_fill(b, input.dtype, "clamp")
    if (
        isinstance(input, Tensor)
        and not input.dtype.is_floating_point
        and any(isinstance(b, float) for b in bounds)
    ):
        return input.to(dtypes.get_default_dtype())
    return input


def clip(input: Any, min: Any = None, max: Any = None) -> Tensor:
    """Another name of ``clamp``."""
    if type(input) is not Tensor:
        require_tensor_input("clip", input, min, max)
    return clamp(input, min, max)


def clamp_min(input: Any, min: Any) -> Tensor:
    """``max(input, min)``."""
    if type(input) is not Tensor:
        require_tensor_input("clamp_min", input, min)
    if isinstance(min, Tensor):
        return C.CLAMP_MIN_TENSOR(input, min)
    return E.CLAMP_MIN(_promoted(input, min), params=(min,))


def clamp_max(input: Any, max: Any) -> Tensor:
    """``min(input, max)``."""
    if type(input) is not Tensor:
        require_tensor_input("clamp_max", input, max)
    if isinstance(max, Tensor):
        return C.CLAMP_MAX_TENSOR(input, max)
    return E.CLAMP_MAX(_promoted(input, max), params=(max,))


def maximum(input: Any, other: Any) -> Tensor:
    """Element-wise maximum (ties share the gradient half and half, as PyTorch)."""
    if type(input) is not Tensor or type(other) is not Tensor:
        require_tensors("maximum", input, "other", other)
    return E.MAXIMUM(input, other)


def minimum(input: Any, other: Any) -> Tensor:
    """Element-wise minimum (ties share the gradient half and half, as PyTorch)."""
    if type(input) is not Tensor or type(other) is not Tensor:
        require_tensors("minimum", input, "other", other)
    return E.MINIMUM(input, other)


def where(condition: Any, input: Any = None, other: Any = None) -> Tensor:
    """``input`` where ``condition`` holds, else ``other``; with the condition alone, the
    indices where it holds (``nonzero(condition, as_tuple=True)``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([-1.0, 2.0])
    >>> symgrad.where(x > 0, x, 0.0)
    tensor([0., 2.])
    """
    if type(condition) is not Tensor and not isinstance(condition, np.ndarray):
        require_tensor_input("where", condition, input, other)
    if input is None or other is None:
        if input is not None or other is not None:
            raise no_overload("where", condition, input, other)
        return condition.nonzero(as_tuple=True)
    condition = as_operand(condition, "where")
    if isinstance(condition, Tensor) and condition.dtype.name == "uint8":
        warn_at_user(
            "where received a uint8 condition tensor. This behavior is deprecated and will be "
            "removed in a future version of PyTorch. Use a boolean condition instead."
        )
        condition = condition != 0
    if not isinstance(condition, Tensor) or condition.dtype.name != "bool":
        got = condition.dtype if isinstance(condition, Tensor) else type(condition).__name__
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{getattr(got, 'scalar_type', got)}\n(the condition is {got!r}: compare, e.g. x > 0)"
        )
    _check_scalar_fits(input, other)
    _check_scalar_fits(other, input)
    return E.WHERE(condition, input, other)


def _check_scalar_fits(number: Any, tensor: Any) -> None:
    """PyTorch's error for an int ``number`` that the integer ``tensor``'s dtype can't hold
    (it was cast, wrapping silently); a negative int down to ``-max`` of an unsigned dtype
    wraps, as PyTorch's checked conversion lets it."""
    if type(number) is not int or type(tensor) is not Tensor:
        return
    dtype = tensor.dtype
    if dtype.is_floating_point or dtype.is_complex or dtype is dtypes.bool_:
        return
    if dtype.name.startswith("uint") and -np.iinfo(dtype.numpy).max <= number < 0:
        return
    check_number(number, dtype, "where")


# comparisons and predicates (not differentiable, bool results) have a module of their own
from symgrad.ops.comparisons import (  # noqa: E402  # noqa: E402
    eq,
    ge,
    gt,
    isfinite,
    isinf,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    lt,
    ne,
)
