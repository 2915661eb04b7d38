"""Linear algebra as programs use it, at its edges, where symgrad once differed from PyTorch:
Cholesky factors of matrices that are not exactly symmetric (``upper=True`` reads the upper
triangle) or hold nan, ...

Each case runs the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the expected
data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _torch_table import NAN, table_tests

F64 = "float64"


def _t(T, values, requires_grad=False):
    return T.tensor(np.asarray(values, dtype=float), dtype=T.float64, requires_grad=requires_grad)


def _error(fn):
    """The exception's type name and message."""
    try:
        fn()
    except Exception as error:  # the type and message are the expected answer
        return type(error).__name__.lstrip("_"), str(error)
    return None


# -- cholesky reads one triangle; nan is not positive-definite ------------------------------------
_LOPSIDED = [[4.0, 2.0], [1.0, 5.0]]  # lower triangle [[4, 1], [1, 5]], upper [[4, 2], [2, 5]]


def _cholesky_grad(T, upper, name="linalg.cholesky"):
    a = _t(T, _LOPSIDED, requires_grad=True)
    f = T.linalg.cholesky if name == "linalg.cholesky" else T.cholesky
    out = f(a, upper=upper)
    (out * _t(T, [[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return out, a.grad


def _not_pd(op):
    return (
        "LinAlgError",
        f"{op}: The factorization could not be completed because the input is not "
        "positive-definite (the leading minor of order 2 is not positive-definite).",
    )


CASES = {
    "cholesky_upper_reads_upper": (
        lambda T: _cholesky_grad(T, True),
        (
            ([[2.0, 1.0], [0.0, 2.0]], F64, "LinalgCholeskyExBackward0"),
            ([[0.25, 0.0], [0.0, 1.0]], F64, None),
        ),
    ),
    "cholesky_lower_reads_lower": (
        lambda T: _cholesky_grad(T, False),
        (
            ([[2.0, 0.0], [0.5, 2.1794]], F64, "LinalgCholeskyExBackward0"),
            ([[0.1199, 0.5206], [0.5206, 0.9177]], F64, None),
        ),
    ),
    "cholesky_old_upper": (
        lambda T: _cholesky_grad(T, True, "cholesky")[0],
        ([[2.0, 1.0], [0.0, 2.0]], F64, "CholeskyBackward0"),
    ),
    "cholesky_ex_upper": (
        lambda T: T.linalg.cholesky_ex(_t(T, _LOPSIDED), upper=True),
        (([[2.0, 1.0], [0.0, 2.0]], F64, None), (0, "int32", None)),
    ),
    "cholesky_ex_upper_nan": (
        lambda T: T.linalg.cholesky_ex(_t(T, [[1.0, NAN], [0.5, 1.0]]), upper=True),
        (([[1.0, NAN], [0.0, NAN]], F64, None), (2, "int32", None)),
    ),
    "cholesky_ex_nan_in_unread_triangle": (
        lambda T: T.linalg.cholesky_ex(_t(T, [[1.0, 0.5], [NAN, 1.0]]), upper=True),
        (([[1.0, 0.5], [0.0, 0.866]], F64, None), (0, "int32", None)),
    ),
    "cholesky_nan_off_diagonal": (
        lambda T: _error(lambda: T.linalg.cholesky(_t(T, [[1.0, NAN], [NAN, 1.0]]))),
        _not_pd("linalg.cholesky"),
    ),
    "cholesky_nan_diagonal": (
        lambda T: _error(lambda: T.linalg.cholesky(_t(T, [[4.0, 2.0], [2.0, NAN]]), upper=True)),
        _not_pd("linalg.cholesky"),
    ),
    "cholesky_nan_first": (
        lambda T: T.linalg.cholesky(_t(T, [[NAN, 0.0], [0.0, 1.0]])),
        ("raises", "LinAlgError"),
    ),
    "cholesky_nan_batch": (
        lambda T: _error(
            lambda: T.linalg.cholesky(_t(T, [[[1.0, 0.0], [0.0, 1.0]], [[1.0, NAN], [NAN, 1.0]]]))
        ),
        (
            "LinAlgError",
            "linalg.cholesky: (Batch element 1): The factorization could not be completed "
            "because the input is not positive-definite (the leading minor of order 2 is not "
            "positive-definite).",
        ),
    ),
    "cholesky_old_names_itself": (
        lambda T: _error(lambda: T.cholesky(_t(T, [[1.0, 2.0], [2.0, 1.0]]))),
        _not_pd("cholesky"),
    ),
}


# -- torch.svd without vectors: square zeros -------------------------------------------------------
def _svd_values_only(T, shape, some=True):
    a = T.arange(float(np.prod(shape)), dtype=T.float64).reshape(shape).requires_grad_()
    u, s, v = T.svd(a.sin(), some=some, compute_uv=False)
    s.sum().backward()
    return tuple(u.shape), tuple(v.shape), u.abs().sum().item(), s.grad_fn is not None, a.grad


CASES.update(
    {
        "svd_values_only_tall": (
            lambda T: _svd_values_only(T, (3, 2)),
            (
                (3, 3),
                (2, 2),
                0.0,
                True,
                ([[-0.2428, 0.4078], [-0.3542, 0.1344], [0.3043, -0.182]], F64, None),
            ),
        ),
        "svd_values_only_wide_full": (
            lambda T: _svd_values_only(T, (2, 3), some=False)[:3],
            ((2, 2), (3, 3), 0.0),
        ),
        "svd_values_only_batch_empty": (
            lambda T: _svd_values_only(T, (2, 0, 3))[:2],
            ((2, 0, 0), (2, 3, 3)),
        ),
    }
)


# -- a norm's dtype= may widen, never narrow -------------------------------------------------------
def _norm_in(T, f, src, dst):
    return _error(lambda: f(T)(T.ones(2, 2, dtype=getattr(T, src)), dtype=getattr(T, dst)))


def _narrowing(op, src, dst):
    return (
        "RuntimeError",
        f"{op}: the dtype of the input ({src}) should be convertible without narrowing to the "
        f"specified dtype ({dst})",
    )


CASES.update(
    {
        "vector_norm_narrowing": (
            lambda T: _norm_in(T, lambda T: T.linalg.vector_norm, "float64", "float32"),
            _narrowing("linalg.vector_norm", "Double", "Float"),
        ),
        "vector_norm_to_half": (
            lambda T: _norm_in(T, lambda T: T.linalg.vector_norm, "float32", "float16"),
            _narrowing("linalg.vector_norm", "Float", "Half"),
        ),
        "matrix_norm_narrowing": (
            lambda T: _norm_in(T, lambda T: T.linalg.matrix_norm, "float64", "float32"),
            _narrowing("linalg.matrix_norm", "Double", "Float"),
        ),
        "matrix_norm_nuc_narrowing": (
            lambda T: _norm_in(
                T,
                lambda T: lambda x, dtype: T.linalg.matrix_norm(x, "nuc", dtype=dtype),
                "float64",
                "float32",
            ),
            _narrowing("linalg.matrix_norm", "Double", "Float"),
        ),
        "linalg_norm_narrowing": (
            lambda T: _norm_in(T, lambda T: T.linalg.norm, "float64", "float32"),
            _narrowing("linalg.vector_norm", "Double", "Float"),
        ),
        "torch_norm_narrowing": (
            lambda T: _norm_in(
                T,
                lambda T: lambda x, dtype: T.norm(x, p=1, dim=1, dtype=dtype),
                "float64",
                "float32",
            ),
            _narrowing("linalg.vector_norm", "Double", "Float"),
        ),
        "torch_norm_nuc_narrowing": (
            lambda T: _norm_in(
                T, lambda T: lambda x, dtype: x.norm("nuc", dtype=dtype), "float64", "float32"
            ),
            _narrowing("linalg.matrix_norm", "Double", "Float"),
        ),
        "norm_integer_dtype": (
            lambda T: _norm_in(T, lambda T: T.linalg.vector_norm, "float64", "int64"),
            (
                "RuntimeError",
                "linalg.vector_norm: dtype should be floating point or complex, but got Long",
            ),
        ),
        "nuc_of_half_in_float32": (
            lambda T: _norm_in(
                T,
                lambda T: lambda x, dtype: T.linalg.matrix_norm(x, 2, dtype=dtype),
                "float16",
                "float32",
            ),
            ("RuntimeError", "linalg.matrix_norm: Low precision dtypes not supported. Got Half"),
        ),
        "norm_widening": (
            lambda T: (
                T.linalg.vector_norm(T.tensor([3.0, 4.0]), 3, dtype=T.float64),
                T.linalg.matrix_norm(T.tensor([[3.0, 4.0]], dtype=T.float16), dtype=T.float32),
                T.norm(T.tensor([[3.0, 4.0]]), "nuc", dtype=T.float64),
            ),
            ((4.4979, F64, None), (5.0, "float32", None), (5.0, F64, None)),
        ),
    }
)


# -- cross of shapes that don't broadcast ---------------------------------------------------------
_CROSS_MISMATCH = (
    "RuntimeError",
    "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0",
)
CASES.update(
    {
        "cross_not_broadcasting": (
            lambda T: _error(lambda: T.linalg.cross(T.ones(2, 3), T.ones(4, 3))),
            _CROSS_MISMATCH,
        ),
        "cross_dim_not_broadcasting": (
            lambda T: _error(lambda: T.linalg.cross(T.ones(2, 3, 1), T.ones(4, 3, 1), dim=1)),
            _CROSS_MISMATCH,
        ),
        "torch_cross_not_broadcasting": (
            lambda T: _error(lambda: T.cross(T.ones(2, 3), T.ones(4, 3))),
            _CROSS_MISMATCH,
        ),
        "cross_broadcasting": (
            lambda T: T.linalg.cross(T.tensor([[1.0, 0.0, 0.0]]), T.tensor([[0.0, 1.0, 0.0]] * 2)),
            ([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]], "float32", None),
        ),
    }
)


# -- solve_triangular solves in A's dtype; linalg.solve's checks in PyTorch's order ---------------
def _triangular_in(T, a_dtype, b_dtype):
    a = (T.eye(2, dtype=getattr(T, a_dtype)) * 2).requires_grad_()
    b = T.ones(2, 1, dtype=getattr(T, b_dtype), requires_grad=True)
    x = T.linalg.solve_triangular(a, b, upper=True)
    x.sum().backward()
    return x, a.grad, b.grad


CASES.update(
    {
        "solve_triangular_float32_a": (
            lambda T: _triangular_in(T, "float32", "float64"),
            (
                ([[0.5], [0.5]], "float32", "LinalgSolveTriangularBackward0"),
                ([[-0.25, -0.25], [0.0, -0.25]], "float32", None),
                ([[0.5], [0.5]], F64, None),
            ),
        ),
        "solve_triangular_float64_a": (
            lambda T: _triangular_in(T, "float64", "float32")[0],
            ([[0.5], [0.5]], F64, "LinalgSolveTriangularBackward0"),
        ),
        "solve_triangular_integer_b": (
            lambda T: T.linalg.solve_triangular(T.eye(2) * 2, T.tensor([[1], [3]]), upper=False),
            ([[0.5], [1.5]], "float32", None),
        ),
        "solve_triangular_integer_a": (
            lambda T: T.linalg.solve_triangular(T.eye(2, dtype=T.int64), T.ones(2, 1), upper=True),
            ("raises", "NotImplementedError"),
        ),
        "solve_triangular_half_a": (
            lambda T: T.linalg.solve_triangular(T.eye(2).half(), T.ones(2, 1), upper=True),
            ("raises", "NotImplementedError"),
        ),
        "solve_half_and_float": (
            lambda T: _error(lambda: T.linalg.solve(T.eye(2).half(), T.ones(2, 1))),
            (
                "RuntimeError",
                "linalg.solve: Expected A and B to have the same dtype, but found A of type Half "
                "and B of type Float instead",
            ),
        ),
        "solve_integer_and_float": (
            lambda T: _error(lambda: T.linalg.solve(T.eye(2, dtype=T.int64), T.ones(2, 1))),
            (
                "RuntimeError",
                "linalg.solve: Expected a floating point or complex tensor as input. Got Long",
            ),
        ),
    }
)


# -- beta and alpha of integer and boolean products -----------------------------------------------
def _ints(T, *shape):
    return T.full(shape, 3, dtype=T.int64)


def _fused_ints(T, beta, alpha):
    return (
        T.addmm(_ints(T, 1, 1), _ints(T, 1, 1), _ints(T, 1, 1), beta=beta, alpha=alpha),
        T.addmv(_ints(T, 1), _ints(T, 1, 1), _ints(T, 1), beta=beta, alpha=alpha),
        T.baddbmm(_ints(T, 1, 1, 1), _ints(T, 1, 1, 1), _ints(T, 1, 1, 1), beta=beta, alpha=alpha),
        T.addbmm(_ints(T, 1, 1), _ints(T, 2, 1, 1), _ints(T, 2, 1, 1), beta=beta, alpha=alpha),
        _ints(T, 1, 1).addmm_(_ints(T, 1, 1), _ints(T, 1, 1), beta=beta, alpha=alpha),
    )


def _bools(T, *shape):
    return T.ones(shape, dtype=T.bool)


CASES.update(
    {
        "integer_products_cut_float_scalars": (
            lambda T: _fused_ints(T, 0.5, 2.7),
            (
                ([[18]], "int64", None),
                ([18], "int64", None),
                ([[[18]]], "int64", None),
                ([[36]], "int64", None),
                ([[18]], "int64", None),
            ),
        ),
        "integer_products_negative_scalars": (
            lambda T: _fused_ints(T, -1.9, 1)[:2],
            (([[6]], "int64", None), ([6], "int64", None)),
        ),
        "integer_addr_float_beta": (
            lambda T: _error(
                lambda: T.addr(_ints(T, 1, 1), _ints(T, 1), _ints(T, 1), beta=0.5, alpha=2)
            ),
            (
                "RuntimeError",
                "For integral input tensors, argument beta must not be a floating point number.",
            ),
        ),
        "integer_addr_bool_alpha": (
            lambda T: _error(lambda: T.addr(_ints(T, 1, 1), _ints(T, 1), _ints(T, 1), alpha=True)),
            ("RuntimeError", "Boolean alpha only supported for Boolean results."),
        ),
        "boolean_addr_is_logical": (
            lambda T: (
                T.addr(_bools(T, 1, 2), _bools(T, 1), T.tensor([True, False]), alpha=2),
                T.addr(_bools(T, 1, 2), _bools(T, 1), T.tensor([True, False]), beta=0),
            ),
            (([[True, True]], "bool", None), ([[True, False]], "bool", None)),
        ),
        "boolean_addmm": (
            lambda T: T.addmm(_bools(T, 1, 1), _bools(T, 1, 1), _bools(T, 1, 1)),
            ("raises", "NotImplementedError"),
        ),
        "boolean_baddbmm": (
            lambda T: T.baddbmm(_bools(T, 1, 1, 1), _bools(T, 1, 1, 1), _bools(T, 1, 1, 1)),
            ("raises", "NotImplementedError"),
        ),
        "boolean_trace": (
            lambda T: _error(lambda: T.trace(_bools(T, 2))),
            ("NotImplementedError", "\"trace\" not implemented for 'Bool'"),
        ),
        "boolean_vdot": (
            lambda T: _error(lambda: T.vdot(_bools(T, 2), _bools(T, 2))),
            ("NotImplementedError", "\"dot\" not implemented for 'Bool'"),
        ),
    }
)


# -- tensordot's dims: a tensor, or two lists ------------------------------------------------------
def _tensordot_shape(T, dims):
    a = T.arange(6.0).reshape(2, 3).requires_grad_()
    out = T.tensordot(a, T.ones(3, 4), dims=dims)
    out.sum().backward()
    return tuple(out.shape), out[0, 0].item(), a.grad


CASES.update(
    {
        "tensordot_dims_0d_tensor": (
            lambda T: _tensordot_shape(T, T.tensor(1)),
            ((2, 4), 3.0, ([[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]], "float32", None)),
        ),
        "tensordot_dims_one_element": (
            lambda T: _tensordot_shape(T, T.tensor([1]))[:2],
            ((2, 4), 3.0),
        ),
        "tensordot_dims_tensor_rows": (
            lambda T: _tensordot_shape(T, T.tensor([[1], [0]]))[:2],
            ((2, 4), 3.0),
        ),
        "tensordot_dims_pair_of_ints": (
            lambda T: _error(lambda: T.tensordot(T.ones(2, 3), T.ones(3, 4), dims=(1, 0))),
            (
                "TypeError",
                "tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not int",
            ),
        ),
        "tensordot_dims_float": (
            lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 4), dims=1.0),
            ("raises", "RuntimeError"),
        ),
        "tensordot_dims_float_element": (
            lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 4), dims=([1.0], [0])),
            ("raises", "TypeError"),
        ),
    }
)

