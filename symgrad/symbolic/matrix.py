"""Closed forms in matrix form: the graph replayed on the matrix interpreter
(:mod:`symgrad.prim.matrix_xp`), forwards for values and backwards for gradients.

Named vectors and matrices become SymPy ``MatrixSymbol`` s of their shapes (a vector is a
column), named scalars plain symbols, unnamed data explicit numbers. A forward operation without
a matrix form (indexing, a maximum, more than two dimensions) is replaced by its per-element
form, an explicit matrix, and named in :attr:`MatrixReplay.fallbacks`; a gradient needs the
matrix form of every operation it passes through and otherwise raises
:class:`~symgrad.prim.matrix_xp.MatrixFormError` naming the operation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from symgrad._symbol_names import name_matrix_symbol, name_symbol
from symgrad._unrecorded import check_read
from symgrad.autograd.node import AccumulateGrad, Node
from symgrad.prim.matrix_xp import (
    MV,
    MX,
    MatrixFormError,
    _matrix_shape,
    matrix_of,
    row_function,
    split_scale,
)
from symgrad.prim.primitive import Ctx
from symgrad.symbolic.names import is_symbolic, leaf_name, with_origins
from symgrad.symbolic.replay import backward_order
from symgrad.tensor import Tensor

__all__ = ["MatrixReplay", "tidy"]


class MatrixReplay:
    """Values and gradients of a graph as SymPy matrix expressions."""

    def __init__(self) -> None:
        self.values: dict[tuple, MV] = {}
        self.fallbacks: list[str] = []  # the operations shown element by element
        self._elements: Any = None  # the per-element replay, made on the first fallback

    # -- forward -------------------------------------------------------------------------------
    def value(self, t: Tensor) -> MV:
        made_by = t.grad_fn if t.grad_fn is not None else t._origin
        if made_by is None or (t.grad_fn is None and is_symbolic(t)):
            return self._leaf(t)
        self.forward(made_by)
        return self.values[(made_by, t._output_nr)]

    def forward(self, root: Node) -> None:
        order = with_origins(list(reversed(backward_order([root]))))
        for node in order:
            if isinstance(node, AccumulateGrad) or (node, 0) in self.values:
                continue
            args = tuple(self.input(node, i) for i in range(len(node._edges)))
            try:
                if node.prim.name in ("softmax", "log_softmax") and isinstance(args[0], MV):
                    (dim,) = node.params["dim"]
                    outs = (row_function(node.prim.name, args[0], dim),)
                else:
                    outs = node.prim.outputs(MX, args, node.params)
            except (MatrixFormError, AttributeError, NotImplementedError, TypeError) as exc:
                outs = self._per_element(node, exc)
            for nr, out in enumerate(outs):
                self.values[(node, nr)] = out if isinstance(out, MV) else matrix_of(out)

    def input(self, node: Node, i: int) -> Any:
        fn, nr = node._edges[i]
        if isinstance(fn, AccumulateGrad):
            return self._leaf(fn._leaf)
        if fn is not None:
            check_read(node, i)
            return self.values[(fn, nr)]
        const = node._consts[i] if i < len(node._consts) else None
        if isinstance(const, Tensor):
            return self.value(const) if const._origin is not None else self._leaf(const)
        if const is None:
            raise ValueError(f"{node.name()} did not keep its input {i}")
        return const

    def _leaf(self, t: Tensor) -> MV:
        if not is_symbolic(t):
            return matrix_of(t._data)
        name, shape = leaf_name(t), tuple(t.shape)
        if not shape:
            return MV(name_symbol(name, real=True), ())
        return MV(name_matrix_symbol(name, *_matrix_shape(shape)), shape)

    def _per_element(self, node: Node, exc: Exception) -> list:
        from symgrad.prim.sympy_xp import to_sympy
        from symgrad.symbolic.replay import Replay

        self.fallbacks.append(f"{node.name()} ({exc})")
        if self._elements is None:
            self._elements = Replay()
        self._elements.forward(node)
        elements = self._element_symbols()
        outs = []
        for nr in range(node.num_outputs):
            arr = np.vectorize(lambda e: sp.sympify(e).xreplace(elements), otypes=[object])(
                self._elements.values[(node, nr)]
            )
            if arr.ndim > 2:
                raise MatrixFormError(f"{node.name()}: a result of {arr.ndim} dimensions")
            column = arr.reshape(-1, 1) if arr.ndim == 1 else arr
            outs.append(MV(to_sympy(column) if arr.ndim else arr[()], arr.shape))
        return outs

    def _element_symbols(self) -> dict:
        """The per-element symbols of the leaves met (``x[1]``) as entries of their matrix
        symbols (``x[1, 0]``), so that both forms speak of the same matrices."""
        from symgrad.symbolic.names import symbol_array_of

        out = {}
        for t in self._elements.leaves.values():
            whole = self._leaf(t)
            if not whole.shape:
                continue
            symbols = symbol_array_of(t)
            rows, cols = _matrix_shape(whole.shape)
            for index, s in np.ndenumerate(symbols.reshape(rows, cols)):
                out[s] = whole.expr[index]
        return out

    # -- backward ------------------------------------------------------------------------------
    def gradients(self, y: Tensor, xs: list[Tensor]) -> list:
        """The gradient of the one-element ``y`` with respect to each of ``xs``."""
        if y.grad_fn is None:
            raise MatrixFormError("y was not computed from tensors that require grad")
        self.forward(y.grad_fn)
        targets = {id(x): k for k, x in enumerate(xs)}
        result: list = [None] * len(xs)
        adjoint: dict = {(y.grad_fn, y._output_nr): MV(sp.Integer(1), ())}
        for node in backward_order([y.grad_fn]):
            for nr in range(node.num_outputs):
                g = adjoint.pop((node, nr), None)
                if g is None:
                    continue
                if isinstance(node, AccumulateGrad):
                    k = targets.get(id(node._leaf))
                    if k is not None:
                        result[k] = g
                    continue
                self._backward(node, nr, g, adjoint)
        return result

    def _backward(self, node: Node, nr: int, g: MV, adjoint: dict) -> None:
        args = [self.input(node, i) for i in range(len(node._edges))]
        needs = [fn is not None for fn, _ in node._edges]
        shapes = [m[0] if m is not None else None for m in node._meta]
        out = self.values.get((node, nr))
        ctx = Ctx(args, out, shapes, needs, node.params, nr)
        try:
            if node.prim.name in ("softmax", "log_softmax"):
                (dim,) = node.params["dim"]
                grads = _row_function_vjp(node.prim.name, args[0], g, dim)
            else:
                grads = node.prim.vjp(MX, g, ctx)
        except (MatrixFormError, AttributeError, NotImplementedError, TypeError) as exc:
            raise MatrixFormError(
                f"the gradient through {node.name()} has no matrix form here ({exc}); use "
                "form='elements'"
            ) from None
        for (fn, fnr), gi, shape in zip(node._edges, grads, shapes):
            if fn is None or gi is None:
                continue
            gi = gi if isinstance(gi, MV) else matrix_of(gi)
            if shape is not None and gi.shape != tuple(shape):  # a broadcast input: summed
                gi = MX.sum_to_size(gi, tuple(shape))
            key = (fn, fnr)
            adjoint[key] = gi if key not in adjoint else adjoint[key] + gi


def _row_function_vjp(name: str, z: MV, g: MV, dim: int) -> tuple:
    """softmax's and log_softmax's VJPs along rows: with s = softmax(z),
    ``s * (g - rowsum(g * s))`` and ``g - s * rowsum(g)``; along a matrix's columns, the
    same of the transposes, transposed back."""
    if z.ndim == 2 and dim % 2 == 0:
        row_function(name, z, dim)  # refuses a dimension of one element
        (gt,) = _row_function_vjp(name, _transposed(z), _transposed(g), 1)
        return (_transposed(gt),)
    s = row_function("softmax", z, dim)
    rows = MX.sum(g * s if name == "softmax" else g, (-1,), True)
    return ((s * (g - rows)) if name == "softmax" else (g - s * rows),)


def _transposed(v: MV) -> MV:
    """A matrix value's transpose (broadcast to its full shape first)."""
    return MV(sp.Transpose(v.broadcast(v.shape)).doit(deep=False), v.shape[::-1])


