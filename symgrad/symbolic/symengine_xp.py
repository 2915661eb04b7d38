"""The symbolic interpreter on SymEngine: the rule vocabulary on NumPy object arrays of
SymEngine expressions (conversions to and from SymPy in :mod:`.symengine_convert`).

SymEngine builds and differentiates expressions in C++, several times faster than SymPy. The
graph is replayed here as it is on SymPy (:class:`symgrad.prim.sympy_xp.SX`): the same forward
and VJP rules, each element-wise primitive's SymPy formula and partials converted once per
primitive (SymPy *objects*, never strings) and compiled into a function over whole object
arrays. Results go back to SymPy once, at the end, in the leaves' own symbols.

Words that build SymPy matrices (``det``, ``inv``, ``solve``, ``adjugate``, ``matrix_exp``)
compute on SymPy for that node and convert back.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import sympy as sp

from symgrad.prim.exact import exact
from symgrad.prim.numpy_xp import _basic_key, scatter_add
from symgrad.prim.sympy_xp import SX
from symgrad.symbolic.symengine_convert import Bridge

__all__ = ["SE"]


class _Template:
    """An element-wise formula in SymEngine, compiled into a function over object arrays:
    each operation applied to whole arrays (NumPy calls the C++ constructor per element)."""

    def __init__(self, se: Any, formula: Any, symbols: tuple) -> None:
        self.se = se
        self.symbols = symbols
        self.run = self._compile(formula)

    def _compile(self, node: Any) -> Callable:
        if node in self.symbols:
            k = self.symbols.index(node)
            return lambda arrays: arrays[k]
        if not node.free_symbols & set(self.symbols):
            return lambda arrays, c=node: c
        args = node.args
        try:
            rebuilt = node.func(*args)
        except Exception:
            rebuilt = None
        if rebuilt != node:  # a node SymEngine can't rebuild from its arguments: substitute
            return self._substituted(node)
        parts = [self._compile(a) for a in args]
        build = np.frompyfunc(node.func, len(args), 1)
        return lambda arrays: build(*(p(arrays) for p in parts))

    def _substituted(self, node: Any) -> Callable:
        symbols = self.symbols

        def each(*values: Any) -> Any:
            return node.subs(dict(zip(symbols, values)))

        build = np.frompyfunc(each, len(symbols), 1)
        return lambda arrays: build(*arrays)

    def __call__(self, arrays: list) -> np.ndarray:
        arrays = np.broadcast_arrays(*arrays) if arrays else []
        shape = arrays[0].shape if arrays else ()
        out = self.run(arrays)
        return np.broadcast_to(np.asarray(out, dtype=object), shape).copy()


class SE(SX):
    """The rule vocabulary on object arrays of SymEngine expressions (see the module)."""

    def __init__(self, bridge: Bridge, numeric: Callable | None = None) -> None:
        super().__init__(numeric)
        self.bridge = bridge
        self.se = bridge.se

    def _in(self, a: Any) -> np.ndarray:
        return self.bridge.array(a)

    # -- reductions and algebra: one n-ary Add per element, SymEngine's own ----------------
    def sum(self, a: Any, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        a = self._in(a)
        axes = tuple(range(a.ndim)) if dim is None else tuple(d % max(a.ndim, 1) for d in dim)
        if not axes or a.ndim == 0:
            return a.copy()
        rest = tuple(i for i in range(a.ndim) if i not in axes)
        moved = np.transpose(a, rest + axes).reshape(tuple(a.shape[i] for i in rest) + (-1,))
        out = np.empty(moved.shape[:-1], dtype=object)
        for index in np.ndindex(*out.shape):
            out[index] = self.se.Add(*moved[index])
        if keepdim:
            out = out.reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))
        return out

    def matmul(self, a: Any, b: Any) -> np.ndarray:
        a, b = self._in(a), self._in(b)
        if a.ndim != 2 or b.ndim not in (1, 2):
            return np.matmul(a, b)
        columns = b.reshape(b.shape[0], -1)
        out = np.empty((a.shape[0], columns.shape[1]), dtype=object)
        for i, j in np.ndindex(*out.shape):
            out[i, j] = self.se.Add(*(p * q for p, q in zip(a[i], columns[:, j])))
        return out.reshape(a.shape[:1] + b.shape[1:])

    def _zeros(self, shape: tuple) -> np.ndarray:
        return np.full(shape, self.se.Integer(0), dtype=object)

    def index_put_zeros(
        self, shape: tuple, key: Any, g: Any, unique: bool = False, node: Any = None
    ) -> np.ndarray:
        out, g = self._zeros(shape), self._in(g)
        if unique or _basic_key(key):  # no index twice: 0 + g is g
            out[key] = g[()] if g.ndim == 0 else g
        else:
            np.add.at(out, key, g)
        return out

    def scatter_zeros(
        self, shape: tuple, dim: int, index: np.ndarray, g: Any, unique: bool = False
    ) -> np.ndarray:
        return scatter_add(self._zeros(shape), dim, index, self._in(g))

    def where(self, cond: Any, a: Any, b: Any) -> np.ndarray:
        cond = np.asarray(cond)
        if cond.dtype == object:  # numbers of the interpreter: SymEngine's are all truthy
            cond = np.frompyfunc(lambda e: e != 0, 1, 1)(cond)
        return np.where(np.asarray(cond, dtype=bool), self._in(a), self._in(b))

    def constant(self, a: np.ndarray) -> np.ndarray:
        return self._in(a)

    def count(self, mask: Any, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        return self._in(SX.count(mask, dim, keepdim))

    # -- element-wise ------------------------------------------------------------------------
    def _unary(self, fn: Any, a: Any) -> np.ndarray:
        a = self._in(a)
        return np.asarray(np.frompyfunc(fn, 1, 1)(a), dtype=object).reshape(a.shape)

    def exp(self, a: Any) -> np.ndarray:
        return self._unary(self.se.exp, a)

    def log(self, a: Any) -> np.ndarray:
        return self._unary(self.se.log, a)

    def sqrt(self, a: Any) -> np.ndarray:
        return self._unary(self.se.sqrt, a)

    def abs(self, a: Any) -> np.ndarray:
        return self._unary(self.se.Abs, a)

    def sign(self, a: Any) -> np.ndarray:
        return self._unary(self.se.sign, a)

    def elementwise(self, prim: Any, args: tuple, params: tuple = ()) -> np.ndarray:
        template = _SHARED.get(self, (prim, "f"), lambda: prim.expr, prim.inputs, params, prim)
        return template([self._in(a) for a in args])

    def elementwise_vjp(
        self, prim: Any, i: int, args: tuple, out: Any, g: Any, params: tuple = ()
    ) -> np.ndarray:
        with_out = out is not None
        values = [self._in(a) for a in args]
        if with_out:
            values.append(self._in(out))
        g = self._in(g)
        ones = all(e == 1 for e in g.flat)
        symbols = prim.inputs + ((prim.out_symbol,) if with_out else ())

        def partial() -> Any:
            found = prim.partials[i] if with_out else prim.local_derivatives[i]
            return found if ones else _G * found

        if not ones:
            symbols, values = symbols + (_G,), values + [g]
        key = (prim, i, with_out, ones)
        template = _SHARED.get(self, key, partial, symbols, params, prim)
        shape = np.broadcast_shapes(g.shape, *(np.shape(v) for v in values))
        return np.broadcast_to(template(values), shape).copy()

    # -- words that need SymPy matrices: that node on SymPy -----------------------------------
    def _on_sympy(self, word: str, *args: Any) -> np.ndarray:
        converted = [self.bridge.sympy_array(self._in(a))[0] for a in args]
        return self._in(getattr(SX(self._numeric), word)(*converted))

    def det(self, a: Any) -> np.ndarray:
        return self._on_sympy("det", a)

    def adjugate(self, a: Any) -> np.ndarray:
        return self._on_sympy("adjugate", a)

    def matrix_exp(self, a: Any) -> np.ndarray:
        return self._on_sympy("matrix_exp", a)

    def inv(self, a: Any) -> np.ndarray:
        return self._on_sympy("inv", a)


_G = sp.Symbol("_g")


class _Shared:
    """The compiled templates of every primitive, shared by all replays of the process."""

    def __init__(self) -> None:
        self._found: dict = {}

    def get(
        self, xp: SE, key: tuple, formula: Callable, symbols: tuple, params: tuple, prim: Any
    ) -> _Template:
        try:
            full = key + (params,)
            found = self._found.get(full)
        except TypeError:  # parameter values that can't be hashed: not kept
            full, found = None, None
        if found is None:
            expr = formula()
            fixed = {p: exact(v) for p, v in zip(prim.params, params)}
            expr = expr.xreplace(fixed) if fixed else expr
            se_symbols = tuple(xp.se.Symbol(s.name) for s in symbols)
            found = _Template(xp.se, xp.se.sympify(expr), se_symbols)
            if full is not None:
                self._found[full] = found
        return found


_SHARED = _Shared()

# the vocabulary words that only move elements: SymPy's implementation, with the numbers it
# may make (a zero, a constant) converted
_MOVING = (
    "sum_to_size",
    "reshape",
    "permute",
    "transpose",
    "unsqueeze",
    "squeeze",
    "expand",
    "flip",
    "cat",
    "cumsum",
    "getitem",
    "gather",
    "prod_others",
    "solve",
    "extremum",
)


def _moving(word: str) -> Callable:
    base = getattr(SX, word)
    static = isinstance(inspect.getattr_static(SX, word), staticmethod)

    def run(self: SE, *args: Any, **kwargs: Any) -> Any:
        found = base(*args, **kwargs) if static else base(self, *args, **kwargs)
        return self._in(found)

    run.__name__ = word
    return run


for _word in _MOVING:
    setattr(SE, _word, _moving(_word))
