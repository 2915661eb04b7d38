"""Rounding divisions: floor and truncating division, ``remainder`` and ``fmod``.

PyTorch's conventions: ``remainder`` takes the divisor's sign (Python's ``%``), ``fmod`` the
dividend's (C's ``fmod``); integers divided by zero raise ``RuntimeError("ZeroDivisionError")``
where floats give inf or nan. The gradients are PyTorch's: ``g`` for the dividend and
``-g * quotient`` for the divisor, the quotient rounded down (remainder) or toward zero (fmod).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import check_number, in_dtype, int_argument
from symgrad._silent import cast
from symgrad._tracing import TRACE, data_params
from symgrad.prim.primitive import as_operand
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["floor_divide", "remainder", "fmod"]


# -- the NumPy rules: (result, rounded quotient) ---------------------------------------------------
def _floor_div(a: Any, b: Any) -> Any:
    return np.floor_divide(a, b)  # numpy rounds as PyTorch does, inf/nan for a float 0


def _trunc_div(a: Any, b: Any) -> Any:
    a, b = np.asarray(a), np.asarray(b)
    if np.result_type(a, b).kind == "f":
        return np.trunc(a / b)
    q = np.floor_divide(a, b)
    return q + ((np.fmod(a, b) != 0) & ((a < 0) != (b < 0)))  # floor -> toward zero


def _remainder(a: Any, b: Any) -> Any:
    if np.result_type(a, b).kind != "f":
        return np.remainder(a, b)
    # PyTorch's float rule: fmod moved into the divisor's sign; a zero keeps fmod's sign
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((np.asarray(b) < 0) != (mod < 0)), mod + b, mod)


_RULES = {"remainder": (_remainder, _floor_div), "fmod": (np.fmod, _trunc_div)}


# -- primitives: tensor by tensor, tensor by number, number by tensor ------------------------------
def _rounded_vjp(mode: str) -> Any:
    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        a, b = c.inputs
        if isinstance(a, Tensor):  # recorded (create_graph): the quotient is PyTorch's
            quotient = _rounded(a, b, mode, _ROUNDED_DIV)  # DivBackward2, zero gradients
        else:
            quotient = xp.constant(c.params["quotient"])
        return g, -g * quotient

    return vjp


def _rounded_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    ta, tb = tangents
    q = c.params["quotient"]
    out = None if ta is None else xp.expand(ta, q.shape)
    if tb is not None:
        term = -tb * xp.constant(q)
        out = term if out is None else out + term
    return out


def _no_derivative(name: str) -> Any:
    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        raise RuntimeError(
            f"derivative for {name}(number, tensor) is not implemented (as in PyTorch); "
            f"write it with tensors, e.g. {name}(symgrad.full_like(x, number), x)"
        )

    return vjp


def _number(xp: Any, value: Any) -> Any:
    """A number operand as the interpreter holds constants (exact in closed forms)."""
    return xp.constant(np.asarray(value))


def _prims(name: str, rule: Any, mode: str) -> dict:
    node = "".join(part.capitalize() for part in name.split("_"))
    return {
        "tensor": Structural(
            name,
            lambda xp, a, b, quotient: a - b * xp.constant(quotient),
            _rounded_vjp(mode),
            saves=(0, 1),
            backward=f"{node}Backward1",
            kernel=lambda xp, a, b, quotient: rule(a, b).astype(quotient.dtype),
            jvp=_rounded_jvp,
        ),
        "number": Structural(
            name,
            lambda xp, a, other, quotient: a - _number(xp, other) * xp.constant(quotient),
            lambda xp, g, c: (g,),
            backward=f"{node}Backward0",
            kernel=lambda xp, a, other, quotient: rule(a, other).astype(quotient.dtype),
            jvp=lambda xp, tangents, c: tangents[0],
        ),
        "number_tensor": Structural(
            name,
            lambda xp, b, number, quotient: _number(xp, number) - b * xp.constant(quotient),
            _no_derivative(name),
            backward="NotImplemented",
            kernel=lambda xp, b, number, quotient: rule(number, b).astype(quotient.dtype),
        ),
    }


_REMAINDER = _prims("remainder", _remainder, "floor")
_FMOD = _prims("fmod", np.fmod, "trunc")
_PRIMS = {"remainder": _REMAINDER, "fmod": _FMOD}


# -- the public functions --------------------------------------------------------------------------
def _arrays(input: Any, other: Any, op: str, kernel: str = "") -> tuple:
    """The operands as arrays of the result's dtype, after PyTorch's checks."""
    input, other = as_operand(input, op), as_operand(other, op)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"{op}(): expected at least one Tensor argument, got two numbers")
    dtype = dtypes.result_type(input, other)
    if dtype in dtypes.LIMITED or dtype is dtypes.bool_:
        kernel = kernel or ("div_floor_cpu" if op == "floor_divide" else f"{op}_cpu")
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtype.scalar_type}'; convert the tensor with "
            ".long() first"
        )
    arrays = []
    for v in (input, other):
        if isinstance(v, Tensor):
            v = v._data
        elif type(v) is int:  # one the dtype can't hold wraps around, as in PyTorch
            v = in_dtype(int_argument(v, f"{op}()"), dtype.numpy)
        else:
            check_number(v, dtype, op)
            v = cast(np.asarray(v), dtype.numpy)  # (beyond a float16's range: inf, silently)
        arrays.append(np.asarray(v, dtype.numpy))
    _check_divisor(arrays[1], dtype, op)
    return input, other, arrays, dtype


def _check_divisor(b: np.ndarray, dtype: Any, op: str) -> None:
    if not dtype.is_floating_point and not b.all():
        raise RuntimeError(
            f"ZeroDivisionError: {op}() of {dtype.name} values by zero; integer division has "
            "no result there (convert to floating point to get inf or nan)"
        )


def _from_values(result: Tensor, make: Any, input: Any, other: Any, dtype: Any, op: str) -> None:
    """While ``symgrad.compile`` traces: ``result``'s parameters are ``make(a, b)`` of the
    operands' values (a number stays itself), found afresh at every call."""

    def params(*arrays: np.ndarray) -> dict:
        values = iter(arrays)
        a, b = (
            np.asarray(next(values) if isinstance(v, Tensor) else v, dtype.numpy)
            for v in (input, other)
        )
        _check_divisor(b, dtype, op)
        with np.errstate(all="ignore"):
            return make(a, b)

    data_params(result, params, *(v for v in (input, other) if isinstance(v, Tensor)))


