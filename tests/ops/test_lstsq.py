"""``symgrad.linalg.lstsq``: values, which fields each driver fills, gradients through the
solution and the residuals, PyTorch's errors, and (when PyTorch is installed) a cross-check of
every field and gradient against ``torch.linalg.lstsq``."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.autograd import grad, gradcheck, gradgradcheck

L = symgrad.linalg
DRIVERS = ("gelsy", "gelsd", "gelss", "gels")


def _t(data, requires_grad=False):
    return symgrad.tensor(data, dtype=symgrad.float64, requires_grad=requires_grad)


A = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
B = [[1.0, 2.0], [2.0, 0.0], [0.0, 1.0]]


def test_solution_of_a_tall_system_and_each_drivers_fields():
    for driver in DRIVERS:
        out = L.lstsq(_t(A), _t(B), driver=driver)
        # normal equations: [[2, 1], [1, 2]] X = [[1, 3], [2, 1]]
        np.testing.assert_allclose(out.solution.numpy(), [[0.0, 5 / 3], [1.0, -1 / 3]], atol=1e-12)
        residuals = [] if driver == "gelsy" else [3.0, 1 / 3]
        np.testing.assert_allclose(out.residuals.numpy(), residuals, atol=1e-12)
        assert out.rank.tolist() == ([] if driver == "gels" else 2)
        values = [3**0.5, 1.0] if driver in ("gelsd", "gelss") else []
        np.testing.assert_allclose(out.singular_values.numpy(), values, atol=1e-12)
    assert L.lstsq(_t(A), _t(B)).rank.dtype == symgrad.int64


def test_rank_deficient_matrix_gets_the_minimum_norm_solution():
    a = _t([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    for driver in ("gelsy", "gelsd", "gelss"):
        out = L.lstsq(a, _t([1.0, 2.0, 4.0]), driver=driver)
        assert out.rank.item() == 1
        np.testing.assert_allclose(out.solution.numpy(), [17 / 70, 17 / 35], atol=1e-12)
        assert out.residuals.shape == (0,)  # not full rank: no residuals


def test_rcond_truncates_small_singular_values():
    a = _t([[1.0, 0.0], [0.0, 0.01]])
    for driver in ("gelsy", "gelsd"):
        out = L.lstsq(a, _t([1.0, 1.0]), rcond=0.1, driver=driver)
        assert out.rank.item() == 1
        np.testing.assert_allclose(out.solution.numpy(), [1.0, 0.0])
    np.testing.assert_allclose(L.lstsq(a, _t([1.0, 1.0])).solution.numpy(), [1.0, 100.0])


def test_wide_vector_and_empty_shapes():
    wide = L.lstsq(_t([[1.0, 1.0]]), _t([2.0]), driver="gelsd")
    np.testing.assert_allclose(wide.solution.numpy(), [1.0, 1.0])  # the minimum-norm one
    assert wide.residuals.shape == (0,)
    out = L.lstsq(_t(np.stack([np.eye(4, 3)] * 2)), _t(np.ones((2, 4))), driver="gelsd")
    assert out.solution.shape == (2, 3)
    assert out.residuals.shape == (2, 1) and out.rank.shape == (2,)
    no_columns = L.lstsq(_t(np.ones((5, 0))), _t(np.full((5, 2), 2.0)), driver="gelsd")
    assert no_columns.solution.shape == (0, 2)
    np.testing.assert_allclose(no_columns.residuals.numpy(), [20.0, 20.0])
    no_rows = L.lstsq(_t(np.ones((0, 3))), _t(np.ones((0, 2))))
    np.testing.assert_allclose(no_rows.solution.numpy(), np.zeros((3, 2)))


def test_batches_broadcast_and_rank_keeps_the_batch_of_a():
    a = _t(np.stack([np.eye(3, 2), 2 * np.eye(3, 2)]))[:, None]  # (2, 1, 3, 2)
    b = _t(np.ones((1, 3, 3, 1)))
    out = L.lstsq(a, b, driver="gelsd")
    assert out.solution.shape == (2, 3, 2, 1)
    assert out.rank.shape == (2, 1) and out.singular_values.shape == (2, 1, 2)
    np.testing.assert_allclose(out.solution.numpy()[1, 2, :, 0], [0.5, 0.5])


def test_gradient_of_the_solution_is_through_the_pseudo_inverse():
    a, b = _t(A, True), _t(B, True)
    out = L.lstsq(a, b)
    assert out.solution.grad_fn.name() == "LinalgLstsqBackward0"
    assert out.residuals.grad_fn is out.solution.grad_fn and out.residuals.output_nr == 1
    assert not out.rank.requires_grad and not out.singular_values.requires_grad
    ga, gb = grad(out.solution.sum(), [a, b])
    p = np.linalg.pinv(np.array(A))
    np.testing.assert_allclose(gb.numpy(), p.T @ np.ones((2, 2)), atol=1e-12)
    assert ga.shape == (3, 2)


def test_gradient_of_the_residuals():
    a, b = _t(A, True), _t(B, True)
    out = L.lstsq(a, b, driver="gelsd")
    ga, gb = grad(out.residuals.sum(), [a, b])
    x = out.solution.detach().numpy()
    r = np.array(A) @ x - np.array(B)
    np.testing.assert_allclose(gb.numpy(), -2 * r, atol=1e-12)
    np.testing.assert_allclose(ga.numpy(), 2 * r @ x.T, atol=1e-12)


@pytest.mark.parametrize("driver", ["gelsy", "gelsd"])
def test_gradcheck_and_gradgradcheck(driver):
    rng = np.random.default_rng(0)
    a, b = _t(rng.standard_normal((2, 5, 3)), True), _t(rng.standard_normal((1, 5, 2)), True)

    def f(a, b):
        return tuple(L.lstsq(a, b, driver=driver)[:2])

    assert gradcheck(f, (a, b))
    assert gradgradcheck(f, (a, b))


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "error", "message"),
    [
        ((5,), (5,), {}, RuntimeError, "input must have at least 2 dimensions"),
        ((5, 3), (2, 5, 2), {}, RuntimeError, "input.dim() must be greater or equal"),
        ((5, 3), (4,), {}, RuntimeError, "input.size(-2) should match other.size(-1)"),
        ((5, 3), (2, 5), {}, RuntimeError, "input.size(-2) should match other.size(-2)"),
        ((2, 5, 3), (5, 2), {}, RuntimeError, "The size of tensor a (2) must match"),
        ((5, 3), (5, 2), {"driver": "qr"}, RuntimeError, "should be one of (gels, gelsy"),
    ],
)
def test_errors(a, b, kwargs, error, message):
    with pytest.raises(error) as info:
        L.lstsq(_t(np.ones(a)), _t(np.ones(b)), **kwargs)
    assert message in str(info.value)


def test_type_errors():
    with pytest.raises(RuntimeError, match="same dtype"):
        L.lstsq(_t(np.ones((3, 2))), symgrad.ones(3, 2))
    with pytest.raises(RuntimeError, match="float and double"):
        L.lstsq(symgrad.ones(3, 2, dtype=symgrad.int64), symgrad.ones(3, 2, dtype=symgrad.int64))
    with pytest.raises(TypeError, match="argument 'b'"):
        L.lstsq(_t(np.ones((3, 2))), [[1.0]])


# -- against PyTorch ----------------------------------------------------------------------------
CASES = [
    ((5, 3), (5, 2)),
    ((3, 5), (3, 2)),
    ((2, 5, 3), (2, 5)),
    ((4, 4), (4,)),
    ((2, 1, 5, 3), (2, 3, 5, 2)),
    ((1, 5, 3), (5, 2)),
    ((2, 1, 5, 3), (1, 5, 2)),
    ((5, 0), (5, 2)),
    ((0, 3), (0, 2)),
]


@pytest.mark.parametrize("driver", [None, *DRIVERS])
@pytest.mark.parametrize(("a_shape", "b_shape"), CASES)
def test_against_torch(driver, a_shape, b_shape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    _compare(torch, a, b, driver=driver)


@pytest.mark.parametrize("driver", ["gelsd", "gelss"])
def test_against_torch_rank_deficient_and_rcond(driver):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((6, 4)), rng.standard_normal((6, 2))
    a[:, 2] = a[:, 0] - a[:, 1]
    _compare(torch, a, b, driver=driver)
    _compare(torch, rng.standard_normal((5, 3)), b[:5], rcond=0.5, driver=driver)


def test_against_torch_float32():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    _compare(torch, a.astype(np.float32), b.astype(np.float32), driver="gelsd", atol=1e-4)


def _compare(torch, a, b, rcond=None, driver=None, atol=1e-8):
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    sa, sb = symgrad.tensor(a, requires_grad=True), symgrad.tensor(b, requires_grad=True)
    expected = torch.linalg.lstsq(ta, tb, rcond, driver=driver)
    got = L.lstsq(sa, sb, rcond, driver=driver)
    for e, g in zip(expected, got):
        assert tuple(g.shape) == tuple(e.shape)
        assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        assert g.requires_grad == e.requires_grad
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), atol=atol)
    assert type(got.solution.grad_fn).__name__ == type(expected.solution.grad_fn).__name__
    w = np.random.default_rng(4).standard_normal(tuple(expected.solution.shape)).astype(a.dtype)
    loss_t = (expected.solution * torch.tensor(w)).sum() + expected.residuals.sum() * 1.5
    loss_s = (got.solution * symgrad.tensor(w)).sum() + got.residuals.sum() * 1.5
    for e, g in zip(torch.autograd.grad(loss_t, [ta, tb]), grad(loss_s, [sa, sb])):
        np.testing.assert_allclose(g.numpy(), e.numpy(), atol=atol * 100)
