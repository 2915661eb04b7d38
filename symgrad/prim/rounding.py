"""Rounding as SymPy functions with PyTorch's derivative, 0.

The true derivative of a step is a train of Dirac deltas at the steps; PyTorch (like symgrad
for ``sign``) leaves them out, so ``sympy.diff`` of a closed form built from these agrees with
the engine, at every order. ``floor`` and ``ceiling`` keep SymPy's names, which every printer
knows; ``trunc`` (toward zero) and ``round`` (half to even, as PyTorch and NumPy) are new and
print as NumPy, C, math and mpmath calls.

Examples
--------
>>> import sympy as sp
>>> from symgrad.prim import rounding
>>> x = sp.Symbol("x", real=True)
>>> sp.diff(x * rounding.floor(x), x)
floor(x)
>>> rounding.round(sp.Rational(5, 2)), rounding.round(sp.Rational(7, 2)), rounding.trunc(-1.5)
(2, 4, -1)
"""

from __future__ import annotations

from typing import Any

import sympy as sp

__all__ = ["floor", "ceiling", "trunc", "round"]


class floor(sp.floor):
    """SymPy's ``floor`` with derivative 0."""

    def fdiff(self, argindex: int = 1) -> Any:
        return sp.S.Zero


class ceiling(sp.ceiling):
    """SymPy's ``ceiling`` with derivative 0."""

    def fdiff(self, argindex: int = 1) -> Any:
        return sp.S.Zero


def _printed(printer: Any, calls: dict, expr: Any) -> str:
    """``expr`` as a call in the language of ``printer`` (NumPy and the like, or math)."""
    module = getattr(printer, "_module", None) or "math"
    name = calls.get(module, calls["array"]).format(module=module)
    return f"{printer._module_format(name) if '.' in name else name}({printer._print(expr)})"


class _Step(sp.Function):
    """A rounding function: derivative 0, an integer at integers, printed as ``_calls`` say."""

    nargs = 1
    _calls: dict = {}

    def fdiff(self, argindex: int = 1) -> Any:
        return sp.S.Zero

    def _eval_is_integer(self) -> Any:
        return self.args[0].is_finite

    def _eval_is_real(self) -> Any:
        return self.args[0].is_real

    def _pythoncode(self, printer: Any) -> str:
        return _printed(printer, self._calls, self.args[0])

    def _ccode(self, printer: Any) -> str:
        return f"{self._calls['c']}({printer._print(self.args[0])})"


class trunc(_Step):
    """Rounding toward zero: ``floor`` of a non-negative number, ``ceiling`` of a negative."""

    _calls = {"array": "{module}.trunc", "math": "math.trunc", "c": "trunc"}

    @classmethod
    def eval(cls, x: Any) -> Any:
        if x is sp.nan or x.is_integer:
            return x
        if x.is_extended_nonnegative:
            return floor(x)
        if x.is_extended_negative:
            return ceiling(x)
        return None

    def _mpmathcode(self, printer: Any) -> str:
        x = printer._print(self.args[0])
        sign, floor = (printer._module_format(f"mpmath.{f}") for f in ("sign", "floor"))
        return f"({sign}({x})*{floor}(abs({x})))"


class round(_Step):  # noqa: A001 - PyTorch's name
    """Rounding to the nearest integer, halves to the even one (``round(2.5) == 2``)."""

    _calls = {"array": "{module}.rint", "math": "round", "c": "nearbyint"}

    @classmethod
    def eval(cls, x: Any) -> Any:
        if x is sp.nan or x.is_integer:
            return x
        if not x.is_Number:
            return None
        if x.is_infinite:
            return x
        below = sp.floor(x)
        above_half = sp.sign(x - below - sp.Rational(1, 2))
        if above_half == 0:
            return below if below.is_even else below + 1
        return below + 1 if above_half > 0 else below

    def _mpmathcode(self, printer: Any) -> str:
        return f"{printer._module_format('mpmath.nint')}({printer._print(self.args[0])})"
