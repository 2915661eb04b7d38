"""Conversions between SymPy and SymEngine for the SymEngine backend of the symbolic layer.

SymPy expressions (objects, never strings) go to SymEngine with ``symengine.sympify``; results
come back node by node, shared parts once, in the SymPy symbols they came from, each node built
as SymPy builds it (its canonical form), directly where SymPy's constructor would only put the
arguments in order.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.basic import _args_sortkey

from symgrad._symbol_names import name_symbol
from symgrad.prim.exact import exact
from symgrad.prim.sympy_build import apply as apply_function
from symgrad.prim.sympy_build import real_symbol
from symgrad.prim.sympy_xp import ElementSymbol

__all__ = ["require_symengine", "Bridge", "INSTALL_HINT"]

INSTALL_HINT = "pip install symgrad[symengine]"


def require_symengine() -> Any:
    """The ``symengine`` module, or ImportError saying how to install it."""
    try:
        import symengine
    except ImportError:
        raise ImportError(
            f'backend="symengine" needs the symengine package: {INSTALL_HINT} (or use '
            'backend="sympy", the default)'
        ) from None
    return symengine


_SE_TYPES: set = set()  # the SymEngine classes met


def _is_se(v: Any) -> bool:
    """Whether ``v`` is a SymEngine expression (its class remembered: a set lookup is
    several times faster than ``isinstance`` of SymEngine's base class)."""
    import symengine

    if isinstance(v, symengine.Basic):
        _SE_TYPES.add(type(v))
        return True
    return False


class Bridge:
    """Conversions between SymPy and SymEngine for one replay: SymPy symbols are remembered
    by name, so that every SymEngine symbol goes back to the SymPy symbol it came from (with
    its assumptions and its class, ``x[0]`` printing as ``x_{0}``)."""

    def __init__(self) -> None:
        self.se = require_symengine()
        self.symbols: dict[str, sp.Symbol] = {}  # name -> the SymPy symbol
        self._to_sympy: dict[Any, tuple[Any, int]] = {}  # SymEngine node -> (SymPy, depth)
        self._numbers: dict[Any, Any] = {}
        self._se_symbols: dict[str, Any] = {}
        # name -> whether it is an element's (x[0]): symbols made on SymEngine, their SymPy
        # symbols not made yet
        self._pending: dict[str, bool] = {}
        self._depths: dict[Any, int] = {}
        # arrays known to hold SymEngine elements only, by id (kept: the ids stay theirs)
        self._se_arrays: dict[int, np.ndarray] = {}

    # -- SymPy -> SymEngine --------------------------------------------------------------------
    def symbol(self, s: sp.Symbol) -> Any:
        """The SymEngine symbol of the SymPy symbol ``s`` (of its name)."""
        found = self._se_symbols.get(s.name)
        if found is None:
            self.symbols.setdefault(s.name, s)
            found = self._se_symbols[s.name] = self.se.Symbol(s.name)
        return found

    def lazy_symbol(self, name: str, element: bool) -> Any:
        """The SymEngine symbol called ``name``; its SymPy symbol (an element's ``x[0]``, else
        the tensor's own name) is made only when a result holding it goes back to SymPy."""
        found = self._se_symbols.get(name)
        if found is None:
            found = self._se_symbols[name] = self.se.Symbol(name)
            if name not in self.symbols:
                self._pending[name] = element
        return found

    def to_se(self, v: Any) -> Any:
        """One element (a SymPy expression, a number) as SymEngine."""
        se = self.se
        if type(v) in _SE_TYPES or _is_se(v):
            return v
        if isinstance(v, sp.Symbol):
            return self.symbol(v)
        if not isinstance(v, sp.Basic):
            key = (type(v), v)
            found = self._numbers.get(key)
            if found is None:
                found = self._numbers[key] = se.sympify(exact(v))
            return found
        for s in v.free_symbols:
            self.symbols.setdefault(s.name, s)
        return se.sympify(v)

    def array(self, a: Any) -> np.ndarray:
        """An array of SymPy expressions or numbers as an object array of SymEngine ones."""
        if isinstance(a, np.ndarray) and a.dtype == object:
            if self._se_arrays.get(id(a)) is a:
                return a
            known = _SE_TYPES
            if all(type(v) in known for v in a.flat) or all(_is_se(v) for v in a.flat):
                self._se_arrays[id(a)] = a
                return a
        arr = np.asarray(a, dtype=object)
        out = np.empty(arr.size, dtype=object)
        for k, v in enumerate(arr.flat):
            out[k] = self.to_se(v)
        out = out.reshape(arr.shape)
        self._se_arrays[id(out)] = out
        return out

    # -- SymEngine -> SymPy --------------------------------------------------------------------
    def to_sympy(self, e: Any) -> tuple[Any, int]:
        """``(SymPy expression, nesting depth)`` of one SymEngine expression; shared parts are
        converted once (a walk with a stack, no recursion limit)."""
        done = self._to_sympy
        if e in done:
            return done[e]
        stack = [(e, False)]
        while stack:
            node, ready = stack.pop()
            if node in done:
                continue
            args = node.args
            if ready or not args:
                done[node] = self._node(node, args)
                continue
            stack.append((node, True))
            stack.extend((a, False) for a in args if a not in done)
        return done[e]

    def _node(self, node: Any, args: tuple) -> tuple[Any, int]:
        se = self.se
        if not args:
            if isinstance(node, se.Symbol):
                return self._sympy_symbol(node.name), 1
            return node._sympy_(), 1
        converted = [self._to_sympy[a] for a in args]
        depth = 1 + max(d for _, d in converted)
        values = tuple(v for v, _ in converted)
        if isinstance(node, se.Add):
            return _add(values), depth
        if isinstance(node, se.Mul):
            return _mul(values), depth
        if isinstance(node, se.Pow):
            return _pow(*values), depth
        kind = _sympy_class(type(node))
        if kind is not None:
            return apply_function(kind, values), depth
        # a node SymEngine holds for SymPy (a SymPy-only function, Piecewise): SymPy's own
        # conversion, with the symbols put back
        found = node._sympy_()
        rename = {s: self._sympy_symbol(s.name) for s in found.free_symbols}
        return found.xreplace(rename), depth

    def _sympy_symbol(self, name: str) -> sp.Symbol:
        s = self.symbols.get(name)
        if s is None:
            element = self._pending.pop(name, None)
            if element is None:
                s = sp.Symbol(name, real=True)
            elif element:
                s = real_symbol(ElementSymbol, name)
            else:
                s = name_symbol(name, real=True)
            self.symbols[name] = s
        return s

    def depth(self, e: Any) -> int:
        """The nesting of a SymEngine expression (a walk with a stack, shared parts once)."""
        depths = self._depths
        stack = [(e, False)]
        while stack:
            node, ready = stack.pop()
            if node in depths:
                continue
            args = node.args
            if ready or not args:
                depths[node] = 1 + max((depths[a] for a in args), default=0)
                continue
            stack.append((node, True))
            stack.extend((a, False) for a in args if a not in depths)
        return depths[e]

    def sympy_array(self, a: np.ndarray) -> tuple[np.ndarray, int]:
        """An object array of SymEngine expressions as SymPy, and its deepest nesting."""
        a = np.asarray(a, dtype=object)
        out = np.empty(a.size, dtype=object)
        deepest = 0
        for k, v in enumerate(a.flat):
            e = self.to_se(v)
            out[k], d = self.to_sympy(e)
            deepest = max(deepest, d)
        return out.reshape(a.shape), deepest


@functools.cache
def _sympy_class(kind: type) -> Any:
    """The SymPy function (``sp.sin``) that SymEngine's node class (``Sin``) stands for, when
    applying it to the converted arguments, in order, gives SymPy's expression; else None."""
    import symengine as se

    probe_args = tuple(se.Symbol(f"_probe{k}") for k in range(3))
    for n in (1, 2, 3):
        try:
            node = kind(*probe_args[:n])
        except Exception:
            continue
        if type(node) is not kind or node.args != probe_args[:n]:
            continue
        try:
            found = node._sympy_()
        except Exception:
            return None
        names = tuple(sp.Symbol(f"_probe{k}") for k in range(n))
        return found.func if found.args == names else None
    return None


# SymPy's canonical forms built directly where SymPy's constructor would only sort: SymEngine's
# sums and products are canonical already (like terms and powers combined), so what is left
# is SymPy's order, except where SymPy's rules differ from SymEngine's (a number times a sum is
# distributed, exponentials and absolute values combine in powers): those go to SymPy's own
# constructors.


def _plain(e: Any) -> bool:
    """A factor SymPy's ``Mul`` has nothing to combine in, only to order."""
    if e.is_Symbol:
        return True
    if e.is_Pow:
        return _plain_base(e.args[0]) and e.args[1].is_Rational
    return _plain_base(e)


def _plain_base(e: Any) -> bool:
    return e.is_Symbol or (
        isinstance(e, sp.Function)
        and type(e)._eval_power is sp.Expr._eval_power
        and e.func.__module__.startswith("sympy.functions")
    )


def _mul(values: tuple) -> Any:
    coeff, rest = (values[0], values[1:]) if values[0].is_Rational else (None, values)
    if (coeff is None or coeff is not sp.S.Zero) and rest and all(_plain(f) for f in rest):
        bases = [f.args[0] if f.is_Pow else f for f in rest]
        if len(set(bases)) == len(bases):
            ordered = tuple(sorted(rest, key=_args_sortkey))
            return sp.Mul._from_args(ordered if coeff is None or coeff == 1 else (coeff,) + ordered)
    return sp.Mul(*values)


def _add(values: tuple) -> Any:
    coeff, rest = (values[0], values[1:]) if values[0].is_Rational else (None, values)
    if all(t.is_Symbol or t.is_Mul or t.is_Pow or isinstance(t, sp.Function) for t in rest):
        parts = {t.as_coeff_Mul()[1] for t in rest}
        if len(parts) == len(rest) and len(rest) > (coeff is None):
            ordered = tuple(sorted(rest, key=_args_sortkey))
            return sp.Add._from_args(ordered if coeff is None or coeff == 0 else (coeff,) + ordered)
    return sp.Add(*values)


def _pow(base: Any, exponent: Any) -> Any:
    if _plain_base(base) and exponent.is_Rational and exponent not in (0, 1):
        return sp.Pow(base, exponent, evaluate=False)
    return sp.Pow(base, exponent)
