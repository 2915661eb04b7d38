"""``torch.linalg.lstsq``: least-squares solutions of ``A X = B``, one node
(``LinalgLstsqBackward0``) for the solution and the residuals.

The solution is the minimum-norm one, computed from the SVD for every driver; the drivers
differ, as in PyTorch on the CPU, in which of ``residuals``, ``rank`` and ``singular_values``
they fill. The backward rule is PyTorch's: through the pseudo-inverse of ``A`` (with its default
tolerance) for the solution, and through ``|A X - B|^2`` for the residuals.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from symgrad.ops.determinants import return_type
from symgrad.ops.matrix_functions import _pinv_kernel, _pinv_vjp, pinv
from symgrad.prim.factorization import Factorization
from symgrad.tensor import Tensor

__all__ = ["lstsq"]

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
_RESULT = return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _broadcast(x: tuple, y: tuple) -> tuple:
    """The broadcast of two batch shapes, with PyTorch's message where they do not match."""
    for i in range(1, min(len(x), len(y)) + 1):
        if x[-i] != y[-i] and 1 not in (x[-i], y[-i]):
            dim = max(len(x), len(y)) - i
            raise RuntimeError(
                f"The size of tensor a ({x[-i]}) must match the size of tensor b ({y[-i]}) at "
                f"non-singleton dimension {dim}"
            )
    return np.broadcast_shapes(x, y)


def _batch_shape(a: np.ndarray, b: np.ndarray, vector: bool) -> tuple:
    """The solution's batch shape. As in PyTorch, it is broadcast from the leading
    ``a.ndim - 2`` sizes of ``b`` as given (for a batch of matrices ``b`` one dimension less
    than ``a``, these include its rows), then with the batch of the matrices themselves."""
    given = _broadcast(a.shape[:-2], b.shape[: a.ndim - 2])
    rows = b.shape[:-1] if vector else b.shape[:-2]
    return _broadcast(given, _broadcast(a.shape[:-2], rows))


def _lstsq_kernel(a: np.ndarray, b: np.ndarray, rcond: float, driver: str, vector: bool) -> tuple:
    batch = _batch_shape(a, b, vector)
    b = b[..., None] if vector else b
    (m, n), k = a.shape[-2:], b.shape[-1]
    real = np.empty(0, a.dtype).real.dtype
    if m == 0 or n == 0:
        x = np.zeros(batch + (n, k), a.dtype)
        s = np.zeros(a.shape[:-2] + (0,), real)
        rank = np.zeros(a.shape[:-2], np.int64)
    elif driver == "gelsy":
        s = np.zeros((0,), real)
        rank, x = _gelsy(a, np.broadcast_to(b, batch + (m, k)), rcond)
    else:  # the singular values and rank of A's own batch, as PyTorch's are
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        kept = s > rcond * s[..., :1]
        rank = kept.sum(-1).astype(np.int64)
        inverse = np.where(kept, 1 / np.where(kept, s, 1), 0).astype(a.dtype)
        uh_b = np.swapaxes(u, -1, -2).conj() @ b
        x = np.swapaxes(vh, -1, -2).conj() @ (inverse[..., None] * uh_b)
        x = np.broadcast_to(x, batch + (n, k)).copy()
    residuals = np.zeros((0,), real)
    if m > n and driver != "gelsy" and (driver == "gels" or bool(np.all(rank == n))):
        residuals = (np.abs(a @ x - b) ** 2).sum(-2).astype(real)
        if driver == "gels" and n == 0:  # PyTorch's quirk: gels leaves zeros there
            residuals = np.zeros_like(residuals)
    if driver == "gels":
        rank = np.zeros((0,), np.int64)
    if driver not in ("gelsd", "gelss"):
        s = np.zeros((0,), real)
    return (x[..., 0] if vector else x), residuals, rank, s


