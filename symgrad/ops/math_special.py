"""Public functions of the primitives of :mod:`symgrad.ops.elementwise_special`, and
``nan_to_num`` (its gradient passes where the input is finite)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import invalid_combination as _invalid_combination
from symgrad._arguments import require_float, require_tensor
from symgrad.ops import elementwise_special as S
from symgrad.ops.inplace import inplace
from symgrad.ops.math import _unary
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = [
    "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "arctan2",
    "exp2", "log2", "log10", "erfc", "erfinv", "lgamma", "digamma", "sinc", "deg2rad", "rad2deg",
    "atan2", "hypot", "logaddexp", "logaddexp2", "sgn", "angle", "xlogy", "copysign", "lerp",
    "nan_to_num",
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
arcsin = _unary(S.ASIN, "Another name of ``asin``.", "arcsin")
arccos = _unary(S.ACOS, "Another name of ``acos``.", "arccos")
arctan = _unary(S.ATAN, "Another name of ``atan``.", "arctan")
arcsinh = _unary(S.ASINH, "Another name of ``asinh``.", "arcsinh")
arccosh = _unary(S.ACOSH, "Another name of ``acosh``.", "arccosh")
arctanh = _unary(S.ATANH, "Another name of ``atanh``.", "arctanh")
sgn = _unary(S.SGN, "The sign of a real tensor, -1, 0 or 1 (derivative 0, as PyTorch).")
angle = _unary(S.ANGLE, "The argument of each real element: 0, or pi below 0 (derivative 0).")


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real)


def _floating_only(kernel: str, dtype: dtypes.dtype) -> None:
    if not dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtype.scalar_type}': it takes floating "
            "tensors; convert the inputs first (x.float() or x.double())"
        )


def _binary(op: str, prim: Any, input: Any, other: Any, kernel: str | None = None) -> Tensor:
    require_tensor(op, "input", 1, input)
    require_tensor(op, "other", 2, other)
    if kernel is not None:
        _floating_only(kernel, dtypes.result_type(input, other))
    return prim(input, other)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of the point ``(other, input)``: ``atan(input / other)`` in the right
    quadrant (two tensors; the gradient is 0 where ``input ** 2 + other ** 2`` is 0).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.atan2(symgrad.tensor([1.0]), symgrad.tensor([-1.0]))
    tensor([2.3562])
    """
    return _binary("atan2", S.ATAN2, input, other)


def arctan2(input: Tensor, other: Tensor) -> Tensor:
    """Alias of :func:`atan2`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.arctan2(symgrad.tensor([0.0]), symgrad.tensor([-1.0]))
    tensor([3.1416])
    """
    return _binary("arctan2", S.ATAN2, input, other)


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input ** 2 + other ** 2)`` without overflow (two tensors, not both integer).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.hypot(symgrad.tensor([3.0]), symgrad.tensor([4.0]))
    tensor([5.])
    """
    return _binary("hypot", S.HYPOT, input, other, kernel="hypot_cpu")


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """``log(exp(input) + exp(other))`` without overflow (two tensors, not both integer).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.logaddexp(symgrad.tensor([0.0]), symgrad.tensor([0.0]))
    tensor([0.6931])
    """
    return _binary("logaddexp", S.LOGADDEXP, input, other, kernel="logaddexp_cpu")


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2 ** input + 2 ** other)`` without overflow (two tensors, not both integer).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.logaddexp2(symgrad.tensor([1.0]), symgrad.tensor([1.0]))
    tensor([2.])
    """
    return _binary("logaddexp2", S.LOGADDEXP2, input, other, kernel="logaddexp2_cpu")


_XLOGY_SIGNATURES = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Number self, Tensor other, *, Tensor out = None",
    "Tensor input, Number other, *, Tensor out = None",
)