CASES["lu_factor_zero_pivot_is_a_plain_runtime_error"] = (
    lambda T: T.linalg.lu_factor(_t(T, [[1.0, 2.0], [2.0, 4.0]])),
    ("raises", "RuntimeError"),
)


# -- backward through singular triangular factors: inf and nan, no error ---------------------------
_RANK_TWO = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]
_ZERO_PIVOT = [[2.0, 1.0, 0.5], [0.0, 0.0, 1.0], [0.0, 0.0, 3.0]]  # U[1, 1] = 0


def _finite_pattern(t):
    """Which entries of ``t`` are finite (the inf/nan pattern of a singular backward)."""
    return t.isfinite().tolist()


def _lu_of_singular(T, pick):
    a = _t(T, _RANK_TWO, requires_grad=True)
    p, low, up = T.linalg.lu(a)
    pick(low, up).sum().backward()
    return up[2, 2].item(), a.grad.isfinite().any().item()


def _triangular_of_singular(T):
    a = _t(T, _ZERO_PIVOT, requires_grad=True)
    b = _t(T, [[1.0], [2.0], [3.0]], requires_grad=True)
    T.linalg.solve_triangular(a, b, upper=True).sum().backward()
    return _finite_pattern(b.grad), a.grad[0, 0].item()


def _lu_solve_of_singular(T):
    a = _t(T, _RANK_TWO, requires_grad=True)
    lu, pivots, info = T.linalg.lu_factor_ex(a)
    b = _t(T, [[1.0], [2.0], [3.0]], requires_grad=True)
    T.linalg.lu_solve(lu, pivots, b).sum().backward()
    return info.item(), b.grad.isfinite().any().item(), a.grad.isfinite().any().item()


