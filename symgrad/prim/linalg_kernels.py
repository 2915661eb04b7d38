"""NumPy kernels of the matrix words (``det``, ``inv``, ``solve``, ``adjugate``) and of the
matrix exponential, with PyTorch's errors for singular input.

The adjugate (the transposed cofactor matrix, ``det(A) A^-1`` where ``A`` is invertible) is
computed from the SVD, so it stays exact for singular matrices too: it is the derivative of
``det``, which is smooth everywhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._silent import restore, silence
from symgrad.prim import lu_kernels

__all__ = [
    "LinAlgError",
    "det",
    "inv",
    "solve",
    "adjugate",
    "matrix_exp",
    "lu_solve",
    "singular",
    "solver_error",
]


class LinAlgError(RuntimeError):
    """A matrix function got a matrix it is not defined for (singular, or not positive
    definite), as PyTorch's ``torch.linalg.LinAlgError``.

    Examples
    --------
    >>> import symgrad
    >>> try:
    ...     symgrad.linalg.inv(symgrad.tensor([[1.0, 2.0], [2.0, 4.0]]))
    ... except symgrad.linalg.LinAlgError as e:
    ...     print(str(e)[:40])
    linalg.inv: The diagonal element 2 is ze
    """


def singular(op: str, info: np.ndarray) -> LinAlgError:
    """PyTorch's error of ``linalg.inv`` for the first singular matrix of a batch whose LU
    factorizations report ``info``."""
    flat = np.asarray(info).reshape(-1)
    i = int(np.flatnonzero(flat)[0])
    where = f"(Batch element {i}): " if np.ndim(info) else ""
    return LinAlgError(
        f"{op}: {where}The diagonal element {flat[i]} is zero, the inversion could not be "
        "completed because the input matrix is singular."
    )


def solver_error(op: str, info: np.ndarray) -> LinAlgError:
    """PyTorch's error of ``linalg.solve`` for the first singular matrix of a batch."""
    flat = np.asarray(info).reshape(-1)
    where = f"(Batch element {int(np.flatnonzero(flat)[0])}): " if np.ndim(info) else ""
    return LinAlgError(
        f"torch.{op}: {where}The solver failed because the input matrix is singular."
    )


def lu_solve(a: np.ndarray, b: np.ndarray, adjoint: bool = False) -> tuple:
    """``(A^-1 B, info)`` (``A^-T B`` when ``adjoint``) by LAPACK's steps, ``getrf`` then
    ``getrs``: the LU factorization with partial pivoting of ``A``, then substitution with its
    factors, so a zero pivot gives inf and nan where LAPACK's do, and a nearly singular matrix
    its large numbers, not an error."""
    lu, pivots, info = lu_kernels.lu_factor(a)
    return lu_kernels.lu_solve(lu, pivots, b, adjoint), info


def logabsdet_gradient(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``g A^-T``, the gradient of ``log|det A|``, as PyTorch's backward computes it: the
    system ``A^T X = g I`` solved by substitution with the LU factors of ``A^T`` (the ones
    its forward took), so a singular ``A`` gives LAPACK's pattern of inf and nan."""
    n = a.shape[-1]
    d = np.zeros(a.shape, a.dtype)  # (an infinite g times the identity would put nan off it)
    d[..., np.arange(n), np.arange(n)] = np.asarray(g, a.dtype)[..., None]
    lu, pivots, _ = lu_kernels.lu_factor(np.swapaxes(a, -1, -2).copy())
    return lu_kernels.lu_solve(lu, pivots, d, adjoint=False)


def det(a: Any) -> np.ndarray:
    """The determinant of each matrix of ``a`` as PyTorch computes it: the LU factorization
    with partial pivoting of the transposed matrix (LAPACK's of the row-major memory), the
    product of its diagonal, negated for an odd number of row exchanges. So a matrix whose
    elimination is exact has its exact determinant (``[[1, 2], [3, 4]]``: -2, where NumPy's
    ``exp(log|det|)`` gives -2.0000000000000004)."""
    a = np.asarray(a)
    n = a.shape[-1]
    if not 0 < n <= _LU_DET_MAX or a.dtype.kind != "f":
        return np.asarray(np.linalg.det(a))
    m = np.swapaxes(a, -1, -2).reshape((-1, n, n)).copy()
    odd = np.zeros(m.shape[0], bool)
    token = silence()  # (inf and nan entries: nan, as LAPACK's)
    try:
        for j in range(n - 1):  # one elimination step per column, the whole batch at once
            p = j + np.argmax(np.abs(m[:, j:, j]), axis=1)
            swap = p != j
            if swap.any():
                which = np.nonzero(swap)[0]
                top = m[which, j].copy()
                m[which, j] = m[which, p[swap]]
                m[which, p[swap]] = top
                odd ^= swap
            pivot = m[:, j, j]
            # a zero pivot (its column is zero below it too) leaves the column as it is
            factors = m[:, j + 1 :, j] / np.where(pivot == 0, 1, pivot)[:, None]
            m[:, j + 1 :, j + 1 :] -= factors[:, :, None] * m[:, j, None, j + 1 :]
        product = np.prod(np.diagonal(m, axis1=-2, axis2=-1), axis=-1)
    finally:
        restore(token)
    return np.where(odd, -product, product).reshape(a.shape[:-2])


# up to this order the elimination (one NumPy step per column) costs little next to LAPACK's
_LU_DET_MAX = 8


def inv(a: Any, checked: str | None = None) -> np.ndarray:
    """The inverse of each matrix of ``a``; where one is singular, LAPACK's inf and nan
    (PyTorch's ``linalg.inv_ex``), or with ``checked`` (the function's name) its error."""
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        a = np.asarray(a)
    x, info = lu_solve(a, np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape))
    if checked and info.any():
        raise singular(checked, info)
    return x


