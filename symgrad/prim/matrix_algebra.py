"""The algebra of matrix expressions the matrix interpreter builds with: sums, scalings,
products and Hadamard products that keep scalar factors in front and treat matrices of ones as
the identities they are."""

from __future__ import annotations

from typing import Any

import sympy as sp

from symgrad.prim.matrix_functions import Ones

__all__ = ["MatrixFormError", "split_scale"]


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


def _matrix_shape(shape: tuple) -> tuple:
    """The matrix that stands for a tensor of ``shape``: a column for a vector."""
    if len(shape) == 1:
        return (shape[0], 1)
    if len(shape) == 2:
        return tuple(shape)
    raise MatrixFormError(f"a tensor of {len(shape)} dimensions {list(shape)}")


def _is_matrix(e: Any) -> bool:
    return isinstance(e, sp.MatrixExpr) or isinstance(e, sp.MatrixBase)


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
