"""MixtureSameFamily over Normal, Independent(Normal), MultivariateNormal and Poisson
components: values against closed forms, samples, shapes, errors, and PyTorch."""

import math

import numpy as np
import pytest

import symgrad
from symgrad.distributions import (
    Categorical,
    Independent,
    MixtureSameFamily,
    MultivariateNormal,
    Normal,
    Poisson,
)


def _np(t):
    return t.detach().numpy()


def _normal_pdf(x, mu, sigma):
    return math.exp(-((x - mu) ** 2) / (2 * sigma**2)) / (sigma * math.sqrt(2 * math.pi))


def _gmm():
    mix = Categorical(symgrad.tensor([0.3, 0.7]))
    return MixtureSameFamily(mix, Normal(symgrad.tensor([0.0, 1.0]), symgrad.tensor([1.0, 2.0])))


def test_normal_mixture_values():
    gmm = _gmm()
    x = [0.5, 3.0]
    lp = _np(gmm.log_prob(symgrad.tensor(x)))
    expected = [math.log(0.3 * _normal_pdf(v, 0, 1) + 0.7 * _normal_pdf(v, 1, 2)) for v in x]
    assert np.allclose(lp, expected)
    assert gmm.mean.item() == pytest.approx(0.7)
    assert gmm.variance.item() == pytest.approx(0.3 * 1 + 0.7 * 4 + 0.3 * 0.49 + 0.7 * 0.09)
    cdf = gmm.cdf(symgrad.tensor([0.0]))
    phi = 0.5 * (1 + math.erf(-1 / (2 * math.sqrt(2))))
    assert cdf.item() == pytest.approx(0.3 * 0.5 + 0.7 * phi, rel=1e-6)
    assert gmm.batch_shape == () and gmm.event_shape == ()
    assert repr(gmm.support) == "MixtureSameFamilyConstraint(Real())"
    with pytest.raises(ValueError, match="within the support"):
        gmm.log_prob(symgrad.tensor(float("nan")))


def test_normal_mixture_gradients():
    logits = symgrad.tensor([0.2, -0.4], dtype=symgrad.float64, requires_grad=True)
    loc = symgrad.tensor([0.0, 1.0], dtype=symgrad.float64, requires_grad=True)
    comp = Normal(loc, symgrad.tensor([1.0, 2.0], dtype=symgrad.float64))
    gmm = MixtureSameFamily(Categorical(logits=logits), comp)
    gmm.log_prob(symgrad.tensor(0.5, dtype=symgrad.float64)).backward()
    w = np.exp([0.2, -0.4]) / np.exp([0.2, -0.4]).sum()
    dens = np.array([_normal_pdf(0.5, 0, 1), _normal_pdf(0.5, 1, 2)])
    resp = w * dens / (w * dens).sum()
    assert np.allclose(logits.grad.numpy(), resp - w)
    assert np.allclose(loc.grad.numpy(), resp * (0.5 - np.array([0.0, 1.0])) / [1.0, 4.0])


def test_independent_and_multivariate_components():
    mix = Categorical(symgrad.tensor([[0.3, 0.7], [0.5, 0.5]]))
    loc = symgrad.tensor([[[0.0, 1.0], [2.0, -1.0]], [[1.0, 1.0], [0.0, 0.0]]])
    scale = symgrad.tensor([[[1.0, 2.0], [0.5, 1.0]], [[1.0, 1.0], [2.0, 3.0]]])
    m = MixtureSameFamily(mix, Independent(Normal(loc, scale), 1))
    assert m.batch_shape == (2,) and m.event_shape == (2,)
    lp = m.log_prob(symgrad.tensor([[0.5, 0.5], [1.0, -1.0]]))
    assert np.allclose(_np(lp), [-3.852648, -3.823939], atol=1e-5)  # PyTorch's values
    assert np.allclose(_np(m.mean), [[1.4, -0.4], [0.5, 0.5]])
    assert np.allclose(_np(m.variance), [[1.315, 2.74], [2.75, 5.25]])
    cov = symgrad.tensor([[[1.0, 0.3], [0.3, 2.0]], [[0.5, 0.0], [0.0, 1.0]]])
    mvn = MultivariateNormal(symgrad.tensor([[0.0, 1.0], [2.0, -1.0]]), cov)
    m2 = MixtureSameFamily(Categorical(symgrad.tensor([0.4, 0.6])), mvn)
    assert m2.log_prob(symgrad.tensor([0.5, 0.5])).item() == pytest.approx(-3.193789, abs=1e-5)
    assert np.allclose(_np(m2.mean), [1.2, -0.2]) and np.allclose(_np(m2.variance), [1.66, 2.36])
    s = m2.sample((3000,))
    assert s.shape == (3000, 2) and not s.requires_grad
    assert np.allclose(_np(s.mean(0)), [1.2, -0.2], atol=0.12)


