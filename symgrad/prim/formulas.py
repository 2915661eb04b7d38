"""A declaration's names as SymPy: the symbols of the inputs and parameters, and formulas
written as functions of them, called by name (so SymPy loads only when they are first used)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad._lazy import sympy as sp

__all__ = ["names_of", "symbols_of", "call_with_names"]


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
