"""The matrix interpreter: the rule vocabulary on SymPy matrix expressions, for closed forms
written as people write them (``2*A.T*(A*x - b)``, ``X.T*(sigma(X*w + b*1) - y)/N``).

A value (:class:`MV`) is a tensor's shape and one SymPy expression: a scalar for a 0-d
tensor, an n x 1 column for a vector, an n x m matrix for a matrix. ``matmul`` is the matrix
product, a transpose is ``.T``, element-wise formulas become Hadamard products, powers and
functions applied element-wise, sums are products with vectors of ones (``OneMatrix``), and a
broadcast is an outer product with one. A word without a matrix meaning here (indexing,
selection by value, tensors of more than two dimensions) raises :class:`MatrixFormError`
naming it, and the caller falls back to the per-element form for that part.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from symgrad.prim.exact import exact
from symgrad.prim.matrix_algebra import (
    MatrixFormError,
    _add,
    _full,
    _hadamard,
    _is_matrix,
    _matrix_shape,
    _product,
    _scalar_op,
    _scale,
    split_scale,
)
from symgrad.prim.matrix_functions import (
    ClassKey,
    ElementFunction,
    Ones,
    RowLogSoftmax,
    RowSoftmax,
    one_hot,
    rows_sum_to_one,
)
from symgrad.prim.special import sigmoid

__all__ = ["MX", "MV", "MatrixFormError", "ElementFunction", "matrix_of", "split_scale"]


def row_function(name: str, a: MV, dim: int) -> MV:
    """``softmax`` or ``log_softmax`` of a vector, or of a matrix along its rows (along its
    columns: of its transpose, transposed back)."""
    cls = RowSoftmax if name == "softmax" else RowLogSoftmax
    if a.ndim == 1:
        return MV(cls(a.expr), a.shape)
    # RowSoftmax reads a one-column matrix as a vector: along a dimension of one element
    # (where each softmax is 1) it would be the softmax of the other dimension
    if a.ndim != 2 or a.shape[dim % 2] == 1:
        raise MatrixFormError(f"{name} along dim {dim} of {list(a.shape)}")
    if dim % 2 == 1:
        return MV(cls(a.expr), a.shape)
    return MV(cls(a.expr.T).T, a.shape)


class MV:
    """A tensor's value in the matrix interpreter: its ``shape`` and its expression."""

    __slots__ = ("expr", "shape")

    def __init__(self, expr: Any, shape: tuple) -> None:
        self.expr, self.shape = expr, tuple(shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"MV({self.expr}, {self.shape})"

    def broadcast(self, shape: tuple) -> Any:
        """The matrix (or scalar, for shape ()) of this value broadcast to ``shape``."""
        shape = tuple(shape)
        if not shape:
            return self.expr
        rows, cols = _matrix_shape(shape)
        e = self.expr
        if self.shape == shape:
            return e
        if not self.shape or self.shape in ((1,), (1, 1)):
            s = e[0, 0] if _is_matrix(e) else e
            return s * Ones(rows, cols)
        if len(self.shape) == 1 and len(shape) == 2 and self.shape[0] == cols:
            return Ones(rows, 1) * e.T  # a vector added to every row
        if self.shape == (1, cols):
            return Ones(rows, 1) * e
        if self.shape == (rows, 1):
            return e * Ones(1, cols)
        raise MatrixFormError(f"broadcasting {list(self.shape)} to {list(shape)}")

    # element-wise arithmetic, with broadcasting
    def _combine(self, other: Any, op: str, swap: bool = False) -> MV:
        other = other if isinstance(other, MV) else MV(exact(other), ())
        a, b = (other, self) if swap else (self, other)
        shape = tuple(np.broadcast_shapes(a.shape, b.shape))
        x, y = a.broadcast(shape) if a.shape else a.expr, b.broadcast(shape) if b.shape else b.expr
        if not shape:
            return MV(_scalar_op(op, x, y), ())
        if op == "add":
            return MV(_add(_full(x, shape), _full(y, shape)), shape)
        if op == "sub":
            return MV(_add(_full(x, shape), -_full(y, shape)), shape)
        if op == "mul":
            if not a.shape or not b.shape:
                return MV(_scale(x, y), shape)
            return MV(_hadamard(x, y), shape)
        if op == "div":
            if not b.shape:
                return MV(_scale(x, 1 / y), shape)
            return MV(_hadamard(_full(x, shape), sp.HadamardPower(y, -1)), shape)
        raise MatrixFormError(op)

    def __add__(self, o: Any) -> MV:
        return self._combine(o, "add")

    def __radd__(self, o: Any) -> MV:
        return self._combine(o, "add", True)

    def __sub__(self, o: Any) -> MV:
        return self._combine(o, "sub")

    def __rsub__(self, o: Any) -> MV:
        return self._combine(o, "sub", True)

    def __mul__(self, o: Any) -> MV:
        return self._combine(o, "mul")

    def __rmul__(self, o: Any) -> MV:
        return self._combine(o, "mul", True)

    def __truediv__(self, o: Any) -> MV:
        return self._combine(o, "div")

    def __rtruediv__(self, o: Any) -> MV:
        return self._combine(o, "div", True)

    def __neg__(self) -> MV:
        return MV(-self.expr, self.shape)


def matrix_of(a: Any) -> MV:
    """A NumPy array or number as a constant value: a number, or an explicit matrix."""
    if isinstance(a, MV):
        return a
    arr = np.asarray(a)
    if arr.ndim == 0:
        return MV(exact(arr[()]), ())
    rows, cols = _matrix_shape(arr.shape)
    values = [[exact(v) for v in row] for row in arr.reshape(rows, cols)]
    return MV(sp.ImmutableMatrix(values), arr.shape)


# -- lifting a scalar formula to matrices ------------------------------------------------------
def _recognised(e: Any) -> Any:
    """The logistic function written as ``1 / (1 + exp(-x))`` becomes ``sigmoid(x)``."""
    u = sp.Wild("u")
    e = e.replace(1 / (1 + sp.exp(-u)), sigmoid(u))
    for s in e.atoms(sigmoid):  # exp(-u) = (1 - sigmoid(u)) / sigmoid(u) where sigmoid(u) is
        e = e.subs(sp.exp(-s.args[0]), (1 - s) / s)
    return sp.expand(e) if e.has(sigmoid) else e


def lift(e: Any, env: dict, shape: tuple) -> Any:
    """The scalar formula ``e`` applied element-wise, its symbols standing for the values of
    ``env`` (each broadcast to ``shape``)."""
    if e in env:
        return env[e]
    if e.is_Number:
        return e
    args = [lift(a, env, shape) for a in e.args]
    matrices = [a for a in args if _is_matrix(a)]
    if not matrices:
        return e.func(*args)
    if e.is_Add:
        scalars = sp.Add(*[a for a in args if not _is_matrix(a)])
        total = sp.MatAdd(*matrices).doit(deep=False)
        return total if scalars == 0 else _add(total, scalars * Ones(*_matrix_shape(shape)))
    if e.is_Mul:
        scale = sp.Mul(*[a for a in args if not _is_matrix(a)])
        product = matrices[0]
        for m in matrices[1:]:
            product = _hadamard(product, m)
        return product if scale == 1 else _scale(scale, product)
    if e.is_Pow and not _is_matrix(args[1]):
        return args[0] if args[1] == 1 else sp.HadamardPower(args[0], args[1])
    if isinstance(e, sp.Function) and len(args) == 1:
        return ElementFunction(e.func, args[0])
    raise MatrixFormError(f"the element-wise formula {e}")


class MX:
    """The rule vocabulary on :class:`MV` values (see the module's description)."""

    # -- reductions and shapes -----------------------------------------------------------------
    @staticmethod
    def sum(a: MV, dim: Any = None, keepdim: bool = False) -> MV:
        if a.ndim == 0:
            return a
        rows, cols = _matrix_shape(a.shape)
        dims = tuple(range(a.ndim)) if dim is None else tuple(d % a.ndim for d in dim)
        e = a.expr
        if a.ndim == 1 and isinstance(e, sp.HadamardPower) and e.exp == 2:
            squares = sp.MatMul(sp.Transpose(e.base), e.base)  # v.T*v
            return MV(_as_scalar(squares), (1,) if keepdim else ())
        if a.ndim == 1 or set(dims) == {0, 1}:
            total = Ones(1, rows) * e * Ones(cols, 1)
            total = sp.MatMul(Ones(1, rows), e).doit(deep=False) if cols == 1 else total
            shape = tuple(1 for _ in a.shape) if keepdim else ()
            return MV(total if shape else _as_scalar(total), shape)
        if dims == (0,):  # column sums: a row 1^T A, as a vector A^T 1
            return MV(Ones(1, rows) * e, (1, cols)) if keepdim else MV(e.T * Ones(rows, 1), (cols,))
        if rows_sum_to_one(split_scale(e)[1]):  # a one-hot matrix's rows sum to 1
            return MV(_scale(split_scale(e)[0], Ones(rows, 1)), (rows, 1) if keepdim else (rows,))
        return MV(e * Ones(cols, 1), (rows, 1) if keepdim else (rows,))

    @staticmethod
    def mean(a: MV, dim: Any = None, keepdim: bool = False) -> MV:
        count = int(np.prod(a.shape if dim is None else [a.shape[d] for d in dim]))
        return MX.sum(a, dim, keepdim) / count

    @staticmethod
    def mul_scalar(a: MV, c: float) -> MV:
        return a * c

    @staticmethod
    def div_scalar(a: MV, c: float) -> MV:
        return a / c

    # -- picking each row's class (nll_loss): products with the one-hot matrix ---------------------
    @staticmethod
    def getitem(a: MV, key: Any) -> MV:
        if not isinstance(key, ClassKey) or a.ndim != 2:
            raise MatrixFormError("getitem")
        picked = _hadamard(a.expr, one_hot(key, a.shape[1]))
        return MV(picked * Ones(a.shape[1], 1), (a.shape[0],))

    @staticmethod
    def index_put_zeros(
        shape: tuple, key: Any, g: Any, unique: bool = False, node: Any = None
    ) -> MV:
        if not isinstance(key, ClassKey) or len(shape) != 2:
            raise MatrixFormError("index_put_zeros")
        g = matrix_of(g)
        spread = g.broadcast(tuple(shape)) if g.shape else g.expr
        hot = one_hot(key, shape[1])
        return MV(_hadamard(spread, hot) if g.shape else _scale(spread, hot), tuple(shape))

    @staticmethod
    def sum_to_size(a: MV, shape: tuple) -> MV:
        shape = tuple(shape)
        if a.shape == shape:
            return a
        lead = a.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape) if n == 1 and a.shape[lead + i] != 1
        )
        return MX.reshape(MX.sum(a, axes, True), shape)

    @staticmethod
    def reshape(a: MV, shape: tuple) -> MV:
        shape = tuple(shape)
        if a.shape == shape:
            return a
        real = tuple(n for n in a.shape if n != 1), tuple(n for n in shape if n != 1)
        if real[0] != real[1] or len(real[0]) > 1:
            raise MatrixFormError(f"reshape {list(a.shape)} -> {list(shape)}")
        if not real[0]:  # one element
            s = _as_scalar(a.expr) if a.ndim else a.expr
            return MV(s if not shape else s * Ones(*_matrix_shape(shape)), shape)
        was_row = a.ndim == 2 and a.shape[0] == 1
        is_row = len(shape) == 2 and shape[0] == 1
        return MV(a.expr.T if was_row != is_row else a.expr, shape)

    @staticmethod
    def unsqueeze(a: MV, dim: int) -> MV:
        shape = list(a.shape)
        shape.insert(dim % (a.ndim + 1), 1)
        return MX.reshape(a, tuple(shape))

    @staticmethod
    def squeeze(a: MV, dim: Any) -> MV:
        dims = dim if isinstance(dim, tuple) else (dim,)
        dims = {d % a.ndim for d in dims}
        return MX.reshape(a, tuple(n for i, n in enumerate(a.shape) if i not in dims))

    @staticmethod
    def expand(a: MV, shape: tuple) -> MV:
        return MV(a.broadcast(tuple(shape)), tuple(shape))

    @staticmethod
    def transpose(a: MV, dim0: int = 0, dim1: int = 1) -> MV:
        if a.ndim < 2 or dim0 % a.ndim == dim1 % a.ndim:
            return a
        return MV(a.expr.T, a.shape[::-1])

    @staticmethod
    def permute(a: MV, dims: tuple) -> MV:
        if tuple(d % max(a.ndim, 1) for d in dims) == tuple(range(a.ndim)):
            return a
        return MX.transpose(a)

    @staticmethod
    def matmul(a: MV, b: MV) -> MV:
        x, y = a.expr, b.expr
        if a.ndim == 1 and b.ndim == 1:
            return MV(_as_scalar(_product(x.T, y)), ())
        if a.ndim == 1:  # a vector times a matrix: the row x^T B, as the column B^T x
            return MV(_product(y.T, x), (b.shape[1],))
        if b.ndim == 1:
            return MV(_product(x, y), (a.shape[0],))
        return MV(_product(x, y), (a.shape[0], b.shape[1]))

    @staticmethod
    def det(a: MV) -> MV:
        return MV(sp.Determinant(_square(a, "det")), ())

    @staticmethod
    def inv(a: MV) -> MV:
        return MV(sp.Inverse(_square(a, "inv")), a.shape)

    @staticmethod
    def adjugate(a: MV) -> MV:
        e = _square(a, "adjugate")
        return MV(sp.Determinant(e) * sp.Inverse(e), a.shape)

    @staticmethod
    def solve(a: MV, b: MV) -> MV:
        return MX.matmul(MX.inv(a), b)

    @staticmethod
    def constant(a: Any) -> MV:
        return matrix_of(a)

    # -- element-wise --------------------------------------------------------------------------
    @staticmethod
    def elementwise(prim: Any, args: tuple, params: tuple = ()) -> MV:
        if len(prim.inputs) == 1 and prim.name in _NAMED:
            a = matrix_of(args[0])
            fn = _NAMED[prim.name]
            return MV(ElementFunction(fn, a.expr) if a.shape else fn(a.expr), a.shape)
        return _apply(_recognised(prim.expr), prim.inputs, args, prim.params, params)

    @staticmethod
    def elementwise_vjp(prim: Any, i: int, args: tuple, out: Any, g: Any, params: tuple = ()):
        partial = prim.local_derivatives[i] if out is None else prim.partials[i]
        g_symbol = sp.Symbol("_g")
        symbols = prim.inputs + (prim.out_symbol, g_symbol)
        values = tuple(args) + (0 if out is None else out, g)
        return _apply(g_symbol * _recognised(partial), symbols, values, prim.params, params)

    exp = staticmethod(lambda a: _function(sp.exp, a))
    log = staticmethod(lambda a: _function(sp.log, a))
    sqrt = staticmethod(lambda a: _function(sp.sqrt, a))
    abs = staticmethod(lambda a: _function(sp.Abs, a))
    sign = staticmethod(lambda a: _function(sp.sign, a))
    sgn = sign