def test_samples_follow_the_mixture():
    gmm = _gmm()
    s = gmm.sample((20000,))
    assert s.shape == (20000,) and s.dtype is symgrad.float32
    assert s.mean().item() == pytest.approx(0.7, abs=0.06)
    assert s.var().item() == pytest.approx(gmm.variance.item(), rel=0.06)
    pois = MixtureSameFamily(
        Categorical(symgrad.tensor([0.5, 0.5])), Poisson(symgrad.tensor([1.0, 9.0]))
    )
    ps = pois.sample((20000,))
    assert bool((ps == ps.floor()).all()) and ps.mean().item() == pytest.approx(5.0, abs=0.15)
    assert pois.log_prob(symgrad.tensor(0.0)).item() == pytest.approx(
        math.log(0.5 * math.exp(-1) + 0.5 * math.exp(-9))
    )


def test_broadcast_mixture_batch_and_expand():
    # a mixture without batch dimensions shared by a batch of 3 component pairs
    comp = Normal(symgrad.tensor([[0.0, 10.0]] * 3), symgrad.ones(3, 2))
    m = MixtureSameFamily(Categorical(symgrad.tensor([0.5, 0.5])), comp)
    assert m.batch_shape == (3,) and m.mean.shape == (3,) and m.variance.shape == (3,)
    s = m.sample((4000,))
    assert s.shape == (4000, 3)
    # each batch element picks its own component
    near_zero = (s < 5).float().mean(0)
    assert np.allclose(_np(near_zero), 0.5, atol=0.05)
    both = ((s[:, 0] < 5) != (s[:, 1] < 5)).float().mean().item()
    assert both == pytest.approx(0.5, abs=0.05)
    e = _gmm().expand((4,))
    assert e.batch_shape == (4,) and e.log_prob(symgrad.zeros(4)).shape == (4,)
    assert e.component_distribution.batch_shape == (4, 2)
    assert e.mixture_distribution.batch_shape == (4,)


def test_constructor_errors():
    comp = Normal(symgrad.zeros(3), symgrad.ones(3))
    with pytest.raises(ValueError, match="needs to be an  instance of"):
        MixtureSameFamily(Normal(0.0, 1.0), comp)
    with pytest.raises(ValueError, match=r"`mixture_distribution component` \(2\) does not equal"):
        MixtureSameFamily(Categorical(symgrad.ones(2)), comp)
    with pytest.raises(ValueError, match="is not compatible with"):
        MixtureSameFamily(
            Categorical(symgrad.ones(4, 3)), Normal(symgrad.zeros(5, 3), symgrad.ones(5, 3))
        )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_against_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    logits, loc = rng.normal(size=(2, 3)), rng.normal(size=(2, 3, 2))
    scale, x = rng.uniform(0.5, 2, size=(2, 3, 2)), rng.normal(size=(4, 2, 2))
    sg, th = getattr(symgrad, dtype), getattr(torch, dtype)
    ours_t = [symgrad.tensor(a, dtype=sg, requires_grad=True) for a in (logits, loc, scale)]
    theirs_t = [torch.tensor(a, dtype=th, requires_grad=True) for a in (logits, loc, scale)]
    D = torch.distributions
    ours = MixtureSameFamily(
        Categorical(logits=ours_t[0]), Independent(Normal(ours_t[1], ours_t[2]), 1)
    )
    theirs = D.MixtureSameFamily(
        D.Categorical(logits=theirs_t[0]), D.Independent(D.Normal(theirs_t[1], theirs_t[2]), 1)
    )
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10}
    lp_ours = ours.log_prob(symgrad.tensor(x, dtype=sg))
    lp_theirs = theirs.log_prob(torch.tensor(x, dtype=th))
    np.testing.assert_allclose(_np(lp_ours), lp_theirs.detach().numpy(), **tol)
    np.testing.assert_allclose(_np(ours.mean), theirs.mean.detach().numpy(), **tol)
    np.testing.assert_allclose(_np(ours.variance), theirs.variance.detach().numpy(), **tol)
    (lp_ours.sum() + ours.variance.sum()).backward()
    (lp_theirs.sum() + theirs.variance.sum()).backward()
    for a, b in zip(ours_t, theirs_t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **tol)
    cdf_ours = MixtureSameFamily(Categorical(logits=ours_t[0]), Normal(ours_t[1][..., 0], 1.0))
    cdf_theirs = D.MixtureSameFamily(
        D.Categorical(logits=theirs_t[0]), D.Normal(theirs_t[1][..., 0], 1.0)
    )
    np.testing.assert_allclose(
        _np(cdf_ours.cdf(symgrad.tensor(x[..., 0], dtype=sg))),
        cdf_theirs.cdf(torch.tensor(x[..., 0], dtype=th)).detach().numpy(),
        **tol,
    )
