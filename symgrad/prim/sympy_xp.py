"""The symbolic interpreter: the rule vocabulary of ``xp.py`` on NumPy object arrays of SymPy
expressions, plus the symbols that stand for a tensor's elements.

The same forward and VJP rules that run on NumPy arrays run here and produce closed forms.
Rules whose choice depends on the data (which element is the maximum) ask ``numeric`` for the
traced values: a closed form holds near the traced point, like the Python control flow that
built the graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import sympy as sp

from symgrad._symbol_names import NameSymbol, element_parts, latex_name, name_symbol
from symgrad.prim.exact import exact
from symgrad.prim.numpy_xp import NP, _basic_key, scatter_add
from symgrad.prim.sympy_build import apply as apply_function
from symgrad.prim.sympy_build import real_symbol, substitute

__all__ = ["SX", "ElementSymbol", "symbol_array", "exact", "to_sympy"]


class ElementSymbol(NameSymbol):
    """A real symbol for one element of a tensor: prints ``w[0, 1]``, LaTeX ``w_{0,1}``.

    The index is the last bracket of the name: the tensor's own name may hold brackets."""

    def _latex(self, printer: Any) -> str:
        base, index = element_parts(self.name)
        base_latex = latex_name(base, printer)
        if "_" in base_latex or "^" in base_latex:
            base_latex = f"{{{base_latex}}}"  # v_{1} then _{0,0} would be a double subscript
        return f"{base_latex}_{{{','.join(index)}}}"


def symbol_array(name: str, shape: tuple) -> np.ndarray:
    """An object array of real symbols ``name[i, j]`` (a plain ``name`` for one element)."""
    out = np.empty(shape, dtype=object)
    if out.size == 1 and not shape:
        out[()] = name_symbol(name, real=True)
        return out
    if len(shape) == 1:  # (a vector's names without the general index's work)
        for i in range(shape[0]):
            out[i] = real_symbol(ElementSymbol, f"{name}[{i}]")
        return out
    for index in np.ndindex(*shape):
        out[index] = real_symbol(ElementSymbol, f"{name}[{', '.join(map(str, index))}]")
    return out


def _exact_zero(e: Any) -> bool:
    """Whether ``e`` is the number 0 (a test of the number itself: SymPy's ``is_zero`` would
    ask its assumptions about every expression, which costs more than the rule)."""
    return getattr(e, "is_Number", False) and e == 0


def _objects(a: Any) -> np.ndarray:
    """``a`` as an object array of SymPy numbers or expressions."""
    if isinstance(a, np.ndarray) and a.dtype == object:
        return a
    arr = np.asarray(a)
    out = np.empty(arr.shape, dtype=object)
    for index in np.ndindex(*arr.shape):
        out[index] = exact(arr[index])
    return out


def to_sympy(a: np.ndarray) -> Any:
    """An object array as SymPy: a scalar, a ``Matrix`` for 2-D, else an ``Array``."""
    if a.ndim == 0:
        return sp.sympify(a[()], strict=True)
    if a.ndim == 2:
        return sp.Matrix(a.tolist())
    return sp.Array(a.tolist(), a.shape)


def _vectorize(fn: Callable) -> Callable:
    ufunc = np.frompyfunc(lambda a: apply_function(fn, (sp.sympify(a, strict=True),)), 1, 1)

    def apply(a: Any) -> np.ndarray:
        return np.asarray(ufunc(_objects(a)), dtype=object)

    return apply


