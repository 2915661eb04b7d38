"""Public functions of the primitives of :mod:`symgrad.ops.elementwise_special`, and
``nan_to_num`` (its gradient passes where the input is finite)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops import elementwise_special as S
from symgrad.ops.math import _unary
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = [
    "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "arctan2",
    "exp2", "log2", "log10", "erfc", "erfinv", "lgamma", "digamma", "sinc", "deg2rad", "rad2deg",
    "atan2", "hypot", "logaddexp", "xlogy", "copysign", "lerp", "nan_to_num",
]  # fmt: skip

asin = _unary(S.ASIN, "The inverse sine, element-wise.")
acos = _unary(S.ACOS, "The inverse cosine, element-wise.")
atan = _unary(S.ATAN, "The inverse tangent, element-wise.")
sinh = _unary(S.SINH, "The hyperbolic sine, element-wise.")
cosh = _unary(S.COSH, "The hyperbolic cosine, element-wise.")
asinh = _unary(S.ASINH, "The inverse hyperbolic sine, element-wise.")
acosh = _unary(S.ACOSH, "The inverse hyperbolic cosine, element-wise (from 1).")
atanh = _unary(S.ATANH, "The inverse hyperbolic tangent, element-wise (on (-1, 1)).")
exp2 = _unary(S.EXP2, "``2 ** input``, element-wise.")
log2 = _unary(S.LOG2, "The base-2 logarithm, element-wise.")
log10 = _unary(S.LOG10, "The base-10 logarithm, element-wise.")
erfc = _unary(S.ERFC, "The complementary error function ``1 - erf(input)``.")
erfinv = _unary(S.ERFINV, "The inverse error function, on (-1, 1).")
lgamma = _unary(S.LGAMMA, "``log |Gamma(input)|``, element-wise.")
digamma = _unary(S.DIGAMMA, "The digamma function, the derivative of ``lgamma``.")
sinc = _unary(S.SINC, "``sin(pi x) / (pi x)``, 1 at 0 (derivative 0 there, as PyTorch).")
deg2rad = _unary(S.DEG2RAD, "Degrees to radians.")
rad2deg = _unary(S.RAD2DEG, "Radians to degrees.")
arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh


def _tensor_other(op: str, other: Any) -> None:
    if not isinstance(other, Tensor):
        raise TypeError(
            f"{op}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of the point ``(other, input)``: ``atan(input / other)`` in the right
    quadrant.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.atan2(symgrad.tensor([1.0]), symgrad.tensor([-1.0]))
    tensor([2.3562])
    """
    _tensor_other("atan2", other)
    return S.ATAN2(input, other)


arctan2 = atan2


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input ** 2 + other ** 2)`` without overflow."""
    _tensor_other("hypot", other)
    return S.HYPOT(input, other)


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """``log(exp(input) + exp(other))`` without overflow."""
    _tensor_other("logaddexp", other)
    return S.LOGADDEXP(input, other)


def xlogy(input: Any, other: Any) -> Tensor:
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is nan).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.xlogy(symgrad.tensor([0.0, 2.0]), symgrad.tensor([0.0, 1.0]))
    tensor([0., 0.])
    """
    if not isinstance(input, Tensor):
        return S.XLOGY_NUMBER_SELF(other, params=(input,))
    if not isinstance(other, Tensor):
        return S.XLOGY_NUMBER_OTHER(input, params=(other,))
    return S.XLOGY(input, other)


def copysign(input: Tensor, other: Any) -> Tensor:
    """``|input|`` with the sign of ``other`` (a tensor or a number; -0.0 counts as
    negative). The gradient reaches ``input`` only."""
    if not isinstance(other, Tensor):
        return S.COPYSIGN_SCALAR(input, params=(float(other),))
    return S.COPYSIGN(input, other)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)`` (a number or tensor ``weight``), in PyTorch's two
    forms, each exact at its end.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.lerp(symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]), 0.5)
    tensor([2., 3.])
    """
    if isinstance(weight, Tensor):
        return S.LERP_TENSOR(input, end, weight)
    return S.LERP_SCALAR(input, end, params=(weight,))


def _nan_to_num_forward(xp: Any, x: Any, finite: np.ndarray, filled: np.ndarray) -> Any:
    return xp.where(xp.constant(finite), x, xp.constant(filled))


def _nan_to_num_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # PyTorch multiplies by the mask: an infinite gradient where the input is not finite
    # gives nan, as there
    return (g * xp.constant(c.params["finite"].astype(c.params["filled"].dtype)),)


def _nan_to_num_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    return _nan_to_num_vjp(xp, tangents[0], c)[0]


_NAN_TO_NUM = Structural(
    "nan_to_num",
    _nan_to_num_forward,
    _nan_to_num_vjp,
    backward="NanToNumBackward0",
    jvp=_nan_to_num_jvp,
)


def nan_to_num(
    input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> Tensor:
    """``input`` with nan, +inf and -inf replaced (by 0, and the dtype's largest and smallest
    finite values unless given); the gradient passes where ``input`` is finite.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nan_to_num(symgrad.tensor([float("nan"), 1.0, float("-inf")]), neginf=-9.0)
    tensor([ 0.,  1., -9.])
    """
    x = input._data
    if x.dtype.kind not in "fc":
        return input.clone()
    filled = np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)
    return _NAN_TO_NUM(input, finite=np.isfinite(x), filled=filled)
