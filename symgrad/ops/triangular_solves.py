"""Solves with triangular matrices: ``linalg.solve_triangular`` and the older
``triangular_solve`` (which also returns a copy of the matrix), with PyTorch's errors and
gradients (the solves with a Cholesky factor are in ``cholesky_solves``).

Each forward reads only the triangle it is told to (the other one may hold anything) and is
written with the matrix word ``solve`` of the triangle, so the closed forms of small matrices
come for free; on NumPy the kernels substitute row by row, as LAPACK's ``trsm`` does, so a zero
on the diagonal gives inf and nan rather than an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_bool
from symgrad.ops.determinants import array_dtype, return_type
from symgrad.ops.index_keys import warn_at_user
from symgrad.ops.triangular import tril, triu
from symgrad.prim import lu_kernels
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.factorization import Factorization
from symgrad.prim.numpy_xp import NP
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor, bind_methods

__all__ = ["triangular_solve"]


def _mT(xp: Any, a: Any) -> Any:
    return xp.transpose(a, -1, -2)


def _band(xp: Any, a: Any, shape: tuple, dtype: Any, k: int, lower: bool) -> Any:
    """``tril(a, k)`` (``triu`` when not ``lower``) of a batch of ``shape[-2:]`` matrices."""
    ones = np.ones(shape[-2:], dtype)
    return a * xp.constant(np.tril(ones, k) if lower else np.triu(ones, k))


def _right_solve(xp: Any, b: Any, m: Any) -> Any:
    """``B M^-1``."""
    return _mT(xp, xp.solve(_mT(xp, m), _mT(xp, b)))


def _swap(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _triangle(xp: Any, a: Any, upper: bool, unit: bool) -> Any:
    """The triangle of ``a`` a solve reads, with ones on the diagonal when ``unit``."""
    n, dtype = a.shape[-1], array_dtype(a)
    shift = (1 if upper else -1) if unit else 0
    t = _band(xp, a, (n, n), dtype, shift, not upper)
    return t + xp.constant(np.eye(n, dtype=dtype)) if unit else t


def _substitute(a: np.ndarray, b: np.ndarray, upper: bool, left: bool, unit: bool) -> np.ndarray:
    """``T^-1 B`` (``B T^-1`` when not ``left``) with ``T`` a triangle of ``a``."""
    if left:
        return lu_kernels.triangular_solve(a, b, lower=not upper, unit=unit)
    x = lu_kernels.triangular_solve(_swap(a), _swap(b), lower=upper, unit=unit)
    return _swap(x)


def _batch(a: Tensor, b: Tensor) -> tuple:
    """The broadcast batch of two stacks of matrices, with PyTorch's message."""
    x, y = tuple(a.shape[:-2]), tuple(b.shape[:-2])
    for i in range(1, min(len(x), len(y)) + 1):
        if x[-i] != y[-i] and 1 not in (x[-i], y[-i]):
            raise RuntimeError(
                f"The size of tensor a ({x[-i]}) must match the size of tensor b ({y[-i]}) at "
                f"non-singleton dimension {max(len(x), len(y)) - i}"
            )
    return np.broadcast_shapes(x, y)


def _floating(kernel: str, *tensors: Tensor) -> None:
    """PyTorch's error for integer, boolean and half inputs (its CPU kernels take float32,
    float64 and complex)."""
    for t in tensors:
        if t._data.dtype.kind not in "fc" or t._data.dtype == np.float16:
            raise NotImplementedError(
                f"\"{kernel}\" not implemented for '{t.dtype.scalar_type}'\n"
                "(use float32 or float64)"
            )


# -- linalg.solve_triangular ----------------------------------------------------------------------
def _solve_forward(xp: Any, a: Any, b: Any, upper: bool, left: bool, unit: bool) -> Any:
    t = _triangle(xp, a, upper, unit)
    return xp.solve(t, b) if left else _right_solve(xp, b, t)


def _solve_kernel(xp: Any, a: Any, b: Any, upper: bool, left: bool, unit: bool) -> Any:
    return _substitute(a, b, upper, left, unit)


def _solve_vjp(xp: Any, g: Any, c: Any) -> tuple:
    a, x, (upper, left, unit) = c.inputs[0], c.out, _flags(c.params)
    t_t = _mT(xp, _triangle(xp, a, upper, unit))
    gb = substitute(xp, t_t, g, upper=not upper, left=left)
    ga = None
    if c.needs[0]:
        ga = -xp.matmul(gb, _mT(xp, x)) if left else -xp.matmul(_mT(xp, x), gb)
        ga = _triangle_of(xp, ga, upper, unit)
    return ga, gb if c.needs[1] else None


