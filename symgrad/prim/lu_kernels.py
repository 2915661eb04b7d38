"""NumPy kernels of the LU factorization with partial pivoting (LAPACK's ``getrf``), vectorised
over a batch: the factors packed in one matrix, LAPACK's 1-based ``int32`` pivots, the
permutation they encode, and triangular solves.

NumPy has no LU of its own, so the factorization is the textbook right-looking elimination:
one step per column, each over the whole batch at once. The pivot of a column is its first
entry of largest magnitude (LAPACK's ``idamax``); a column without a nonzero pivot is left
unscaled and its position is reported in ``info``, as LAPACK does. Matrices of up to 16 rows
and columns are factored in the steps of the LAPACK PyTorch calls (MKL's), so their factors
are PyTorch's to the bit: a column scaled by the pivot's reciprocal (by the pivot itself for
the last division of a square matrix of up to 4 rows), the trailing matrix updated with fused
multiply-adds. (So ``[[1, 2], [3, 6]]`` has a last pivot of 1.1e-16, not 0, as in PyTorch.)
"""

from __future__ import annotations

import numpy as np

from symgrad.prim.fused import fused_multiply_add

__all__ = [
    "lu_factor",
    "permutation",
    "permutation_matrix",
    "permute_rows",
    "unpack",
    "lu_solve",
    "triangular_solve",
]


def lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(LU, pivots, info)`` of a batch of ``m x n`` matrices: ``L`` (unit diagonal, not
    stored) below the diagonal of ``LU``, ``U`` on and above it, the rows exchanged at each
    step in ``pivots`` (1-based) and the first zero pivot (1-based, 0 for none) in ``info``."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    lu = np.array(a, copy=True).reshape((int(np.prod(batch)), m, n))
    pivots = np.zeros((lu.shape[0], k), np.int32)
    info = np.zeros(lu.shape[0], np.int32)
    rows = np.arange(lu.shape[0])
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
            pivots[:, j] = p + 1
            swap = p != j
            if swap.any():
                top = lu[rows[swap], j].copy()
                lu[rows[swap], j] = lu[rows[swap], p[swap]]
                lu[rows[swap], p[swap]] = top
            pivot = lu[:, j, j]
            zero = pivot == 0
            info[zero & (info == 0)] = j + 1
            if j + 1 < m and max(m, n) <= _AS_LAPACK:
                _step_as_lapack(lu, j, m == n <= 4 and j == n - 2)
            elif j + 1 < m:
                scale = np.where(zero, 1, pivot)
                lu[:, j + 1 :, j] /= scale[:, None]
                lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 :]
    return lu.reshape(a.shape), pivots.reshape(batch + (k,)), info.reshape(batch)


# the largest size whose factors are checked to be PyTorch's bit for bit
_AS_LAPACK = 16


def _step_as_lapack(lu: np.ndarray, j: int, divide: bool) -> None:
    """Elimination step ``j`` of the batch ``lu`` as LAPACK's unblocked ``getf2``: the column
    below the pivot scaled by the pivot's reciprocal (unless ``divide``, or the pivot is too
    small for its reciprocal to be finite), then the rank-one update rounded once."""
    pivot = lu[:, j, j, None]
    column = lu[:, j + 1 :, j]
    divided = column / np.where(pivot == 0, 1, pivot)
    if divide:
        lu[:, j + 1 :, j] = divided
    else:
        tiny = np.abs(pivot) < np.finfo(lu.dtype).tiny
        lu[:, j + 1 :, j] = np.where(tiny, divided, column * (1 / pivot))
    lu[:, j + 1 :, j + 1 :] = fused_multiply_add(
        -lu[:, j + 1 :, j, None], lu[:, j, None, j + 1 :], lu[:, j + 1 :, j + 1 :]
    )


def permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """The row order ``perm`` the pivots encode: row ``i`` of ``L U`` is row ``perm[i]`` of
    ``A``."""
    count = int(np.prod(pivots.shape[:-1]))
    flat = np.asarray(pivots, np.int64).reshape((count, pivots.shape[-1])) - 1
    perm = np.broadcast_to(np.arange(m), (flat.shape[0], m)).copy()
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        p = flat[:, j]
        top = perm[:, j].copy()
        perm[:, j] = perm[rows, p]
        perm[rows, p] = top
    return perm.reshape(pivots.shape[:-1] + (m,))


def permute_rows(x: np.ndarray, pivots: np.ndarray, inverse: bool = False) -> np.ndarray:
    """``P^T X`` (``P X`` when ``inverse``) for ``A = P L U``, by moving rows, as LAPACK's
    ``laswp``: an inf in ``X`` stays in its row (a product with ``P`` would spread nan)."""
    perm = permutation(pivots, x.shape[-2])
    if inverse:
        perm = np.argsort(perm, axis=-1)
    batch = np.broadcast_shapes(perm.shape[:-1], x.shape[:-2])
    perm = np.broadcast_to(perm, batch + perm.shape[-1:])
    return np.take_along_axis(np.broadcast_to(x, batch + x.shape[-2:]), perm[..., None], -2)


def permutation_matrix(pivots: np.ndarray, m: int, dtype: np.dtype) -> np.ndarray:
    """``P`` with ``A = P L U``: ``P[perm[i], i] = 1``."""
    perm = permutation(pivots, m)
    p = np.zeros(perm.shape + (m,), dtype)
    np.put_along_axis(p, perm[..., None], 1, axis=-1)
    return np.swapaxes(p, -1, -2)


def unpack(lu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``L`` (``m x k``, unit diagonal) and ``U`` (``k x n``) packed in ``lu``."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    return low, np.triu(lu[..., :k, :])


def lu_solve(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, adjoint: bool) -> np.ndarray:
    """``A^-1 B`` (``A^-T B`` when ``adjoint``) from the packed factors of ``A = P L U``, by
    substitution, as LAPACK's ``getrs``: a zero pivot gives inf and nan, not an error."""
    low, up = unpack(lu)
    if not adjoint:  # X = U^-1 L^-1 P^T B
        y = triangular_solve(low, permute_rows(b, pivots), lower=True, unit=True)
        return triangular_solve(up, y, lower=False, unit=False)
    # X = P L^-T U^-T B
    y = triangular_solve(np.swapaxes(up, -1, -2), b, lower=True, unit=False)
    y = triangular_solve(np.swapaxes(low, -1, -2), y, lower=False, unit=True)
    return permute_rows(y, pivots, inverse=True)


def triangular_solve(t: np.ndarray, b: np.ndarray, *, lower: bool, unit: bool) -> np.ndarray:
    """``T^-1 B`` for a batch of triangular ``T`` by substitution, one row at a time (a zero
    on the diagonal gives inf and nan, as LAPACK's ``trsm``)."""
    n = t.shape[-1]
    x = np.zeros(np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            done = slice(0, i) if lower else slice(i + 1, n)
            row = b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, done], x[..., done, :])
            x[..., i, :] = row if unit else row / t[..., i, i, None]
    return x