CASES.update(
    {
        "lu_backward_of_singular_matrix": (
            lambda T: _lu_of_singular(T, lambda low, up: low * 2 + up),
            (0.0, False),
        ),
        "lu_backward_of_singular_matrix_u_only": (
            lambda T: _lu_of_singular(T, lambda low, up: up),
            (0.0, False),
        ),
        "lu_factor_ex_backward_of_singular_matrix": (
            lambda T: (
                lambda a: (
                    T.linalg.lu_factor_ex(a).LU.sum().backward(),
                    a.grad.isnan().all().item(),
                )[1]
            )(_t(T, _RANK_TWO, requires_grad=True)),
            True,
        ),
        "solve_triangular_backward_zero_pivot": (
            lambda T: _triangular_of_singular(T),
            (((True,), (False,), (False,)), float("inf")),
        ),
        "triangular_solve_backward_zero_pivot": (
            lambda T: (
                lambda a, b: (
                    T.triangular_solve(b, a).solution.sum().backward(),
                    _finite_pattern(b.grad),
                )[1]
            )(_t(T, _ZERO_PIVOT, requires_grad=True), _t(T, [[1.0], [2.0], [3.0]], True)),
            ((True,), (False,), (False,)),
        ),
        "lu_solve_backward_zero_pivot": (
            lambda T: _lu_solve_of_singular(T),
            (3, False, False),
        ),
        "cholesky_solve_backward_zero_pivot": (
            lambda T: (
                lambda b, f: (
                    T.cholesky_solve(b, f).sum().backward(),
                    b.grad.isfinite().all().item(),
                )[1]
            )(_t(T, [[1.0], [2.0]], True), _t(T, [[1.0, 0.0], [1.0, 0.0]], True)),
            False,
        ),
    }
)


