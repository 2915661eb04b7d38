"""symgrad.distributions: values and gradients against closed forms, and against PyTorch."""

import math

import numpy as np
import pytest

import symgrad
from symgrad.distributions import (
    Bernoulli,
    Categorical,
    Independent,
    MultivariateNormal,
    Normal,
    Uniform,
    kl_divergence,
)


def test_normal_log_prob_entropy_and_gradients():
    mu = symgrad.tensor([0.0, 1.0], requires_grad=True)
    sigma = symgrad.tensor([1.0, 0.5], requires_grad=True)
    n = Normal(mu, sigma)
    lp = n.log_prob(symgrad.tensor([0.0, 1.0]))
    assert np.allclose(
        lp.detach().numpy(),
        [-0.5 * math.log(2 * math.pi), -0.5 * math.log(2 * math.pi) - math.log(0.5)],
    )
    assert np.allclose(
        n.entropy().detach().numpy(), 0.5 + 0.5 * math.log(2 * math.pi) + np.log([1.0, 0.5])
    )
    n.log_prob(symgrad.tensor([1.0, 1.0])).sum().backward()
    assert np.allclose(mu.grad.numpy(), [1.0, 0.0]) and np.allclose(sigma.grad.numpy(), [0.0, -2.0])
    r = n.rsample((3,))
    assert r.shape == (3, 2) and r.grad_fn is not None
    s = n.sample((4,))
    assert s.shape == (4, 2) and not s.requires_grad
    assert n.batch_shape == (2,) and n.event_shape == ()
    assert repr(Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    with pytest.raises(ValueError):
        Normal(symgrad.tensor([0.0]), symgrad.tensor([-1.0]))


def test_categorical_bernoulli_uniform():
    logits = symgrad.tensor([[0.0, 0.0, 0.0, 0.0]], requires_grad=True)
    c = Categorical(logits=logits)
    assert np.allclose(c.log_prob(symgrad.tensor([2])).detach().numpy(), [math.log(0.25)])
    assert np.allclose(c.entropy().detach().numpy(), [math.log(4)])
    a = c.sample((5,))
    assert a.shape == (5, 1) and a.dtype is symgrad.int64
    c.log_prob(symgrad.tensor([2])).sum().backward()
    assert np.allclose(logits.grad.numpy(), [[-0.25, -0.25, 0.75, -0.25]])
    assert np.allclose(Categorical(probs=symgrad.tensor([1.0, 3.0])).probs.numpy(), [0.25, 0.75])
    b = Bernoulli(probs=symgrad.tensor([0.25]))
    assert np.allclose(b.log_prob(symgrad.tensor([1.0])).numpy(), [math.log(0.25)])
    assert Bernoulli(logits=symgrad.tensor([0.0])).entropy().item() == pytest.approx(math.log(2))
    u = Uniform(0.0, 2.0)
    assert u.log_prob(symgrad.tensor(0.5)).item() == pytest.approx(-math.log(2))
    assert u.entropy().item() == pytest.approx(math.log(2)) and u.mean.item() == 1.0
    with pytest.raises(ValueError):
        Categorical(probs=symgrad.tensor([0.5]), logits=symgrad.tensor([0.5]))


def test_independent_multivariate_normal_and_kl():
    ind = Independent(Normal(symgrad.zeros(2, 3), symgrad.ones(2, 3)), 1)
    assert ind.batch_shape == (2,) and ind.event_shape == (3,)
    assert np.allclose(
        ind.log_prob(symgrad.zeros(2, 3)).numpy(), [-1.5 * math.log(2 * math.pi)] * 2
    )
    cov = symgrad.tensor([[2.0, 0.0], [0.0, 0.5]])
    mvn = MultivariateNormal(symgrad.zeros(2), covariance_matrix=cov)
    want = Normal(0.0, math.sqrt(2)).log_prob(symgrad.tensor(1.0)) + Normal(
        0.0, math.sqrt(0.5)
    ).log_prob(symgrad.tensor(-1.0))
    assert mvn.log_prob(symgrad.tensor([1.0, -1.0])).item() == pytest.approx(want.item(), rel=1e-6)
    assert mvn.rsample((4,)).shape == (4, 2)
    assert kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)).item() == pytest.approx(0.5)
    p = Categorical(probs=symgrad.tensor([0.5, 0.5]))
    q = Categorical(probs=symgrad.tensor([0.25, 0.75]))
    assert kl_divergence(p, q).item() == pytest.approx(0.5 * math.log(2) + 0.5 * math.log(2 / 3))
    with pytest.raises(NotImplementedError):
        kl_divergence(Uniform(0.0, 1.0), Categorical(probs=symgrad.ones(2)))


def test_against_torch():
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(0)
    loc, scale, x = rs.randn(3), rs.rand(3) + 0.5, rs.randn(3)
    logits, k = rs.randn(2, 4), np.array([1, 3])

    def run(lib):
        td = lib.distributions
        lo = lib.tensor(loc, requires_grad=True)
        sc = lib.tensor(scale, requires_grad=True)
        lg = lib.tensor(logits, requires_grad=True)
        n, c = td.Normal(lo, sc), td.Categorical(logits=lg)
        total = (
            n.log_prob(lib.tensor(x)).sum()
            + n.entropy().sum()
            + n.cdf(lib.tensor(x)).sum()
            + c.log_prob(lib.tensor(k)).sum()
            + c.entropy().sum()
            + td.kl_divergence(n, td.Normal(lib.zeros(3, dtype=lib.float64), 1.0)).sum()
            + td.kl_divergence(c, td.Categorical(logits=lg.detach() * 2)).sum()
            + td.Bernoulli(logits=lg).log_prob(lib.ones(2, 4, dtype=lib.float64)).sum()
        )
        total.backward()
        return [total.item(), lo.grad.numpy(), sc.grad.numpy(), lg.grad.numpy()]

    for a, b in zip(run(symgrad), run(torch)):
        assert np.allclose(a, b)