def _function(fn: Any, a: MV) -> MV:
    return MV(ElementFunction(fn, a.expr) if a.shape else fn(a.expr), a.shape)


# element-wise primitives shown as the function people know
_NAMED = {"exp": sp.exp, "log": sp.log, "tanh": sp.tanh, "sigmoid": sigmoid, "sin": sp.sin}


def _square(a: MV, word: str) -> Any:
    """The expression of a square matrix (the matrix words have no form for batches)."""
    if a.ndim != 2:
        raise MatrixFormError(f"{word} of a {a.ndim}-d tensor")
    return a.expr


def _as_scalar(e: Any) -> Any:
    """A 1 x 1 matrix expression as the scalar it is."""
    if _is_matrix(e) and e.shape == (1, 1):
        return e[0, 0] if isinstance(e, sp.MatrixBase) else e
    return e


def _apply(expr: Any, symbols: tuple, values: tuple, param_symbols: tuple, params: tuple) -> MV:
    """``expr`` element-wise with ``symbols`` standing for ``values`` (numbers or MVs)."""
    mvs = [matrix_of(v) if not isinstance(v, MV) else v for v in values]
    shape = tuple(np.broadcast_shapes(*(m.shape for m in mvs))) if mvs else ()
    env = {s: (m.broadcast(shape) if m.shape else m.expr) for s, m in zip(symbols, mvs)}
    env.update({p: exact(v) for p, v in zip(param_symbols, params)})
    expr = sp.sympify(expr, strict=True)
    return MV(lift(expr, env, shape) if shape else expr.xreplace(env), shape)


for _word in (
    "cat",
    "cumsum",
    "flip",
    "gather",
    "scatter_zeros",
    "where",
    "masked_fill",
    "eq",
    "count",
    "extremum",
    "prod_others",
    "matrix_exp",
):

    def _unavailable(*args: Any, _w: str = _word, **kwargs: Any) -> Any:
        raise MatrixFormError(_w)

    setattr(MX, _word, staticmethod(_unavailable))
