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

import math
from collections.abc import Sequence
from typing import Any

import sympy as sp
from sympy.core.assumptions import StdFactKB
from sympy.core.basic import Basic, _args_sortkey
from sympy.core.expr import Expr

__all__ = ["apply", "product", "real_symbol", "substitute", "total", "traced_float"]

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
        return _built(func, args) if func in _nargs else func(*args, evaluate=False)
    result = func(*args)
    if inert is None:
        _inert[key] = result.func is func and result.args == tuple(args)
        if _inert[key] and isinstance(result, sp.Function):
            _nargs.setdefault(func, result.nargs)
    return result


# SymPy function -> the ``nargs`` SymPy gives each of its values
_nargs: dict = {}


def _built(func: Any, args: tuple) -> Any:
    """``func(*args, evaluate=False)`` without the checks of SymPy's constructor: the
    expression its ``__new__`` would make for arguments already known to be left alone."""
    obj = Basic.__new__(func, *args)
    obj.nargs = _nargs[func]
    return obj


# symbol class -> one real symbol of it, whose assumptions the others copy
_real_models: dict = {}


def real_symbol(cls: type, name: str) -> Any:
    """``cls(name, real=True)`` for a subclass of ``Symbol``, made without deducing its
    assumptions again: those of the first one made are copied (the same facts, as SymPy's
    deduction depends only on the assumptions given, never on the name)."""
    model = _real_models.get(cls)
    if model is None:
        model = _real_models[cls] = cls("_model", real=True)
    obj = Expr.__new__(cls)
    obj.name = name
    facts = StdFactKB.__new__(StdFactKB)
    dict.update(facts, model._assumptions)
    facts.rules = model._assumptions.rules
    facts._generator = model._assumptions._generator
    obj._assumptions = facts
    obj._assumptions_orig = model._assumptions_orig
    obj._assumptions0 = model._assumptions0
    return obj


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
    if template.is_Mul:
        return product(args)
    return template.func(*args)


def product(args: tuple) -> Any:
    """``Mul(*args)``; built directly when the factors are plain (see :func:`_plain`) with at
    most a nonzero rational coefficient, which ``Mul`` has nothing to combine in, only to
    multiply and put in order."""
    factors = []
    coeff = sp.S.One
    for a in args:
        for f in a.args if a.is_Mul else (a,):
            if f.is_Rational:
                coeff = coeff * f
            else:
                factors.append(f)
    if not factors or coeff.is_zero or not _plain(factors):
        return sp.Mul(*args)
    if coeff is not sp.S.One and len(factors) == 1 and factors[0].is_Add:
        return sp.Mul(*args)  # a number times a sum: Mul distributes it
    factors.sort(key=_args_sortkey)
    if coeff is not sp.S.One:
        factors.insert(0, coeff)
    return sp.Mul._from_args(tuple(factors), True)


def total(terms: Sequence) -> Any:
    """``Add(*terms)``; built directly when the terms are products of distinct symbols and
    function values, each with at most a nonzero rational coefficient, and no two alike but
    for it: there is nothing for ``Add`` to collect, only to put in order."""
    if len(terms) < 2:
        return sp.Add(*terms)
    parts = set()
    for t in terms:
        part = _coefficient_free(t)
        if part is None or part in parts:
            return sp.Add(*terms)
        parts.add(part)
    return sp.Add._from_args(tuple(sorted(terms, key=_args_sortkey)), True)


def _coefficient_free(t: Any) -> tuple | None:
    """The factors of a plain term without its rational coefficient, or None for others (a
    sum among them: ``Add`` would take it apart)."""
    if t.is_Mul:
        factors = t.args[1:] if t.args[0].is_Rational else t.args
        return factors if _plain(list(factors)) else None
    return None if t.is_Add else (t,) if _plain([t]) else None


def _base(a: Any) -> Any:
    """The base a plain factor has for ``Mul`` (which adds the exponents of equal bases), or
    None for a factor that is not plain: a number, an exponential, a power of a number or of
    a product, anything not commutative."""
    if not a.is_commutative:
        return None
    if a.is_Symbol or a.is_Add:
        return a
    if a.is_Pow:
        b = a.base
        return b if (b.is_Symbol or b.is_Add or _function(b)) and not b.is_Number else None
    return a if _function(a) else None


def _function(a: Any) -> bool:
    return isinstance(a, sp.Function) and not isinstance(a, sp.exp)


def _plain(factors: list) -> bool:
    """Symbols, function values (no exponential), sums, and their powers, no two with one
    base: ``Mul`` has nothing to combine among them."""
    bases = set()
    for f in factors:
        b = _base(f)
        if b is None or b in bases:
            return False
        bases.add(b)
    return True


def traced_float(e: Basic) -> float:
    """The number ``e`` (a formula at traced values) as a float: nan where it is not real
    (``sqrt(-1)``, ``1/0``), as PyTorch computes it."""
    try:
        return float(e)
    except TypeError:
        return math.nan