def rounded_div(input: Any, other: Any, rounding_mode: str) -> Tensor:
    """``input / other`` rounded down ('floor') or toward zero ('trunc'); its gradient is 0
    (``DivBackward2``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.div(symgrad.tensor([7, -7]), 2, rounding_mode="trunc")
    tensor([ 3, -3])
    """
    return _rounded(input, other, rounding_mode, _ROUNDED_DIV)


def _rounded(input: Any, other: Any, rounding_mode: str, prim: Structural) -> Tensor:
    op = prim.name
    input, other, (a, b), dtype = _arrays(input, other, op, f"div_{rounding_mode}_cpu")
    with np.errstate(all="ignore"):  # inf and nan for a float 0, wrapping for INT_MIN // -1
        q = _floor_div(a, b) if rounding_mode == "floor" else _trunc_div(a, b)
    q = np.asarray(q, dtype=dtype.numpy)
    tensors = tuple(v for v in (input, other) if isinstance(v, Tensor))
    result = prim.record(tensors, {"quotient": q}, q)
    if TRACE.log is not None:
        rule = _floor_div if rounding_mode == "floor" else _trunc_div

        def make(a: np.ndarray, b: np.ndarray) -> dict:
            return {"quotient": np.asarray(rule(a, b), dtype=dtype.numpy)}

        _from_values(result, make, input, other, dtype, op)
    return result