def _triangle_of(xp: Any, g: Any, upper: bool, unit: bool) -> Any:
    """A gradient kept on the entries the solve read (not the unit diagonal)."""
    n, dtype = g.shape[-1], array_dtype(g)
    shift = (1 if upper else -1) if unit else 0
    if xp is INTERPRETERS.tensor and type(g) is not BatchedTensor:
        # (create_graph: PyTorch's formula ends with G.triu(unit) or G.tril(-unit))
        return triu(g, shift) if upper else tril(g, shift)
    return _band(xp, g, (n, n), dtype, shift, not upper)


def _solve_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    a, x, (upper, left, unit) = c.inputs[0], c.out, _flags(c.params)
    ta, tb = tangents
    t = _triangle(xp, a, upper, unit)
    rhs = 0 if tb is None else tb
    if ta is not None:
        ta = _triangle_of(xp, ta, upper, unit)
        rhs = rhs - (xp.matmul(ta, x) if left else xp.matmul(x, ta))
    return xp.solve(t, rhs) if left else _right_solve(xp, rhs, t)


def _flags(params: dict) -> tuple:
    return params["upper"], params["left"], params["unit"]


_SOLVE_TRIANGULAR = Structural(
    "solve_triangular",
    _solve_forward,
    _solve_vjp,
    saves=(0,),
    saves_out=True,
    backward="LinalgSolveTriangularBackward0",
    kernel=_solve_kernel,
    jvp=_solve_jvp,
)


def substitute(xp: Any, t: Any, b: Any, *, upper: bool, left: bool = True) -> Any:
    """``T^-1 B`` (``B T^-1`` when not ``left``) for triangular ``T``, as PyTorch's backward
    formulas solve: by substitution on NumPy and with ``solve_triangular`` on tensors, so a
    singular ``T`` gives inf and nan, never an error (``xp.solve`` for closed forms)."""
    if xp is NP:
        return _substitute(t, b, upper, left, False)
    if xp is INTERPRETERS.tensor:
        return _SOLVE_TRIANGULAR(t, b, upper=upper, left=left, unit=False)
    return xp.solve(t, b) if left else _right_solve(xp, b, t)


