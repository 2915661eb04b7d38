"""``torch.nn.utils.parametrizations.orthogonal``: a matrix (or batch of matrices) kept
orthogonal (orthonormal columns, or rows when wider than tall) by computing it from an
unconstrained one: the matrix exponential or Cayley transform of a skew-symmetric matrix, or a
product of Householder reflections. With ``use_trivialization`` (the default) the result is
multiplied by a buffer ``base``, the orthogonal matrix last assigned, so that assigning keeps
the map near the identity."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import _like, creation
from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.module import Module
from symgrad.ops.joining import cat
from symgrad.ops.matrix_functions import matrix_exp
from symgrad.tensor import Tensor

__all__ = ["orthogonal"]

_MAPS = ("matrix_exp", "cayley", "householder")


def householder_product(a: Tensor, tau: Tensor) -> Tensor:
    """The first ``k`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T`` with ``v_i``
    the ``i``-th column of ``a`` below the diagonal and 1 on it (LAPACK's ``orgqr``), written
    with recorded products so that it is differentiable."""
    n, k = a.shape[-2:]
    eye = creation.eye(n, dtype=a.dtype)
    v = a.tril(-1) + eye[:, :k]
    q = eye[:, :k].expand(*a.shape[:-2], n, k)
    for i in reversed(range(k)):
        vi = v[..., i : i + 1]
        q = q - tau[..., i, None, None] * (vi @ (vi.mT @ q))
    return q


def _qr_raw(q: np.ndarray) -> tuple:
    """LAPACK's ``geqrf`` of each matrix: the reflectors below the diagonal, ``R`` on and
    above it, and the scalars ``tau``."""
    a = np.empty_like(q)
    tau = np.empty(q.shape[:-2] + (min(q.shape[-2:]),), q.dtype)
    for i in np.ndindex(*q.shape[:-2]):
        h, tau[i] = np.linalg.qr(q[i], mode="raw")
        a[i] = h.T
    return a, tau


def _make_orthogonal(a: Tensor) -> Tensor:
    """The ``Q`` of ``a``'s QR factorization with a positive diagonal in ``R``."""
    data = a.detach().numpy()
    q, r = np.linalg.qr(data)
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return Tensor._make(np.ascontiguousarray(q * signs[..., None, :]).astype(data.dtype))


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.shape[-2:]
    eps = 10.0 * n * float(np.finfo(q.detach().numpy().dtype).eps)
    gram = (q.mT @ q).detach().numpy()
    return bool(np.allclose(gram, np.eye(k), atol=eps))


class _Orthogonal(Module):
    """The parametrization: an orthogonal matrix from an unconstrained one."""

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.shape[-2:]
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            if self.orthogonal_map == "matrix_exp":
                Q = matrix_exp(A)
            else:
                from symgrad.ops.determinants import solve

                eye = creation.eye(n, dtype=A.dtype)
                Q = solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)
            # PyTorch's cast: the diagonal's signs as integers (-1 after an assignment)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. "
                f"Got a tensor of shape {Q.shape}."
            )
        Q_init = Q
        n, k = Q.shape[-2:]
        transpose = n < k
        if transpose:
            Q, n, k = Q.mT, k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map != "householder":
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential "
                    "or the Cayley parametrizations when use_trivialization=False."
                )
            a, tau = _qr_raw(Q.detach().numpy())
            diagonal = np.einsum("...ii->...i", a[..., :k, :k])
            diagonal[...] = np.where(tau == 0.0, -np.sign(diagonal), np.sign(diagonal))
            out = Tensor._make(a)
            return out.mT if transpose else out
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            N = creation.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_id = _like.zeros_like(Q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: Any = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Keep ``module.<name>`` (a matrix or a batch of them) orthogonal: orthonormal columns,
    or rows when it is wider than tall. ``orthogonal_map`` is ``"matrix_exp"`` (the default
    for square matrices), ``"cayley"`` or ``"householder"`` (the default otherwise). With
    ``use_trivialization`` the weight is ``base @ map(original)``, ``base`` a buffer set when
    the weight is assigned (the registration assigns the current weight, made orthogonal by
    QR if it is not); without, ``original`` is the map's own argument.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils.parametrizations import orthogonal
    >>> lin = orthogonal(symgrad.nn.Linear(3, 3))
    >>> w = lin.weight
    >>> bool(symgrad.allclose(w.T @ w, symgrad.eye(3), atol=1e-5))
    True
    >>> w.grad_fn.name()
    'MmBackward0'
    """
    from symgrad.nn.utils import parametrize

    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
