"""``torch.linalg`` functions PyTorch builds from other ops, built here the same way so that
their graphs, nodes and gradients are PyTorch's: ``vander`` (a cumulative product),
``vecdot`` (``vdot`` or a product summed), ``cond`` (singular values, or the norms of the
matrix and its inverse), ``tensorinv`` and ``tensorsolve`` (a reshaped ``inv``, ``solve``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._arguments import require_int
from symgrad.ops.determinants import _INV, floating_input, solve
from symgrad.prim import lu_kernels
from symgrad.tensor import Tensor

__all__: list = []


def _tensor(op: str, name: str, position: int, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )


# -- vander ---------------------------------------------------------------------------------------
def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of ``x``: column ``j`` holds ``x ** j``, for ``j < N``
    (``N`` defaults to the length of ``x``), along a new last dimension.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.vander(symgrad.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [1, 2, 4],
            [1, 3, 9]])
    """
    _tensor("linalg_vander", "x", 1, x)
    if N is not None:
        require_int("linalg_vander", "N", N)
    kind = x._data.dtype
    if kind == np.bool_ or kind == np.float16:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{x.dtype.scalar_type}"
        )
    if x.ndim == 0:
        x = x.unsqueeze(-1)
    n = x.shape[-1] if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    from symgrad.ops.scans import cumprod

    powers = cumprod(x.unsqueeze(-1).expand(*x.shape, n - 1), -1)
    ones = powers.new_ones(tuple(x.shape) + (1,))
    from symgrad.ops.joining import cat

    return cat([ones, powers], -1)


