"""SymPy formulas printed as numexpr source, for :mod:`symgrad.compiler.numexpr_backend`.

Only what numexpr has is printed (sums, products, powers, ``where``, its functions); anything
else raises :class:`Unprintable`, and the step stays a NumPy step. The formulas hold only
symbols the package made (``i0``, ``m0``, ``g``) and numbers.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp

__all__ = ["to_source", "Unprintable", "FUNCTIONS"]

FUNCTIONS = {  # SymPy's functions numexpr has, by numexpr's names
    sp.sin: "sin",
    sp.cos: "cos",
    sp.tan: "tan",
    sp.asin: "arcsin",
    sp.acos: "arccos",
    sp.atan: "arctan",
    sp.atan2: "arctan2",
    sp.sinh: "sinh",
    sp.cosh: "cosh",
    sp.tanh: "tanh",
    sp.asinh: "arcsinh",
    sp.acosh: "arccosh",
    sp.atanh: "arctanh",
    sp.exp: "exp",
    sp.log: "log",
    sp.Abs: "abs",
}


class Unprintable(Exception):
    """A formula with an operation numexpr does not have."""


def to_source(e: Any, numbers: dict | None = None) -> str:
    """numexpr source of ``e``: only the operations numexpr has, else ``Unprintable``.
    With ``numbers``, each number becomes a variable named there (``k0``, ...): numexpr
    takes a literal for a float64, which would turn a float32 loop into a float64 one.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("i0", real=True)
    >>> to_source(sp.exp(-x**2) / 2)
    '((0.5)*exp((-(i0**2))))'
    >>> numbers = {}
    >>> to_source(3 * x + 1, numbers), numbers
    ('(k0 + (k1*i0))', {1.0: 'k0', 3.0: 'k1'})
    """
    if e.is_Symbol:
        return e.name
    if e.is_Number or e.is_NumberSymbol:
        return _number(e, numbers)
    if e.is_Add:
        return "(" + " + ".join(to_source(a, numbers) for a in e.args) + ")"
    if e.is_Mul:
        if e.args[0] == -1:
            return f"(-{to_source(sp.Mul(*e.args[1:]), numbers)})"
        return "(" + "*".join(to_source(a, numbers) for a in e.args) + ")"
    if e.is_Pow:
        base, exp = e.args
        if exp == sp.Rational(1, 2):
            return f"sqrt({to_source(base, numbers)})"
        if exp.is_Integer and 1 <= abs(int(exp)) <= 4:  # numexpr multiplies these out
            power = to_source(base, numbers)
            power = power if abs(int(exp)) == 1 else f"{power}**{abs(int(exp))}"
            return f"({power})" if exp > 0 else f"({to_source(sp.Integer(1), numbers)}/{power})"
        return f"({to_source(base, numbers)}**{to_source(exp, numbers)})"
    if e.func in FUNCTIONS:
        return f"{FUNCTIONS[e.func]}({', '.join(to_source(a, numbers) for a in e.args)})"
    if isinstance(e, sp.Piecewise):
        *branches, (last, cond) = e.args
        if cond != sp.true:
            _unprintable(e)
        out = to_source(last, numbers)
        for value, c in reversed(branches):
            out = f"where({_condition(c, numbers)}, {to_source(value, numbers)}, {out})"
        return out
    return _unprintable(e)


def _number(e: Any, numbers: dict | None) -> str:
    value = float(e)
    if not math.isfinite(value) or (e.is_Rational and e.q == 1 and abs(int(e)) >= 2**53):
        return _unprintable(e)
    if numbers is None:
        return f"({value!r})"
    return numbers.setdefault(value, f"k{len(numbers)}")


def _condition(c: Any, numbers: dict | None) -> str:
    ops = {sp.StrictGreaterThan: ">", sp.GreaterThan: ">=", sp.StrictLessThan: "<"}
    ops.update({sp.LessThan: "<=", sp.Equality: "==", sp.Unequality: "!="})
    if type(c) in ops:
        return f"({to_source(c.lhs, numbers)} {ops[type(c)]} {to_source(c.rhs, numbers)})"
    return _unprintable(c)


def _unprintable(e: Any) -> str:
    raise Unprintable(type(e).__name__)
