"""The LU family: ``linalg.lu_factor`` (``_ex``), ``linalg.lu``, ``lu_unpack``,
``linalg.lu_solve`` and the older ``lu`` and ``lu_solve``: values, pivots, return types, errors
and gradients with plain expected numbers, and (when PyTorch is installed) against PyTorch on
random, batched, rectangular and singular inputs.

Finite-difference, forward-mode and sweep checks run on the entries of ``op_db_linalg.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad.autograd import grad
from symgrad.prim import lu_kernels

L = symgrad.linalg
A = [[1.0, 2.0, 0.0], [4.0, 2.0, 1.0], [2.0, 0.0, 3.0]]


def _t(data, requires_grad=False, dtype=symgrad.float64):
    return symgrad.tensor(data, dtype=dtype, requires_grad=requires_grad)


# -- values without PyTorch ------------------------------------------------------------------------
def test_lu_factor_packs_l_and_u_with_one_based_int32_pivots():
    lu, pivots = L.lu_factor(_t(A))
    np.testing.assert_allclose(
        lu.numpy(), [[4.0, 2.0, 1.0], [0.25, 1.5, -0.25], [0.5, -2 / 3, 7 / 3]], atol=1e-12
    )
    assert pivots.tolist() == [2, 2, 3]
    assert pivots.dtype == symgrad.int32
    assert not pivots.requires_grad


def test_linalg_lu_rebuilds_the_matrix():
    p, low, up = L.lu(_t(A))
    np.testing.assert_allclose((p @ low @ up).numpy(), A, atol=1e-12)
    assert p.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    assert np.allclose(np.diag(low.numpy()), 1.0)
    assert np.allclose(np.tril(up.numpy(), -1), 0.0)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5), (3, 5, 2), (2, 1, 3, 3), (1, 4), (4, 1)])
def test_batched_and_rectangular_factors_rebuild_the_matrix(shape):
    a = np.random.default_rng(3).standard_normal(shape)
    p, low, up = L.lu(_t(a))
    k = min(shape[-2:])
    assert tuple(low.shape) == shape[:-1] + (k,) and tuple(up.shape) == shape[:-2] + (k, shape[-1])
    np.testing.assert_allclose((p @ low @ up).numpy(), a, atol=1e-12)
    lu, pivots = L.lu_factor(_t(a))
    assert tuple(pivots.shape) == shape[:-2] + (k,)
    unpacked = symgrad.lu_unpack(lu, pivots)
    for x, y in zip(unpacked, (p, low, up)):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_the_pivot_is_the_first_entry_of_largest_magnitude():
    _, pivots = L.lu_factor(_t([[1.0, 0.0], [-3.0, 1.0], [3.0, 2.0]]))
    assert pivots.tolist() == [2, 3]


def test_float32_stays_float32():
    lu, _ = L.lu_factor(_t(A, dtype=symgrad.float32))
    assert lu.dtype == symgrad.float32


def test_lu_solve_all_four_equations():
    a = np.array(A)
    b = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]])
    lu, pivots = L.lu_factor(_t(a))
    solve = np.linalg.solve
    cases = {
        (True, False): solve(a, b),
        (True, True): solve(a.T, b),
        (False, False): solve(a.T, b).T,  # X A = b^T
        (False, True): solve(a, b).T,
    }
    for (left, adjoint), expected in cases.items():
        rhs = b if left else b.T
        x = L.lu_solve(lu, pivots, _t(rhs), left=left, adjoint=adjoint)
        np.testing.assert_allclose(x.numpy(), expected, atol=1e-12)


def test_lu_solve_broadcasts_batches():
    a = np.random.default_rng(1).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = np.random.default_rng(2).standard_normal((4, 1, 3, 2))
    x = L.lu_solve(*L.lu_factor(_t(a)), _t(b))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), atol=1e-12)


def test_singular_matrices():
    s = _t([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(RuntimeError, match=r"U\[2,2\] is zero") as raised:
        L.lu_factor(s)
    assert not isinstance(raised.value, L.LinAlgError)  # PyTorch's plain RuntimeError
    lu, pivots, info = L.lu_factor_ex(s)
    assert info.item() == 2 and info.dtype == symgrad.int32
    np.testing.assert_allclose(lu.numpy(), [[2.0, 4.0], [0.5, 0.0]])
    p, low, up = L.lu(s)  # linalg.lu takes singular matrices
    np.testing.assert_allclose((p @ low @ up).numpy(), s.numpy())
    batch = symgrad.stack([symgrad.eye(2, dtype=symgrad.float64), s])
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): U\[2,2\]"):
        L.lu_factor(batch)
    assert L.lu_factor_ex(batch).info.tolist() == [0, 2]
    with np.errstate(all="ignore"):
        x = L.lu_solve(lu, pivots, _t([[1.0], [1.0]]))
    assert not np.all(np.isfinite(x.numpy()))


def test_a_zero_column_is_left_unscaled():
    lu, pivots, info = L.lu_factor_ex(_t(np.zeros((3, 3))))
    assert pivots.tolist() == [1, 2, 3] and info.item() == 1
    assert np.all(lu.numpy() == 0)


def test_errors():
    with pytest.raises(RuntimeError, match="2 or more dimensions"):
        L.lu_factor(_t([1.0, 2.0]))
    with pytest.raises(NotImplementedError, match="Long"):
        L.lu(symgrad.ones(2, 2, dtype=symgrad.int64))
    with pytest.raises(RuntimeError, match="without pivoting"):
        L.lu_factor(_t(A), pivot=False)
    lu, pivots = L.lu_factor(_t([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]))
    with pytest.raises(RuntimeError, match="square matrices, but they are 2 by 3"):
        L.lu_solve(lu, pivots, _t(np.ones((2, 1))))
    lu, pivots = L.lu_factor(_t(A))
    with pytest.raises(RuntimeError, match=r"AX = B \(3x3 and 2x1\)"):
        L.lu_solve(lu, pivots, _t(np.ones((2, 1))))
    with pytest.raises(RuntimeError, match=r"XA = B \(3x3 and 3x2\)"):
        L.lu_solve(lu, pivots, _t(np.ones((3, 2))), left=False)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        L.lu_solve(lu, pivots, _t(np.ones(3)))
    with pytest.raises(RuntimeError, match="same dtype"):
        L.lu_solve(lu, pivots, _t(np.ones((3, 1)), dtype=symgrad.float32))
    with pytest.raises(RuntimeError, match="torch.int32"):
        L.lu_solve(lu, pivots.long(), _t(np.ones((3, 1))))
    with pytest.raises(RuntimeError, match="int32 dtype"):
        symgrad.lu_unpack(lu, pivots.long())
    with pytest.raises(RuntimeError, match="between 1 and LU.size"):
        symgrad.lu_unpack(lu, symgrad.tensor([1, 4, 3], dtype=symgrad.int32))


def test_lu_unpack_skips_what_is_not_asked_for():
    lu, pivots = L.lu_factor(_t(A))
    p, low, up = symgrad.lu_unpack(lu, pivots, unpack_data=False)
    assert tuple(p.shape) == (3, 3) and low.numel() == 0 and up.numel() == 0
    p, low, up = symgrad.lu_unpack(lu, pivots, unpack_pivots=False)
    assert p.numel() == 0 and tuple(low.shape) == (3, 3)


def test_the_older_names_warn_and_keep_their_shapes():
    a = _t(A)
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        out = symgrad.lu(a)
    assert type(out) is tuple and len(out) == 2
    with pytest.warns(UserWarning):
        lu, pivots, info = symgrad.lu(_t([[1.0, 2.0], [2.0, 4.0]]), get_infos=True)
    assert info.item() == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lu, pivots = a.lu()
        b = _t([[1.0], [2.0], [3.0]])
        x = b.lu_solve(lu, pivots)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(np.array(A), b.numpy()), atol=1e-12)
    with pytest.warns(UserWarning, match="lu_solve is deprecated"):
        symgrad.lu_solve(b, lu, pivots)
    assert symgrad.functional.lu is symgrad.lu


def test_return_types_print_like_pytorch():
    text = repr(L.lu_factor(_t([[2.0]])))
    assert text.startswith("symgrad.return_types.linalg_lu_factor(\nLU=tensor(")
    assert L.lu_factor_ex(_t([[2.0]]))._fields == ("LU", "pivots", "info")
    assert L.lu(_t([[2.0]]))._fields == ("P", "L", "U")
    assert symgrad.lu_unpack(*L.lu_factor(_t([[2.0]])))._fields == ("P", "L", "U")


# -- gradients without PyTorch ---------------------------------------------------------------------
def test_node_names_and_which_outputs_require_grad():
    a = _t(A, True)
    lu, pivots = L.lu_factor(a)
    assert lu.grad_fn.name() == "LinalgLuFactorExBackward0" and not pivots.requires_grad
    p, low, up = L.lu(a)
    assert p.grad_fn is None and not p.requires_grad
    assert low.grad_fn is up.grad_fn and up.grad_fn.name() == "LinalgLuBackward0"
    assert (up.output_nr, low.output_nr) == (2, 1)
    p, low, up = symgrad.lu_unpack(lu, pivots)
    assert low.grad_fn.name() == "LuUnpackBackward0" and p.grad_fn is None
    x = L.lu_solve(lu, pivots, _t([[1.0], [0.0], [0.0]], True))
    assert x.grad_fn.name() == "LinalgLuSolveBackward0"


def test_the_gradient_through_p_l_u_is_the_identity_map():
    """``P L U = A``, so the gradient of ``sum(w * (P L U))`` by ``A`` is ``w``."""
    w = np.arange(12.0).reshape(3, 4)
    for shape in [(3, 4)]:
        a = _t(np.random.default_rng(0).standard_normal(shape), True)
        p, low, up = L.lu(a)
        (g,) = grad(((p @ low @ up) * _t(w)).sum(), [a])
        np.testing.assert_allclose(g.numpy(), w, atol=1e-10)


def test_lu_solve_gradient_matches_solve():
    a0 = np.array(A)
    b0 = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]])
    a, b = _t(a0, True), _t(b0, True)
    x = L.lu_solve(*L.lu_factor(a), b)
    ga, gb = grad((x * x).sum(), [a, b])
    a2, b2 = _t(a0, True), _t(b0, True)
    ga2, gb2 = grad((L.solve(a2, b2) ** 2).sum(), [a2, b2])
    np.testing.assert_allclose(ga.numpy(), ga2.numpy(), atol=1e-10)
    np.testing.assert_allclose(gb.numpy(), gb2.numpy(), atol=1e-10)


def test_gradcheck_and_gradgradcheck():
    a = _t(np.random.default_rng(5).standard_normal((2, 3, 3)) + 2 * np.eye(3), True)
    b = _t(np.random.default_rng(6).standard_normal((3, 2)), True)
    for fn, inputs in [
        (lambda x: L.lu_factor(x).LU, (a,)),
        (lambda x: L.lu(x)[1:], (a,)),
        (lambda x, y: L.lu_solve(*L.lu_factor(x), y, adjoint=True), (a, b)),
    ]:
        assert symgrad.autograd.gradcheck(fn, inputs)
        assert symgrad.autograd.gradgradcheck(fn, inputs)


def test_the_permutation_kernel():
    pivots = np.array([[3, 3, 3], [1, 2, 3]], np.int32)
    assert lu_kernels.permutation(pivots, 3).tolist() == [[2, 0, 1], [0, 1, 2]]


# -- against PyTorch -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 4), (2, 3, 6), (6, 2), (2, 2, 3, 3)])
def test_values_and_pivots_match_pytorch(shape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    a = rng.standard_normal(shape)
    a[..., 1, :] = a[..., 0, :]  # a tie for the first pivot in magnitude
    a[..., 1, 0] *= -1
    ours = L.lu_factor_ex(_t(a))
    theirs = torch.linalg.lu_factor_ex(torch.tensor(a))
    np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), atol=1e-12)
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    for x, y in zip(L.lu(_t(a)), torch.linalg.lu(torch.tensor(a))):
        np.testing.assert_allclose(x.numpy(), y.numpy(), atol=1e-12)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_gradients_and_second_derivatives_match_pytorch(left, adjoint):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(int(left) * 2 + int(adjoint))
    a0, b0 = rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4, 3) if left else (3, 4))
    results = []
    for m in (torch, symgrad):
        a = m.tensor(a0, dtype=m.float64, requires_grad=True)
        b = m.tensor(b0, dtype=m.float64, requires_grad=True)
        lu, pivots = m.linalg.lu_factor(a)
        x = m.linalg.lu_solve(lu, pivots, b, left=left, adjoint=adjoint)
        _, low, up = m.lu_unpack(lu, pivots)
        loss = (x.sin()).sum() + (low * up).sum()
        ga, gb = m.autograd.grad(loss, [a, b], create_graph=True)
        (h,) = m.autograd.grad((ga * ga).sum() + (gb * gb).sum(), [a])
        results.append([v.detach().numpy() for v in (x, ga, gb, h)])
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3)])
def test_rectangular_gradients_match_pytorch(shape):
    torch = pytest.importorskip("torch")
    a0 = np.random.default_rng(9).standard_normal(shape)
    w = np.random.default_rng(10).standard_normal(shape)
    results = []
    for m in (torch, symgrad):
        a = m.tensor(a0, dtype=m.float64, requires_grad=True)
        _, low, up = m.linalg.lu(a)
        lu = m.linalg.lu_factor(a).LU
        loss = (low.sum(-1) ** 2).sum() + (up**2).sum() + (lu * m.tensor(w)).sum()
        (g,) = m.autograd.grad(loss, [a])
        results.append(g.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-10, atol=1e-10)