# -- out= of the matrix functions: the result's dtype only, as PyTorch's kernels -----------------
def _into(T, fn, *shape, dtype="float32"):
    """``fn(out)`` with ``out`` of ``dtype``: the error's type, or out's values and dtype."""
    out = T.empty(shape, dtype=getattr(T, dtype))
    try:
        result = fn(T, out)
    except RuntimeError as error:
        return type(error).__name__
    return result is out, out


_A = [[2.0, 1.0], [1.0, 3.0]]


def _a(T):
    return T.tensor(_A, dtype=T.float64)


CASES.update(
    {
        "out_inv_float32_for_float64": (
            lambda T: _into(T, lambda T, o: T.linalg.inv(_a(T), out=o), 2, 2),
            "RuntimeError",
        ),
        "out_solve_float64_for_float32": (
            lambda T: _into(
                T,
                lambda T, o: T.linalg.solve(_a(T).float(), T.ones(2, 1), out=o),
                2,
                1,
                dtype="float64",
            ),
            "RuntimeError",
        ),
        "out_cholesky_float32": (
            lambda T: _into(T, lambda T, o: T.linalg.cholesky(_a(T), out=o), 2, 2),
            "RuntimeError",
        ),
        "out_eigh_float32": (
            lambda T: _into(T, lambda T, o: T.linalg.eigvalsh(_a(T), out=o), 2),
            "RuntimeError",
        ),
        "out_det_float32": (
            lambda T: _into(T, lambda T, o: T.linalg.det(_a(T), out=o)),
            "RuntimeError",
        ),
        "out_vector_norm_float32": (
            lambda T: _into(T, lambda T, o: T.linalg.vector_norm(_a(T), out=o)),
            "RuntimeError",
        ),
        "out_mm_float32": (
            lambda T: _into(T, lambda T, o: T.mm(_a(T), _a(T), out=o), 2, 2),
            "RuntimeError",
        ),
        "out_matmul_int64": (
            lambda T: _into(T, lambda T, o: T.matmul(_a(T), _a(T), out=o), 2, 2, dtype="int64"),
            "RuntimeError",
        ),
        "out_addmm_float32": (
            lambda T: _into(T, lambda T, o: T.addmm(_a(T), _a(T), _a(T), out=o), 2, 2),
            "RuntimeError",
        ),
        "out_lu_factor_int64_pivots": (
            lambda T: _into(
                T,
                lambda T, o: T.linalg.lu_factor(_a(T), out=(T.empty(2, 2, dtype=T.float64), o)),
                2,
                dtype="int64",
            ),
            "RuntimeError",
        ),
        "out_pinv_casts": (
            lambda T: _into(T, lambda T, o: T.linalg.pinv(_a(T), out=o), 2, 2),
            (True, ([[0.6, -0.2], [-0.2, 0.4]], "float32", None)),
        ),
        "out_matrix_rank_casts": (
            lambda T: _into(T, lambda T, o: T.linalg.matrix_rank(_a(T), out=o)),
            (True, (2.0, "float32", None)),
        ),
        "out_mm_same_dtype": (
            lambda T: _into(T, lambda T, o: T.mm(_a(T), _a(T), out=o), 2, 2, dtype="float64"),
            (True, ([[5.0, 5.0], [5.0, 10.0]], F64, None)),
        ),
        "out_torch_qr": (
            lambda T: (lambda q, r: (T.qr(_a(T), out=(q, r)).R is r, r.dtype == T.float64))(
                T.empty(0, dtype=T.float64), T.empty(0, dtype=T.float64)
            ),
            (True, True),
        ),
        "out_tensordot": (
            lambda T: _into(
                T, lambda T, o: T.tensordot(_a(T), _a(T), dims=1, out=o), 2, 2, dtype="float64"
            ),
            (True, ([[5.0, 5.0], [5.0, 10.0]], F64, None)),
        ),
        "out_slogdet_and_chain_matmul": (
            lambda T: (
                T.slogdet(_a(T), out=(T.empty(()).double(), T.empty(()).double())).logabsdet,
                T.chain_matmul(_a(T), _a(T), out=T.empty(0, dtype=T.float64)),
                T.lu_solve(
                    T.ones(2, 1).double(), *T.linalg.lu_factor(_a(T)), out=T.empty(0).double()
                ),
            ),
            (
                (1.6094, F64, None),
                ([[5.0, 5.0], [5.0, 10.0]], F64, None),
                ([[0.4], [0.2]], F64, None),
            ),
        ),
        "out_linalg_type_name": (
            lambda T: (
                type(T.linalg.eigh(_a(T), out=(T.empty(0).double(), T.empty(0).double()))).__name__
            ),
            "linalg_eigh_out",
        ),
    }
)