def tidy(e: Any) -> Any:
    """Matrix expressions as people write them: a scalar common to every term of a sum taken
    out (``(1/3)*(s - y)``) and put in front of a product, and a factor that ends every
    product of a sum taken out (``A.T*x + A*x`` becomes ``(A + A.T)*x``)."""
    if isinstance(e, sp.MatMul):
        args = [tidy(a) if _is_matrix_expr(a) else a for a in e.args]
        flat = [b for a in args for b in (a.args if isinstance(a, sp.MatMul) else (a,))]
        scale = sp.Mul(*[a for a in flat if not _is_matrix_expr(a)])
        matrices = [a for a in flat if _is_matrix_expr(a)]
        return sp.MatMul(*([scale] if scale != 1 else []), *matrices)
    if isinstance(e, sp.MatAdd):
        parts = [split_scale(t) for t in e.args]
        scale = abs(parts[0][0])
        if scale not in (0, 1) and all(abs(c) == scale for c, _ in parts):
            inner = sp.MatAdd(*[m if c == scale else -m for c, m in parts]).doit(deep=False)
            return sp.MatMul(scale, tidy(inner))
        e = sp.MatAdd(*[tidy(a) for a in e.args])
        terms = [t if isinstance(t, sp.MatMul) else sp.MatMul(t) for t in e.args]
        last = {t.args[-1] for t in terms}
        if len(last) == 1 and all(len(t.args) > 1 for t in terms):
            (factor,) = last
            lefts = [sp.MatMul(*t.args[:-1]).doit(deep=False) for t in terms]
            if all(_is_matrix_expr(left) for left in lefts):  # not c*x + A*x: no c + A
                return sp.MatMul(sp.MatAdd(*lefts).doit(deep=False), factor)
    return e


def _is_matrix_expr(e: Any) -> bool:
    return isinstance(e, (sp.MatrixExpr, sp.MatrixBase))


def as_result(v: MV) -> Any:
    """The SymPy expression of a value, a tidy matrix form for a vector or matrix."""
    e = v.expr
    if isinstance(e, np.ndarray):
        e = e[()]
    return tidy(e) if isinstance(e, (sp.MatrixExpr, sp.MatrixBase)) else sp.sympify(e, strict=True)
