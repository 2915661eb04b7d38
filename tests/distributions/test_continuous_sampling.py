"""Gamma and Dirichlet draws and their implicit reparameterization gradients:
``_standard_gamma``, ``_standard_gamma_grad``, ``_sample_dirichlet``, ``_dirichlet_grad``,
and the samples of the continuous families (shapes, dtypes, support, statistics)."""

import math

import mpmath
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
    StudentT,
)
from symgrad.prim.gamma_functions import igamma, igammac


# (alpha, x): small and large shapes, both tails and the bulk
def _log_density(a, x):
    return (a - 1) * math.log(x) - x - math.lgamma(a)


# (alpha, x): small and large shapes, both tails and the bulk (where the density is a
# float64 number, so that the difference quotient below can be divided by it)
GAMMA_POINTS = [
    (a, x)
    for a in (0.01, 0.3, 1.0, 2.0, 4.5, 30.0, 500.0)
    for x in (a / 20, a / 2, a, a + 1.5, 2 * a + 3, 5 * a + 20)
    if _log_density(a, x) > -600
]


def _numerical_gamma_grad(a, x):
    """``-(dP/da) / f(x) = (dQ/da) / f(x)``: a central difference of the float64
    incomplete gamma, of the smaller of P and Q (the one known to relative precision)."""
    h = 1e-5 * a
    fn = igamma if x < a else igammac
    d = (fn(np.array(a + h), np.array(x)) - fn(np.array(a - h), np.array(x))) / (2 * h)
    sign = -1.0 if x < a else 1.0
    return sign * float(d) / math.exp(_log_density(a, x))


def _gamma_grad(a, x):
    return symgrad._standard_gamma_grad(
        symgrad.tensor([a], dtype=symgrad.float64), symgrad.tensor([x], dtype=symgrad.float64)
    ).item()


def _tail(a, x):
    p = float(igamma(np.array(a), np.array(x)))
    return min(p, float(igammac(np.array(a), np.array(x))))


@pytest.mark.parametrize("a, x", [(a, x) for a, x in GAMMA_POINTS if _tail(a, x) > 1e-30])
def test_standard_gamma_grad_is_the_implicit_derivative(a, x):
    assert _gamma_grad(a, x) == pytest.approx(_numerical_gamma_grad(a, x), rel=1e-6)


@pytest.mark.parametrize("a, x", GAMMA_POINTS)
def test_standard_gamma_grad_at_high_precision(a, x):
    # far in the tails the float64 difference quotient fails; mpmath's does not
    mpmath.mp.dps = 60
    am, xm = mpmath.mpf(a), mpmath.mpf(x)
    if x < a:
        cdf = lambda s: -mpmath.gammainc(s, 0, xm, regularized=True)  # noqa: E731
    else:
        cdf = lambda s: mpmath.gammainc(s, xm, mpmath.inf, regularized=True)  # noqa: E731
    slope = mpmath.diff(cdf, am, h=mpmath.mpf(10) ** -25)
    exact = slope / mpmath.exp((am - 1) * mpmath.log(xm) - xm - mpmath.loggamma(am))
    assert _gamma_grad(a, x) == pytest.approx(float(exact), rel=1e-12)


def test_standard_gamma_grad_closed_form_at_alpha_one():
    # Exponential(1): P = 1 - e^-x, dP/da = ... has the closed form x * (log x - psi(2) ...);
    # at a = 1 the exact value is e^x (E1-free): checked at high precision by mpmath
    mpmath.mp.dps = 30
    for x in (0.1, 1.0, 3.0):
        cdf = lambda a, x=x: mpmath.gammainc(a, 0, x, regularized=True)  # noqa: E731
        exact = -mpmath.diff(cdf, 1) / mpmath.exp(-x)
        got = symgrad._standard_gamma_grad(
            symgrad.tensor(1.0, dtype=symgrad.float64), symgrad.tensor(x, dtype=symgrad.float64)
        )
        assert got.item() == pytest.approx(float(exact), rel=1e-13)


