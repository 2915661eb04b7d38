"""The continuous families against closed forms (math and numpy), their validation errors,
``expand`` and KL divergences; no PyTorch needed (see test_continuous_torch.py for that)."""

import math

import numpy as np
import pytest

import symgrad
from symgrad.distributions import (
    Beta,
    Cauchy,
    Chi2,
    Dirichlet,
    Exponential,
    FisherSnedecor,
    Gamma,
    Laplace,
    Normal,
    StudentT,
    Uniform,
    kl_divergence,
)

T = symgrad.tensor


def _f64(*values):
    return [T(v, dtype=symgrad.float64) for v in values]


def test_exponential_closed_forms():
    (rate,) = _f64(2.0)
    d = Exponential(rate)
    x = T(0.7, dtype=symgrad.float64)
    assert d.log_prob(x).item() == pytest.approx(math.log(2) - 1.4, rel=1e-14)
    assert d.cdf(x).item() == pytest.approx(1 - math.exp(-1.4), rel=1e-14)
    assert d.icdf(d.cdf(x)).item() == pytest.approx(0.7, rel=1e-12)
    assert d.entropy().item() == pytest.approx(1 - math.log(2), rel=1e-14)
    assert (d.mean.item(), d.mode.item(), d.variance.item()) == (0.5, 0.0, 0.25)


def test_laplace_and_cauchy_closed_forms():
    loc, scale = _f64(1.0, 2.0)
    d = Laplace(loc, scale)
    x = T(-2.0, dtype=symgrad.float64)
    assert d.log_prob(x).item() == pytest.approx(-math.log(4) - 1.5, rel=1e-14)
    assert d.cdf(x).item() == pytest.approx(0.5 * math.exp(-1.5), rel=1e-14)
    assert d.icdf(d.cdf(x)).item() == pytest.approx(-2.0, rel=1e-12)
    assert d.entropy().item() == pytest.approx(1 + math.log(4), rel=1e-14)
    assert d.stddev.item() == pytest.approx(2 * math.sqrt(2), rel=1e-14)
    c = Cauchy(loc, scale)
    assert c.log_prob(x).item() == pytest.approx(-math.log(2 * math.pi * (1 + 2.25)), rel=1e-14)
    assert c.cdf(x).item() == pytest.approx(0.5 + math.atan(-1.5) / math.pi, rel=1e-14)
    assert c.icdf(T(0.75, dtype=symgrad.float64)).item() == pytest.approx(3.0, rel=1e-12)
    assert math.isnan(c.mean.item()) and c.variance.item() == math.inf
    assert c.entropy().item() == pytest.approx(math.log(8 * math.pi), rel=1e-14)


def test_gamma_chi2_closed_forms():
    a, rate = _f64(3.0, 2.0)
    d = Gamma(a, rate)
    x = T(1.5, dtype=symgrad.float64)
    expected = 3 * math.log(2) + 2 * math.log(1.5) - 3.0 - math.lgamma(3.0)
    assert d.log_prob(x).item() == pytest.approx(expected, rel=1e-14)
    # P(3, 3) = 1 - e^-3 (1 + 3 + 9/2)
    assert d.cdf(x).item() == pytest.approx(1 - math.exp(-3) * 8.5, rel=1e-12)
    assert (d.mean.item(), d.mode.item(), d.variance.item()) == (1.5, 1.0, 0.75)
    c = Chi2(T([2.0]))
    assert c.log_prob(T([1.0])).item() == pytest.approx(math.log(0.5) - 0.5, rel=1e-6)
    assert c.df.tolist() == [2.0] and isinstance(c, Gamma)


