"""Matrix decompositions: ``cholesky``, ``qr``, ``eigh``, ``svd`` (and ``eigvalsh``,
``svdvals``), each one node for all its factors, with PyTorch's gradients.

The backward rules are the classical ones PyTorch uses: for ``eigh`` and ``svd`` they divide
by differences of eigenvalues (squared singular values), so they are infinite where two are
equal, unless the loss depends only on the values (or is invariant to the choice of vectors).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.determinants import _DET, _INV, array_dtype, return_type, square_matrices
from symgrad.ops.linalg import matmul
from symgrad.ops.tensor_xp import xp_prod_others
from symgrad.ops.triangular_solves import substitute
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.factorization import Factorization
from symgrad.prim.linalg_kernels import LinAlgError, cholesky_lower, potf2
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__: list = []  # public as symgrad.linalg.cholesky, qr, eigh, svd, ...


def _mT(xp: Any, a: Any) -> Any:
    return xp.transpose(a, -1, -2)


def _eye(xp: Any, n: int, dtype: Any) -> Any:
    return xp.constant(np.eye(n, dtype=dtype))


def _lower(xp: Any, a: Any, n: int, dtype: Any, k: int = 0) -> Any:
    return a * xp.constant(np.tril(np.ones((n, n), dtype=dtype), k))


# -- cholesky -------------------------------------------------------------------------------------
def _cholesky_kernel(op: str) -> Any:
    def kernel(a: np.ndarray, upper: bool) -> tuple:
        try:
            low = cholesky_lower(a, upper)
        except np.linalg.LinAlgError:
            raise _not_positive_definite(op, np.swapaxes(a, -1, -2) if upper else a) from None
        return (np.swapaxes(low, -1, -2) if upper else low,)

    return kernel


def _not_positive_definite(op: str, a: np.ndarray) -> LinAlgError:
    batch = a.reshape((int(np.prod(a.shape[:-2])),) + a.shape[-2:])
    for i, m in enumerate(batch):
        order = potf2(m)[1]
        if order:
            where = f"(Batch element {i}): " if a.ndim > 2 else ""
            return LinAlgError(
                f"{op}: {where}The factorization could not be completed because the "
                f"input is not positive-definite (the leading minor of order {order} is not "
                "positive-definite)."
            )
    return LinAlgError(f"{op}: the input is not positive-definite")


def _cholesky_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    """``L^-T S L^-1`` with ``S`` the symmetric part of ``tril(L^T gL)`` (diagonal halved)."""
    (g,), (low,) = grads, c.out
    if g is None:
        return (None,)
    if c.params["upper"]:
        low, g = _mT(xp, low), _mT(xp, g)
    n, dtype = c.shapes[0][-1], array_dtype(c.inputs[0])
    p = _lower(xp, xp.matmul(_mT(xp, low), g), n, dtype)
    s = (p + _mT(xp, _lower(xp, p, n, dtype, -1))) * 0.5
    if _recorded(xp, g):  # (create_graph: PyTorch's two triangular solves)
        x = substitute(xp, _mT(xp, low), s, upper=True)
        return (substitute(xp, low, x, upper=False, left=False),)
    low_inv = xp.inv(low)
    return (xp.matmul(xp.matmul(_mT(xp, low_inv), s), low_inv),)


def _recorded(xp: Any, g: Any) -> bool:
    """Whether a rule runs under ``create_graph`` on plain tensors (not under ``vmap``)."""
    return xp is INTERPRETERS.tensor and type(g) is not BatchedTensor


_CHOLESKY = Factorization(
    "cholesky",
    _cholesky_kernel("linalg.cholesky"),
    _cholesky_vjp,
    backward="LinalgCholeskyExBackward0",
    reads_inputs=False,
)


def linalg_cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The lower triangular ``L`` with ``L L^T = A`` (``L^T`` when ``upper``) for symmetric
    positive-definite ``A``; anything else raises :class:`~symgrad.linalg.LinAlgError`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.cholesky(symgrad.tensor([[4.0, 2.0], [2.0, 5.0]]))
    tensor([[2., 0.],
            [1., 2.]])
    """
    square_matrices("linalg.cholesky", A)
    return _CHOLESKY(A, upper=bool(upper))[0]


