"""Randomized low-rank factorizations: ``svd_lowrank`` and ``pca_lowrank``.

Both follow the randomized range finder of Halko, Martinsson and Tropp (2009): multiply the
matrix by a random Gaussian block, orthonormalize (QR), refine by ``niter`` power iterations,
and take the SVD of the small projected matrix. They are composed of recorded ops (``mm``,
``linalg.qr``, ``linalg.svd``, ``mH``), so the nodes and gradients are PyTorch's
(``MmBackward0``, ``LinalgSvdBackward0``, ``TransposeBackward0``). The random block is drawn
from symgrad's generator (``symgrad.manual_seed``), so the factors differ from PyTorch's
draws by rotations within the subspace; the singular values of a matrix whose rank is at
most ``q`` are exact.

Examples
--------
>>> import symgrad
>>> _ = symgrad.manual_seed(0)
>>> a = symgrad.tensor([[3.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
>>> u, s, v = symgrad.svd_lowrank(a, q=2)
>>> s.round(decimals=4)
tensor([3., 1.])
"""

from __future__ import annotations

from typing import Any

from symgrad import creation, dtypes
from symgrad.tensor import Tensor

__all__ = ["svd_lowrank", "pca_lowrank"]


def _floating(A: Tensor) -> Any:
    return A.dtype if A.dtype.is_floating_point else dtypes.float32


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An orthonormal basis (columns) of about ``q`` dims for the range of ``A - M``."""
    from symgrad import linalg

    def times(X: Tensor, Y: Tensor) -> Tensor:
        return X.matmul(Y)

    R = creation.randn(A.shape[-1], q, dtype=_floating(A))
    X = times(A, R) if M is None else times(A, R) - times(M, R)
    Q = linalg.qr(X).Q
    for _ in range(niter):
        X = times(A.mH, Q) if M is None else times(A.mH, Q) - times(M.mH, Q)
        Q = linalg.qr(X).Q
        X = times(A, Q) if M is None else times(A, Q) - times(M, Q)
        Q = linalg.qr(X).Q
    return Q


def _svd_lowrank(A: Tensor, q: int | None, niter: int | None, M: Tensor | None) -> tuple:
    from symgrad import linalg

    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:  # work on the tall one
        A = A.mH
        M = None if M is None else M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    return (V, S, U) if wide else (U, S, V)


def svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple:
    """An approximate SVD ``A - M ≈ U diag(S) V^H`` of rank ``q`` (default 6, at most the
    matrix's smaller side), by a randomized range finder with ``niter`` power iterations;
    returns ``(U, S, V)`` (``V``, not its transpose). Batched over leading dims.

    Examples
    --------
    >>> import symgrad
    >>> _ = symgrad.manual_seed(0)
    >>> a = symgrad.outer(symgrad.tensor([1.0, 2.0, 2.0]), symgrad.tensor([3.0, 4.0]))
    >>> u, s, v = symgrad.svd_lowrank(a, q=1)
    >>> s
    tensor([15.])
    """
    if len(A.shape) < 2:
        raise ValueError(f"not enough values to unpack (expected 2, got {len(A.shape)})")
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2) -> tuple:
    """The principal components of the rows of ``A`` (centred on the column means when
    ``center``): :func:`svd_lowrank` of rank ``q`` (default ``min(6, m, n)``); returns
    ``(U, S, V)``, the principal directions the columns of ``V``.

    Examples
    --------
    >>> import symgrad
    >>> _ = symgrad.manual_seed(0)
    >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 6.0], [5.0, 10.0]])
    >>> u, s, v = symgrad.pca_lowrank(a, q=1)
    >>> s, v.abs()
    (tensor([6.3246]), tensor([[0.4472],
            [0.8944]]))
    """
    if len(A.shape) < 2:
        raise ValueError(f"not enough values to unpack (expected 2, got {len(A.shape)})")
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)
