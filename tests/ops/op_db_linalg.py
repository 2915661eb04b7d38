"""Op table entries for ``torch.linalg``: determinants, inverses, solves, decompositions, matrix
functions and norms (included in :data:`op_db.OP_DB`).

Inputs are drawn in (-2, 2) and made well conditioned inside each call (a multiple of the
identity added, ``x x^T`` for positive-definite matrices, ``x + x^T`` for symmetric ones), so
finite differences stay away from singular matrices and repeated eigenvalues. Singular vectors
and eigenvectors are compared through sign-free quantities (their squares, products that
rebuild the matrix), since their signs are a convention of the LAPACK build.
"""

from __future__ import annotations

import numpy as np

from .op_db import _op, arg, f64

# PyTorch's older torch.cholesky and ormqr have no forward-mode rule: a tangent raises its
# NotImplementedError, in symgrad too (torch.linalg.cholesky has one)
NO_TORCH_FW = "no_torch_forward_ad"
# PyTorch's forward mode fails, or gives a tangent that is not the derivative (symgrad's is
# checked against finite differences)
TORCH_TANGENT_DIFFERS = "torch_tangent_differs"
# decompositions and rank-dependent functions: numeric only, no closed form
NUMERIC_ONLY = "numeric_only"


def _shift(T, x, by=4.0):
    return x + f64(T, by * np.eye(x.shape[-1]))


def _spd(T, x):
    return x @ x.mT + f64(T, np.eye(x.shape[-1]))


def _sym(T, x):
    return x + x.mT


def _svd_parts(T, x):
    u, s, vh = T.linalg.svd(x, full_matrices=False)
    return (u * s.unsqueeze(-2)) @ vh, u * u, vh * vh, s


def _eigh_parts(T, x):
    values, vectors = T.linalg.eigh(_sym(T, x))
    return values, vectors * vectors