# -- qr -------------------------------------------------------------------------------------------
def _qr_kernel(a: np.ndarray, mode: str) -> tuple:
    if mode == "r":
        return np.zeros((0,), a.dtype), np.linalg.qr(a, mode="r")
    q, r = np.linalg.qr(a, mode=mode)
    return q, r


def _qr_check(node: Any, grads: list) -> None:
    mode, (m, n) = node.params["mode"], node._meta[0][0][-2:]
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
            "through linalg.qr."
        )
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )


def _qr_square(xp: Any, q: Any, r: Any, gq: Any, gr: Any, n: int, dtype: Any) -> Any:
    """``(gQ + Q copyltu(M)) R^-T`` with ``M = R gR^T - gQ^T Q`` (m >= n)."""
    m = 0
    if gr is not None:
        m = xp.matmul(r, _mT(xp, gr))
    if gq is not None:
        m = m - xp.matmul(_mT(xp, gq), q)
    low = _lower(xp, m, n, dtype)
    b = xp.matmul(q, low + _mT(xp, _lower(xp, m, n, dtype, -1)))
    if gq is not None:
        b = b + gq
    if _recorded(xp, b):  # (create_graph: PyTorch's triangular solve)
        return substitute(xp, _mT(xp, r), b, upper=False, left=False)
    return _mT(xp, xp.solve(r, _mT(xp, b)))


def _qr_wide(xp: Any, q: Any, r: Any, gq: Any, gr: Any, rows: int, cols: int, dtype: Any) -> Any:
    """PyTorch's formula for m < n: ``[Q tril(M^T - M) R1^-T | 0] + Q gR``, with
    ``M = gR R^T - Q^T gQ`` and ``R1`` the square block of ``R``."""
    m = 0 if gr is None else xp.matmul(gr, _mT(xp, r))
    if gq is not None:
        m = m - xp.matmul(_mT(xp, q), gq)
    x = xp.matmul(q, _lower(xp, _mT(xp, m) - m, rows, dtype))
    square = xp.getitem(r, (Ellipsis, slice(None), slice(0, rows)))
    x = substitute(xp, _mT(xp, square), x, upper=False, left=False)
    zeros = xp.constant(np.zeros(tuple(x.shape[:-1]) + (cols - rows,), dtype))
    x = xp.cat([x, zeros], -1)
    return x if gr is None else x + xp.matmul(q, gr)


def _qr_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    (gq, gr), (q, r) = grads, c.out
    if gq is None and gr is None:
        return (None,)
    rows, cols = c.shapes[0][-2:]
    dtype = array_dtype(c.inputs[0])
    if rows >= cols:
        return (_qr_square(xp, q, r, gq, gr, cols, dtype),)
    if _recorded(xp, gq if gr is None else gr):
        return (_qr_wide(xp, q, r, gq, gr, rows, cols, dtype),)
    # A = [X | Y] with X = Q U square: Y's gradient is Q gV, and Y feeds back into gQ
    left, right = (
        (Ellipsis, slice(None), slice(0, rows)),
        (Ellipsis, slice(None), slice(rows, None)),
    )
    u, y = xp.getitem(r, left), xp.matmul(q, xp.getitem(r, right))  # Y = Q V: A not saved
    gu = None if gr is None else xp.getitem(gr, left)
    gv = None if gr is None else xp.getitem(gr, right)
    if gv is not None:
        gq = xp.matmul(y, _mT(xp, gv)) + (0 if gq is None else gq)
    gx = _qr_square(xp, q, u, gq, gu, rows, dtype)
    zeros = xp.constant(np.zeros(c.shapes[0], dtype))
    gy = xp.matmul(q, gv) if gv is not None else xp.getitem(zeros, right)
    return (xp.cat([gx, gy], -1),)