def _pivots(a: np.ndarray) -> np.ndarray:
    """The column order of a QR factorization with column pivoting (LAPACK's ``geqp3``):
    at each step the column of largest norm outside the span of those chosen."""
    rest = a.astype(np.result_type(a.dtype, np.float64))
    order = list(range(a.shape[1]))
    for j in range(min(a.shape)):
        p = j + int(np.argmax(np.linalg.norm(rest[:, order[j:]], axis=0)))
        order[j], order[p] = order[p], order[j]
        q = rest[:, order[j]]
        size = np.linalg.norm(q)
        if size == 0:
            break
        q = q / size
        rest = rest - np.outer(q, q.conj() @ rest)
    return np.array(order)


def _gelsy_one(a: np.ndarray, b: np.ndarray, rcond: float) -> tuple:
    """LAPACK's ``gelsy`` on one matrix: the rank is the size of the largest leading block of
    the pivoted ``R`` with condition number at most ``1 / rcond``; the solution is the
    minimum-norm one of the system truncated to it."""
    order = _pivots(a)
    q, r = np.linalg.qr(a[:, order])
    # the condition number of the leading blocks grows with their size (singular values
    # interlace), so the largest well-conditioned one is found by bisection
    low, high = 0, min(a.shape) if abs(r[0, 0]) != 0 else 0
    while low < high:
        i = (low + high + 1) // 2
        values = np.linalg.svd(r[:i, :i], compute_uv=False)
        low, high = (i, high) if values[0] * rcond <= values[-1] else (low, i - 1)
    rank = low
    x = np.zeros((a.shape[1], b.shape[1]), a.dtype)
    if rank:
        c = q[:, :rank].conj().T @ b
        x[order] = np.linalg.lstsq(r[:rank], c, rcond=None)[0]
    return rank, x


def _gelsy(a: np.ndarray, b: np.ndarray, rcond: float) -> tuple:
    """:func:`_gelsy_one` over the batch: the ranks of ``a``'s batch, the solutions of
    ``b``'s (``a`` broadcast to it)."""
    ranks = np.zeros(a.shape[:-2], np.int64)
    for i in np.ndindex(*a.shape[:-2]):
        ranks[i] = _gelsy_one(a[i], b[(0,) * (b.ndim - a.ndim) + i], rcond)[0]
    wide = np.broadcast_to(a, b.shape[:-2] + a.shape[-2:])
    x = np.zeros(b.shape[:-2] + (a.shape[-1], b.shape[-1]), a.dtype)
    for i in np.ndindex(*b.shape[:-2]):
        x[i] = _gelsy_one(wide[i], b[i], rcond)[1]
    return ranks, x


def _mT(xp: Any, a: Any) -> Any:
    return xp.transpose(a, -1, -2)


def _pinv_of(xp: Any, a: Any) -> Any:
    """``pinv(A)`` with PyTorch's default tolerance, on tensors (recorded) or arrays."""
    if isinstance(a, Tensor):
        return pinv(a)
    rtol = float(np.finfo(a.dtype).eps) * max(a.shape[-2:])
    return _pinv_kernel(xp, a, 0.0, rtol, False)


def _lstsq_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    """``gA = pinv_backward(gX B^T)``, ``gB = pinv(A)^T gX`` for the solution, and the
    gradient of ``|A X - B|^2`` (``X`` held fixed: it is optimal) for the residuals."""
    (gx, gres, _, _), (a, b), x = grads, c.inputs, c.out[0]
    if c.params["vector"]:
        b, x = xp.unsqueeze(b, -1), xp.unsqueeze(x, -1)
        gx = None if gx is None else xp.unsqueeze(gx, -1)
    ga = gb = None
    if gx is not None:
        p = _pinv_of(xp, a)
        if c.needs[0]:
            (ga,) = _pinv_vjp(xp, xp.matmul(gx, _mT(xp, b)), SimpleNamespace(inputs=(a,), out=p))
        if c.needs[1]:
            gb = xp.matmul(_mT(xp, p), gx)
    if gres is not None and 0 not in tuple(c.out[1].shape):
        weighted = (xp.matmul(a, x) - b) * xp.unsqueeze(gres, -2) * 2.0
        if c.needs[0]:
            term = xp.matmul(weighted, _mT(xp, x))
            ga = term if ga is None else ga + term
        if c.needs[1]:
            gb = -weighted if gb is None else gb - weighted
    if gb is not None and c.params["vector"]:
        gb = xp.squeeze(gb, -1)
    return ga, gb