def test_beta_and_dirichlet_closed_forms():
    c1, c0 = _f64(2.0, 3.0)
    d = Beta(c1, c0)
    x = T(0.25, dtype=symgrad.float64)
    # B(2, 3) = 1/12
    assert d.log_prob(x).item() == pytest.approx(math.log(12 * 0.25 * 0.75**2), rel=1e-14)
    assert (d.mean.item(), d.mode.item()) == (pytest.approx(0.4), pytest.approx(1 / 3))
    assert d.variance.item() == pytest.approx(6 / (25 * 6), rel=1e-14)
    assert d.concentration1.item() == 2.0 and d.concentration0.item() == 3.0
    # the entropy: ln B - (a - 1) psi(a) - (b - 1) psi(b) + (a + b - 2) psi(a + b)
    psi = {2: 1 - 0.5772156649015329, 3: 1.5 - 0.5772156649015329}
    psi5 = 1 + 1 / 2 + 1 / 3 + 1 / 4 - 0.5772156649015329
    h = math.log(1 / 12) - psi[2] - 2 * psi[3] + 3 * psi5
    assert d.entropy().item() == pytest.approx(h, rel=1e-12)
    dd = Dirichlet(T([[1.0, 1.0, 1.0], [0.5, 0.3, 0.2]], dtype=symgrad.float64))
    value = T([0.2, 0.3, 0.5], dtype=symgrad.float64)
    assert dd.log_prob(value)[0].item() == pytest.approx(math.log(2), rel=1e-14)
    assert dd.batch_shape == (2,) and dd.event_shape == (3,)
    # all ones: 0 / 0 (as PyTorch); all below one: the corner of the largest
    np.testing.assert_allclose(dd.mode.numpy(), [[math.nan] * 3, [1.0, 0.0, 0.0]])


def test_student_t_and_fisher_snedecor_moments():
    d = StudentT(T([0.5, 1.5, 4.0]), 1.0, 2.0)
    assert math.isnan(d.mean[0].item()) and d.mean[1].item() == 1.0
    var = d.variance
    assert math.isnan(var[0].item()) and var[1].item() == math.inf and var[2].item() == 8.0
    # Cauchy is StudentT with one degree of freedom
    x = T(0.3, dtype=symgrad.float64)
    t1 = StudentT(*_f64(1.0, 0.5, 2.0))
    assert t1.log_prob(x).item() == pytest.approx(Cauchy(*_f64(0.5, 2.0)).log_prob(x).item())
    assert t1.entropy().item() == pytest.approx(Cauchy(*_f64(0.5, 2.0)).entropy().item())
    f = FisherSnedecor(T([1.0, 4.0]), T([2.0, 10.0]))
    assert math.isnan(f.mean[0].item()) and f.mean[1].item() == pytest.approx(1.25)
    assert math.isnan(f.mode[0].item()) and f.mode[1].item() == pytest.approx(0.5 * 10 / 12)
    # F(2, 2) has density 1 / (1 + x)^2
    f22 = FisherSnedecor(*_f64(2.0, 2.0))
    assert f22.log_prob(x).item() == pytest.approx(-2 * math.log(1.3), rel=1e-13)


def test_student_t_variance_gradient_is_zero_where_it_is_not_finite():
    df = T([1.5, 2.0, 4.0], requires_grad=True)
    StudentT(df).variance[2].backward()
    assert df.grad.tolist() == [0.0, 0.0, -0.5]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Exponential(-1.0), "Expected parameter rate (Tensor of shape ()) of"),
        (lambda: Gamma(1.0, 0.0), "GreaterThan(lower_bound=0.0), but found invalid"),
        (lambda: Dirichlet(T(1.0)), "`concentration` parameter must be at least one-dim"),
        (lambda: Beta(1.0, 1.0).log_prob(T(1.5)), "within the support (Interval(lower_bo"),
        (lambda: Gamma(1.0, 1.0).log_prob(T(-1.0)), "(GreaterThanEq(lower_bound=0.0)) of"),
        (lambda: Dirichlet(symgrad.ones(3)).log_prob(T([0.5] * 3)), "(Simplex()) of the"),
        (lambda: StudentT(0.0), "of distribution Chi2() to satisfy the constraint"),
        (lambda: Laplace(0.0, -1.0), "parameter scale"),
    ],
)
def test_validation_errors(make, message):
    with pytest.raises(ValueError) as info:
        make()
    assert message in str(info.value)