def _zero_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """A rounded quotient is piecewise constant: PyTorch's gradient is 0 (``DivBackward2``)."""
    return tuple(xp.constant(np.zeros(s)) if n else None for s, n in zip(c.shapes, c.needs))


def _floor_divide_vjp(xp: Any, g: Any, c: Any) -> tuple:
    raise RuntimeError(
        "derivative for aten::floor_divide is not implemented (as in PyTorch); a rounded "
        "quotient has gradient 0 almost everywhere: use div(x, y, rounding_mode='floor'), "
        "whose gradient is that 0"
    )


def _floor_divide_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    raise NotImplementedError(
        "Trying to use forward AD with aten::floor_divide that does not support it (as in "
        "PyTorch); div(x, y, rounding_mode='floor') has tangent 0"
    )


def _quotient(xp: Any, *tensors: Any, quotient: Any) -> Any:
    return xp.constant(quotient)


_ROUNDED_DIV = Structural("div", _quotient, _zero_vjp, backward="DivBackward2")
_FLOOR_DIVIDE = Structural(
    "floor_divide", _quotient, _floor_divide_vjp, backward="NotImplemented", jvp=_floor_divide_jvp
)


def floor_divide(input: Any, other: Any) -> Tensor:
    """``input / other`` rounded down (``input // other``); as in PyTorch, a backward through
    it raises (``div(..., rounding_mode='floor')`` has gradient 0).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.floor_divide(symgrad.tensor([7, -7]), 2)
    tensor([ 3, -4])
    """
    return _rounded(input, other, "floor", _FLOOR_DIVIDE)


def _apply(name: str, input: Any, other: Any) -> Tensor:
    input, other, (a, b), dtype = _arrays(input, other, name)
    rule, rounded = _RULES[name]
    with np.errstate(all="ignore"):
        out = np.asarray(rule(a, b), dtype=dtype.numpy)
        quotient = np.asarray(rounded(a, b), dtype=dtype.numpy)
    prims = _PRIMS[name]
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        result = prims["tensor"].record((input, other), {"quotient": quotient}, out)
    elif isinstance(input, Tensor):
        params = {"other": b[()], "quotient": quotient}
        result = prims["number"].record((input,), params, out)
    else:
        params = {"number": a[()], "quotient": quotient}
        result = prims["number_tensor"].record((other,), params, out)
    if TRACE.log is not None:

        def make(a: np.ndarray, b: np.ndarray) -> dict:
            q = {"quotient": np.asarray(rounded(a, b), dtype=dtype.numpy)}
            if not isinstance(other, Tensor):
                return {"other": b[()], **q}
            return q if isinstance(input, Tensor) else {"number": a[()], **q}

        _from_values(result, make, input, other, dtype, name)
    return result


def remainder(input: Any, other: Any) -> Tensor:
    """The remainder of ``input / other`` with the divisor's sign (Python's ``%``).

    The gradient is ``g`` for ``input`` and ``-g * floor(input / other)`` for ``other``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.remainder(symgrad.tensor([5, -5]), 3)
    tensor([2, 1])
    >>> symgrad.tensor([5.5, -5.5]) % -2
    tensor([-0.5000, -1.5000])
    """
    return _apply("remainder", input, other)


def fmod(input: Any, other: Any) -> Tensor:
    """The remainder of ``input / other`` with the dividend's sign (C's ``fmod``).

    The gradient is ``g`` for ``input`` and ``-g * trunc(input / other)`` for ``other``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.fmod(symgrad.tensor([5, -5]), 3)
    tensor([ 2, -2])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"fmod(): the dividend must be a Tensor, got {type(input).__name__} (PyTorch has no "
            "fmod(number, tensor)); use symgrad.full_like(x, number) for a tensor of it"
        )
    return _apply("fmod", input, other)