_QR = Factorization(
    "qr",
    _qr_kernel,
    _qr_vjp,
    backward="LinalgQrBackward0",
    n_outputs=2,
    check=_qr_check,
    reads_inputs=False,
)


def linalg_qr(A: Tensor, mode: str = "reduced") -> Any:
    """``Q`` with orthonormal columns and upper triangular ``R`` with ``Q R = A``; ``mode``
    'reduced' (k = min(m, n) columns), 'complete' (square ``Q``) or 'r' (``R`` only).

    Examples
    --------
    >>> import symgrad
    >>> q, r = symgrad.linalg.qr(symgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> r[0]
    tensor([-5.0000, -2.2000])
    """
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    square_matrices("linalg.qr", A, square=False)
    return return_type("linalg_qr", ("Q", "R"))(*_QR(A, mode=mode))


# -- eigh -----------------------------------------------------------------------------------------
def _eigh_kernel(a: np.ndarray, UPLO: str) -> tuple:
    values, vectors = np.linalg.eigh(a, UPLO=UPLO)
    return values, vectors


def _gaps(xp: Any, values: Any, n: int, dtype: Any) -> Any:
    """``E[i, j] = values[j] - values[i]``, with 1 on the diagonal (divided into zeros)."""
    return xp.unsqueeze(values, -2) - xp.unsqueeze(values, -1) + _eye(xp, n, dtype)


def _eigh_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    (gl, gv), (values, vectors) = grads, c.out
    if gl is None and gv is None:
        return (None,)
    n, dtype = c.shapes[0][-1], array_dtype(c.inputs[0])
    inner = 0
    if gv is not None:
        vg = xp.matmul(_mT(xp, vectors), gv)
        inner = (vg - _mT(xp, vg)) * 0.5 / _gaps(xp, values, n, dtype)
    if gl is not None:
        inner = inner + xp.unsqueeze(gl, -1) * _eye(xp, n, dtype)
    return (xp.matmul(xp.matmul(vectors, inner), _mT(xp, vectors)),)


_EIGH = Factorization(
    "eigh", _eigh_kernel, _eigh_vjp, backward="LinalgEighBackward0", n_outputs=2, reads_inputs=False
)


def _check_uplo(UPLO: Any) -> str:
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO.upper()