def solve_triangular(
    A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False
) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``X A = B`` when not ``left``) for triangular ``A``:
    only its upper (``upper``) or lower triangle is read, and its diagonal is taken as ones
    when ``unitriangular``; batch dimensions broadcast.

    Examples
    --------
    >>> import symgrad
    >>> A = symgrad.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> symgrad.linalg.solve_triangular(A, symgrad.tensor([[3.0], [4.0]]), upper=True)
    tensor([[1.],
            [1.]])
    """
    op = "linalg_solve_triangular"
    for name, value in (("input", A), ("B", B)):
        if not isinstance(value, Tensor):
            position = " (position 1)" if name == "input" else " (position 2)"
            raise TypeError(f"{op}(): argument '{name}'{position} must be Tensor, not "
                            f"{type(value).__name__}")  # fmt: skip
    for name, flag in (("upper", upper), ("left", left), ("unitriangular", unitriangular)):
        require_bool(op, name, flag)
    _two_dims("linalg.solve_triangular", A, B)
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            "linalg.solve_triangular: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    _batch(A, B)
    _floating("triangular_solve_cpu", A)
    if B.dtype is not A.dtype:  # PyTorch solves in A's dtype, whatever B's
        B = B.to(A.dtype)
    flags = {"upper": bool(upper), "left": bool(left), "unit": bool(unitriangular)}
    return _SOLVE_TRIANGULAR(A, B, **flags)


def _two_dims(op: str, A: Tensor, B: Tensor) -> None:
    for name, t in (("A", A), ("B", B)):
        if t.ndim < 2:
            raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )


# -- triangular_solve (PyTorch's older name) ------------------------------------------------------
def _ts_kernel(b: np.ndarray, a: np.ndarray, upper: bool, transpose: bool, unit: bool) -> tuple:
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if transpose:  # A^T X = B: the other triangle of A^T
        x = lu_kernels.triangular_solve(_swap(a), b, lower=upper, unit=unit)
    else:
        x = lu_kernels.triangular_solve(a, b, lower=not upper, unit=unit)
    return x, np.array(np.broadcast_to(a, batch + a.shape[-2:]))


def _ts_forward(xp: Any, b: Any, a: Any, upper: bool, transpose: bool, unit: bool) -> tuple:
    t = _triangle(xp, a, upper, unit)
    x = xp.solve(_mT(xp, t) if transpose else t, b)
    return x, a + xp.constant(np.zeros(x.shape[:-2] + a.shape[-2:], array_dtype(a)))


def _ts_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    (gx, gm), (x, _) = grads, c.out
    b, a = c.inputs
    upper, transpose, unit = c.params["upper"], c.params["transpose"], c.params["unit"]
    gb = ga = None
    if gx is not None:
        t = _triangle(xp, a, upper, unit)
        t_op, t_upper = (t, upper) if transpose else (_mT(xp, t), not upper)
        gb = substitute(xp, t_op, gx, upper=t_upper)
        if c.needs[1]:
            ga = -xp.matmul(x, _mT(xp, gb)) if transpose else -xp.matmul(gb, _mT(xp, x))
            ga = _triangle_of(xp, ga, upper, unit)
    if gm is not None and c.needs[1]:
        ga = gm if ga is None else ga + gm
    return gb if c.needs[0] else None, ga


_TRIANGULAR_SOLVE = Factorization(
    "triangular_solve",
    _ts_kernel,
    _ts_vjp,
    backward="TriangularSolveBackward0",
    n_outputs=2,
    forward=_ts_forward,
    saves_outputs=(0,),  # the solution, not the coefficient's copy
)
_WARNED = {"triangular_solve": False}


def triangular_solve(
    input: Tensor,
    A: Tensor,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
) -> Any:
    """PyTorch's older ``torch.triangular_solve``: ``(solution, cloned_coefficient)``, the
    solution ``X`` of ``A X = b`` (``A^T X = b`` when ``transpose``) for triangular ``A``
    (upper by default) and a copy of ``A`` broadcast to the batch; prefer
    :func:`symgrad.linalg.solve_triangular`. Warns once per process, as PyTorch does.

    Examples
    --------
    >>> import warnings, symgrad
    >>> warnings.simplefilter("ignore")
    >>> A = symgrad.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> symgrad.triangular_solve(symgrad.tensor([[3.0], [4.0]]), A).solution
    tensor([[1.],
            [1.]])
    """
    b = input
    op = "triangular_solve"
    for name, position, value in (("input", 1, b), ("A", 2, A)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")  # fmt: skip
    for name, flag in (
        ("upper", upper),
        ("transpose", transpose),
        ("unitriangular", unitriangular),
    ):
        require_bool(op, name, flag)
    _warn_once()
    if b.ndim < 2:
        raise RuntimeError(
            f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
            f"{b.ndim} dimensions instead"
        )
    _square_coefficient(op, A)
    _same_dtype(b, A)
    _floating("triangular_solve_cpu", A)
    _batch(A, b)
    flags = {"upper": bool(upper), "transpose": bool(transpose), "unit": bool(unitriangular)}
    x, m = _TRIANGULAR_SOLVE(b, A, **flags)
    return return_type("triangular_solve", ("solution", "cloned_coefficient"))(x, m)


def _warn_once() -> None:
    if not _WARNED["triangular_solve"]:
        _WARNED["triangular_solve"] = True
        warn_at_user(
            "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular and "
            "will be removed in a future PyTorch release: torch.linalg.solve_triangular takes "
            "its arguments the other way round (X = torch.linalg.solve_triangular(A, B) for "
            "X = torch.triangular_solve(B, A).solution) and returns no copy of A."
        )


def _square_coefficient(op: str, A: Tensor) -> None:
    if A.ndim < 2:
        raise RuntimeError(
            f"torch.{op}: Expected A to have at least 2 dimensions, but it has {A.ndim} "
            "dimensions instead"
        )
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )


def _same_dtype(b: Tensor, A: Tensor) -> None:
    if b.dtype is not A.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{b.dtype.scalar_type} and A of type {A.dtype.scalar_type} instead."
        )


def _matching_rows(op: str, b: Tensor, A: Tensor) -> None:
    if b.shape[-2] != A.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {op}: each A matrix is {A.shape[-1]} by "
            f"{A.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}"
        )


bind_methods({"triangular_solve": triangular_solve})
