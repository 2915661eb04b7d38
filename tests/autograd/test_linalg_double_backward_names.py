"""Under ``create_graph=True`` the gradients of the ``linalg`` functions are recorded with the
ops of PyTorch's own backward formulas, so the gradient's node carries PyTorch's name (a
determinant's gradient is a ``linalg.solve``, a Cholesky or QR factor's a triangular solve, a
triangular solve's a ``triu``/``tril``) and its own gradient is PyTorch's. Each case gives the
gradient's node name and the gradient of ``<gradient, v>`` (plain expected data, checked against
PyTorch when it is importable; more closely just below)."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_table import table_tests

A = [[2.0, 1.0, 0.5], [0.3, 3.0, 1.0], [0.2, 0.4, 2.5]]
SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]
UPPER = np.triu(A).tolist()
LOWER = np.tril(A).T.tolist()
TALL = [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.5], [0.5, 0.2, 0.1]]
WIDE = np.array(TALL).T.tolist()
BATCH = [A, (np.array(A).T + np.eye(3)).tolist()]
SPD_BATCH = [SPD, (np.array(SPD) + np.eye(3)).tolist()]
B = [[1.0, 0.5], [-0.5, 2.0], [0.25, 1.0]]
TAU = [0.5, -0.25, 0.3]


def _weights(shape: tuple, phase: float) -> np.ndarray:
    n = int(np.prod(shape))
    return (np.cos(np.arange(n) + phase) + 0.5).reshape(shape)


def _second(T, x: list, f) -> tuple:
    """``f``'s gradient under ``create_graph`` (of a weighted sum of ``f(x)``) and the
    gradient of its weighted sum (the second derivative)."""
    a = T.tensor(x, dtype=T.float64, requires_grad=True)
    y = f(T, a)
    w = T.tensor(_weights(tuple(y.shape), 0.0), dtype=T.float64)
    (g,) = T.autograd.grad((y * w).sum(), a, create_graph=True)
    v = T.tensor(_weights(tuple(g.shape), 1.0), dtype=T.float64)
    (gg,) = T.autograd.grad((g * v).sum(), a)
    return g, gg


def second(x: list, f):
    """The name of the gradient's node, and a weighted sum of the second derivative."""

    def fn(T):
        g, gg = _second(T, x, f)
        return type(g.grad_fn).__name__, (gg * T.tensor(_weights(tuple(gg.shape), 2.0))).sum()

    return fn


def _sign_free(t):
    """Products of a factor's columns (rows) with its first row (column): the same whatever
    the signs LAPACK chose."""
    return t * t[..., 0:1, :]


