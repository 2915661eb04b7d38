"""LKJCholesky: shapes, argument errors, log_prob (closed form at dim 2, PyTorch's numbers at
dims 3 and 4, cross-checked with torch), and the onion-method samples."""

import math

import numpy as np
import pytest

import symgrad
from symgrad.distributions import LKJCholesky, constraints


def _fixed_factor(dim):
    """A fixed Cholesky factor of a correlation matrix (rows of unit norm)."""
    a = np.array(
        [[0.3 * (i + 1) - 0.2 * j + 0.1 * (i * j % 3) for j in range(dim)] for i in range(dim)]
    )
    a = np.tril(a, -1) + np.diag(np.arange(1.0, dim + 1))
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


# log_prob of _fixed_factor(dim) at concentrations 0.5, 1, 3 and its gradient, from PyTorch
_TORCH_LOG_PROB = {
    3: (
        [-2.448267027730504, -1.6394014392593812, -0.5741697907827871],
        [2.3620135041614825, 1.134602226401265, 0.23460222640126488],
    ),
    4: (
        [-3.8408352390680025, -2.6282937239740374, -0.7832832696337575],
        [3.344844643740796, 1.799667199261234, 0.4568100564040911],
    ),
}


def test_shapes_repr_and_support():
    d = LKJCholesky(3, symgrad.tensor([0.5, 2.0]))
    assert d.batch_shape == (2,) and d.event_shape == (3, 3)
    assert repr(d) == "LKJCholesky(concentration: symgrad.Size([2]))"
    assert repr(LKJCholesky(4, 0.5)) == "LKJCholesky(concentration: 0.5)"
    assert d.support is constraints.corr_cholesky
    assert d.arg_constraints == {"concentration": constraints.positive}
    assert d.has_rsample is False
    assert LKJCholesky(2).concentration.item() == 1.0
    assert LKJCholesky(2).concentration.dtype == symgrad.float32


def test_expand():
    d = LKJCholesky(3, symgrad.tensor([0.5, 2.0], dtype=symgrad.float64))
    e = d.expand((4, 2))
    assert e.batch_shape == (4, 2) and e.event_shape == (3, 3) and e.dim == 3
    assert e._beta.batch_shape == (4, 2, 3)
    assert e.sample((5,)).shape == (5, 4, 2, 3, 3)
    value = symgrad.tensor(_fixed_factor(3))
    np.testing.assert_allclose(
        e.log_prob(value).numpy(), np.tile(d.log_prob(value).numpy(), (4, 1))
    )


@pytest.mark.parametrize(
    "args, error, message",
    [
        (
            (1,),
            ValueError,
            "Expected dim to be an integer greater than or equal to 2. Found dim=1.",
        ),
        ((0, 2.0), ValueError, "Found dim=0."),
        ((2.5,), TypeError, "takes an iterable of 'int' (item 0 is 'float')"),
        ((3, -1.0), ValueError, "to satisfy the constraint"),
        ((3, 0.0), ValueError, "to satisfy the constraint"),
        ((3, "a"), ValueError, "Input arguments must all be instances of Number"),
    ],
)
def test_argument_errors(args, error, message):
    with pytest.raises(error) as info:
        LKJCholesky(*args)
    assert message in str(info.value)


def test_value_validation():
    d = LKJCholesky(2, 1.5)
    with pytest.raises(ValueError, match=r"within the support \(CorrCholesky\(\)\)"):
        d.log_prob(symgrad.tensor([[1.0, 0.0], [0.6, 0.9]]))
    with pytest.raises(ValueError, match="right-most size of value must match event_shape"):
        d.log_prob(symgrad.eye(3))
    # without validation the density formula is applied as it stands
    lp = LKJCholesky(3, validate_args=False).log_prob(symgrad.eye(3) * 2)
    assert lp.item() == pytest.approx(-0.9031654, abs=1e-6)