def solve(a: Any, b: Any, checked: str | None = None, adjoint: bool = False) -> np.ndarray:
    """``A^-1 B`` (``A^-T B`` when ``adjoint``) for batches of matrices ``B`` (batch
    dimensions broadcast); where ``A`` is singular, LAPACK's inf and nan (PyTorch's
    ``linalg.solve_ex``), or with ``checked`` (the function's name) its error."""
    try:
        return np.linalg.solve(np.swapaxes(a, -1, -2) if adjoint else a, b)
    except np.linalg.LinAlgError:
        a, b = np.asarray(a), np.asarray(b)
    x, info = lu_solve(a, b, adjoint)
    if checked and info.any():
        raise solver_error(checked, info)
    return x


def adjugate(a: Any) -> np.ndarray:
    """``det(A) A^-1`` without the inverse: from ``A = U S Vh``, the adjugate is
    ``det(U) det(Vh) Vh^T diag(prod of the other singular values) U^T``."""
    a = np.asarray(a)
    if a.shape[-1] == 0:
        return np.zeros_like(a)
    u, s, vh = np.linalg.svd(a.astype(np.float64))  # float32's SVD would cost digits
    sign = np.linalg.det(u) * np.linalg.det(vh)
    s = np.broadcast_to(s[..., None, :], s.shape[:-1] + (s.shape[-1], s.shape[-1]))
    others = np.prod(np.where(np.eye(a.shape[-1], dtype=bool), 1, s), axis=-1)
    cofactor = (u * others[..., None, :]) @ vh * sign[..., None, None]
    return np.swapaxes(cofactor, -1, -2).astype(a.dtype, copy=False)


# Higham (2005): the degree-13 Pade approximant after scaling the norm below theta_13
_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152


def _expm(a: np.ndarray) -> np.ndarray:
    norm = np.abs(a).sum(axis=0).max() if a.size else 0.0
    if not np.isfinite(norm):
        return np.full_like(a, np.nan)
    s = max(0, int(np.ceil(np.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    a = a / 2.0**s
    b = _PADE13
    eye = np.eye(a.shape[0])
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2)
    u = u + a @ (b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2
    v = v + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


def matrix_exp(a: Any) -> np.ndarray:
    """``exp(A)`` of each matrix of the batch ``a``, computed in float64."""
    a = np.asarray(a)
    flat = a.reshape((int(np.prod(a.shape[:-2])),) + a.shape[-2:]).astype(np.float64)
    out = np.stack([_expm(m) for m in flat]) if len(flat) else flat
    return out.reshape(a.shape).astype(a.dtype, copy=False)


def potf2(m: np.ndarray) -> tuple:
    """LAPACK's unblocked ``potf2`` on one matrix, reading its lower triangle: the lower factor
    as far as it goes and its ``info`` (0, or the order of the first leading minor that is not
    positive-definite, also where a pivot is nan)."""
    low = np.tril(m)
    with np.errstate(all="ignore"):
        for j in range(m.shape[-1]):
            pivot = low[j, j] - low[j, :j] @ low[j, :j]
            if not pivot > 0:  # also nan
                low[j, j] = pivot
                return low, j + 1
            low[j, j] = np.sqrt(pivot)
            low[j + 1 :, j] = (low[j + 1 :, j] - low[j + 1 :, :j] @ low[j, :j]) / low[j, j]
    return low, 0


def cholesky_lower(a: np.ndarray, upper: bool) -> np.ndarray:
    """NumPy's lower Cholesky factor of the triangle PyTorch reads: the upper one (as the
    lower one of ``A^T``) when ``upper``. Raises ``np.linalg.LinAlgError`` where a pivot is
    not positive, nan included (NumPy lets nan through)."""
    low = np.linalg.cholesky(np.swapaxes(a, -1, -2) if upper else a)
    if np.isnan(np.diagonal(low, axis1=-2, axis2=-1)).any():
        raise np.linalg.LinAlgError
    return low