def xlogy(input: Any, other: Any) -> Tensor:
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is nan); either may
    be a number, not both.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.xlogy(symgrad.tensor([0.0, 2.0]), symgrad.tensor([0.0, 1.0]))
    tensor([0., 0.])
    """
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return S.XLOGY(input, other)
    if _is_number(input) and isinstance(other, Tensor):
        return S.XLOGY_NUMBER_SELF(other, params=(input,))
    if isinstance(input, Tensor) and _is_number(other):
        return S.XLOGY_NUMBER_OTHER(input, params=(other,))
    raise _invalid_combination("xlogy", (input, other), _XLOGY_SIGNATURES)


_COPYSIGN_SIGNATURES = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Tensor input, Number other, *, Tensor out = None",
)


def copysign(input: Tensor, other: Any) -> Tensor:
    """``|input|`` with the sign of ``other`` (a tensor or a number; -0.0 counts as
    negative). The gradient reaches ``input`` only.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.copysign(symgrad.tensor([1.0, -2.0]), -0.0)
    tensor([-1., -2.])
    """
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return S.COPYSIGN(input, other)
    if isinstance(input, Tensor) and _is_number(other):
        return S.COPYSIGN_SCALAR(input, params=(float(other),))
    raise _invalid_combination("copysign", (input, other), _COPYSIGN_SIGNATURES)


_LERP_SIGNATURES = (
    "Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
    "Tensor input, Tensor end, Number weight, *, Tensor out = None",
)


def _same_dtype_as_input(input: Tensor, other: Tensor, name: str) -> None:
    if other.dtype != input.dtype:
        want, got = (dtypes.cpp_name(t.dtype) for t in (input, other))
        raise RuntimeError(
            f"expected dtype {want} for `{name}` but got dtype {got}: lerp does not promote, "
            f"convert `{name}` with .to({input.dtype.name})"
        )


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)`` (a number or tensor ``weight``), in PyTorch's two
    forms, each exact at its end. ``end``, and a ``weight`` tensor with dimensions, must have
    ``input``'s floating dtype.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.lerp(symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]), 0.5)
    tensor([2., 3.])
    """
    tensors = isinstance(input, Tensor) and isinstance(end, Tensor)
    if not tensors or not (isinstance(weight, Tensor) or _is_number(weight)):
        raise _invalid_combination("lerp", (input, end, weight), _LERP_SIGNATURES)
    _same_dtype_as_input(input, end, "end")
    if isinstance(weight, Tensor):
        if weight.ndim:
            _same_dtype_as_input(input, weight, "weight")
        _floating_only("lerp_kernel_tensor", input.dtype)
        return S.LERP_TENSOR(input, end, weight)
    _floating_only("lerp_kernel_scalar", input.dtype)
    return S.LERP_SCALAR(input, end, params=(weight,))


def _without_derivative(name: str, prim: Any) -> Structural:
    """The in-place ``name_``, which PyTorch records (``AsinhBackward1``) but cannot
    differentiate."""

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        raise NotImplementedError(
            f"the derivative for 'inplace version of {name}' is not implemented (as in "
            f"PyTorch); differentiate the out-of-place {name}(x) instead"
        )

    return Structural(
        f"{name}_",
        lambda xp, x: xp.elementwise(prim, (x,), ()),
        vjp,
        backward=f"{name.capitalize()}Backward1",
        kernel=lambda xp, x: prim.numeric(x),
    )


_IN_PLACE_WITHOUT_DERIVATIVE = {
    name: _without_derivative(name, prim)
    for name, prim in (("asinh", S.ASINH), ("acosh", S.ACOSH), ("atanh", S.ATANH))
}


def _in_place_without_derivative(name: str, method: str) -> Any:
    prim = _IN_PLACE_WITHOUT_DERIVATIVE[name]

    def in_place(self: Tensor) -> Tensor:
        return inplace(self, method, prim)

    in_place.__name__ = method
    in_place.__doc__ = f"In-place :func:`{name}` (recorded, but without a derivative)."
    return in_place


# the Tensor methods asinh_, acosh_, atanh_ and their arc aliases
IN_PLACE_METHODS = {
    method: _in_place_without_derivative(name, method)
    for name, aliases in (("asinh", "arcsinh"), ("acosh", "arccosh"), ("atanh", "arctanh"))
    for method in (f"{name}_", f"{aliases}_")
}


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
    input: Tensor, nan: float | None = 0.0, posinf: float | None = None, neginf: float | None = None
) -> Tensor:
    """``input`` with nan, +inf and -inf replaced (by 0, and the dtype's largest and smallest
    finite values unless given); the gradient passes where ``input`` is finite.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nan_to_num(symgrad.tensor([float("nan"), 1.0, float("-inf")]), neginf=-9.0)
    tensor([ 0.,  1., -9.])
    """
    if type(input) is not Tensor:
        require_tensor("nan_to_num", "input", 1, input)
    for name, value in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if value is not None and type(value) is not float:
            require_float("nan_to_num", name, value)
    if nan is None:
        nan = 0.0
    x = input._data
    if x.dtype.kind not in "fc":
        return input.clone()
    with np.errstate(over="ignore"):  # a replacement beyond the dtype's range is inf
        filled = np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)
    return _NAN_TO_NUM(input, finite=np.isfinite(x), filled=filled)