MATRICES = [
    _op("linalg_det", lambda T, x: T.linalg.det(x), arg(3, 3)),
    _op("linalg_det_batched", lambda T, x: T.linalg.det(x), arg(2, 3, 3)),
    _op("det_method", lambda T, x: x.det(), arg(2, 2)),
    _op("linalg_slogdet", lambda T, x: T.linalg.slogdet(_shift(T, x)), arg(3, 3)),
    _op("slogdet_batched", lambda T, x: T.slogdet(_shift(T, x)).logabsdet, arg(2, 3, 3)),
    _op("logdet", lambda T, x: T.logdet(_spd(T, x)), arg(3, 3)),
    _op("logdet_method_batched", lambda T, x: _shift(T, x).logdet(), arg(2, 3, 3)),
    _op("linalg_inv", lambda T, x: T.linalg.inv(_shift(T, x)), arg(3, 3)),
    _op("inverse_batched", lambda T, x: T.inverse(_shift(T, x)), arg(2, 3, 3)),
    _op("inverse_method", lambda T, x: _shift(T, x).inverse(), arg(2, 2)),
    _op(
        "linalg_solve",
        lambda T, a, b: T.linalg.solve(_shift(T, a), b),
        arg(3, 3),
        arg(3, 2),
    ),
    _op(
        "linalg_solve_vector",
        lambda T, a, b: T.linalg.solve(_shift(T, a), b),
        arg(2, 3, 3),
        arg(2, 3),
    ),
    _op(
        "linalg_solve_right_broadcast",
        lambda T, a, b: T.linalg.solve(_shift(T, a), b, left=False),
        arg(3, 3),
        arg(2, 4, 3),
    ),
    _op(
        "linalg_cholesky",
        lambda T, x: T.linalg.cholesky(_spd(T, x)),
        arg(3, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_cholesky_upper",
        lambda T, x: T.linalg.cholesky(_spd(T, x), upper=True),
        arg(2, 3, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "cholesky_method",
        lambda T, x: _spd(T, x).cholesky(),
        arg(2, 2),
        tags=(NO_TORCH_FW, NUMERIC_ONLY),
    ),
    _op("linalg_qr_tall", lambda T, x: tuple(T.linalg.qr(x)), arg(4, 3), tags=(NUMERIC_ONLY,)),
    _op("linalg_qr_wide", lambda T, x: tuple(T.linalg.qr(x)), arg(2, 3, 5), tags=(NUMERIC_ONLY,)),
    _op(
        "linalg_qr_complete_wide",
        lambda T, x: T.linalg.qr(x, mode="complete").R,
        arg(2, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op("linalg_eigh", _eigh_parts, arg(3, 3), tags=(NUMERIC_ONLY,)),
    _op("linalg_eigh_batched", _eigh_parts, arg(2, 4, 4), tags=(NUMERIC_ONLY,)),
    _op(
        "linalg_eigvalsh",
        lambda T, x: T.linalg.eigvalsh(_sym(T, x), UPLO="U"),
        arg(3, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op("linalg_svd_tall", _svd_parts, arg(4, 3), tags=(NUMERIC_ONLY,)),
    _op("linalg_svd_wide", _svd_parts, arg(2, 3, 5), tags=(NUMERIC_ONLY,)),
    _op("linalg_svdvals", lambda T, x: T.linalg.svdvals(x), arg(3, 4), tags=(NUMERIC_ONLY,)),
    _op("svd_method_values", lambda T, x: x.svd().S, arg(4, 2), tags=(NUMERIC_ONLY,)),
    _op("linalg_pinv_tall", lambda T, x: T.linalg.pinv(x), arg(4, 3), tags=(NUMERIC_ONLY,)),
    _op("linalg_pinv_wide", lambda T, x: T.linalg.pinv(x), arg(2, 3, 5), tags=(NUMERIC_ONLY,)),
    _op(
        "linalg_pinv_hermitian",
        lambda T, x: T.linalg.pinv(_spd(T, x), hermitian=True),
        arg(3, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op("pinverse", lambda T, x: T.pinverse(x), arg(3, 2), tags=(NUMERIC_ONLY,)),
    _op(
        "linalg_lstsq_gelsd",
        lambda T, a, b: tuple(T.linalg.lstsq(f64(T, np.eye(5, 3) * 4), b, driver="gelsd")[:2]),
        arg(5, 3),
        arg(5, 2),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_lstsq_wide_vector",
        lambda T, a, b: T.linalg.lstsq(a + f64(T, np.eye(2, 4) * 4), b).solution,
        arg(2, 2, 4),
        arg(2, 2),
        tags=(NUMERIC_ONLY,),
    ),
    _op("linalg_matrix_exp", lambda T, x: T.linalg.matrix_exp(x), arg(3, 3), tags=(NUMERIC_ONLY,)),
    _op("matrix_exp_batched", lambda T, x: T.matrix_exp(x * 2), arg(2, 2, 2), tags=(NUMERIC_ONLY,)),
    _op("linalg_cross", lambda T, x, y: T.linalg.cross(x, y), arg(4, 3), arg(4, 3)),
    _op("cross_dim0_broadcast", lambda T, x, y: T.cross(x, y, dim=0), arg(3, 2), arg(3, 1)),
    _op(
        "linalg_multi_dot",
        lambda T, x, y, z: T.linalg.multi_dot([x, y, z]),
        arg(2, 3),
        arg(3, 4),
        arg(4, 1),
    ),
    _op(
        "linalg_multi_dot_vectors",
        lambda T, v, x, y, w: T.linalg.multi_dot([v, x, y, w]),
        arg(3),
        arg(3, 5),
        arg(5, 2),
        arg(2),
    ),
    _op("linalg_matrix_power", lambda T, x: T.linalg.matrix_power(x, 5), arg(3, 3)),
    _op("matrix_power_negative", lambda T, x: _shift(T, x).matrix_power(-2), arg(2, 3, 3)),
    _op("matrix_power_zero", lambda T, x: T.linalg.matrix_power(x, 0), arg(3, 3)),
    _op("linalg_norm_fro", lambda T, x: T.linalg.norm(x), arg(3, 4)),
    _op("linalg_norm_vector_ord", lambda T, x: T.linalg.norm(x, 1), arg(5)),
    _op("linalg_norm_dim", lambda T, x: T.linalg.norm(x, 3, dim=1, keepdim=True), arg(2, 3)),
    _op("linalg_vector_norm", lambda T, x: T.linalg.vector_norm(x, 0.5, dim=(0, 2)), arg(2, 3, 2)),
    _op(
        "linalg_matrix_norm_nuc",
        lambda T, x: T.linalg.matrix_norm(x, "nuc"),
        arg(2, 3, 4),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_matrix_norm_2",
        lambda T, x: T.linalg.matrix_norm(x, 2),
        arg(3, 4),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_matrix_norm_m2_keepdim",
        lambda T, x: T.linalg.matrix_norm(x, -2, dim=(0, 2), keepdim=True),
        arg(3, 2, 4),
        tags=(NUMERIC_ONLY,),
    ),
    _op("linalg_matrix_norm_1", lambda T, x: T.linalg.matrix_norm(x, 1), arg(3, 4)),
    _op(
        "linalg_matrix_norm_inf",
        lambda T, x: T.linalg.matrix_norm(x, float("inf"), keepdim=True),
        arg(2, 3, 4),
    ),
    _op("linalg_norm_matrix_ord", lambda T, x: T.linalg.norm(x, -1), arg(3, 4)),
    _op("linalg_diagonal", lambda T, x: T.linalg.diagonal(x, offset=1), arg(2, 3, 3)),
]

# the LU family: pivots and the permutation are integer or constant, so only the factors and
# solutions are compared and differentiated
MATRICES += [
    _op("linalg_lu_factor", lambda T, x: T.linalg.lu_factor(x).LU, arg(3, 3), tags=(NUMERIC_ONLY,)),
    _op(
        "linalg_lu_factor_ex_wide",
        lambda T, x: T.linalg.lu_factor_ex(x).LU,
        arg(2, 3, 5),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_lu_factor_tall",
        lambda T, x: T.linalg.lu_factor(x).LU,
        arg(5, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op("linalg_lu", lambda T, x: tuple(T.linalg.lu(x))[1:], arg(2, 4, 4), tags=(NUMERIC_ONLY,)),
    _op("linalg_lu_wide", lambda T, x: tuple(T.linalg.lu(x))[1:], arg(3, 5), tags=(NUMERIC_ONLY,)),
    _op("linalg_lu_tall_L", lambda T, x: T.linalg.lu(x).L, arg(2, 5, 3), tags=(NUMERIC_ONLY,)),
    _op(
        "lu_unpack",
        lambda T, x: tuple(T.lu_unpack(*T.linalg.lu_factor(x)))[1:],
        arg(3, 4),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "lu_unpack_tall_U",
        lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x)).U,
        arg(2, 4, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_lu_solve",
        lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(_shift(T, a)), b),
        arg(3, 3),
        arg(3, 2),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_lu_solve_adjoint_broadcast",
        lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(_shift(T, a)), b, adjoint=True),
        arg(2, 3, 3),
        arg(3, 1, 3, 2),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_lu_solve_right",
        lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(_shift(T, a)), b, left=False),
        arg(3, 3),
        arg(4, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_lu_solve_right_adjoint",
        lambda T, a, b: T.linalg.lu_solve(
            *T.linalg.lu_factor(_shift(T, a)), b, left=False, adjoint=True
        ),
        arg(2, 3, 3),
        arg(2, 2, 3),
        tags=(NUMERIC_ONLY,),
    ),
]

# triangular and Cholesky solves, Householder products, cholesky_ex and the composites; the
# Cholesky solves take a triangle, as PyTorch's gradient of the factor covers the whole matrix
MATRICES += [
    _op(
        "linalg_solve_triangular",
        lambda T, a, b: T.linalg.solve_triangular(_shift(T, a), b, upper=True),
        arg(3, 3),
        arg(3, 2),
    ),
    _op(
        "solve_triangular_right_unit_broadcast",
        lambda T, a, b: T.linalg.solve_triangular(
            a, b, upper=False, left=False, unitriangular=True
        ),
        arg(2, 1, 3, 3),
        arg(4, 2, 3),
    ),
    _op(
        "triangular_solve_transpose",
        lambda T, b, a: tuple(T.triangular_solve(b, _shift(T, a), upper=False, transpose=True)),
        arg(2, 3, 2),
        arg(3, 3),
        tags=(TORCH_TANGENT_DIFFERS,),  # PyTorch's forward mode fails on the broadcast copy of A
    ),
    _op(
        "cholesky_solve",
        lambda T, b, f: T.cholesky_solve(b, _shift(T, f).tril()),
        arg(3, 2),
        arg(2, 3, 3),
    ),
    _op(
        "cholesky_solve_upper_method",
        lambda T, b, f: b.cholesky_solve(_shift(T, f).triu(), True),
        arg(2, 3, 1),
        arg(3, 3),
    ),
    _op(
        "cholesky_inverse",
        lambda T, f: T.cholesky_inverse(_shift(T, f).triu(), upper=True),
        arg(2, 3, 3),
        tags=(TORCH_TANGENT_DIFFERS,),  # PyTorch's tangent is not the derivative's
    ),
    _op(
        "linalg_cholesky_ex",
        lambda T, x: T.linalg.cholesky_ex(_spd(T, x)).L,
        arg(2, 3, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_householder_product",
        lambda T, a, tau: T.linalg.householder_product(a, tau),
        arg(4, 3),
        arg(2),
    ),
    _op(
        "orgqr_batched",
        lambda T, a, tau: T.orgqr(a, tau),
        arg(2, 3, 3),
        arg(2, 3),
    ),
    _op(
        "ormqr",
        lambda T, a, tau, c: T.ormqr(a, tau, c),
        arg(3, 2),
        arg(2),
        arg(3, 4),
        tags=(NO_TORCH_FW,),
    ),
    _op(
        "ormqr_right_transpose",
        lambda T, a, tau, c: T.ormqr(a, tau, c, left=False, transpose=True),
        arg(2, 3, 3),
        arg(2, 3),
        arg(2, 2, 3),
        tags=(NO_TORCH_FW,),
    ),
    _op("linalg_vander", lambda T, x: T.linalg.vander(x), arg(4)),
    _op("linalg_vander_N", lambda T, x: T.linalg.vander(x, N=3), arg(2, 3)),
    _op("linalg_vecdot", lambda T, x, y: T.linalg.vecdot(x, y), arg(3, 4), arg(4)),
    _op("linalg_vecdot_vectors", lambda T, x, y: T.linalg.vecdot(x, y), arg(4), arg(4)),
    _op(
        "linalg_cond", lambda T, x: T.linalg.cond(_shift(T, x)), arg(2, 3, 3), tags=(NUMERIC_ONLY,)
    ),
    _op(
        "linalg_cond_nuc",
        lambda T, x: T.linalg.cond(_shift(T, x), "nuc"),
        arg(3, 3),
        tags=(NUMERIC_ONLY,),
    ),
    _op(
        "linalg_tensorinv",
        lambda T, x: T.linalg.tensorinv(_shift(T, x).reshape(4, 2, 2), ind=1),
        arg(4, 4),
    ),
    _op(
        "linalg_tensorsolve",
        lambda T, a, b: T.linalg.tensorsolve(_shift(T, a).reshape(2, 2, 4), b),
        arg(4, 4),
        arg(2, 2),
    ),
]