def test_standard_gamma_edges():
    alpha = symgrad.tensor([-1.0, 0.0, float("nan"), float("inf")])
    tiny = float(np.finfo(np.float32).tiny)
    out = symgrad._standard_gamma(alpha)
    assert out.tolist()[:3] == [pytest.approx(tiny)] * 3 and out[3].item() == math.inf
    grad = symgrad._standard_gamma_grad(symgrad.tensor([1.0, -1.0]), symgrad.tensor([0.0, 1.0]))
    assert grad[0].item() == 0.0 and math.isnan(grad[1].item())
    with pytest.raises(NotImplementedError, match="\"gamma_cpu\" not implemented for 'Long'"):
        symgrad._standard_gamma(symgrad.tensor([1, 2]))
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        symgrad._standard_gamma(1.0)


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
def test_standard_gamma_samples_and_gradient(dtype):
    symgrad.manual_seed(0)
    alpha = symgrad.tensor([0.2, 1.0, 5.0], dtype=dtype).expand(20000, 3).requires_grad_()
    x = symgrad._standard_gamma(alpha)
    assert x.dtype is dtype and x.grad_fn.name() == "StandardGammaBackward0"
    assert (x > 0).all()
    mean = x.detach().mean(0).double().numpy()
    np.testing.assert_allclose(mean, [0.2, 1.0, 5.0], rtol=0.05)
    x.sum().backward()
    expected = symgrad._standard_gamma_grad(alpha.detach(), x.detach())
    np.testing.assert_array_equal(alpha.grad.numpy(), expected.numpy())
    # E[dx/da] = d E[x] / da = 1
    np.testing.assert_allclose(alpha.grad.double().mean(0).numpy(), [1.0, 1.0, 1.0], rtol=0.05)


def test_standard_gamma_has_no_second_derivative():
    alpha = symgrad.tensor([2.0], requires_grad=True)
    x = symgrad._standard_gamma(alpha)
    (g,) = symgrad.autograd.grad(x.sum(), alpha, create_graph=True)
    msg = "the derivative for '_standard_gamma_grad' is not implemented."
    with pytest.raises(NotImplementedError, match=msg):
        g.sum().backward()


def test_sample_dirichlet_has_no_derivative():
    symgrad.manual_seed(1)
    alpha = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = symgrad._sample_dirichlet(alpha)
    assert x.grad_fn.name().endswith("NotImplemented")
    assert x.sum().item() == pytest.approx(1.0)
    with pytest.raises(RuntimeError, match="derivative for aten::_sample_dirichlet"):
        x.sum().backward()


def _numerical_dirichlet_grad(x, a, b):
    """``-(dI_x/da) / f(x) / (1 - x)`` at high precision, from the smaller tail."""
    mpmath.mp.dps = 60
    xm = mpmath.mpf(x)
    if x < a / (a + b):
        cdf = lambda s: -mpmath.betainc(s, b, 0, xm, regularized=True)  # noqa: E731
    else:
        cdf = lambda s: mpmath.betainc(s, b, xm, 1, regularized=True)  # noqa: E731
    density = xm ** (a - 1) * (1 - xm) ** (b - 1) / mpmath.beta(a, b)
    return float(mpmath.diff(cdf, mpmath.mpf(a), h=mpmath.mpf(10) ** -25) / density / (1 - xm))


@pytest.mark.parametrize("a, b", [(0.3, 0.5), (1.0, 1.0), (2.5, 4.0), (40.0, 3.0), (0.05, 9.0)])
@pytest.mark.parametrize("x", [1e-4, 0.02, 0.5, 0.97, 0.9999])
def test_dirichlet_grad_is_the_implicit_derivative(a, b, x):
    got = symgrad._dirichlet_grad(
        *(symgrad.tensor([v], dtype=symgrad.float64) for v in (x, a, a + b))
    )
    assert got.item() == pytest.approx(_numerical_dirichlet_grad(x, a, b), rel=1e-9)


def test_dirichlet_grad_edges():
    one = symgrad.tensor([1.0, 1.0, 1.0])
    got = symgrad._dirichlet_grad(symgrad.tensor([0.0, 1.0, 0.5]), one, 2 * one)
    np.testing.assert_allclose(got.numpy(), [0.0, 1.0, math.log(2)], rtol=1e-6)


SAMPLED = [
    (Exponential(symgrad.tensor([0.5, 2.0])), [2.0, 0.5], [4.0, 0.25]),
    (Laplace(symgrad.tensor([0.0, 3.0]), symgrad.tensor([1.0, 0.5])), [0.0, 3.0], [2.0, 0.5]),
    (Gamma(symgrad.tensor([0.3, 4.0]), symgrad.tensor([1.0, 2.0])), [0.3, 2.0], [0.3, 1.0]),
    (Chi2(symgrad.tensor([1.0, 6.0])), [1.0, 6.0], [2.0, 12.0]),
    (Beta(symgrad.tensor([0.5, 3.0]), symgrad.tensor([0.5, 1.0])), [0.5, 0.75], [0.125, 3 / 80]),
    (StudentT(symgrad.tensor([5.0, 9.0])), [0.0, 0.0], [5 / 3, 9 / 7]),
    (
        FisherSnedecor(symgrad.tensor([6.0, 10.0]), symgrad.tensor([12.0, 20.0])),
        [1.2, 10 / 9],
        None,
    ),
]