def test_validation_can_be_turned_off():
    assert Exponential(1.0, validate_args=False).log_prob(T(-1.0)).item() == 1.0


def test_expand_shares_parameters():
    d = Gamma(T([1.0]), 2.0).expand((3, 2))
    assert d.batch_shape == (3, 2) and d.concentration.shape == (3, 2)
    b = Beta(T([1.0]), 2.0).expand((3, 2))
    assert b.batch_shape == (3, 2) and b.concentration1.shape == (3, 2)
    assert b.sample().shape == (3, 2)
    c = Chi2(T([3.0])).expand((4,))
    assert type(c) is Chi2 and c.df.tolist() == [3.0] * 4
    s = StudentT(T([3.0])).expand((2,))
    assert s.rsample((5,)).shape == (5, 2)
    dd = Dirichlet(T([1.0, 2.0])).expand((3,))
    assert dd.batch_shape == (3,) and dd.event_shape == (2,)
    for d in (Exponential(T([1.0])), Laplace(0.0, T([1.0])), Cauchy(0.0, T([1.0]))):
        assert d.expand((2, 1)).sample((3,)).shape == (3, 2, 1)
    f = FisherSnedecor(T([3.0]), 4.0).expand((2,))
    assert f.rsample().shape == (2,)


def test_repr():
    assert repr(Gamma(1.0, 2.0)) == "Gamma(concentration: 1.0, rate: 2.0)"
    assert repr(Dirichlet(symgrad.ones(3))) == "Dirichlet(concentration: symgrad.Size([3]))"
    assert repr(StudentT(2.0)) == "StudentT(df: 2.0, loc: 0.0, scale: 1.0)"
    assert repr(Beta(1.0, 2.0)) == "Beta()" and repr(Chi2(3.0)) == "Chi2()"


def test_kl_closed_forms():
    f64 = symgrad.float64
    kl = kl_divergence(Exponential(T(1.0, dtype=f64)), Exponential(T(2.0, dtype=f64)))
    assert kl.item() == pytest.approx(1 - math.log(2), rel=1e-14)
    # KL(Gamma(1, 1) || Exponential(2)) is the exponential pair
    kl = kl_divergence(Gamma(*_f64(1.0, 1.0)), Exponential(T(2.0, dtype=f64)))
    assert kl.item() == pytest.approx(1 - math.log(2), rel=1e-13)
    # KL(Beta(1, 1) || Uniform(0, 1)) = 0; inf where the Uniform misses part of [0, 1]
    kl = kl_divergence(Beta(*_f64(1.0, 1.0)), Uniform(*_f64(0.0, 1.0)))
    assert kl.item() == pytest.approx(0.0, abs=1e-14)
    kl = kl_divergence(Beta(*_f64(1.0, 1.0)), Uniform(*_f64(0.1, 1.0)))
    assert kl.item() == math.inf
    # a distribution with mass outside the other's support: inf
    assert kl_divergence(Normal(0.0, 1.0), Gamma(1.0, 1.0)).item() == math.inf
    assert kl_divergence(Laplace(0.0, 1.0), Laplace(0.0, 1.0)).item() == 0.0
    assert kl_divergence(Cauchy(0.0, 1.0), Cauchy(0.0, 1.0)).item() == 0.0
    kl = kl_divergence(Dirichlet(T([1.0, 2.0])), Dirichlet(T([1.0, 2.0])))
    assert kl.item() == pytest.approx(0.0, abs=1e-6)
    kl = kl_divergence(Uniform(*_f64(0.0, 1.0)), Uniform(*_f64(0.0, 2.0)))
    assert kl.item() == pytest.approx(math.log(2), rel=1e-14)
