"""``backend="symengine"``: the symbolic layer's replays on SymEngine, results in SymPy.

:func:`~symgrad.symbolic.gradient`, :func:`~symgrad.symbolic.jacobian` and
:func:`~symgrad.symbolic.hessian` replay the graph with :class:`SymEngineReplay` (the same
rules, on SymEngine expressions) and convert the results to SymPy once, at the end, in the
leaves' own symbols: the user gets the same SymPy expressions either way, several times sooner
for large graphs. :func:`~symgrad.symbolic.lambdify` and
:func:`~symgrad.symbolic.compile_gradient` with ``backend="symengine"`` compile with
SymEngine's ``Lambdify`` (common sub-expressions shared); ``compile_gradient`` then never
builds SymPy expressions at all.

Install with ``pip install symgrad[symengine]``; without it, ``backend="symengine"`` raises
ImportError saying so.

Examples
--------
>>> import pytest
>>> se = pytest.importorskip("symengine")  # the example needs SymEngine installed
>>> import symgrad
>>> from symgrad.symbolic import compile_gradient, gradient
>>> x = symgrad.tensor([0.5, 1.0, 2.0], requires_grad=True, name="x")
>>> y = symgrad.sin(x[:-1] * x[1:]).sum()
>>> gradient(y, x, backend="symengine")
[x[1]*cos(x[0]*x[1]), x[0]*cos(x[0]*x[1]) + x[2]*cos(x[1]*x[2]), x[1]*cos(x[1]*x[2])]
>>> gradient(y, x, backend="symengine") == gradient(y, x)
True
>>> compile_gradient(y, x, backend="symengine")([0.0, 1.0, 0.0])
array([1., 0., 1.])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from symgrad.autograd.function import check_formula_shapes
from symgrad.symbolic.names import symbol_array_of
from symgrad.symbolic.nesting import DEPTH_MESSAGE, MAX_INLINE_DEPTH, SymbolicDepthError
from symgrad.symbolic.replay import Replay
from symgrad.symbolic.symengine_convert import Bridge, require_symengine
from symgrad.symbolic.symengine_xp import SE
from symgrad.tensor import Tensor

__all__ = ["SymEngineReplay", "SYMBOLIC_BACKENDS", "check_backend", "new_replay", "hessian_blocks"]

SYMBOLIC_BACKENDS = ("sympy", "symengine")


def check_backend(backend: str) -> None:
    """ValueError for an unknown symbolic backend, ImportError for SymEngine not installed."""
    if backend not in SYMBOLIC_BACKENDS:
        raise ValueError(
            f"backend must be one of {', '.join(map(repr, SYMBOLIC_BACKENDS))}, got {backend!r}"
        )
    if backend == "symengine":
        require_symengine()


def new_replay(backend: str, cse: bool, as_float: bool, lazy: bool | None = None) -> Replay:
    """A replay on the symbolic ``backend``: ``"sympy"`` or ``"symengine"``."""
    check_backend(backend)
    if backend == "sympy":
        return Replay(cse=cse, as_float=as_float, lazy=lazy)
    return SymEngineReplay(cse=cse, as_float=as_float, lazy=lazy)


class SymEngineReplay(Replay):
    """:class:`~symgrad.symbolic.replay.Replay` with values held as SymEngine expressions.

    ``definitions`` (assignment form) hold SymEngine pairs until :meth:`to_sympy` converts
    them with the results."""

    def __init__(self, cse: bool = False, as_float: bool = False, lazy: bool | None = None):
        super().__init__(cse=cse, as_float=as_float, lazy=lazy)
        self.bridge = Bridge()
        self.sx = SE(self.bridge, self._numeric)
        self._converted: dict[int, tuple[Any, np.ndarray]] = {}  # id -> (kept alive, array)
        self._se_values: dict[Any, float] = {}
        self._se_evaluated = 0

    # -- values as SymEngine ---------------------------------------------------------------------
    def _leaf(self, t: Tensor) -> np.ndarray:
        found = self._converted.get(id(t))
        if found is not None and found[0] is t:
            return found[1]
        arr = self.bridge.array(super()._leaf(t))
        self._converted[id(t)] = (t, arr)
        return arr

    def _new_symbols(self, t: Tensor) -> np.ndarray:
        # SymEngine's symbols at once: SymPy's are made only if a result is converted back
        return symbol_array_of(t, self.bridge.lazy_symbol)

    def _remember_values(self, symbols: np.ndarray, t: Tensor) -> None:
        for s, v in zip(symbols.flat, np.asarray(t._data).flat):
            self._se_values[s] = float(v)

    def input(self, node: Any, i: int) -> np.ndarray:
        fn, _ = node._edges[i]
        const = node._consts[i] if fn is None and i < len(node._consts) else None
        if const is None or isinstance(const, Tensor):
            return self.bridge.array(super().input(node, i))
        found = self._converted.get(id(const))
        if found is None or found[0] is not const:
            found = self._converted[id(const)] = (const, self.bridge.array(super().input(node, i)))
        return found[1]

    def _zeros(self, node: Any, i: int) -> np.ndarray:
        return np.full(node._meta[i][0], self.bridge.se.Integer(0), dtype=object)

    def _apply(self, node: Any, args: list) -> tuple:
        outs = node.prim.outputs(self.sx, tuple(args), node.params)
        check_formula_shapes(node, outs)
        return tuple(self.bridge.array(v) for v in outs)

    def _total(self, arrays: list | None) -> np.ndarray | None:
        if not arrays or len(arrays) == 1:
            return arrays[0] if arrays else None
        arrays = [self.bridge.array(a) for a in arrays]
        total = np.frompyfunc(self.bridge.se.Add, len(arrays), 1)(*arrays)
        return np.asarray(total, dtype=object)

    def _assign(
        self, arr: np.ndarray, prefix: str, name: str | None = None, symbols: bool = False
    ) -> np.ndarray:
        if not self.cse:
            return arr
        from symgrad._symbol_names import name_symbol
        from symgrad.prim.sympy_xp import ElementSymbol

        if name is None:
            self._names[prefix] += 1
            name = f"{prefix}{self._names[prefix]}"
        arr = self.bridge.array(arr)
        out = np.empty(arr.shape, dtype=object)
        for index in np.ndindex(*arr.shape):
            e = arr[index]
            if (e.is_Atom and not (symbols and e.is_Symbol)) or (
                _negated_atom(e) and not self.every_step
            ):
                out[index] = e
                continue
            label = name if not arr.shape else f"{name}[{', '.join(map(str, index))}]"
            s = ElementSymbol(label, real=True) if arr.shape else name_symbol(label, real=True)
            symbol = self.bridge.symbol(s)
            self.definitions.append((symbol, e))
            out[index] = symbol
        return out

    def _guard(self, compute: Any, *_: Any) -> Any:
        # the nesting is measured once, when the results are converted to SymPy
        try:
            return compute()
        except RecursionError:
            raise SymbolicDepthError(DEPTH_MESSAGE) from None

    # -- numbers, for rules that pick elements by value ---------------------------------------
    def _numeric(self, arr: np.ndarray) -> np.ndarray:
        out = np.empty(arr.shape, dtype=float)
        for index in np.ndindex(*arr.shape):
            out[index] = self._value_of(self.bridge.to_se(arr[index]))
        return out

    def _value_of(self, e: Any) -> float:
        free = e.free_symbols
        if any(s not in self._se_values for s in free):
            for s, d in self.definitions[self._se_evaluated :]:
                self._se_values[s] = self._value_of(d)
            self._se_evaluated = len(self.definitions)
        value = e.subs({s: self._se_values[s] for s in free}) if free else e
        try:
            found = float(value)
        except (RuntimeError, TypeError):  # infinities SymEngine does not evaluate
            found = float("nan")
        if np.isnan(found):  # or a rational too large for a double: SymPy's evaluation
            found = float(self.bridge.to_sympy(value)[0])
        return found

    # -- the results, in SymPy -------------------------------------------------------------------
    def to_sympy(self, arrays: list) -> list:
        """The arrays as SymPy (and ``definitions`` too, from now on), checking that inline
        results are not nested too deeply for SymPy."""
        if not self.cse:  # measured before SymPy builds (and recurses into) a deep tree
            for a in arrays:
                for e in np.asarray(a, dtype=object).flat:
                    if self.bridge.depth(self.bridge.to_se(e)) > MAX_INLINE_DEPTH:
                        raise SymbolicDepthError(DEPTH_MESSAGE)
        converted = [self.bridge.sympy_array(a)[0] for a in arrays]
        if self.definitions and not isinstance(self.definitions[0][0], sp.Basic):
            self.definitions = [
                (self.bridge.to_sympy(s)[0], self.bridge.to_sympy(d)[0])
                for s, d in self.definitions
            ]
        return converted


def _negated_atom(e: Any) -> bool:
    return e.is_Mul and len(e.args) == 2 and e.args[0] == -1 and e.args[1].is_Atom


def hessian_blocks(y: Tensor, xs: list, as_float: bool) -> list | None:
    """The Hessian blocks ``[[d²y/dxᵢdxⱼ]]`` as SymPy matrices: the gradient replayed on
    SymEngine, each element differentiated by SymEngine with respect to the inputs' elements it
    depends on; None when SymEngine cannot differentiate a function the gradient holds."""
    from symgrad.symbolic.replay import seed_ones

    replay = SymEngineReplay(as_float=as_float)
    grads = replay.adjoints(y, seed_ones(y.shape), xs)
    columns = [list(replay._leaf(x).flat) for x in xs]
    zero = replay.bridge.se.Integer(0)
    arrays = []
    try:
        for g, xi in zip(grads, xs):
            g = np.zeros(xi.shape, dtype=object) if g is None else replay.bridge.array(g)
            for cols in columns:
                block = np.empty((xi.numel(), len(cols)), dtype=object)
                for i, e in enumerate(g.flat):
                    e = replay.bridge.to_se(e)
                    free = e.free_symbols
                    for j, s in enumerate(cols):
                        block[i, j] = e.diff(s) if s in free else zero
                arrays.append(block)
    except (RuntimeError, TypeError, NotImplementedError, AttributeError):
        return None
    converted = iter(replay.to_sympy(arrays))
    return [[sp.Matrix(next(converted).tolist()) for _ in xs] for _ in xs]