def eigh(A: Tensor, UPLO: str = "L") -> Any:
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric ``A``, reading its
    lower (``UPLO='L'``) or upper triangle.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.eigh(symgrad.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
    tensor([1., 3.])
    """
    square_matrices("linalg.eigh", A)
    values, vectors = _EIGH(A, UPLO=_check_uplo(UPLO))
    return return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))(values, vectors)


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending) of symmetric ``A``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.eigvalsh(symgrad.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor([1., 2.])
    """
    square_matrices("linalg.eigvalsh", A)
    return _EIGH(A, UPLO=_check_uplo(UPLO))[0]


# -- svd ------------------------------------------------------------------------------------------
def _svd_kernel(a: np.ndarray, full_matrices: bool) -> tuple:
    if a.size == 0:
        m, n = a.shape[-2:]
        k = min(m, n)
        cols, rows = (m, n) if full_matrices else (k, k)
        u = np.broadcast_to(np.eye(m, cols, dtype=a.dtype), a.shape[:-2] + (m, cols))
        vh = np.broadcast_to(np.eye(rows, n, dtype=a.dtype), a.shape[:-2] + (rows, n))
        return np.array(u), np.zeros(a.shape[:-2] + (k,), a.dtype), np.array(vh)
    return tuple(np.linalg.svd(a, full_matrices=full_matrices))


def _svd_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    (gu, gs, gvh), (u, s, vh) = grads, c.out
    if gu is None and gs is None and gvh is None:
        return (None,)
    m, n = c.shapes[0][-2:]
    k = min(m, n)
    dtype = array_dtype(c.inputs[0])
    if c.params["full_matrices"]:  # the extra columns of U and rows of Vh get no gradient
        cols, rows = (Ellipsis, slice(None), slice(0, k)), (Ellipsis, slice(0, k), slice(None))
        u, vh = xp.getitem(u, cols), xp.getitem(vh, rows)
        gu = None if gu is None else xp.getitem(gu, cols)
        gvh = None if gvh is None else xp.getitem(gvh, rows)
    if gu is None and gvh is None:  # PyTorch's shortcut for svdvals: U diag(gS) Vh
        if m >= n:
            return (xp.matmul(u, xp.unsqueeze(gs, -1) * vh),)
        return (xp.matmul(u * xp.unsqueeze(gs, -2), vh),)
    v = _mT(xp, vh)
    inner = 0
    if gu is not None or gvh is not None:
        s2 = s * s
        gaps = _gaps(xp, s2, k, dtype)
        if gu is not None:
            ug = xp.matmul(_mT(xp, u), gu)
            inner = inner + (ug - _mT(xp, ug)) * xp.unsqueeze(s, -2)
        if gvh is not None:
            vg = xp.matmul(vh, _mT(xp, gvh))
            inner = inner + xp.unsqueeze(s, -1) * (vg - _mT(xp, vg))
        inner = inner / gaps
    if gs is not None:
        inner = inner + xp.unsqueeze(gs, -1) * _eye(xp, k, dtype)
    ga = xp.matmul(xp.matmul(u, inner), vh)
    if m > n and gu is not None:  # the part of gU outside the span of U
        gus = gu / xp.unsqueeze(s, -2)
        ga = ga + xp.matmul(gus - xp.matmul(u, xp.matmul(_mT(xp, u), gus)), vh)
    if m < n and gvh is not None:
        gvs = _mT(xp, gvh) / xp.unsqueeze(s, -2)
        ga = ga + xp.matmul(u, _mT(xp, gvs - xp.matmul(v, xp.matmul(vh, gvs))))
    return (ga,)


_SVD = Factorization(
    "svd", _svd_kernel, _svd_vjp, backward="LinalgSvdBackward0", n_outputs=3, reads_inputs=False
)


def linalg_svd(A: Tensor, full_matrices: bool = True, *, driver: Any = None) -> Any:
    """``U``, ``S`` (descending) and ``Vh`` with ``U diag(S) Vh = A``. The signs of the
    singular vectors are LAPACK's and may differ from PyTorch's (both are valid).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.svd(symgrad.tensor([[3.0, 0.0], [0.0, -2.0]])).S
    tensor([3., 2.])
    """
    square_matrices("linalg.svd", A, square=False)
    u, s, vh = _SVD(A, full_matrices=bool(full_matrices))
    return return_type("linalg_svd", ("U", "S", "Vh"))(u, s, vh)


def svdvals(A: Tensor, *, driver: Any = None) -> Tensor:
    """The singular values of ``A``, descending.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.svdvals(symgrad.tensor([[0.0, 2.0], [1.0, 0.0]]))
    tensor([2., 1.])
    """
    square_matrices("linalg.svdvals", A, square=False)
    return _SVD(A, full_matrices=False)[1]


def xp_adjugate(a: Tensor) -> Tensor:
    """``det(A) A^-1`` on tensors, differentiable; for a singular matrix PyTorch's formula
    from the SVD, ``det(U) det(Vh) (U diag(prod of the other s) Vh)^T``."""
    if a.shape[-1] <= 1:  # the adjugate of a 1 x 1 matrix is 1, whatever it holds
        return Tensor._make(np.ones(a.shape, a._data.dtype))
    d = _DET(a)
    if np.all(d._data != 0):
        return (d if a.ndim == 2 else d.unsqueeze(-1).unsqueeze(-1)) * _INV(a)
    u, s, vh = _SVD(a, full_matrices=False)
    sign = np.linalg.det(u._data) * np.linalg.det(vh._data)
    others = xp_prod_others(s, (s.ndim - 1,))
    cofactor = matmul(u * others.unsqueeze(-2), vh) * Tensor._make(
        np.asarray(sign)[..., None, None]
    )
    return cofactor.mT