# -- PyTorch's keyword names -----------------------------------------------------------------------
def _m(T):
    return T.tensor([[2.0, 1.0], [0.0, 3.0]], dtype=T.float64)


_V = [1.0, 2.0]
CASES.update(
    {
        "method_keywords": (
            lambda T: (
                _m(T).mm(mat2=_m(T)),
                _m(T)[None].bmm(mat2=_m(T)[None])[0],
                _m(T).mv(vec=T.tensor(_V).double()),
                T.tensor(_V).outer(vec2=T.tensor(_V)),
                T.tensor(_V).dot(tensor=T.tensor(_V)),
                _m(T).matmul(other=_m(T)),
            ),
            (
                ([[4.0, 5.0], [0.0, 9.0]], F64, None),
                ([[4.0, 5.0], [0.0, 9.0]], F64, None),
                ([4.0, 6.0], F64, None),
                ([[1.0, 2.0], [2.0, 4.0]], "float32", None),
                (5.0, "float32", None),
                ([[4.0, 5.0], [0.0, 9.0]], F64, None),
            ),
        ),
        "method_missing_argument": (
            lambda T: _error(lambda: _m(T).mm()),
            ("TypeError", 'mm() missing 1 required positional arguments: "mat2"'),
        ),
        "function_keywords": (
            lambda T: (
                T.det(input=_m(T)),
                T.slogdet(input=_m(T)).logabsdet,
                T.matrix_power(input=_m(T), n=2),
                T.linalg.matrix_power(input=_m(T), n=-1),
                T.linalg.det(A=_m(T)),
                T.dot(T.tensor(_V), tensor=T.tensor(_V)),
                T.triangular_solve(input=T.ones(2, 1).double(), A=_m(T)).solution,
                T.orgqr(_m(T), input2=T.tensor([0.5]).double()),
            ),
            (
                (6.0, F64, None),
                (1.7918, F64, None),
                ([[4.0, 5.0], [0.0, 9.0]], F64, None),
                ([[0.5, -0.1667], [0.0, 0.3333]], F64, None),
                (6.0, F64, None),
                (5.0, "float32", None),
                ([[0.3333], [0.3333]], F64, None),
                ([[0.5, 0.0], [0.0, 1.0]], F64, None),
            ),
        ),
    }
)