@pytest.mark.parametrize("dist, mean, var", SAMPLED, ids=lambda v: type(v).__name__)
def test_sample_statistics(dist, mean, var):
    symgrad.manual_seed(3)
    x = dist.sample((40000,))
    assert x.shape == (40000, 2) and x.dtype is symgrad.float32 and not x.requires_grad
    assert bool(dist.support.check(x).all())
    np.testing.assert_allclose(x.double().mean(0).numpy(), mean, atol=0.06, rtol=0.04)
    if var is not None:
        np.testing.assert_allclose(x.double().var(0).numpy(), var, rtol=0.12)


def test_cauchy_and_dirichlet_samples():
    symgrad.manual_seed(4)
    x = Cauchy(symgrad.tensor([1.0]), symgrad.tensor([2.0])).sample((40001,))
    assert x.median().item() == pytest.approx(1.0, abs=0.1)
    d = Dirichlet(symgrad.tensor([[1.0, 2.0, 7.0]]))
    s = d.sample((20000,))
    assert s.shape == (20000, 1, 3) and bool(d.support.check(s).all())
    np.testing.assert_allclose(s.double().mean(0).numpy(), [[0.1, 0.2, 0.7]], atol=0.01)


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
def test_rsample_gradients_follow_the_draws(dtype):
    symgrad.manual_seed(5)
    a = symgrad.tensor([0.7, 3.0], dtype=dtype, requires_grad=True)
    rate = symgrad.tensor([2.0, 0.5], dtype=dtype, requires_grad=True)
    x = Gamma(a, rate).rsample((1000,))
    x.sum().backward()
    np.testing.assert_allclose(
        rate.grad.numpy(), -(x.detach() / rate.detach()).sum(0).numpy(), rtol=1e-5
    )
    expected = symgrad._standard_gamma_grad(a.detach().expand(1000, 2), x.detach() * rate.detach())
    np.testing.assert_allclose(a.grad.numpy(), (expected / rate.detach()).sum(0).numpy(), rtol=1e-5)
    c1 = symgrad.tensor([0.7, 3.0], dtype=dtype, requires_grad=True)
    y = Beta(c1, 2.0).rsample((4000,))
    y.mean().backward()
    # d E[y] / d c1 = c0 / (c1 + c0)^2
    np.testing.assert_allclose(c1.grad.double().numpy() * 2, [2 / 2.7**2, 2 / 25], rtol=0.1)


def test_dirichlet_rsample_backward_is_pytorchs_formula():
    symgrad.manual_seed(6)
    conc = symgrad.tensor([0.5, 2.0, 3.0], requires_grad=True)
    x = Dirichlet(conc).rsample()
    assert x.grad_fn.name() == "_DirichletBackward"
    g = symgrad.tensor([1.0, -2.0, 0.5])
    (x * g).sum().backward()
    c, xd = conc.detach(), x.detach()
    grad = symgrad._dirichlet_grad(xd, c, c.sum(-1, True).expand_as(c))
    np.testing.assert_allclose(conc.grad.numpy(), (grad * (g - (xd * g).sum())).numpy(), rtol=1e-6)


def test_cross_check_gradients_with_torch():
    torch = pytest.importorskip("torch")
    # PyTorch's kernel is an approximation, good to about 1e-3 from alpha = 0.3 on
    a = np.array([a for a, _ in GAMMA_POINTS if a >= 0.3])
    x = np.array([x for a, x in GAMMA_POINTS if a >= 0.3])
    ours = symgrad._standard_gamma_grad(symgrad.tensor(a), symgrad.tensor(x)).numpy()
    theirs = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-2)
    v = np.array([0.02, 0.3, 0.5, 0.9, 0.99])
    conc = np.array([0.3, 1.0, 2.5, 40.0, 9.0])
    total = conc + np.array([0.5, 1.0, 4.0, 3.0, 0.7])
    ours = symgrad._dirichlet_grad(*(symgrad.tensor(t) for t in (v, conc, total))).numpy()
    theirs = torch._dirichlet_grad(*(torch.tensor(t) for t in (v, conc, total))).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=2e-2)


