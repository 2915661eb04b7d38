"""Rounding: floor, ceil, round, trunc and frac, recorded like every element-wise op.

Their derivative is 0 (frac's is 1), as in PyTorch: the Dirac deltas at the steps are left
out. They are primitives of the registry all the same, with PyTorch's node names, so that
straight-through estimators (``x + (x.round() - x).detach()``) and products such as
``x.floor() * x`` differentiate as in PyTorch, and closed forms show ``floor(x)``. Integer
tensors come back unchanged (as new tensors), bool tensors are refused, as in PyTorch.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor
from symgrad.ops.elementwise import declare
from symgrad.ops.inplace import inplace
from symgrad.prim.domains import Domain
from symgrad.tensor import Tensor

__all__ = ["floor", "ceil", "round", "trunc", "fix", "frac"]


def _sympy_rounding() -> Any:
    # imported when a formula is first needed: the module loads SymPy
    from symgrad.prim import rounding

    return rounding


def _keeps_integers(ufunc: Any) -> Any:
    """``ufunc`` on floats; integers come back as they are (a float detour would lose those
    beyond 2**53)."""

    def kernel(v: Any) -> Any:
        if np.result_type(v).kind in "iu":
            return np.array(v)
        return ufunc(v)

    kernel.__name__ = ufunc.__name__
    return kernel


def _round_decimals(v: Any, decimals: Any) -> Any:
    # PyTorch's kernel: rint(v * 10**d) / 10**d, or rint(v / 10**-d) * 10**-d for d < 0, with
    # the power taken in float64 and the rest in the input's precision (float32 for float16),
    # so that round(0.295, decimals=2) is 0.29 in float32 and 0.3 in float64
    v = np.asarray(v)
    dtype = np.float32 if v.dtype == np.float16 else v.dtype
    scale = np.asarray(np.power(10.0, abs(decimals)), dtype=dtype)
    v = v.astype(dtype, copy=False)
    if decimals >= 0:
        return np.rint(v * scale) / scale
    return np.rint(v / scale) * scale


def _trunc_frac(v: Any) -> Any:
    return v - np.trunc(v)


# the steps of floor, ceil, trunc and frac are at the integers, round's at the halves, and
# round(decimals=1)'s at the multiples of 0.05: the samples stay clear of all of them
_STEPS = Domain({"x": "between_steps"})

FLOOR = declare(
    "floor",
    "x",
    lambda x: _sympy_rounding().floor(x),
    kernel=_keeps_integers(np.floor),
    domain=_STEPS,
)
CEIL = declare(
    "ceil",
    "x",
    lambda x: _sympy_rounding().ceiling(x),
    kernel=_keeps_integers(np.ceil),
    domain=_STEPS,
)
ROUND = declare(
    "round",
    "x",
    lambda x: _sympy_rounding().round(x),
    kernel=_keeps_integers(np.rint),
    domain=_STEPS,
)
ROUND_DECIMALS = declare(
    "round_decimals",
    "x",
    lambda x, decimals: _sympy_rounding().round(x * 10**decimals) / 10**decimals,
    params="decimals",
    kernel=_round_decimals,
    backward="RoundBackward1",
    domain=Domain({"x": "between_steps"}, params=((1,), (0,), (-1,))),
)
TRUNC = declare(
    "trunc",
    "x",
    lambda x: _sympy_rounding().trunc(x),
    kernel=_keeps_integers(np.trunc),
    domain=_STEPS,
)
# PyTorch's frac keeps the sign: x - trunc(x), not SymPy's x - floor(x)
FRAC = declare(
    "frac", "x", lambda x: x - _sympy_rounding().trunc(x), kernel=_trunc_frac, domain=_STEPS
)


def _check_dtype(input: Any, op: str, integers: bool = True) -> None:
    """PyTorch rounds floating tensors (and passes integers through where ``integers``)."""
    if type(input) is not Tensor:
        require_tensor(op, "input", 1, input)
    kind = input._data.dtype.kind
    if kind == "b" or (kind in "iu" and not integers):
        raise NotImplementedError(
            f"{op} is not implemented for {input.dtype.name} tensors (shape "
            f"{list(input.shape)}); convert the tensor first, e.g. x.float().{op}()"
        )


def floor(input: Any) -> Tensor:
    """The largest integer not above each element (derivative 0, ``FloorBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.floor(symgrad.tensor([-1.5, 0.5, 2.0]))
    tensor([-2.,  0.,  2.])
    """
    _check_dtype(input, "floor")
    return FLOOR(input)


def ceil(input: Any) -> Tensor:
    """The smallest integer not below each element (derivative 0, ``CeilBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ceil(symgrad.tensor([-1.5, 0.5, 2.0]))
    tensor([-1.,  1.,  2.])
    """
    _check_dtype(input, "ceil")
    return CEIL(input)


def round(input: Any, *, decimals: Any = None) -> Tensor:  # noqa: A001 - PyTorch's name
    """Each element rounded to ``decimals`` decimal places (0 by default; negative rounds to
    tens, hundreds...), halves to even as in PyTorch; derivative 0. PyTorch names the node
    ``RoundBackward1`` when ``decimals`` is given, ``RoundBackward0`` otherwise.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.round(symgrad.tensor([0.5, 1.5, 2.5, -2.5]))
    tensor([ 0.,  2.,  2., -2.])
    >>> symgrad.round(symgrad.tensor([1.234, 15.0]), decimals=1)
    tensor([ 1.2000, 15.0000])
    >>> symgrad.round(symgrad.tensor([1.234, 15.0]), decimals=-1)
    tensor([ 0., 20.])
    """
    if decimals is None:
        _check_dtype(input, "round")
        return ROUND(input)
    if isinstance(decimals, (bool, float)) or not hasattr(type(decimals), "__index__"):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    _check_dtype(input, "round", integers=False)
    return ROUND_DECIMALS(input, params=(operator.index(decimals),))


def trunc(input: Any) -> Tensor:
    """Each element rounded toward zero (derivative 0, ``TruncBackward0``); ``fix`` is the
    same function.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.trunc(symgrad.tensor([-1.5, 0.5, 2.7]))
    tensor([-1.,  0.,  2.])
    """
    _check_dtype(input, "trunc")
    return TRUNC(input)


def fix(input: Any) -> Tensor:
    """Another name of ``trunc``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.fix(symgrad.tensor([-1.5, 2.7]))
    tensor([-1.,  2.])
    """
    _check_dtype(input, "fix")
    return TRUNC(input)


def frac(input: Any) -> Tensor:
    """The fractional part, ``input - trunc(input)``, with the sign of ``input``
    (derivative 1, ``FracBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.frac(symgrad.tensor([-1.25, 0.5, 2.0]))
    tensor([-0.2500,  0.5000,  0.0000])
    """
    _check_dtype(input, "frac", integers=False)
    return FRAC(input)


# -- in place: the same ops written into the tensor (recorded on a non-leaf) ---------------------
def floor_(self: Tensor) -> Tensor:
    return inplace(self, "floor_", floor)


def ceil_(self: Tensor) -> Tensor:
    return inplace(self, "ceil_", ceil)


def round_(self: Tensor, *, decimals: Any = None) -> Tensor:
    return inplace(self, "round_", lambda x: round(x, decimals=decimals))


def trunc_(self: Tensor) -> Tensor:
    return inplace(self, "trunc_", trunc)


def frac_(self: Tensor) -> Tensor:
    return inplace(self, "frac_", frac)


IN_PLACE = {
    "floor_": floor_,
    "ceil_": ceil_,
    "round_": round_,
    "trunc_": trunc_,
    "fix_": trunc_,
    "frac_": frac_,
}


def stored_values(xp: Any, a: Any, dtype: dtypes.dtype) -> Any:
    """The meaning of a conversion to ``dtype`` (``to_dtype``'s forward rule): the same values
    in a floating dtype; in an integer dtype rounded toward zero and wrapped into its range; in
    bool 0 or 1. Only data reaches the last two: converting a tensor that requires grad to a
    dtype that is not floating records no node."""
    if dtype.is_floating_point or dtype.is_complex:
        return a
    if dtype is dtypes.bool_:
        return xp.sign(xp.abs(a))
    whole = xp.elementwise(TRUNC, (a,))
    bits = np.iinfo(dtype.numpy).bits
    if bits == 64:
        return whole
    low, span = int(np.iinfo(dtype.numpy).min), 2**bits
    # (whole - low) mod span + low, with floor: C has no % of floating values
    return whole - span * xp.elementwise(FLOOR, ((whole - low) / span,))
