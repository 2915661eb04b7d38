"""Triangular and Cholesky solves, Householder products, LDL, ``cholesky_ex``, ``cond``,
``vander``, ``vecdot``, ``tensorinv``, ``tensorsolve`` and the removed linear-algebra names
(symgrad.ops.triangular_solves, householder, ldl, cholesky_info, linalg_composites,
removed_linalg).

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed. Gradients are
also checked against central finite differences in float64, first and second order.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _torch_table import NAN, table_tests

import symgrad
from symgrad.autograd import gradcheck, gradgradcheck

INF = math.inf


def _m(T, rows, requires_grad=True, dtype=None):
    return T.tensor(rows, dtype=dtype or T.float64, requires_grad=requires_grad)


def _grads(T, make, *inputs):
    """The results of ``make(T, *tensors)`` and each tensor's gradient after backward of the
    results' weighted sum."""
    xs = [_m(T, x) for x in inputs]
    out = make(T, *xs)
    outs = tuple(out) if isinstance(out, tuple) else (out,)
    total = 0
    for k, o in enumerate(outs):
        weights = T.arange(o.numel(), dtype=T.float64).reshape(o.shape) / 7 + k - 0.5
        total = total + (o * weights).sum()
    total.backward()
    return (*outs, *[x.grad for x in xs])


UP = [[2.0, 1.0, -1.0], [9.0, 4.0, 1.0], [9.0, 9.0, 5.0]]  # read as upper: 9s are ignored
LOW = [[2.0, 9.0, 9.0], [1.0, 4.0, 9.0], [-1.0, 1.0, 5.0]]
RHS = [[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]]
CHOL = [[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [-1.0, 0.5, 1.5]]
SPD = [[4.0, 2.0, -2.0], [2.0, 10.0, 0.5], [-2.0, 0.5, 3.5]]
SQUARE = [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, -1.0, 4.0]]
TALL = [[3.0, 1.0], [4.0, 2.0], [0.0, 5.0]]
SYM = [[1.0, 2.0, 3.0], [2.0, 0.5, 4.0], [3.0, 4.0, -1.0]]
NOT_PD = [[4.0, 2.0, 1.0, 3.0], [2.0, 5.0, 5.0, 1.0], [1.0, 5.0, 3.0, 2.0], [3.0, 1.0, 2.0, -1.0]]
F32 = "float32"
F64 = "float64"


def _st(**flags):
    return lambda T: _grads(T, lambda T, a, b: T.linalg.solve_triangular(a, b, **flags), UP, RHS)


def _householder(T, make, rows, *extra):
    a, tau = T.geqrf(_m(T, rows, False))
    xs = [a.clone().requires_grad_(), tau.clone().requires_grad_()]
    xs += [_m(T, e) for e in extra]
    out = make(T, *xs)
    (out * T.arange(out.numel(), dtype=T.float64).reshape(out.shape)).sum().backward()
    return (out, *[x.grad for x in xs])


def _cond(p, rows=SQUARE):
    return lambda T: _grads(T, lambda T, a: T.linalg.cond(a, p), rows)


def _cond_backward(p):
    def run(T):
        a = _m(T, SQUARE)
        c = T.linalg.cond(a, p)
        c.backward()  # PyTorch's in-place fill of the saved inverse makes this raise

    return run