class SX:
    """The rule vocabulary on object arrays of SymPy expressions.

    ``numeric(a)`` must turn an object array into its traced float values; it is needed only
    by data-dependent rules (``eq``).
    """

    def __init__(self, numeric: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
        self._numeric = numeric

    # -- reductions and shapes (NumPy's object-array support does the work) ------------------
    @staticmethod
    def sum(a: Any, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        a = _objects(a)
        axes = tuple(range(a.ndim)) if dim is None else tuple(d % max(a.ndim, 1) for d in dim)
        if not axes or a.ndim == 0:
            return a.copy()
        rest = tuple(i for i in range(a.ndim) if i not in axes)
        moved = np.transpose(a, rest + axes).reshape(tuple(a.shape[i] for i in rest) + (-1,))
        out = np.empty(moved.shape[:-1], dtype=object)
        for index in np.ndindex(*out.shape):
            out[index] = sp.Add(*moved[index])  # one Add: linear, not quadratic, in the terms
        if keepdim:
            out = out.reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))
        return out

    def mean(self, a: Any, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        a = np.asarray(a)
        count = a.size if dim is None else int(np.prod([a.shape[d] for d in dim]))
        return self.sum(a, dim, keepdim) / count

    def sum_to_size(self, a: Any, shape: tuple) -> np.ndarray:
        a = _objects(a)
        if a.shape == tuple(shape):
            return a
        lead = a.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape) if n == 1 and a.shape[lead + i] != 1
        )
        return self.sum(a, axes, True).reshape(shape) if axes else a.reshape(shape)

    reshape = staticmethod(NP.reshape)
    permute = staticmethod(NP.permute)
    transpose = staticmethod(NP.transpose)
    unsqueeze = staticmethod(NP.unsqueeze)
    squeeze = staticmethod(NP.squeeze)
    flip = staticmethod(NP.flip)
    gather = staticmethod(NP.gather)
    prod_others = staticmethod(NP.prod_others)

    @staticmethod
    def expand(a: Any, shape: tuple) -> np.ndarray:
        return np.broadcast_to(_objects(a), shape)

    @staticmethod
    def cat(seq: list, dim: int) -> np.ndarray:
        return np.concatenate([_objects(a) for a in seq], axis=dim)

    @staticmethod
    def cumsum(a: Any, dim: int) -> np.ndarray:
        return np.cumsum(_objects(a), axis=dim)

    @staticmethod
    def getitem(a: Any, key: Any) -> np.ndarray:
        return np.asarray(_objects(a)[key], dtype=object)

    @staticmethod
    def matmul(a: Any, b: Any) -> np.ndarray:
        a, b = _objects(a), _objects(b)
        if a.ndim != 2 or b.ndim not in (1, 2):
            return np.matmul(a, b)
        # each element one Add of its products, not a chain of pairwise sums
        columns = b.reshape(b.shape[0], -1)
        out = np.empty((a.shape[0], columns.shape[1]), dtype=object)
        for i, j in np.ndindex(*out.shape):
            out[i, j] = sp.Add(*(p * q for p, q in zip(a[i], columns[:, j])))
        return out.reshape(a.shape[:1] + b.shape[1:])

    # -- matrices: closed forms of small ones (each batch element a sympy.Matrix) ------------
    @staticmethod
    def det(a: Any) -> np.ndarray:
        return _per_matrix(a, "det", lambda m: m.det(), ())

    @staticmethod
    def adjugate(a: Any) -> np.ndarray:
        return _per_matrix(a, "adjugate", lambda m: m.adjugate(), None)

    @staticmethod
    def matrix_exp(a: Any) -> np.ndarray:
        return _per_matrix(a, "matrix_exp", _exponential, None)

    @staticmethod
    def inv(a: Any) -> np.ndarray:
        return _per_matrix(a, "inv", _inverse, None)

    def solve(self, a: Any, b: Any) -> np.ndarray:
        return self.matmul(self.inv(a), b)

    @staticmethod
    def where(cond: Any, a: Any, b: Any) -> np.ndarray:
        return np.where(np.asarray(cond, dtype=bool), _objects(a), _objects(b))

    def masked_fill(self, a: Any, mask: Any, value: Any, node: Any = None) -> np.ndarray:
        return self.where(mask, value, a)

    @staticmethod
    def mul_scalar(a: Any, c: float) -> Any:
        return a * c

    @staticmethod
    def div_scalar(a: Any, c: float) -> Any:
        return a / c

    @staticmethod
    def index_put_zeros(
        shape: tuple, key: Any, g: Any, unique: bool = False, node: Any = None
    ) -> np.ndarray:
        out = np.full(shape, sp.S.Zero, dtype=object)
        g = _objects(g)
        if unique or _basic_key(key):  # no index twice: 0 + g is g
            out[key] = g[()] if g.ndim == 0 else g  # a 0-d array would go in as an element
        else:
            np.add.at(out, key, g)
        return out

    @staticmethod
    def scatter_zeros(
        shape: tuple, dim: int, index: np.ndarray, g: Any, unique: bool = False
    ) -> np.ndarray:
        return scatter_add(_objects(np.zeros(shape, dtype=np.int64)), dim, index, _objects(g))

    @staticmethod
    def constant(a: np.ndarray) -> np.ndarray:
        return _objects(a)

    # -- element-wise ------------------------------------------------------------------------
    exp = staticmethod(_vectorize(sp.exp))
    log = staticmethod(_vectorize(sp.log))
    sqrt = staticmethod(_vectorize(sp.sqrt))
    abs = staticmethod(_vectorize(sp.Abs))
    sign = staticmethod(_vectorize(sp.sign))

    def sgn(self, a: Any) -> np.ndarray:
        return self.sign(a)

    @staticmethod
    def elementwise(prim: Any, args: tuple, params: tuple = ()) -> np.ndarray:
        """The primitive's formula with each element's expressions substituted."""
        return _substitute(prim.expr, prim.inputs, args, prim.params, params)

    def elementwise_vjp(
        self, prim: Any, i: int, args: tuple, out: Any, g: Any, params: tuple = ()
    ) -> np.ndarray:
        """``g * partial_i`` with each element's expressions substituted."""
        partial = prim.local_derivatives[i] if out is None else prim.partials[i]
        values = tuple(args) + (0 if out is None else out,)
        g = _objects(g)
        if all(e == 1 for e in g.flat):  # g * partial is the partial itself
            shape = np.broadcast_shapes(g.shape, *(np.shape(v) for v in values))
            symbols = prim.inputs + (prim.out_symbol,)
            found = _substitute(partial, symbols, values, prim.params, params)
            return np.broadcast_to(found, shape).copy()
        symbols = prim.inputs + (prim.out_symbol, _G)
        result = _substitute(_G * partial, symbols, values + (g,), prim.params, params)
        if self._numeric is not None and any(_exact_zero(e) for e in g.flat):
            partials = _substitute(partial, symbols[:-1], values, prim.params, params)
            self._zero_times_infinity(result, g, partials)
        return result

    def _zero_times_infinity(self, result: np.ndarray, g: np.ndarray, partials: Any) -> None:
        """nan in ``result`` where an exact 0 of ``g`` meets a partial that is infinite or
        undefined at the traced values: PyTorch's backward multiplies them (IEEE 0 * inf is
        nan), where SymPy's 0 * partial is 0."""
        g = np.broadcast_to(g, result.shape)
        partials = np.broadcast_to(_objects(partials), result.shape)
        for index in np.ndindex(*result.shape):
            if _exact_zero(g[index]) and not self._finite(partials[index]):
                result[index] = sp.nan

    def _finite(self, e: Any) -> bool:
        """Whether ``e`` is a finite real number at the traced values."""
        if getattr(e, "is_number", True) and e.is_finite and e.is_real is not False:
            return True
        return bool(np.isfinite(self._numeric(np.array(e, dtype=object))))

    # -- data-dependent choices ----------------------------------------------------------------
    def eq(self, a: Any, b: Any) -> np.ndarray:
        return np.equal(self.numeric_values(a), self.numeric_values(b))

    def extremum(self, a: Any, dim: Any, keepdim: bool, pick: Callable) -> np.ndarray:
        """The element that ``pick`` (``np.argmax``/``np.argmin``) selects by traced value."""
        a = _objects(a)
        values = self.numeric_values(a)
        axes = tuple(range(a.ndim)) if dim is None else tuple(dim)
        rest = tuple(i for i in range(a.ndim) if i not in axes)
        order = rest + axes
        lead = tuple(a.shape[i] for i in rest)
        moved = np.transpose(a, order).reshape(lead + (-1,))
        chosen = pick(np.transpose(values, order).reshape(lead + (-1,)), axis=-1)
        out = np.take_along_axis(moved, chosen[..., None], axis=-1)[..., 0]
        if keepdim:
            out = out.reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))
        return out

    def numeric_values(self, a: np.ndarray) -> np.ndarray:
        if self._numeric is None:
            raise NotImplementedError(
                "this rule picks elements by their values (a maximum, a zero norm); its closed "
                "form needs the traced values"
            )
        return self._numeric(_objects(a))

    @staticmethod
    def count(mask: Any, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        return _objects(np.sum(mask, axis=dim, keepdims=keepdim))


# a determinant of n symbolic entries has n! terms: closed forms stop at this size
MAX_SYMBOLIC_MATRIX = 6


def _exponential(m: sp.Matrix) -> sp.Matrix:
    if not all(e.is_number for e in m):
        raise NotImplementedError(
            "linalg.matrix_exp has no closed form here for a matrix of symbols (it needs the "
            "eigenvalues of the matrix as formulas); use the numeric gradient"
        )
    return m.exp()


def _inverse(m: sp.Matrix) -> sp.Matrix:
    d = m.det()
    if d == 0:
        raise ValueError(f"the closed form of inv needs an invertible matrix; {m} is singular")
    return m.adjugate() / d


def _per_matrix(a: Any, word: str, fn: Callable, shape: tuple | None) -> np.ndarray:
    """``fn`` of every matrix of the batch ``a`` (its result a scalar, or a matrix of the
    input's shape when ``shape`` is None)."""
    a = _objects(a)
    n = a.shape[-1]
    if n > MAX_SYMBOLIC_MATRIX and not all(sp.sympify(e, strict=True).is_number for e in a.flat):
        raise NotImplementedError(
            f"the closed form of {word} of a {n} x {n} matrix of symbols has about {n}! "
            f"terms; closed forms of det, inv and solve are given up to "
            f"{MAX_SYMBOLIC_MATRIX} x {MAX_SYMBOLIC_MATRIX}"
        )
    out = np.empty(a.shape[:-2] + (a.shape[-2:] if shape is None else ()), dtype=object)
    for index in np.ndindex(*a.shape[:-2]):
        value = fn(sp.Matrix(a[index].tolist()) if n else sp.zeros(0, 0))
        if shape is None:
            out[index] = np.array(value.tolist(), dtype=object).reshape(a.shape[-2:])
        else:
            out[index] = value
    return out


def _substitute(
    expr: sp.Expr, symbols: tuple, values: tuple, param_symbols: tuple, params: tuple
) -> np.ndarray:
    fixed = {p: exact(v) for p, v in zip(param_symbols, params)}
    base = expr.xreplace(fixed) if fixed else expr
    arrays = np.broadcast_arrays(*(_objects(v) for v in values))
    out = np.empty(arrays[0].shape if arrays else (), dtype=object)
    for index in np.ndindex(*out.shape):
        out[index] = substitute(base, {s: a[index] for s, a in zip(symbols, arrays)})
    return out


_G = sp.Symbol("_g")