PROGRAMS = {
    "det": (A, lambda T, a: T.linalg.det(a)),
    "det_batch": (BATCH, lambda T, a: T.linalg.det(a)),
    "torch_det": (A, lambda T, a: T.det(a)),
    "slogdet_logabsdet": (A, lambda T, a: T.linalg.slogdet(a)[1]),
    "slogdet_batch": (BATCH, lambda T, a: T.linalg.slogdet(a).logabsdet),
    "torch_slogdet": (A, lambda T, a: T.slogdet(a)[1]),
    "logdet": (SPD, lambda T, a: T.logdet(a)),
    "logdet_batch": (SPD_BATCH, lambda T, a: T.logdet(a)),
    "inv": (A, lambda T, a: T.linalg.inv(a)),
    "inv_ex": (A, lambda T, a: T.linalg.inv_ex(a)[0]),
    "solve": (A, lambda T, a: T.linalg.solve(a, T.tensor(B, dtype=T.float64))),
    "cholesky": (SPD, lambda T, a: T.linalg.cholesky(a)),
    "cholesky_upper": (SPD, lambda T, a: T.linalg.cholesky(a, upper=True)),
    "cholesky_batch": (SPD_BATCH, lambda T, a: T.linalg.cholesky(a)),
    "cholesky_ex": (SPD, lambda T, a: T.linalg.cholesky_ex(a)[0]),
    "torch_cholesky": (SPD, lambda T, a: T.cholesky(a)),
    "qr_q": (A, lambda T, a: _sign_free(T.linalg.qr(a)[0])),
    "qr_r": (A, lambda T, a: _sign_free(T.linalg.qr(a)[1].mT)),
    "qr_batch": (BATCH, lambda T, a: _sign_free(T.linalg.qr(a).Q)),
    "qr_tall_q": (TALL, lambda T, a: _sign_free(T.linalg.qr(a)[0])),
    "qr_wide_q": (WIDE, lambda T, a: _sign_free(T.linalg.qr(a)[0])),
    "qr_wide_r": (WIDE, lambda T, a: _sign_free(T.linalg.qr(a)[1].mT)),
    "solve_triangular": (
        UPPER,
        lambda T, a: T.linalg.solve_triangular(a, T.tensor(B, dtype=T.float64), upper=True),
    ),
    "solve_triangular_lower_unit": (
        LOWER,
        lambda T, a: T.linalg.solve_triangular(
            a, T.tensor(B, dtype=T.float64), upper=False, unitriangular=True
        ),
    ),
    "solve_triangular_right": (
        UPPER,
        lambda T, a: T.linalg.solve_triangular(
            a, T.tensor(B, dtype=T.float64).mT, upper=True, left=False
        ),
    ),
    "triangular_solve": (
        LOWER,
        lambda T, a: (
            T.triangular_solve(
                T.tensor(B, dtype=T.float64), a, upper=False, transpose=True
            ).solution
        ),
    ),
    "svdvals": (A, lambda T, a: T.linalg.svdvals(a)),
    "svd_u": (A, lambda T, a: _sign_free(T.linalg.svd(a)[0])),
    "eigh_values": (SPD, lambda T, a: T.linalg.eigh(a)[0]),
    "eigh_vectors": (SPD, lambda T, a: _sign_free(T.linalg.eigh(a)[1])),
    "lu_factor": (A, lambda T, a: T.linalg.lu_factor(a)[0]),
    "lu_solve": (
        A,
        lambda T, a: T.linalg.lu_solve(*T.linalg.lu_factor(a), T.tensor(B, dtype=T.float64)),
    ),
    "lstsq": (TALL, lambda T, a: T.linalg.lstsq(a, T.tensor(TALL, dtype=T.float64)[:, :2] + 1)[0]),
    "pinv": (TALL, lambda T, a: T.linalg.pinv(a)),
    "pinv_wide": (WIDE, lambda T, a: T.linalg.pinv(a)),
    "pinv_hermitian": (SPD, lambda T, a: T.linalg.pinv(a, hermitian=True)),
    "matrix_exp": (A, lambda T, a: T.linalg.matrix_exp(a * 0.3)),
    "matrix_power": (A, lambda T, a: T.linalg.matrix_power(a, 3)),
    "matrix_norm_nuc": (A, lambda T, a: T.linalg.matrix_norm(a, "nuc")),
    "cond": (A, lambda T, a: T.linalg.cond(a)),
    "multi_dot": (A, lambda T, a: T.linalg.multi_dot([a, a, a])),
    "householder_product": (
        TALL,
        lambda T, a: T.linalg.householder_product(a, T.tensor(TAU, dtype=T.float64)),
    ),
    "householder_product_tau": (
        TAU,
        lambda T, t: T.linalg.householder_product(T.tensor(TALL, dtype=T.float64), t),
    ),
    "ormqr_input": (
        TALL,
        lambda T, a: T.ormqr(a, T.tensor(TAU, dtype=T.float64), T.tensor(TALL, dtype=T.float64)),
    ),
    "ormqr_other": (
        TALL,
        lambda T, c: (
            T.ormqr(
                T.tensor(TALL, dtype=T.float64), T.tensor(TAU, dtype=T.float64), c, transpose=True
            )
            ** 2
        ),
    ),
}