CASES = {
    # -- linalg.solve_triangular: only the triangle read, its gradient kept on it
    "solve_triangular_upper": (
        _st(upper=True),
        (
            (
                [[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]],
                "float64",
                "LinalgSolveTriangularBackward0",
            ),
            (
                [[0.3371, 0.1009, 0.1679], [0.0, 0.0056, -0.0223], [0.0, 0.0, 0.0023]],
                "float64",
                None,
            ),
            ([[-0.25, -0.1786], [0.0089, 0.0268], [-0.0375, 0.0018]], "float64", None),
        ),
    ),
    "solve_triangular_lower_unit": (
        lambda T: _grads(
            T,
            lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
            LOW,
            RHS,
        ),
        (
            ([[1.0, 2.0], [2.0, -3.0], [-0.5, 9.0]], "float64", "LinalgSolveTriangularBackward0"),
            ([[0.0, 0.0, 0.0], [0.8571, 0.0, 0.0], [-0.5, 0.5, 0.0]], "float64", None),
            ([[-0.1429, 0.1429], [-0.2857, -0.2857], [0.0714, 0.2143]], "float64", None),
        ),
    ),
    "solve_triangular_right": (
        lambda T: _grads(
            T,
            lambda T, a, b: T.linalg.solve_triangular(a, b.mT, upper=True, left=False),
            UP,
            RHS,
        ),
        (
            ([[0.5, 0.625, 0.075], [1.0, -0.5, 1.1]], "float64", "LinalgSolveTriangularBackward0"),
            (
                [[0.1339, 0.0321, -0.0214], [0.0, 0.0527, 0.0482], [0.0, 0.0, -0.0439]],
                "float64",
                None,
            ),
            ([[-0.2321, -0.0179], [-0.0786, 0.0071], [-0.0429, 0.0429]], "float64", None),
        ),
    ),
    "solve_triangular_right_lower_unit": (
        lambda T: _grads(
            T,
            lambda T, a, b: T.linalg.solve_triangular(
                a, b.mT, upper=False, left=False, unitriangular=True
            ),
            LOW,
            RHS,
        ),
        (
            ([[-1.0, 2.5, 0.5], [11.0, -5.0, 4.0]], "float64", "LinalgSolveTriangularBackward0"),
            ([[0.0, 0.0, 0.0], [0.8929, 0.0, 0.0], [0.5357, -0.6429, 0.0]], "float64", None),
            ([[-0.5, -0.0714], [0.1429, 0.1429], [-0.8571, 0.0]], "float64", None),
        ),
    ),
    "solve_triangular_broadcast": (
        lambda T: _grads(
            T,
            lambda T, a, b: T.linalg.solve_triangular(a.expand(2, 1, 3, 3), b, upper=True),
            UP,
            [RHS, RHS, RHS],
        ),
        (
            (
                [
                    [
                        [[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]],
                        [[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]],
                        [[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]],
                    ],
                    [
                        [[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]],
                        [[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]],
                        [[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]],
                    ],
                ],
                "float64",
                "LinalgSolveTriangularBackward0",
            ),
            (
                [[-9.6295, -1.1625, -4.7786], [0.0, -0.4085, -1.5804], [0.0, 0.0, -3.1682]],
                "float64",
                None,
            ),
            (
                [
                    [[0.7857, 0.9286], [0.3393, 0.375], [0.6321, 0.7107]],
                    [[1.6429, 1.7857], [0.5536, 0.5893], [1.1036, 1.1821]],
                    [[2.5, 2.6429], [0.7679, 0.8036], [1.575, 1.6536]],
                ],
                "float64",
                None,
            ),
        ),
    ),
    "solve_triangular_promotes": (
        lambda T: T.linalg.solve_triangular(
            _m(T, UP, False), _m(T, RHS, False, T.float32), upper=True
        ),
        ([[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]], "float64", None),
    ),
    "solve_triangular_zero_diagonal": (
        lambda T: T.linalg.solve_triangular(T.zeros(2, 2), T.ones(2, 1), upper=True),
        ([["nan"], [INF]], "float32", None),
    ),
    "solve_triangular_empty": (
        lambda T: T.linalg.solve_triangular(T.zeros(0, 0), T.zeros(0, 2), upper=False),
        ([], "float32", None),
    ),
    "solve_triangular_no_upper": (
        lambda T: T.linalg.solve_triangular(_m(T, UP), _m(T, RHS)),
        ("raises", "TypeError"),
    ),
    "solve_triangular_upper_positional": (
        lambda T: T.linalg.solve_triangular(_m(T, UP), _m(T, RHS), True),
        ("raises", "TypeError"),
    ),
    "solve_triangular_upper_not_bool": (
        lambda T: T.linalg.solve_triangular(_m(T, UP), _m(T, RHS), upper="yes"),
        ("raises", "TypeError"),
    ),
    "solve_triangular_vector_b": (
        lambda T: T.linalg.solve_triangular(_m(T, UP), T.ones(3, dtype=T.float64), upper=True),
        ("raises", "RuntimeError"),
    ),
    "solve_triangular_not_square": (
        lambda T: T.linalg.solve_triangular(T.ones(2, 3), T.ones(2, 1), upper=True),
        ("raises", "RuntimeError"),
    ),
    "solve_triangular_shapes": (
        lambda T: T.linalg.solve_triangular(T.ones(3, 3), T.ones(2, 3), upper=True),
        ("raises", "RuntimeError"),
    ),
    "solve_triangular_batches": (
        lambda T: T.linalg.solve_triangular(T.ones(2, 3, 3), T.ones(4, 3, 1), upper=True),
        ("raises", "RuntimeError"),
    ),
    "solve_triangular_int": (
        lambda T: T.linalg.solve_triangular(
            T.eye(2, dtype=T.int64), T.ones(2, 1, dtype=T.int64), upper=True
        ),
        ("raises", "NotImplementedError"),
    ),
    # -- triangular_solve: (solution, cloned_coefficient), one node for both
    "triangular_solve": (
        lambda T: _grads(T, lambda T, b, a: tuple(T.triangular_solve(b, a)), RHS, UP),
        (
            ([[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]], "float64", "TriangularSolveBackward0"),
            (
                [[2.0, 1.0, -1.0], [9.0, 4.0, 1.0], [9.0, 9.0, 5.0]],
                "float64",
                "TriangularSolveBackward0",
            ),
            ([[-0.25, -0.1786], [0.0089, 0.0268], [-0.0375, 0.0018]], "float64", None),
            (
                [[0.8371, 0.7437, 0.9536], [0.9286, 1.077, 1.192], [1.3571, 1.5, 1.6452]],
                "float64",
                None,
            ),
        ),
    ),
    "triangular_solve_transpose_unit_lower": (
        lambda T: _grads(
            T,
            lambda T, b, a: tuple(T.triangular_solve(b, a, False, True, True)),
            RHS,
            LOW,
        ),
        (
            ([[-1.0, 11.0], [2.5, -5.0], [0.5, 4.0]], "float64", "TriangularSolveBackward0"),
            (
                [[2.0, 9.0, 9.0], [1.0, 4.0, 9.0], [-1.0, 1.0, 5.0]],
                "float64",
                "TriangularSolveBackward0",
            ),
            ([[-0.5, -0.3571], [0.2857, 0.2857], [-0.7143, -0.4286]], "float64", None),
            (
                [[0.5, 0.6429, 0.7857], [0.3929, 1.0714, 1.2143], [3.0357, 0.2143, 1.6429]],
                "float64",
                None,
            ),
        ),
    ),
    "triangular_solve_method_broadcast": (
        lambda T: _grads(
            T,
            lambda T, b, a: tuple(b.triangular_solve(a.expand(2, 3, 3), upper=True)),
            RHS,
            UP,
        ),
        (
            (
                [
                    [[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]],
                    [[0.1875, 1.625], [0.725, -0.45], [0.1, 0.8]],
                ],
                "float64",
                "TriangularSolveBackward0",
            ),
            (
                [
                    [[2.0, 1.0, -1.0], [9.0, 4.0, 1.0], [9.0, 9.0, 5.0]],
                    [[2.0, 1.0, -1.0], [9.0, 4.0, 1.0], [9.0, 9.0, 5.0]],
                ],
                "float64",
                "TriangularSolveBackward0",
            ),
            ([[-0.0714, 0.0714], [0.125, 0.1607], [0.1607, 0.2393]], "float64", None),
            (
                [[2.183, 2.6554, 2.8071], [3.1429, 3.4103, 3.5732], [4.0, 4.2857, 4.3639]],
                "float64",
                None,
            ),
        ),
    ),
    "triangular_solve_vector": (
        lambda T: T.triangular_solve(T.ones(3), T.eye(3)),
        ("raises", "RuntimeError"),
    ),
    "triangular_solve_dtypes": (
        lambda T: T.triangular_solve(T.ones(3, 1), T.eye(3, dtype=T.float64)),
        ("raises", "RuntimeError"),
    ),
    # -- cholesky_solve and cholesky_inverse: PyTorch's gradients of the whole factor
    "cholesky_solve": (
        lambda T: _grads(T, lambda T, b, f: T.cholesky_solve(b, f), RHS, CHOL),
        (
            (
                [[0.2623, 1.9938], [0.2346, -0.6173], [0.2593, 2.3704]],
                "float64",
                "CholeskySolveBackward0",
            ),
            ([[-0.1748, -0.0906], [0.0176, 0.0106], [-0.082, 0.0079]], "float64", None),
            (
                [[0.5996, 0.0109, 0.3987], [-0.071, 0.0116, -0.0083], [0.5212, -0.0141, 0.0073]],
                "float64",
                None,
            ),
        ),
    ),
    "cholesky_solve_upper_method": (
        lambda T: _grads(T, lambda T, b, f: b.cholesky_solve(f.mT, upper=True), RHS, CHOL),
        (
            (
                [[0.2623, 1.9938], [0.2346, -0.6173], [0.2593, 2.3704]],
                "float64",
                "CholeskySolveBackward0",
            ),
            ([[-0.1748, -0.0906], [0.0176, 0.0106], [-0.082, 0.0079]], "float64", None),
            (
                [[0.5996, 0.0109, 0.3987], [-0.071, 0.0116, -0.0083], [0.5212, -0.0141, 0.0073]],
                "float64",
                None,
            ),
        ),
    ),
    "cholesky_solve_broadcast": (
        lambda T: _grads(T, lambda T, b, f: T.cholesky_solve(b, f.expand(2, 3, 3)), RHS, CHOL),
        (
            (
                [
                    [[0.2623, 1.9938], [0.2346, -0.6173], [0.2593, 2.3704]],
                    [[0.2623, 1.9938], [0.2346, -0.6173], [0.2593, 2.3704]],
                ],
                "float64",
                "CholeskySolveBackward0",
            ),
            ([[0.1556, 0.3241], [-0.0071, -0.0212], [0.3757, 0.5556]], "float64", None),
            (
                [[-0.5256, -0.3846, -3.0221], [0.0855, 0.085, 0.4602], [-0.8942, -0.4938, -4.2428]],
                "float64",
                None,
            ),
        ),
    ),
    "cholesky_solve_shapes": (
        lambda T: T.cholesky_solve(T.ones(2, 1), T.eye(3)),
        ("raises", "RuntimeError"),
    ),
    "cholesky_solve_int": (
        lambda T: T.cholesky_solve(T.ones(3, 1, dtype=T.int64), T.eye(3, dtype=T.int64)),
        ("raises", "NotImplementedError"),
    ),
    "cholesky_inverse": (
        lambda T: _grads(T, lambda T, f: T.cholesky_inverse(f), CHOL),
        (
            (
                [[0.429, -0.0988, 0.2593], [-0.0988, 0.1235, -0.0741], [0.2593, -0.0741, 0.4444]],
                "float64",
                "CholeskyInverseBackward0",
            ),
            (
                [[0.1748, -0.054, -0.0815], [-0.0176, 0.0035, 0.0012], [0.082, -0.0926, -0.2848]],
                "float64",
                None,
            ),
        ),
    ),
    "cholesky_inverse_upper_method": (
        lambda T: _grads(T, lambda T, f: f.mT.cholesky_inverse(upper=True), CHOL),
        (
            (
                [[0.429, -0.0988, 0.2593], [-0.0988, 0.1235, -0.0741], [0.2593, -0.0741, 0.4444]],
                "float64",
                "CholeskyInverseBackward0",
            ),
            (
                [[0.1748, -0.054, -0.0815], [-0.0176, 0.0035, 0.0012], [0.082, -0.0926, -0.2848]],
                "float64",
                None,
            ),
        ),
    ),
    "cholesky_inverse_zero_diagonal": (
        lambda T: T.cholesky_inverse(T.zeros(2, 2)),
        ("raises", "LinAlgError"),
    ),
    "cholesky_inverse_vector": (
        lambda T: T.cholesky_inverse(T.ones(3)),
        ("raises", "RuntimeError"),
    ),
    # -- cholesky_ex: LAPACK's partly factored L and the order of the failing minor
    "cholesky_ex": (
        lambda T: _grads(T, lambda T, a: T.linalg.cholesky_ex(a).L, SPD),
        (
            (
                [[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [-1.0, 0.5, 1.5]],
                "float64",
                "LinalgCholeskyExBackward0",
            ),
            (
                [[-0.0407, 0.004, 0.1726], [0.004, 0.004, 0.0476], [0.1726, 0.0476, 0.2143]],
                "float64",
                None,
            ),
        ),
    ),
    "cholesky_ex_info": (
        lambda T: tuple(T.linalg.cholesky_ex(_m(T, SPD))),
        (
            (
                [[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [-1.0, 0.5, 1.5]],
                "float64",
                "LinalgCholeskyExBackward0",
            ),
            (0, "int32", None),
        ),
    ),
    "cholesky_ex_upper": (
        lambda T: _grads(T, lambda T, a: T.linalg.cholesky_ex(a, upper=True).L, SPD),
        (
            (
                [[2.0, 1.0, -1.0], [0.0, 3.0, 0.5], [0.0, 0.0, 1.5]],
                "float64",
                "LinalgCholeskyExBackward0",
            ),
            (
                [[-0.0506, -0.0952, 0.0536], [-0.0952, 0.0119, 0.0], [0.0536, 0.0, 0.2143]],
                "float64",
                None,
            ),
        ),
    ),
    "cholesky_ex_not_positive_definite": (
        lambda T: tuple(T.linalg.cholesky_ex(_m(T, NOT_PD, False))),
        (
            (
                [
                    [2.0, 0.0, 0.0, 0.0],
                    [1.0, 2.0, 0.0, 0.0],
                    [0.5, 2.25, -2.3125, 0.0],
                    [1.5, -0.25, 2.0, -1.0],
                ],
                "float64",
                None,
            ),
            (3, "int32", None),
        ),
    ),
    "cholesky_ex_batch_info": (
        lambda T: T.linalg.cholesky_ex(T.stack([T.eye(2), -T.eye(2)])).info,
        ([0, 1], "int32", None),
    ),
    "cholesky_ex_check_errors": (
        lambda T: T.linalg.cholesky_ex(-T.eye(2), check_errors=True),
        ("raises", "LinAlgError"),
    ),
    "cholesky_ex_int": (
        lambda T: T.linalg.cholesky_ex(T.eye(2, dtype=T.int64)),
        ("raises", "RuntimeError"),
    ),
    # -- Householder reflectors
    "geqrf": (
        lambda T: tuple(T.geqrf(_m(T, TALL))),
        (
            ([[-5.0, -2.2], [0.5, -5.016], [0.0, 0.9232]], "float64", "GeqrfBackward0"),
            ([1.6, 1.0797], "float64", "GeqrfBackward0"),
        ),
    ),
    "geqrf_backward": (
        lambda T: T.geqrf(_m(T, TALL)).a.sum().backward(),
        ("raises", "NotImplementedError"),
    ),
    "geqrf_int": (
        lambda T: T.geqrf(T.ones(2, 2, dtype=T.int64)),
        ("raises", "NotImplementedError"),
    ),
    "householder_product": (
        lambda T: _householder(T, lambda T, a, t: T.linalg.householder_product(a, t), TALL),
        (
            (
                [[-0.6, 0.0638], [-0.8, -0.0478], [0.0, -0.9968]],
                "float64",
                "LinalgHouseholderProductBackward0",
            ),
            ([[0.0, 0.0], [-2.6896, 0.0], [-2.0938, -5.3987]], "float64", None),
            ([-0.9003, -5.616], "float64", None),
        ),
    ),
    "orgqr_square": (
        lambda T: _householder(T, lambda T, a, t: T.orgqr(a, t), SQUARE),
        (
            (
                [[-0.8944, 0.4082, -0.1826], [-0.4472, -0.8165, 0.3651], [0.0, 0.4082, 0.9129]],
                "float64",
                "LinalgHouseholderProductBackward0",
            ),
            ([[0.0, 0.0, 0.0], [-4.0605, 0.0, 0.0], [-16.9731, -13.7018, 0.0]], "float64", None),
            ([-0.5957, -1.2374, -8.7636], "float64", None),
        ),
    ),
    "orgqr_method_fewer_reflectors": (
        lambda T: _householder(T, lambda T, a, t: a.orgqr(t[:1]), SQUARE),
        (
            (
                [[-0.8944, -0.4472, 0.0], [-0.4472, 0.8944, 0.0], [0.0, 0.0, 1.0]],
                "float64",
                "LinalgHouseholderProductBackward0",
            ),
            ([[0.0, 0.0, 0.0], [-11.1554, 0.0, 0.0], [-20.522, 0.0, 0.0]], "float64", None),
            ([-1.1672, 0.0, 0.0], "float64", None),
        ),
    ),
    "householder_product_wide": (
        lambda T: T.linalg.householder_product(T.ones(2, 3), T.ones(2)),
        ("raises", "RuntimeError"),
    ),
    "householder_product_tau_dtype": (
        lambda T: T.linalg.householder_product(T.ones(3, 2), T.ones(2, dtype=T.float64)),
        ("raises", "RuntimeError"),
    ),
    "ormqr": (
        lambda T: _householder(T, lambda T, a, t, c: T.ormqr(a, t, c), TALL, RHS),
        (
            (
                [[-0.0099, 1.926], [-1.2426, -3.9445], [-2.9506, 1.3158]],
                "float64",
                "OrmqrBackward0",
            ),
            ([[0.0, 0.0], [14.5686, 0.0], [-4.9517, -56.3849]], "float64", None),
            ([-0.7468, -32.0594], "float64", None),
            ([[-1.6, -3.0], [-4.083, -5.0638], [-0.8772, -0.5981]], "float64", None),
        ),
    ),
    "ormqr_transpose_method": (
        lambda T: _householder(T, lambda T, a, t, c: a.ormqr(t, c, transpose=True), TALL, RHS),
        (
            ([[-3.0, -0.4], [-0.5782, -3.8118], [-0.9569, 2.512]], "float64", "OrmqrBackward0"),
            ([[0.0, 0.0], [36.4965, 0.0], [24.892, -50.3383]], "float64", None),
            ([7.6009, -19.6895], "float64", None),
            ([[3.3174, 3.5786], [-2.4881, -3.934], [-1.6746, -2.5917]], "float64", None),
        ),
    ),
    "ormqr_right": (
        lambda T: _householder(T, lambda T, a, t, c: T.ormqr(a, t, c.mT, left=False), TALL, RHS),
        (
            ([[-3.0, -0.5782, -0.9569], [-0.4, -3.8118, 2.512]], "float64", "OrmqrBackward0"),
            ([[0.0, 0.0], [26.5545, 0.0], [10.5609, -49.9643]], "float64", None),
            ([2.069, -17.022], "float64", None),
            ([[1.6587, 2.4424], [-1.244, -5.5818], [-0.8373, -3.5885]], "float64", None),
        ),
    ),
    "ormqr_right_transpose": (
        lambda T: _householder(
            T, lambda T, a, t, c: T.ormqr(a, t, c.mT, left=False, transpose=True), TALL, RHS
        ),
        (
            ([[-0.0099, -1.2426, -2.9506], [1.926, -3.9445, 1.3158]], "float64", "OrmqrBackward0"),
            ([[0.0, 0.0], [30.5444, 0.0], [-10.5556, -43.2699]], "float64", None),
            ([-0.5468, -20.8982], "float64", None),
            ([[-0.8, -5.0], [-2.0415, -4.9841], [-0.4386, 0.3987]], "float64", None),
        ),
    ),
    "ormqr_shapes": (
        lambda T: T.ormqr(T.ones(3, 2), T.ones(2), T.ones(2, 2)),
        ("raises", "RuntimeError"),
    ),
    # -- LDL: LAPACK's packing and pivots; no derivative
    "ldl_factor": (
        lambda T: tuple(T.linalg.ldl_factor(_m(T, SYM, False))),
        (
            ([[1.0, 0.0, 0.0], [3.0, -1.0, 0.0], [1.4, 0.2, -3.1]], "float64", None),
            ([-3, -3, 3], "int32", None),
        ),
    ),
    "ldl_factor_ex_zero": (
        lambda T: tuple(T.linalg.ldl_factor_ex(T.zeros(2, 2))),
        (([[0.0, 0.0], [0.0, 0.0]], "float32", None), ([1, 2], "int32", None), (1, "int32", None)),
    ),
    "ldl_factor_singular": (
        lambda T: T.linalg.ldl_factor(T.zeros(2, 2)),
        ("raises", "RuntimeError"),
    ),
    "ldl_factor_backward": (
        lambda T: T.linalg.ldl_factor(_m(T, SYM)).LD.sum().backward(),
        ("raises", "RuntimeError"),
    ),
    "ldl_solve": (
        lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(_m(T, SYM, False)), _m(T, RHS)),
        ([[0.9274, -0.6774], [-0.4839, 1.4839], [0.3468, -0.0968]], "float64", "NotImplemented"),
    ),
    "ldl_solve_hermitian_broadcast": (
        lambda T: T.linalg.ldl_solve(
            *T.linalg.ldl_factor(_m(T, SYM, False)), _m(T, [RHS, RHS], False), hermitian=True
        ),
        (
            [
                [[0.9274, -0.6774], [-0.4839, 1.4839], [0.3468, -0.0968]],
                [[0.9274, -0.6774], [-0.4839, 1.4839], [0.3468, -0.0968]],
            ],
            "float64",
            None,
        ),
    ),
    "ldl_solve_vector": (
        lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(_m(T, SYM)), _m(T, [1.0, 2.0, 3.0])),
        ("raises", "IndexError"),
    ),
    "ldl_solve_dtype_checked_first": (
        lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(_m(T, SYM)), T.ones(3)),
        ("raises", "RuntimeError"),
    ),
    "ldl_solve_pivots_shape": (
        lambda T: T.linalg.ldl_solve(
            T.eye(3, dtype=T.float64), T.ones(2, dtype=T.int32), T.ones(3, 1, dtype=T.float64)
        ),
        ("raises", "RuntimeError"),
    ),
    # -- cond
    "cond_default": (
        _cond(None),
        (
            (2.8975, "float64", "SqueezeBackward1"),
            (
                [[0.7585, -0.4334, -0.0716], [-0.4334, 0.2535, -0.0037], [0.0716, 0.0037, -0.3508]],
                "float64",
                None,
            ),
        ),
    ),
    "cond_2_wide": (
        _cond(2, TALL),
        (
            (1.5463, "float64", "SqueezeBackward1"),
            ([[0.0311, -0.0925], [0.0195, -0.1191], [-0.1648, 0.0319]], "float64", None),
        ),
    ),
    "cond_minus_2": (
        _cond(-2, TALL),
        (
            (0.6467, "float64", "SqueezeBackward1"),
            ([[-0.013, 0.0387], [-0.0082, 0.0498], [0.0689, -0.0133]], "float64", None),
        ),
    ),
    "cond_nuc": (
        _cond("nuc"),
        (
            (11.2365, "float64", "MulBackward0"),
            (
                [[1.1798, -0.8272, -0.1382], [-0.8272, 0.2143, 0.0021], [0.1382, -0.0021, -0.338]],
                "float64",
                None,
            ),
        ),
    ),
    "cond_fro": (
        lambda T: T.linalg.cond(_m(T, SQUARE), "fro"),
        (4.5227, "float64", "NanToNumBackward0"),
    ),
    "cond_inf": (
        lambda T: T.linalg.cond(_m(T, SQUARE), math.inf),
        (4.0909, "float64", "NanToNumBackward0"),
    ),
    "cond_minus_inf": (
        lambda T: T.linalg.cond(_m(T, SQUARE), -math.inf),
        (1.0909, "float64", "NanToNumBackward0"),
    ),
    "cond_1": (
        lambda T: T.linalg.cond(_m(T, [SQUARE, SPD]), 1),
        ([4.0909, 9.838], "float64", "NanToNumBackward0"),
    ),
    "cond_minus_1": (
        lambda T: T.linalg.cond(_m(T, SQUARE), -1),
        (1.0909, "float64", "NanToNumBackward0"),
    ),
    "cond_fro_backward": (_cond_backward("fro"), ("raises", "RuntimeError")),
    "cond_1_backward": (_cond_backward(1), ("raises", "RuntimeError")),
    "cond_singular": (
        lambda T: tuple(T.linalg.cond(T.tensor([[1.0, 2.0], [2.0, 4.0]]), p) for p in ("fro", 1)),
        ((INF, "float32", None), (INF, "float32", None)),
    ),
    "cond_nuc_singular": (
        lambda T: T.linalg.cond(T.tensor([[1.0, 0.0], [0.0, 0.0]]), "nuc"),
        (INF, F32, None),
    ),
    "cholesky_ex_nan": (
        lambda T: tuple(T.linalg.cholesky_ex(T.tensor([[math.nan, 0.0], [0.0, 1.0]]))),
        (([[NAN, 0.0], [0.0, 1.0]], F32, None), (1, "int32", None)),
    ),
    "cond_empty": (lambda T: T.linalg.cond(T.ones(3, 0, 0)), ([0.0, 0.0, 0.0], "float32", None)),
    "cond_bad_order": (lambda T: T.linalg.cond(T.eye(2), 3), ("raises", "RuntimeError")),
    "cond_bad_string": (lambda T: T.linalg.cond(T.eye(2), "bad"), ("raises", "RuntimeError")),
    "cond_not_square": (lambda T: T.linalg.cond(T.ones(2, 3), 1), ("raises", "RuntimeError")),
    "cond_vector": (lambda T: T.linalg.cond(T.ones(2)), ("raises", "RuntimeError")),
    # -- vander and vecdot
    "vander": (
        lambda T: _grads(T, lambda T, x: T.linalg.vander(x), [1.5, -2.0, 0.0]),
        (
            ([[1.0, 1.5, 2.25], [1.0, -2.0, 4.0], [1.0, 0.0, 0.0]], "float64", "CatBackward0"),
            ([-1.0, -0.7857, 0.5], "float64", None),
        ),
    ),
    "vander_N_batch": (
        lambda T: _grads(T, lambda T, x: T.linalg.vander(x, N=4), [[1.5, -2.0], [0.5, 3.0]]),
        (
            (
                [
                    [[1.0, 1.5, 2.25, 3.375], [1.0, -2.0, 4.0, -8.0]],
                    [[1.0, 0.5, 0.25, 0.125], [1.0, 3.0, 9.0, 27.0]],
                ],
                "float64",
                "CatBackward0",
            ),
            ([[-1.4821, 4.7857], [2.5179, 54.7143]], "float64", None),
        ),
    ),
    "vander_int": (
        lambda T: T.linalg.vander(T.tensor([2, 3]), N=3),
        ([[1, 2, 4], [1, 3, 9]], "int64", None),
    ),
    "vander_N_1": (lambda T: T.linalg.vander(T.ones(3), N=1), ("raises", "RuntimeError")),
    "vander_0d": (lambda T: T.linalg.vander(T.tensor(2.0)), ("raises", "RuntimeError")),
    "vander_bool": (
        lambda T: T.linalg.vander(T.tensor([True, False])),
        ("raises", "RuntimeError"),
    ),
    "vander_N_positional": (
        lambda T: T.linalg.vander(T.ones(3), 3),
        ("raises", "TypeError"),
    ),
    "vecdot_vectors": (
        lambda T: _grads(T, lambda T, x, y: T.linalg.vecdot(x, y), [1.0, 2.0], [3.0, -1.0]),
        (
            (1.0, "float64", "VdotBackward0"),
            ([-1.5, 0.5], "float64", None),
            ([-0.5, -1.0], "float64", None),
        ),
    ),
    "vecdot_broadcast_dim": (
        lambda T: _grads(
            T, lambda T, x, y: T.linalg.vecdot(x, y, dim=0), RHS, [[1.0], [2.0], [3.0]]
        ),
        (
            ([8.5, 12.0], "float64", "SumBackward1"),
            ([[-0.5, -0.3571], [-1.0, -0.7143], [-1.5, -1.0714]], "float64", None),
            ([[-1.2143], [-1.1429], [-1.6786]], "float64", None),
        ),
    ),
    "vecdot_int": (
        lambda T: T.linalg.vecdot(T.tensor([1, 2]), T.tensor([1, 2])),
        ("raises", "RuntimeError"),
    ),
    "vecdot_dtypes": (
        lambda T: T.linalg.vecdot(T.ones(2), T.ones(2, dtype=T.float64)),
        ("raises", "RuntimeError"),
    ),
    # -- tensorinv and tensorsolve
    "tensorinv": (
        lambda T: _grads(T, lambda T, a: T.linalg.tensorinv(a.reshape(3, 1, 3), ind=1), SQUARE),
        (
            (
                [
                    [
                        [0.5909, -0.1818, 0.0455],
                        [-0.1818, 0.3636, -0.0909],
                        [-0.0455, 0.0909, 0.2273],
                    ]
                ],
                "float64",
                "ReshapeAliasBackward0",
            ),
            (
                [
                    [0.1405, 0.0177, 0.0531],
                    [-0.0407, -0.0159, -0.0478],
                    [-0.0272, -0.0106, -0.0319],
                ],
                "float64",
                None,
            ),
        ),
    ),
    "tensorinv_ind_2": (
        lambda T: _grads(T, lambda T, a: T.linalg.tensorinv(a.reshape(1, 3, 3)), SQUARE),
        (
            (
                [
                    [[0.5909, -0.1818, 0.0455]],
                    [[-0.1818, 0.3636, -0.0909]],
                    [[-0.0455, 0.0909, 0.2273]],
                ],
                "float64",
                "ReshapeAliasBackward0",
            ),
            (
                [
                    [0.1405, 0.0177, 0.0531],
                    [-0.0407, -0.0159, -0.0478],
                    [-0.0272, -0.0106, -0.0319],
                ],
                "float64",
                None,
            ),
        ),
    ),
    "tensorinv_ind_0": (
        lambda T: T.linalg.tensorinv(T.eye(2), ind=0),
        ("raises", "RuntimeError"),
    ),
    "tensorinv_sizes": (
        lambda T: T.linalg.tensorinv(T.ones(2, 3, 4), ind=1),
        ("raises", "RuntimeError"),
    ),
    "tensorinv_singular": (
        lambda T: T.linalg.tensorinv(T.zeros(2, 2, 4)),
        ("raises", "LinAlgError"),
    ),
    "tensorsolve": (
        lambda T: _grads(
            T,
            lambda T, a, b: T.linalg.tensorsolve(a.reshape(3, 1, 3), b.reshape(3, 1)),
            SQUARE,
            [1.0, 2.0, 3.0],
        ),
        (
            ([0.3636, 0.2727, 0.8182], "float64", "ViewBackward0"),
            (
                [[0.0803, 0.0602, 0.1806], [0.0213, 0.0159, 0.0478], [0.0142, 0.0106, 0.0319]],
                "float64",
                None,
            ),
            ([-0.2208, -0.0584, -0.039], "float64", None),
        ),
    ),
    "tensorsolve_dims": (
        lambda T: _grads(
            T,
            lambda T, a, b: T.linalg.tensorsolve(a.reshape(3, 3, 1), b, dims=(0,)),
            SQUARE,
            [[1.0], [2.0], [3.0]],
        ),
        (
            ([0.0909, 0.8182, 0.5455], "float64", "ViewBackward0"),
            (
                [[0.0218, 0.0018, 0.0053], [0.1966, 0.0159, 0.0478], [0.1311, 0.0106, 0.0319]],
                "float64",
                None,
            ),
            ([[-0.2403], [-0.0195], [-0.0584]], "float64", None),
        ),
    ),
    "tensorsolve_sizes": (
        lambda T: T.linalg.tensorsolve(T.ones(2, 3, 4), T.ones(2, 3)),
        ("raises", "RuntimeError"),
    ),
    # -- the names PyTorch removed in 1.9
    "removed_lstsq": (lambda T: T.lstsq(T.ones(2, 1), T.eye(2)), ("raises", "RuntimeError")),
    "removed_solve": (lambda T: T.solve(T.ones(2, 1), T.eye(2)), ("raises", "RuntimeError")),
    "removed_eig": (lambda T: T.eig(T.eye(2), eigenvectors=True), ("raises", "RuntimeError")),
    "removed_symeig": (lambda T: T.symeig(T.eye(2)), ("raises", "RuntimeError")),
    "removed_matrix_rank": (lambda T: T.matrix_rank(T.eye(2)), ("raises", "RuntimeError")),
    "removed_solve_method": (lambda T: T.eye(2).solve(T.eye(2)), ("raises", "RuntimeError")),
    "removed_symeig_method": (lambda T: T.eye(2).symeig(), ("raises", "RuntimeError")),
    "removed_lstsq_no_arguments": (lambda T: T.lstsq(), ("raises", "TypeError")),
    "no_matrix_rank_method": (lambda T: T.eye(2).matrix_rank(), ("raises", "AttributeError")),
}