@pytest.mark.parametrize("eta", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("r", [-0.9, 0.0, 0.6])
def test_log_prob_dim2_closed_form(eta, r):
    # at dim 2 the factor is [[1, 0], [r, sqrt(1 - r^2)]] and r has density
    # (1 - r^2)^(eta - 1) / B(1/2, eta)
    value = symgrad.tensor([[1.0, 0.0], [r, math.sqrt(1 - r * r)]], dtype=symgrad.float64)
    eta_t = symgrad.tensor(eta, dtype=symgrad.float64, requires_grad=True)
    lp = LKJCholesky(2, eta_t).log_prob(value)
    log_beta = math.lgamma(0.5) + math.lgamma(eta) - math.lgamma(eta + 0.5)
    assert lp.item() == pytest.approx((eta - 1) * math.log1p(-r * r) - log_beta, rel=1e-12)
    lp.backward()
    digamma = symgrad.tensor([eta, eta + 0.5], dtype=symgrad.float64).digamma().numpy()
    expected_grad = math.log1p(-r * r) - digamma[0] + digamma[1]
    assert eta_t.grad.item() == pytest.approx(expected_grad, rel=1e-10, abs=1e-12)


def test_log_prob_dim2_integrates_to_one():
    r = np.linspace(-1, 1, 200001)[1:-1]
    values = np.zeros((r.size, 2, 2))
    values[:, 0, 0], values[:, 1, 0], values[:, 1, 1] = 1.0, r, np.sqrt(1 - r * r)
    density = LKJCholesky(2, symgrad.tensor(2.0, dtype=symgrad.float64)).log_prob(
        symgrad.tensor(values)
    )
    assert np.trapezoid(np.exp(density.numpy()), r) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("dim", [3, 4])
def test_log_prob_matches_pytorch_literals(dim):
    expected, expected_grad = _TORCH_LOG_PROB[dim]
    eta = symgrad.tensor([0.5, 1.0, 3.0], dtype=symgrad.float64, requires_grad=True)
    lp = LKJCholesky(dim, eta).log_prob(symgrad.tensor(_fixed_factor(dim)))
    assert lp.shape == (3,)
    np.testing.assert_allclose(lp.detach().numpy(), expected, rtol=1e-12)
    lp.sum().backward()
    np.testing.assert_allclose(eta.grad.numpy(), expected_grad, rtol=1e-10)


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
@pytest.mark.parametrize("dim", [2, 3, 5])
def test_samples_lie_in_support(dim, dtype):
    symgrad.manual_seed(1)
    eta = symgrad.tensor([0.2, 1.0, 5.0], dtype=dtype, requires_grad=True)
    s = LKJCholesky(dim, eta).sample((100,))
    assert s.shape == (100, 3, dim, dim) and s.dtype == dtype and not s.requires_grad
    x = s.numpy()
    assert np.all(np.triu(x, 1) == 0)
    assert np.all(np.diagonal(x, axis1=-2, axis2=-1) > 0)
    np.testing.assert_allclose(np.linalg.norm(x, axis=-1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(
        x[..., 0, :], np.broadcast_to(np.eye(dim)[0], x.shape[:-2] + (dim,))
    )
    assert bool(constraints.corr_cholesky.check(s).all())


@pytest.mark.parametrize("dim", [2, 3, 5])
def test_sample_statistics(dim):
    # each off-diagonal correlation r of LKJ(eta) has (r + 1) / 2 ~ Beta(b, b) with
    # b = eta - 1 + dim / 2: mean 0 and variance 1 / (2 eta + dim - 1)
    symgrad.manual_seed(0)
    etas = np.array([0.5, 1.0, 4.0])
    n = 20000
    s = LKJCholesky(dim, symgrad.tensor(etas, dtype=symgrad.float64)).sample((n,)).numpy()
    corr = s @ np.swapaxes(s, -1, -2)
    rows, cols = np.tril_indices(dim, -1)
    r = corr[..., rows, cols]  # (n, 3, pairs)
    variance = 1 / (2 * etas + dim - 1)
    # 6 standard errors of the mean, 10% of the variance (its standard error is under 1.5%)
    assert np.all(np.abs(r.mean(0)) < 6 * np.sqrt(variance[:, None] / n))
    np.testing.assert_allclose(r.var(0), np.broadcast_to(variance[:, None], r.shape[1:]), rtol=0.1)


def test_log_prob_broadcasting_and_dtype():
    d = LKJCholesky(3, symgrad.tensor([0.5, 1.0, 3.0]))
    value = symgrad.tensor(np.stack([_fixed_factor(3)] * 2)[:, None])  # float64, (2, 1, 3, 3)
    lp = d.log_prob(value)
    assert lp.shape == (2, 3) and lp.dtype == symgrad.float64
    np.testing.assert_allclose(lp.numpy(), np.tile(_TORCH_LOG_PROB[3][0], (2, 1)), rtol=1e-6)


def test_cross_check_with_torch_values_and_gradients():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    for dim in [2, 3, 4, 6]:
        for etas in ([0.3, 1.0, 2.5], [0.05, 7.0, 1.5]):
            for tdtype, sdtype, rtol in (
                (torch.float64, symgrad.float64, 1e-10),
                (torch.float32, symgrad.float32, 2e-5),
            ):
                eta_t = torch.tensor(etas, dtype=tdtype, requires_grad=True)
                drawn = torch.distributions.LKJCholesky(dim, eta_t).sample((4,))
                value_t = drawn.clone().requires_grad_()
                expected = torch.distributions.LKJCholesky(dim, eta_t).log_prob(value_t)
                expected.sum().backward()
                eta_s = symgrad.tensor(etas, dtype=sdtype, requires_grad=True)
                value_s = symgrad.tensor(drawn.numpy(), requires_grad=True)
                lp = LKJCholesky(dim, eta_s).log_prob(value_s)
                assert lp.dtype == sdtype and lp.shape == (4, 3)
                lp.sum().backward()
                case = f"dim={dim} etas={etas} {sdtype}"
                pairs = (
                    (lp.detach(), expected.detach()),
                    (eta_s.grad, eta_t.grad),
                    (value_s.grad, value_t.grad),
                )
                for got, want in pairs:
                    np.testing.assert_allclose(
                        got.numpy(), want.numpy(), rtol=rtol, atol=rtol, err_msg=case
                    )