EXPECTED = {
    "det": ("LinalgSolveExBackward0", (4.1072, "float64", None)),
    "det_batch": ("LinalgSolveExBackward0", (3.8517, "float64", None)),
    "torch_det": ("LinalgSolveExBackward0", (4.1072, "float64", None)),
    "slogdet_logabsdet": ("LinalgSolveExBackward0", (0.0524, "float64", None)),
    "slogdet_batch": ("LinalgSolveExBackward0", (-0.077, "float64", None)),
    "torch_slogdet": ("LinalgSolveExBackward0", (0.0524, "float64", None)),
    "logdet": ("LinalgSolveExBackward0", (-0.0661, "float64", None)),
    "logdet_batch": ("LinalgSolveExBackward0", (-0.2265, "float64", None)),
    "inv": ("NegBackward0", (-0.372, "float64", None)),
    "inv_ex": ("NegBackward0", (-0.372, "float64", None)),
    "solve": ("NegBackward0", (-0.6015, "float64", None)),
    "cholesky": ("LinalgSolveTriangularBackward0", (-0.2387, "float64", None)),
    "cholesky_upper": ("LinalgSolveTriangularBackward0", (-0.1637, "float64", None)),
    "cholesky_batch": ("LinalgSolveTriangularBackward0", (-0.3398, "float64", None)),
    "cholesky_ex": ("LinalgSolveTriangularBackward0", (-0.2387, "float64", None)),
    "torch_cholesky": ("LinalgSolveTriangularBackward0", (-0.2387, "float64", None)),
    "qr_q": ("LinalgSolveTriangularBackward0", (-0.409, "float64", None)),
    "qr_r": ("LinalgSolveTriangularBackward0", (1.7429, "float64", None)),
    "qr_batch": ("LinalgSolveTriangularBackward0", (-0.2337, "float64", None)),
    "qr_tall_q": ("LinalgSolveTriangularBackward0", (-0.2606, "float64", None)),
    "qr_wide_q": ("CatBackward0", (0.7984, "float64", None)),
    "qr_wide_r": ("AddBackward0", (4.6224, "float64", None)),
    "solve_triangular": ("TriuBackward0", (-0.3814, "float64", None)),
    "solve_triangular_lower_unit": ("TrilBackward0", (0.0812, "float64", None)),
    "solve_triangular_right": ("TriuBackward0", (-0.1231, "float64", None)),
    "triangular_solve": ("TrilBackward0", (0.1178, "float64", None)),
    "svdvals": ("MmBackward0", (0.3322, "float64", None)),
    "svd_u": ("MmBackward0", (0.1244, "float64", None)),
    "eigh_values": ("MmBackward0", (-0.6395, "float64", None)),
    "eigh_vectors": ("MmBackward0", (1.1139, "float64", None)),
    "lu_factor": ("MmBackward0", (0.6009, "float64", None)),
    "lu_solve": ("MmBackward0", (-0.6015, "float64", None)),
    "lstsq": ("SubBackward0", (-0.4128, "float64", None)),
    "pinv": ("SubBackward0", (0.3363, "float64", None)),
    "pinv_wide": ("AddBackward0", (-0.7483, "float64", None)),
    "pinv_hermitian": ("AddBackward0", (-0.106, "float64", None)),
    "matrix_exp": ("MulBackward0", (0.0371, "float64", None)),
    "matrix_power": ("AddBackward0", (4.7702, "float64", None)),
    "matrix_norm_nuc": ("PermuteBackward0", (0.8213, "float64", None)),
    "cond": ("MmBackward0", (-0.8885, "float64", None)),
    "multi_dot": ("AddBackward0", (4.7702, "float64", None)),
    "householder_product": ("TrilBackward0", (-1.5421, "float64", None)),
    "householder_product_tau": ("CopySlices", (-0.7562, "float64", None)),
    "ormqr_input": ("TrilBackward0", (-6.0329, "float64", None)),
    "ormqr_other": ("OrmqrBackward0", (2.8117, "float64", None)),
}

CASES = {name: (second(x, f), EXPECTED.get(name)) for name, (x, f) in PROGRAMS.items()}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_second_derivatives_are_pytorchs_closely(name):
    import symgrad

    torch = pytest.importorskip("torch")
    for got, want in zip(_second(symgrad, *PROGRAMS[name]), _second(torch, *PROGRAMS[name])):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), 1e-10, 1e-10)
