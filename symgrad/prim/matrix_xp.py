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
from symgrad.prim.matrix_functions import ElementFunction, Ones, RowLogSoftmax, RowSoftmax
from symgrad.prim.special import sigmoid

__all__ = ["MX", "MV", "MatrixFormError", "ElementFunction", "matrix_of", "split_scale"]


class MatrixFormError(NotImplementedError):
    """An operation that has no matrix form here (the per-element form is used for it).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import MatrixFormError, gradient
    >>> x = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    >>> try:
    ...     gradient(x[1:].sum(), x, form="matrix")
    ... except MatrixFormError as e:
    ...     print("SliceBackward0" in str(e))
    True
    """


def row_function(name: str, a: MV, dim: int) -> MV:
    """``softmax`` or ``log_softmax`` of a vector, or of a matrix along its rows."""
    along_rows = (a.ndim == 2 and dim % 2 == 1) or (a.ndim == 1 and dim % 1 == 0)
    if not along_rows:
        raise MatrixFormError(f"{name} along dim {dim} of {list(a.shape)}")
    cls = RowSoftmax if name == "softmax" else RowLogSoftmax
    return MV(cls(a.expr), a.shape)


def _matrix_shape(shape: tuple) -> tuple:
    """The matrix that stands for a tensor of ``shape``: a column for a vector."""
    if len(shape) == 1:
        return (shape[0], 1)
    if len(shape) == 2:
        return tuple(shape)
    raise MatrixFormError(f"a tensor of {len(shape)} dimensions {list(shape)}")


def _is_matrix(e: Any) -> bool:
    return isinstance(e, sp.MatrixExpr) or isinstance(e, sp.MatrixBase)


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


def _scalar_op(op: str, x: Any, y: Any) -> Any:
    return {"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y}.get(
        op, lambda: x / y
    )()


def _full(e: Any, shape: tuple) -> Any:
    return e if _is_matrix(e) else e * Ones(*_matrix_shape(shape))


def _add(x: Any, y: Any) -> Any:
    return sp.MatAdd(x, y).doit(deep=False)


def _scale(x: Any, y: Any) -> Any:
    """A scalar times a matrix, either way round (not distributed over a sum)."""
    s, m = (y, x) if _is_matrix(x) else (x, y)
    if s == 1:
        return m
    if isinstance(m, sp.MatMul):
        return sp.MatMul(s, *m.args)
    return sp.MatMul(s, m)


def _product(x: Any, y: Any) -> Any:
    """The matrix product, its scalar factors in front, not distributed over sums."""
    args = [a for f in (x, y) for a in (f.args if isinstance(f, sp.MatMul) else (f,))]
    if len(args) > 1:  # a 1 x 1 identity or matrix of one 1 changes nothing in a product
        args = [
            a
            for a in args
            if not (isinstance(a, (sp.OneMatrix, sp.Identity)) and a.shape == (1, 1))
        ]
    scalars = [a for a in args if not _is_matrix(a)]
    matrices = [a for a in args if _is_matrix(a)]
    scale = sp.Mul(*scalars)
    return sp.MatMul(*([scale] if scale != 1 else []), *matrices)


def _ones_scale(f: Any) -> Any:
    """``c`` when ``f`` is ``c`` times a matrix of ones, else None."""
    if isinstance(f, sp.OneMatrix):
        return sp.Integer(1)
    if isinstance(f, sp.MatMul) and len(f.args) == 2 and isinstance(f.args[1], sp.OneMatrix):
        return f.args[0] if not _is_matrix(f.args[0]) else None
    return None


def _hadamard(x: Any, y: Any) -> Any:
    # a matrix of ones (times c) is the identity of the Hadamard product (times c)
    for ones, other in ((x, y), (y, x)):
        c = _ones_scale(ones)
        if c is not None:
            return _scale(c, other)
    (cx, x), (cy, y) = split_scale(x), split_scale(y)
    return _scale(cx * cy, sp.HadamardProduct(x, y))


def split_scale(e: Any) -> tuple:
    """``(c, M)`` with ``e = c * M`` and ``c`` the scalar factors of the product ``e``."""
    if isinstance(e, sp.MatMul):
        scalars = [a for a in e.args if not _is_matrix(a)]
        if scalars:
            matrices = [a for a in e.args if _is_matrix(a)]
            rest = matrices[0] if len(matrices) == 1 else sp.MatMul(*matrices)
            return sp.Mul(*scalars), rest
    return sp.Integer(1), e


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
        return MV(e * Ones(cols, 1), (rows, 1) if keepdim else (rows,))

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


def _function(fn: Any, a: MV) -> MV:
    return MV(ElementFunction(fn, a.expr) if a.shape else fn(a.expr), a.shape)


# element-wise primitives shown as the function people know
_NAMED = {"exp": sp.exp, "log": sp.log, "tanh": sp.tanh, "sigmoid": sigmoid, "sin": sp.sin}


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
    "flip",
    "getitem",
    "index_put_zeros",
    "gather",
    "scatter_zeros",
    "where",
    "eq",
    "count",
    "extremum",
    "prod_others",
):

    def _unavailable(*args: Any, _w: str = _word, **kwargs: Any) -> Any:
        raise MatrixFormError(_w)

    setattr(MX, _word, staticmethod(_unavailable))