_LSTSQ = Factorization(
    "lstsq",
    _lstsq_kernel,
    _lstsq_vjp,
    backward="LinalgLstsqBackward0",
    n_outputs=4,
    differentiable=(0, 1),
)


def _check(A: Any, B: Any, driver: Any) -> bool:
    """PyTorch's errors for ``lstsq(A, B)``; whether ``B`` is a (batch of) vector(s)."""
    for name, t in (("self", A), ("b", B)):
        if not isinstance(t, Tensor):
            position = 1 if name == "self" else 2
            raise TypeError(
                f"linalg_lstsq(): argument '{name}' (position {position}) must be Tensor, "
                f"not {type(t).__name__}"
            )
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {A.dtype.scalar_type} and other's dtype {B.dtype.scalar_type}"
        )
    if A._data.dtype.kind not in "fc" or A._data.dtype == np.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    gap = A.ndim - B.ndim
    if gap not in (0, 1):
        raise RuntimeError(
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    vector = B.ndim == 1 or (gap == 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    rows = B.shape[-1] if vector else B.shape[-2]
    if A.shape[-2] != rows:
        which = "other.size(-1)" if vector else "other.size(-2)"
        raise RuntimeError(
            f"torch.linalg.lstsq: input.size(-2) should match {which} (A is "
            f"{tuple(A.shape)}, B is {tuple(B.shape)})"
        )
    if driver is not None and driver not in _DRIVERS:
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    return vector


def lstsq(A: Tensor, B: Tensor, rcond: Any = None, *, driver: Any = None) -> Any:
    """The least-squares solution ``X`` of ``A X = B`` (minimum-norm where ``A`` is
    rank-deficient) for a (batch of) ``m x n`` matrices ``A``, as PyTorch's named tuple
    ``(solution, residuals, rank, singular_values)``.

    Singular values below ``rcond * s_max`` count as zero (``rcond`` defaults to
    ``eps * max(m, n)``). As in PyTorch on the CPU, the default driver ``'gelsy'`` leaves
    ``residuals`` and ``singular_values`` empty; ``'gelsd'`` and ``'gelss'`` fill the
    singular values, and the residuals ``|A X - B|^2`` (per column) when ``m > n`` and every
    matrix has full rank; ``'gels'`` gives no rank. ``'gelsy'`` follows reference LAPACK (QR
    with column pivoting); PyTorch's MKL build may report a lower rank for an exactly
    rank-deficient matrix. A rank-deficient ``A`` with ``'gels'`` gets the minimum-norm
    solution here, where LAPACK's ``gels`` gives no meaningful one.

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.tensor([[2.0, 0.0], [0.0, 1.0], [0.0, 0.0]], requires_grad=True)
    >>> out = symgrad.linalg.lstsq(a, symgrad.tensor([2.0, 3.0, 4.0]), driver="gelsd")
    >>> out.solution
    tensor([1., 3.], grad_fn=<LinalgLstsqBackward0>)
    >>> out.residuals, out.rank
    (tensor([16.], grad_fn=<LinalgLstsqBackward0>), tensor(2))
    """
    vector = _check(A, B, driver)
    driver = driver or "gelsy"
    if rcond is None:
        rcond = float(np.finfo(A._data.dtype).eps) * max(A.shape[-2:])
    x, residuals, rank, values = _LSTSQ(A, B, rcond=float(rcond), driver=driver, vector=vector)
    return _RESULT(x, residuals, rank, values)