def test_von_mises_samples():
    symgrad.manual_seed(7)
    d = symgrad.distributions.VonMises(symgrad.tensor([0.5, 3.0]), symgrad.tensor([4.0, 0.5]))
    x = d.sample((40000,))
    assert x.shape == (40000, 2) and x.dtype is symgrad.float32 and not x.requires_grad
    assert bool(((x >= -math.pi) & (x < math.pi)).all())
    # the mean resultant: E[exp(i x)] = exp(i loc) I1(k) / I0(k)
    c, s = x.double().cos().mean(0), x.double().sin().mean(0)
    ratio = 1 - d.variance.double()
    np.testing.assert_allclose(c.numpy(), (ratio * d.loc.double().cos()).numpy(), atol=0.02)
    np.testing.assert_allclose(s.numpy(), (ratio * d.loc.double().sin()).numpy(), atol=0.02)
    with pytest.raises(NotImplementedError):
        d.rsample()


def test_continuous_bernoulli_samples_and_lowrank_samples():
    symgrad.manual_seed(8)
    probs = symgrad.tensor([0.2, 0.5, 0.9], requires_grad=True)
    d = symgrad.distributions.ContinuousBernoulli(probs=probs)
    x = d.rsample((40000,))
    assert x.requires_grad and bool(d.support.check(x).all())
    np.testing.assert_allclose(
        x.detach().double().mean(0).numpy(), d.mean.detach().numpy(), atol=0.01
    )
    assert not d.sample((2,)).requires_grad
    loc = symgrad.tensor([1.0, -1.0])
    w = symgrad.tensor([[1.0], [0.5]])
    lr = symgrad.distributions.LowRankMultivariateNormal(loc, w, symgrad.tensor([0.5, 1.0]))
    y = lr.sample((40000,)).double()
    cov = ((y - y.mean(0)).T @ (y - y.mean(0)) / 40000).numpy()
    np.testing.assert_allclose(cov, lr.covariance_matrix.numpy(), atol=0.05)


def test_wishart_samples_and_errors():
    symgrad.manual_seed(9)
    cov = symgrad.tensor([[2.0, 0.5], [0.5, 1.0]])
    d = symgrad.distributions.Wishart(symgrad.tensor(5.0), covariance_matrix=cov)
    x = d.sample((20000,)).double()
    assert x.shape == (20000, 2, 2) and bool(d.support.check(x).all())
    np.testing.assert_allclose(x.mean(0).numpy(), 5 * cov.double().numpy(), rtol=0.05)
    with pytest.raises(ValueError, match="expected to be greater than ndim - 1 = 1"):
        symgrad.distributions.Wishart(0.5, covariance_matrix=cov)
    with pytest.raises(AssertionError, match="Exactly one of covariance_matrix"):
        symgrad.distributions.Wishart(3.0)
    with pytest.warns(UserWarning, match="Low df values detected"):
        symgrad.distributions.Wishart(1.5, covariance_matrix=cov)
    expanded = d.expand((3,))
    assert expanded.batch_shape == (3,) and expanded.rsample().shape == (3, 2, 2)


def test_standard_gamma_has_no_forward_derivative_and_checks_dtypes():
    import symgrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        dual = fwAD.make_dual(symgrad.tensor([1.0, 2.0]), symgrad.ones(2))
        with pytest.raises(NotImplementedError, match="forward AD with _standard_gamma"):
            symgrad._standard_gamma(dual)
    half = symgrad.tensor([0.5])
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        symgrad._dirichlet_grad(half, half.double(), half)
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        symgrad._standard_gamma_grad(half, half.double())
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        symgrad._standard_gamma_grad(symgrad.tensor([1]), symgrad.tensor([1]))


@pytest.mark.parametrize("a", [0.05, 0.3, 1.0, 3.5])
def test_standard_gamma_follows_the_gamma_cdf(a):
    # Kolmogorov-Smirnov: with 20000 draws the largest CDF gap stays below 0.0138 with
    # probability 0.999 (and the seed is fixed)
    symgrad.manual_seed(10)
    x = np.sort(symgrad._standard_gamma(symgrad.full((20000,), a, dtype=symgrad.float64)).numpy())
    cdf = igamma(np.full_like(x, a), x)
    steps = np.arange(1, x.size + 1) / x.size
    assert max(np.abs(cdf - steps).max(), np.abs(cdf - (steps - 1 / x.size)).max()) < 0.0138
