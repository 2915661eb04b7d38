"""A declaration's names as SymPy: the symbols of the inputs and parameters, and formulas
written as functions of them, called by name (so SymPy loads only when they are first used)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad._lazy import sympy as sp

__all__ = ["names_of", "symbols_of", "call_with_names", "at_zero_as_pytorch"]


def names_of(spec: Any) -> tuple:
    """Input or parameter names from ``"x y"``, a tuple of names, or a tuple of symbols."""
    if isinstance(spec, str):
        return tuple(spec.split())
    return tuple(spec)


def symbols_of(spec: Any) -> tuple:
    """Real SymPy symbols for the names of ``spec`` (symbols are kept as they are)."""
    return tuple(sp.Symbol(v, real=True) if isinstance(v, str) else v for v in names_of(spec))


def call_with_names(fn: Callable, named: dict) -> Any:
    """``fn`` called with the symbols its parameters name (declarations are our own code)."""
    code = fn.__code__
    wanted = code.co_varnames[: code.co_argcount]
    missing = [n for n in wanted if n not in named]
    if missing:
        raise TypeError(f"a formula asks for unknown symbols {missing}; known: {sorted(named)}")
    return fn(**{n: named[n] for n in wanted})


def at_zero_as_pytorch(partial: Any, params: set) -> Any:
    """A derived higher-order partial with PyTorch's values where a power's base is 0.

    SymPy writes d/dx x**(p-1) as (p-1)*x**(p-1)/x, which is 0/0 at x = 0; as (p-1)*x**(p-2)
    it is 2 for x**2, 0 for x**3 and inf for x**1.5, as in PyTorch. And a term whose
    coefficient in the parameters is 0 (p = 1 in (p-1)*x**(p-2)) is 0, not 0 * inf: PyTorch
    masks the derivative of a power where its exponent is 0.
    """
    if isinstance(partial, sp.Piecewise):
        # the derivative of a masked power (the level before) is masked the same way
        return sp.Piecewise(*((at_zero_as_pytorch(e, params), c) for e, c in partial.args))
    partial = sp.powsimp(partial, force=True)
    if not params:
        return partial
    terms = []
    for term in sp.Add.make_args(partial):
        if isinstance(term, sp.Piecewise):
            terms.append(at_zero_as_pytorch(term, params))
            continue
        factors = sp.Mul.make_args(term)
        powers = [f for f in factors if f.is_Pow and f.exp.free_symbols & params]
        coefficient = sp.Mul(*(f for f in factors if f.free_symbols and f.free_symbols <= params))
        if powers and coefficient.free_symbols:
            term = sp.Piecewise((0, sp.Eq(coefficient, 0)), (term, True))
        terms.append(term)
    return sp.Add(*terms)