# -- vecdot ---------------------------------------------------------------------------------------
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot products of the vectors of ``x`` and ``y`` along ``dim`` (the first one
    conjugated), other dimensions broadcast.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.vecdot(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), symgrad.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """
    _tensor("linalg_vecdot", "x", 1, x)
    _tensor("linalg_vecdot", "y", 2, y)
    require_int("linalg_vecdot", "dim", dim)
    for t in (x, y):
        if t._data.dtype.kind not in "fc":
            raise RuntimeError(
                "linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                f"{t.dtype.scalar_type}"
            )
    if x.dtype is not y.dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{x.dtype.scalar_type} and y of type {y.dtype.scalar_type} instead"
        )
    if x.ndim == 1 and y.ndim == 1:  # PyTorch takes vdot here, whatever dim says
        from symgrad.ops.linalg import vdot

        return vdot(x, y)
    return (x * y).sum(dim)


# -- cond -----------------------------------------------------------------------------------------
_NUMBERS = (2, -2, 1, -1, math.inf, -math.inf)


def _order_text(p: Any) -> str:
    """How PyTorch's message prints the order: an integer plainly, a float as C's
    ``to_string`` (six decimals; inf)."""
    if isinstance(p, str) or isinstance(p, (int, np.integer)):
        return str(p)
    if math.isinf(p):
        return "inf" if p > 0 else "-inf"
    return f"{p:.6f}"


def cond(A: Tensor, p: Any = None) -> Tensor:
    """The condition number of each matrix of ``A`` for the norm ``p``: the ratio of its
    largest to smallest singular value for ``None`` and 2 (smallest to largest for -2, any
    shape), else ``norm(A, p) * norm(A^-1, p)`` for square ``A`` and ``p`` one of 'fro',
    'nuc', 1, -1, inf, -inf (infinite for a singular matrix). As in PyTorch, the inverse
    is filled in place for 'fro', 1 and inf, so a backward through those raises.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.cond(symgrad.tensor([[2.0, 0.0], [0.0, 0.5]]))
    tensor(4.)
    >>> symgrad.linalg.cond(symgrad.tensor([[2.0, 0.0], [0.0, 0.5]]), 1)
    tensor(4.)
    """
    _tensor("linalg_cond", "input", 1, A)
    if isinstance(p, str):
        _square(A, p)
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    else:
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        if p is not None and (isinstance(p, bool) or p not in _NUMBERS):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.numel() == 0:
        real = np.empty(0, A._data.dtype).real.dtype
        return Tensor._make(np.zeros(A.shape[:-2], real))
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        return _singular_value_ratio(A, p == -2)
    if not isinstance(p, str):
        _square(A, p)
    return _norm_ratio(A, p)


def _square(A: Tensor, p: Any) -> None:
    op = f"linalg.cond(ord={_order_text(p)})"
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )


def _singular_value_ratio(A: Tensor, inverted: bool) -> Tensor:
    from symgrad.ops.decompositions import svdvals
    from symgrad.ops.joining import narrow

    s = svdvals(A)
    largest, smallest = narrow(s, -1, 0, 1), narrow(s, -1, -1, 1)
    ratio = smallest / largest if inverted else largest / smallest
    return ratio.squeeze(-1)


def _norm_ratio(A: Tensor, p: Any) -> Tensor:
    from symgrad.ops.linalg_norms import matrix_norm

    if p == "nuc":  # from the singular values: inf for a singular matrix, as PyTorch's
        from symgrad.ops.decompositions import svdvals

        s = svdvals(A)
        return s.sum(-1) * s.reciprocal().sum(-1)
    inverse = _inverse_or_inf(A)
    out = matrix_norm(A, p) * matrix_norm(inverse, p)
    return out.nan_to_num_(math.inf, math.inf, -math.inf)  # 0 * inf is inf, as NumPy's


def _inverse_or_inf(A: Tensor) -> Tensor:
    """``linalg.inv_ex(A)`` with the inverse of a singular matrix (an exact zero pivot)
    filled with inf in place, as PyTorch's ``cond`` does: the fill changes the inverse that
    its node saved, so (as in PyTorch) a backward through it raises."""
    floating_input("linalg.inv", A)
    singular = lu_kernels.lu_factor(A._data)[2] > 0
    mask = Tensor._make(singular[..., None, None])
    if singular.any():
        from symgrad.ops.math import where

        A = where(mask, Tensor._make(np.eye(A.shape[-1], dtype=A._data.dtype)), A)
    return _INV(A).masked_fill_(mask, math.inf)


# -- tensorinv and tensorsolve --------------------------------------------------------------------
def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` for ``tensordot`` over ``ind`` dimensions: ``A`` read as a
    matrix of ``prod(A.shape[:ind])`` rows, inverted, and shaped
    ``A.shape[ind:] + A.shape[:ind]``.

    Examples
    --------
    >>> import symgrad
    >>> A = symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]).reshape(2, 1, 2)
    >>> symgrad.linalg.tensorinv(A, ind=1).reshape(2, 2)
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    _tensor("linalg_tensorinv", "input", 1, A)
    require_int("linalg_tensorinv", "ind", ind)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > A.ndim:
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {A.ndim}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {math.prod(cols)} != {math.prod(rows)}"
        )
    n = math.prod(cols)
    floating_input("linalg.inv", A)
    matrix = A.reshape(n, n)
    singular = lu_kernels.lu_factor(matrix._data)[2]
    if singular > 0:
        from symgrad.prim.linalg_kernels import LinAlgError

        raise LinAlgError(
            f"inv: The diagonal element {int(singular)} is zero, the inversion could not be "
            "completed because the input matrix is singular."
        )
    inverse = _INV(matrix)
    # LAPACK's inverse is column-major, so PyTorch's reshape of it is a strided view
    inverse._data = np.asfortranarray(inverse._data)
    return inverse.reshape(cols + rows)


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None) -> Tensor:
    """The ``X`` with ``tensordot(A, X, X.ndim) = B``: ``A`` (its dimensions ``dims`` moved
    last first) read as a square matrix of ``B.numel()`` rows, solved against ``B``
    flattened, and shaped ``A.shape[B.ndim:]``.

    Examples
    --------
    >>> import symgrad
    >>> A = symgrad.eye(4).reshape(2, 2, 4) * 2
    >>> symgrad.linalg.tensorsolve(A, symgrad.ones(2, 2))
    tensor([0.5000, 0.5000, 0.5000, 0.5000])
    """
    _tensor("linalg_tensorsolve", "input", 1, A)
    _tensor("linalg_tensorsolve", "other", 2, B)
    if dims is not None:
        moved = [dims] if isinstance(dims, int) else list(dims)
        A = A.movedim(moved, list(range(A.ndim - len(moved), A.ndim)))
    shape = tuple(A.shape[B.ndim :])
    size, count = math.prod(shape), B.numel()
    if size != count:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {size} != {count}"
        )
    return solve(A.reshape(size, size), B.flatten()).reshape(shape)
