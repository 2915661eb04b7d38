"""Building SymPy expressions element by element without paying for the same checks each time.

A SymPy function's ``eval`` (``sin``, ``cos``, ``tanh``, ...) looks for special arguments every
time it is called: numbers, a minus sign to take out, multiples of ``pi`` or ``I``. For a
generic argument (a symbol, a product of distinct symbols, a sum of such products) none of them
applies, and the checks cost about ten times the construction itself. :func:`apply` runs
``eval`` once per function and *kind* of argument (the same symbols' assumptions in the same
arrangement) and builds the later ones directly when that first call left its arguments alone:
the result is the same expression either way.

Examples
--------
>>> import sympy as sp
>>> from symgrad.prim.sympy_build import apply, substitute
>>> x, y = sp.symbols("x y", real=True)
>>> apply(sp.sin, (x * y,))
sin(x*y)
>>> apply(sp.sin, (-x,))
-sin(x)
>>> u = sp.Symbol("u")
>>> substitute(sp.cos(u) * u, {u: x * y})
x*y*cos(x*y)
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.core.basic import _args_sortkey

__all__ = ["apply", "substitute"]

# (function, argument kinds) -> True when eval leaves arguments of those kinds as they are
_inert: dict[tuple, bool] = {}


def _symbol_kind(a: Any) -> tuple:
    return (type(a), a._assumptions0)


def _term_kind(a: Any) -> tuple | None:
    """A symbol, or a product of distinct symbols without a coefficient."""
    if a.is_Symbol:
        return _symbol_kind(a)
    if a.is_Mul and all(f.is_Symbol for f in a.args) and len(set(a.args)) == len(a.args):
        return ("mul",) + tuple(_symbol_kind(f) for f in a.args)
    return None


def _kind(a: Any) -> tuple | None:
    """The kind of a generic argument, or None for any other (numbers, signs, functions)."""
    if a.is_Add:
        kinds = tuple(_term_kind(t) for t in a.args)
        return None if None in kinds else ("add",) + kinds
    return _term_kind(a)


def apply(func: Any, args: tuple) -> Any:
    """``func(*args)``: the SymPy function applied, as SymPy evaluates it."""
    kinds = tuple(_kind(a) for a in args)
    if None in kinds:
        return func(*args)
    key = (func, kinds)
    inert = _inert.get(key)
    if inert:
        return func(*args, evaluate=False)
    result = func(*args)
    if inert is None:
        _inert[key] = result.func is func and result.args == tuple(args)
    return result


def substitute(template: Any, mapping: dict) -> Any:
    """``template.xreplace(mapping)``, functions of generic arguments built by :func:`apply`."""
    if template in mapping:
        return mapping[template]
    if not template.args:
        return template
    args = tuple(substitute(a, mapping) for a in template.args)
    if all(new is old for new, old in zip(args, template.args)):
        return template
    if isinstance(template, sp.Function) and template.func.__module__.startswith("sympy.functions"):
        return apply(template.func, args)
    if template.is_Mul and _plain_factors(args):
        return sp.Mul._from_args(sorted(args, key=_args_sortkey))
    return template.func(*args)


def _plain_factors(args: tuple) -> bool:
    """Distinct symbols and function values (no numbers, powers or exponentials): factors
    ``Mul`` has nothing to combine in, only to put in order."""
    plain = all(
        a.is_Symbol or (isinstance(a, sp.Function) and not isinstance(a, sp.exp)) for a in args
    )
    return plain and len(set(args)) == len(args) and all(a.is_commutative for a in args)