# -- a decomposition saves its factors, not its input: the input may change afterwards ----------
_SPD = [[4.0, 2.0], [2.0, 5.0]]


def _input_changed_after(T, fn, values=_SPD):
    a = _t(T, values, requires_grad=True)
    x = a * 1
    out = fn(T, x)
    outs = out if isinstance(out, tuple) else (out,)
    x.add_(1.0)  # after the decomposition, before backward
    sum(o.sum() for o in outs if o.grad_fn is not None).backward()
    return a.grad


CASES.update(
    {
        "cholesky_then_input_changed": (
            lambda T: _input_changed_after(T, lambda T, x: T.linalg.cholesky(x)),
            ([[0.1875, 0.125], [0.125, 0.25]], F64, None),
        ),
        "cholesky_ex_then_input_changed": (
            lambda T: _input_changed_after(T, lambda T, x: T.linalg.cholesky_ex(x).L),
            ([[0.1875, 0.125], [0.125, 0.25]], F64, None),
        ),
        "eigvalsh_then_input_changed": (
            lambda T: _input_changed_after(T, lambda T, x: T.linalg.eigvalsh(x)),
            ([[1.0, 0.0], [0.0, 1.0]], F64, None),
        ),
        "qr_wide_then_input_changed": (
            lambda T: _input_changed_after(
                T, lambda T, x: tuple(T.linalg.qr(x)), [[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]
            ),
            ([[2.4396, -1.2127, -1.2127], [-1.6407, -0.7276, -0.7276]], F64, None),
        ),
        "svdvals_then_input_changed": (
            lambda T: _input_changed_after(T, lambda T, x: T.linalg.svdvals(x)),
            ([[1.0, 0.0], [0.0, 1.0]], F64, None),
        ),
        "lu_then_input_changed": (
            lambda T: _input_changed_after(T, lambda T, x: tuple(T.linalg.lu(x))[1:]),
            ([[1.125, 0.5], [-0.25, 1.0]], F64, None),
        ),
        "det_then_input_changed": (  # det saves its input: PyTorch's error
            lambda T: _input_changed_after(T, lambda T, x: T.linalg.det(x)),
            ("raises", "RuntimeError"),
        ),
        "kron_then_input_changed": (  # kron's _unsafe_views keep versions of their own
            lambda T: _input_changed_after(T, lambda T, x: T.kron(x, x)),
            ([[34.0, 34.0], [34.0, 34.0]], F64, None),
        ),
    }
)


# -- batches of matrices and right-hand sides that don't broadcast --------------------------------
def _batch_error(dim=0):
    return (
        "RuntimeError",
        "The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension "
        f"{dim}",
    )


def _eyes(T, *batch):
    return T.eye(3).expand(*batch, 3, 3)


CASES.update(
    {
        "solve_batches_not_broadcasting": (
            lambda T: _error(lambda: T.linalg.solve(_eyes(T, 2), T.ones(4, 3, 2))),
            _batch_error(),
        ),
        "solve_left_false_batches": (
            lambda T: _error(lambda: T.linalg.solve(_eyes(T, 2), T.ones(4, 2, 3), left=False)),
            _batch_error(),
        ),
        "solve_batches_inner_dim": (
            lambda T: _error(lambda: T.linalg.solve(_eyes(T, 5, 2), T.ones(4, 3, 2))),
            _batch_error(1),
        ),
        "solve_ex_batches_not_broadcasting": (
            lambda T: _error(lambda: T.linalg.solve_ex(_eyes(T, 2), T.ones(4, 3, 2))),
            _batch_error(),
        ),
        "lu_solve_batches_not_broadcasting": (
            lambda T: _error(
                lambda: T.linalg.lu_solve(*T.linalg.lu_factor(_eyes(T, 2)), T.ones(4, 3, 2))
            ),
            _batch_error(),
        ),
        "solve_batches_broadcasting": (
            lambda T: T.linalg.solve(_eyes(T, 1) * 2, T.ones(4, 3, 1)).sum(),
            (6.0, "float32", None),
        ),
    }
)

CASES["einsum_operand_not_a_tensor"] = (
    lambda T: _error(lambda: T.einsum("ij,jk", T.ones(2, 2), 3)),
    ("TypeError", "expected Tensor as element 1 in argument 1, but got int"),
)

CASES["slogdet_type_names"] = (
    lambda T: tuple(
        type(r).__name__
        for r in (
            T.slogdet(_m(T)),
            _m(T).slogdet(),
            T.linalg.slogdet(_m(T)),
            T.slogdet(_m(T), out=(T.empty(()).double(), T.empty(()).double())),
        )
    ),
    ("slogdet", "slogdet", "linalg_slogdet", "slogdet_out"),
)

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


@pytest.mark.parametrize("name", ["qr", "cholesky"])
def test_older_decompositions_warn_once(name, monkeypatch):
    """torch.qr and torch.cholesky warn that they are deprecated, once per process (PyTorch's
    TORCH_WARN_ONCE, so there is no second PyTorch run to compare with)."""
    import symgrad
    from symgrad.ops import older_decompositions

    monkeypatch.setattr(older_decompositions, "_WARNED", set())
    a = symgrad.tensor([[4.0, 2.0], [2.0, 5.0]])
    with pytest.warns(UserWarning, match=f"torch.{name} is deprecated") as caught:
        getattr(symgrad, name)(a)
    assert caught[0].filename == __file__  # the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(a, name)()  # the method too, but only once in all
        symgrad.nn.init.orthogonal_(symgrad.empty(3, 3))  # linalg.qr: no warning