test_symgrad, test_table_is_pytorchs = table_tests(CASES)


# -- gradients against finite differences (float64), first and second order ----------------------
def _t(rows):
    return symgrad.tensor(rows, dtype=symgrad.float64, requires_grad=True)


def _packed(rows):
    a, tau = symgrad.geqrf(symgrad.tensor(rows, dtype=symgrad.float64))
    return a.requires_grad_(), tau.requires_grad_()


L = symgrad.linalg
RNG = np.random.default_rng(7)
BATCH_UP = np.triu(RNG.standard_normal((2, 3, 3))) + 3 * np.eye(3)
BATCH_RHS = RNG.standard_normal((2, 3, 2))
FINITE_DIFFERENCES = {
    "solve_triangular": (
        lambda a, b: L.solve_triangular(a, b, upper=True),
        lambda: (_t(BATCH_UP), _t(BATCH_RHS)),
    ),
    "solve_triangular_right_unit": (
        lambda a, b: L.solve_triangular(a.mT, b.mT, upper=False, left=False, unitriangular=True),
        lambda: (_t(BATCH_UP), _t(BATCH_RHS)),
    ),
    "triangular_solve": (
        lambda b, a: tuple(symgrad.triangular_solve(b, a, transpose=True)),
        lambda: (_t(BATCH_RHS), _t(BATCH_UP)),
    ),
    # PyTorch's gradient of the factor covers the triangle it does not read: only the
    # triangle's part is a derivative
    "cholesky_solve": (
        lambda b, f: symgrad.cholesky_solve(b, f.triu(), upper=True),
        lambda: (_t(BATCH_RHS), _t(BATCH_UP)),
    ),
    "cholesky_inverse": (
        lambda f: symgrad.cholesky_inverse(f.tril()),
        lambda: (_t(BATCH_UP.mT),),
    ),
    "cholesky_ex": (
        lambda a: L.cholesky_ex(a @ a.mT).L,
        lambda: (_t(BATCH_UP),),
    ),
    "householder_product": (L.householder_product, lambda: _packed(RNG.standard_normal((4, 3)))),
    "ormqr": (
        lambda a, t, c: symgrad.ormqr(a, t, c, left=False, transpose=True),
        lambda: (*_packed(RNG.standard_normal((3, 3))), _t(RNG.standard_normal((2, 3)))),
    ),
    "cond_2": (L.cond, lambda: (_t(BATCH_UP),)),
    "cond_nuc": (lambda a: L.cond(a, "nuc"), lambda: (_t(BATCH_UP),)),
    "vander": (lambda x: L.vander(x, N=4), lambda: (_t(RNG.standard_normal((2, 3))),)),
    "vecdot": (
        lambda x, y: L.vecdot(x, y, dim=-2),
        lambda: (_t(BATCH_RHS), _t(BATCH_RHS[0])),
    ),
    "tensorinv": (
        lambda a: L.tensorinv(a.reshape(6, 2, 3), ind=1),
        lambda: (_t(np.eye(6) * 2 + RNG.standard_normal((6, 6)) * 0.1),),
    ),
    "tensorsolve": (
        lambda a, b: L.tensorsolve(a.reshape(2, 3, 2, 3), b),
        lambda: (
            _t(np.eye(6).reshape(6, 6) * 2 + RNG.standard_normal((6, 6)) * 0.1),
            _t(BATCH_RHS[0].T),
        ),
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", list(FINITE_DIFFERENCES))
def test_gradients_match_finite_differences(name):
    fn, inputs = FINITE_DIFFERENCES[name]
    assert gradcheck(fn, inputs())
    assert gradgradcheck(fn, inputs())


# -- values without PyTorch -----------------------------------------------------------------------
def test_solve_triangular_reads_only_its_triangle():
    a = np.triu(RNG.standard_normal((3, 3))) + 2 * np.eye(3)
    noisy = a + np.tril(RNG.standard_normal((3, 3)), -1)
    b = RNG.standard_normal((3, 2))
    x = L.solve_triangular(symgrad.tensor(noisy), symgrad.tensor(b), upper=True)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_ldl_solve_solves_symmetric_systems(n):
    a = RNG.standard_normal((2, n, n))
    a = a + np.swapaxes(a, -1, -2)
    b = RNG.standard_normal((2, n, 3))
    LD, pivots = L.ldl_factor(symgrad.tensor(a))
    assert pivots.dtype == symgrad.int32 and tuple(pivots.shape) == (2, n)
    assert np.all(np.triu(LD.numpy(), 1) == 0)
    x = L.ldl_solve(LD, pivots, symgrad.tensor(b))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), atol=1e-8)


def test_householder_product_rebuilds_the_qr_factorization():
    a = RNG.standard_normal((2, 5, 3))
    packed, tau = symgrad.geqrf(symgrad.tensor(a))
    q = L.householder_product(packed, tau).numpy()
    r = np.triu(packed.numpy()[..., :3, :])
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(
        np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-12
    )
    c = symgrad.tensor(RNG.standard_normal((2, 5, 2)))
    full = symgrad.ormqr(packed, tau, symgrad.eye(5, dtype=symgrad.float64).expand(2, 5, 5))
    np.testing.assert_allclose(full.numpy()[..., :3], q, atol=1e-12)
    qc = symgrad.ormqr(packed, tau, c, transpose=True).numpy()
    np.testing.assert_allclose(qc, np.swapaxes(full.numpy(), -1, -2) @ c.numpy(), atol=1e-12)


def test_cond_is_numpys():
    a = RNG.standard_normal((2, 4, 4))
    for p in (None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1):
        np.testing.assert_allclose(L.cond(symgrad.tensor(a), p).numpy(), np.linalg.cond(a, p))


def test_triangular_solve_warns_once():
    from symgrad.ops import triangular_solves

    triangular_solves._WARNED["triangular_solve"] = False
    b, a = symgrad.ones(2, 1), symgrad.eye(2)
    with pytest.warns(UserWarning, match="linalg.solve_triangular"):
        symgrad.triangular_solve(b, a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b.triangular_solve(a)


@pytest.mark.parametrize(
    ("call", "replacement"),
    [
        (lambda: symgrad.lstsq(symgrad.ones(2, 1), symgrad.eye(2)), "torch.linalg.lstsq"),
        (lambda: symgrad.eye(2).solve(symgrad.eye(2)), "torch.linalg.solve"),
        (lambda: symgrad.eig(symgrad.eye(2)), "torch.linalg.eig"),
        (lambda: symgrad.eye(2).symeig(), "torch.linalg.eigh"),
        (lambda: symgrad.matrix_rank(symgrad.eye(2)), "torch.linalg.matrix_rank"),
    ],
)
def test_removed_names_point_to_their_replacement(call, replacement):
    with pytest.raises(RuntimeError, match="deprecated since version 1.9 and is now removed") as e:
        call()
    assert replacement in str(e.value)


def test_names_exist():
    for name in (
        "solve_triangular vander vecdot cholesky_ex cond householder_product ldl_factor "
        "ldl_factor_ex ldl_solve tensorinv tensorsolve"
    ).split():
        assert name in L.__all__ and callable(getattr(L, name))
    for name in "cholesky_inverse cholesky_solve triangular_solve geqrf orgqr ormqr".split():
        assert callable(getattr(symgrad, name)) and callable(getattr(symgrad.Tensor, name))
    for name in "lstsq solve eig symeig".split():
        assert callable(getattr(symgrad, name)) and callable(getattr(symgrad.Tensor, name))
    assert callable(symgrad.matrix_rank) and not hasattr(symgrad.Tensor, "matrix_rank")


# -- against PyTorch on random inputs -------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("n", [3, 8, 70])
def test_ldl_factor_is_pytorchs(n):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((n, n))
    a = a + a.T
    ours = L.ldl_factor_ex(symgrad.tensor(a))
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), atol=1e-9)
    assert ours.info.item() == theirs.info.item() == 0
