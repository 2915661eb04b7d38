"""Poisson, Binomial, Geometric and NegativeBinomial: closed forms, edge cases, validation,
samples by statistics, and a cross-check of values and gradients against PyTorch."""

import math

import numpy as np
import pytest

import symgrad
from symgrad.distributions import Binomial, Geometric, NegativeBinomial, Poisson


def _np(t):
    return t.detach().numpy()


def _binom_pmf(n, p, k):
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


def test_poisson_log_prob_moments_and_edges():
    rate = symgrad.tensor([0.0, 2.0, 3.5], requires_grad=True)
    d = Poisson(rate)
    value = symgrad.tensor([0.0, 3.0, 1.0])
    expected = [0.0, 3 * math.log(2) - 2 - math.log(6), math.log(3.5) - 3.5]
    assert np.allclose(_np(d.log_prob(value)), expected)
    assert Poisson(symgrad.tensor(0.0)).log_prob(symgrad.tensor(1.0)).item() == -math.inf
    assert np.allclose(_np(d.mean), [0.0, 2.0, 3.5]) and np.allclose(_np(d.mode), [0, 2, 3])
    assert np.allclose(_np(d.variance), [0.0, 2.0, 3.5])
    d.log_prob(value).sum().backward()
    # d/drate (k log rate - rate) = k / rate - 1; 0/0 at rate 0 is nan, as in PyTorch
    grad = rate.grad.numpy()
    assert math.isnan(grad[0]) and np.allclose(grad[1:], [0.5, 1 / 3.5 - 1])
    assert d.batch_shape == (3,) and d.event_shape == ()
    assert Poisson(2.0).batch_shape == ()


def test_poisson_validation_messages():
    with pytest.raises(ValueError, match=r"Expected parameter rate .* GreaterThanEq"):
        Poisson(symgrad.tensor([-1.0]))
    with pytest.raises(ValueError, match=r"within the support \(IntegerGreaterThan\(lower_"):
        Poisson(symgrad.tensor(1.0)).log_prob(symgrad.tensor(0.5))
    assert Poisson(symgrad.tensor([-1.0]), validate_args=False).batch_shape == (1,)


def test_poisson_sample_statistics_and_expand():
    d = Poisson(symgrad.tensor([0.5, 4.0]))
    s = d.sample((20000,))
    assert s.shape == (20000, 2) and s.dtype is symgrad.float32 and not s.requires_grad
    assert bool((s >= 0).all()) and bool((s == s.floor()).all())
    assert np.allclose(_np(s.mean(0)), [0.5, 4.0], atol=0.1)
    assert np.allclose(_np(s.var(0)), [0.5, 4.0], atol=0.25)
    e = d.expand((3, 2))
    assert e.batch_shape == (3, 2) and e.rate.shape == (3, 2) and type(e) is Poisson


def test_binomial_log_prob_edges_entropy_and_support():
    d = Binomial(10, symgrad.tensor([0.0, 1.0, 0.3]))
    lp = _np(d.log_prob(symgrad.tensor([0.0, 10.0, 3.0])))
    # probs 0 and 1 go through clamped logits: tiny, not exactly 0 (PyTorch's -9.5367e-07)
    assert np.allclose(lp, [0.0, 0.0, math.log(_binom_pmf(10, 0.3, 3))], atol=2e-6)
    assert lp[0] == pytest.approx(-9.5367e-07, rel=1e-3) and lp[1] == 0.0
    assert np.allclose(_np(d.mean), [0, 10, 3]) and np.allclose(_np(d.variance), [0, 0, 2.1])
    assert np.allclose(_np(d.mode), [0, 10, 3])
    entropy = -sum(_binom_pmf(10, 0.3, k) * math.log(_binom_pmf(10, 0.3, k)) for k in range(11))
    assert d.entropy()[2].item() == pytest.approx(entropy, rel=1e-5)
    assert repr(d.support) == "IntegerInterval(lower_bound=0, upper_bound=tensor([10., 10., 10.]))"
    assert d.enumerate_support().shape == (11, 3)
    assert d.enumerate_support(expand=False).shape == (11, 1)
    assert d.param_shape == (3,) and d.total_count.dtype is symgrad.float32


def test_binomial_logits_gradient_at_half_is_exact():
    logits = symgrad.tensor([0.0, 1.5], dtype=symgrad.float64, requires_grad=True)
    d = Binomial(symgrad.tensor([4.0, 6.0], dtype=symgrad.float64), logits=logits)
    d.log_prob(symgrad.tensor([1.0, 2.0], dtype=symgrad.float64)).sum().backward()
    sigmoid = 1 / (1 + math.exp(-1.5))
    assert np.allclose(logits.grad.numpy(), [1 - 4 * 0.5, 2 - 6 * sigmoid])


def test_binomial_validation_and_errors():
    with pytest.raises(ValueError, match=r"total_count .* IntegerGreaterThan\(lower_bound=0\)"):
        Binomial(2.5, symgrad.tensor(0.5))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        Binomial(3)
    with pytest.raises(ValueError, match="within the support"):
        Binomial(3, symgrad.tensor(0.5)).log_prob(symgrad.tensor(4.0))
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
        Binomial(symgrad.tensor([2.0, 3.0]), symgrad.tensor(0.5)).entropy()


def test_binomial_sample_and_expand():
    d = Binomial(symgrad.tensor([[5.0], [10.0]]), symgrad.tensor([0.5, 0.8]))
    s = d.sample((5000,))
    assert s.shape == (5000, 2, 2) and s.dtype is symgrad.float32
    assert bool((s >= 0).all()) and bool((s <= d.total_count).all())
    assert np.allclose(_np(s.mean(0)), [[2.5, 4.0], [5.0, 8.0]], atol=0.15)
    e = Binomial(4, logits=symgrad.tensor([0.0, 1.0])).expand((3, 2))
    assert e.batch_shape == (3, 2) and "probs" not in e.__dict__ and e.logits.shape == (3, 2)


def test_geometric_log_prob_moments_entropy_and_validation():
    d = Geometric(symgrad.tensor([1.0, 0.5, 0.2]))
    lp = _np(d.log_prob(symgrad.tensor([0.0, 2.0, 3.0])))
    assert np.allclose(lp, [0.0, 3 * math.log(0.5), 3 * math.log(0.8) + math.log(0.2)])
    assert np.allclose(_np(d.mean), [0.0, 1.0, 4.0]) and np.allclose(_np(d.variance), [0, 2, 20])
    assert np.allclose(_np(d.mode), [0, 0, 0])
    h = -(0.8 * math.log(0.8) + 0.2 * math.log(0.2)) / 0.2
    assert d.entropy()[2].item() == pytest.approx(h, rel=1e-5)
    with pytest.raises(ValueError, match=r"to be positive but found invalid values:\ntensor"):
        Geometric(symgrad.tensor(0.0))
    with pytest.raises(ValueError, match="within the support"):
        d.log_prob(symgrad.tensor(-1.0))
    assert Geometric(logits=symgrad.tensor(0.0)).probs.item() == 0.5


def test_geometric_sample_statistics():
    s = Geometric(symgrad.tensor([0.5, 0.2])).sample((20000,))
    assert s.shape == (20000, 2) and bool((s >= 0).all()) and bool((s == s.floor()).all())
    assert np.allclose(_np(s.mean(0)), [1.0, 4.0], atol=0.15)


def test_negative_binomial_log_prob_moments_and_edges():
    d = NegativeBinomial(symgrad.tensor([0.0, 3.0]), symgrad.tensor([0.0, 0.4]))
    lp = _np(d.log_prob(symgrad.tensor([0.0, 2.0])))
    # C(k + r - 1, k) (1 - p)^r p^k with r = 3, k = 2, p = 0.4
    assert np.allclose(lp, [0.0, math.log(6 * 0.6**3 * 0.4**2)], atol=1e-6)
    assert np.allclose(_np(d.mean), [0.0, 2.0]) and np.allclose(_np(d.variance), [0.0, 2 / 0.6])
    assert np.allclose(_np(d.mode), [0.0, 1.0])
    with pytest.raises(ValueError, match=r"probs .* HalfOpenInterval"):
        NegativeBinomial(2.0, symgrad.tensor(1.0))


def test_negative_binomial_sample_statistics():
    d = NegativeBinomial(symgrad.tensor([3.0, 0.5]), logits=symgrad.tensor([0.0, 1.0]))
    s = d.sample((40000,))
    assert s.shape == (40000, 2) and s.dtype is symgrad.float32
    assert bool((s >= 0).all()) and bool((s == s.floor()).all())
    assert np.allclose(_np(s.mean(0)), _np(d.mean), rtol=0.05)
    assert np.allclose(_np(s.var(0)), _np(d.variance), rtol=0.1)


_CASES = [
    ("Poisson", {"rate": [0.5, 2.0, 7.0]}, [0.0, 3.0, 5.0]),
    ("Binomial", {"total_count": [4.0, 10.0, 6.0], "probs": [0.3, 0.5, 0.9]}, [1.0, 5.0, 6.0]),
    ("Binomial", {"total_count": [6.0, 6.0, 6.0], "logits": [-1.0, 0.0, 2.0]}, [0.0, 5.0, 2.0]),
    ("Geometric", {"probs": [0.3, 0.5, 0.9]}, [0.0, 2.0, 4.0]),
    ("Geometric", {"logits": [-1.0, 0.0, 2.0]}, [1.0, 0.0, 3.0]),
    ("NegativeBinomial", {"total_count": [0.5, 3.0, 2.0], "probs": [0.3, 0.5, 0.1]}, [0, 2, 1.0]),
    ("NegativeBinomial", {"total_count": [1.5, 3.0, 4.0], "logits": [-1.0, 0, 1]}, [2, 0, 3.0]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, params, value", _CASES)
def test_against_torch(name, params, value, dtype):
    torch = pytest.importorskip("torch")
    ours_cls = getattr(symgrad.distributions, name)
    theirs_cls = getattr(torch.distributions, name)
    ours_p = {
        k: symgrad.tensor(v, dtype=getattr(symgrad, dtype), requires_grad=True)
        for k, v in params.items()
    }
    theirs_p = {
        k: torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True)
        for k, v in params.items()
    }
    ours, theirs = ours_cls(**ours_p), theirs_cls(**theirs_p)
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10}
    lp_ours = ours.log_prob(symgrad.tensor(value, dtype=getattr(symgrad, dtype)))
    lp_theirs = theirs.log_prob(torch.tensor(value, dtype=getattr(torch, dtype)))
    assert str(lp_ours.dtype) == str(lp_theirs.dtype).replace("torch", "symgrad")
    np.testing.assert_allclose(_np(lp_ours), lp_theirs.detach().numpy(), **tol)
    for prop in ("mean", "variance", "mode"):
        np.testing.assert_allclose(
            _np(getattr(ours, prop)), getattr(theirs, prop).detach().numpy(), **tol
        )
    # Binomial's entropy needs one total count for the whole batch
    if name == "Geometric" or (name == "Binomial" and len(set(params["total_count"])) == 1):
        np.testing.assert_allclose(_np(ours.entropy()), theirs.entropy().detach().numpy(), **tol)
    lp_ours.sum().backward()
    lp_theirs.sum().backward()
    for k in params:
        np.testing.assert_allclose(ours_p[k].grad.numpy(), theirs_p[k].grad.numpy(), **tol)


def test_infinite_logits_follow_pytorch():
    inf = math.inf
    # PyTorch's values: Binomial gives nan at infinite logits (inf - inf in the normaliser),
    # Geometric reads +inf as a sure success and -inf as never succeeding
    lp = _np(
        Binomial(5, logits=symgrad.tensor([inf, -inf, 0.0])).log_prob(
            symgrad.tensor([5.0, 0.0, 2.0])
        )
    )
    assert np.isnan(lp[:2]).all() and lp[2] == pytest.approx(math.log(10 / 32), rel=1e-5)
    lp = _np(
        Geometric(logits=symgrad.tensor([inf, -inf, 3.0])).log_prob(symgrad.tensor([0.0, 2.0, 1.0]))
    )
    p = 1 / (1 + math.exp(-3.0))
    assert lp[0] == 0.0 and lp[1] == -inf and lp[2] == pytest.approx(math.log((1 - p) * p))
    lp = _np(
        NegativeBinomial(symgrad.tensor([2.0, 2.0]), logits=symgrad.tensor([-inf, 30.0])).log_prob(
            symgrad.tensor([0.0, 1.0])
        )
    )
    assert np.isnan(lp[0]) and lp[1] == pytest.approx(-59.3069, rel=1e-5)


@pytest.mark.parametrize("name", ["Binomial", "NegativeBinomial", "Geometric"])
def test_second_derivatives_in_logits_against_torch(name):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (symgrad, torch):
        counts = {"Binomial": [5.0, 5.0], "NegativeBinomial": [2.5, 3.0]}.get(name)
        kwargs = {} if counts is None else {"total_count": lib.tensor(counts, dtype=lib.float64)}
        x = lib.tensor([0.3, -1.2], dtype=lib.float64, requires_grad=True)
        d = getattr(lib.distributions, name)(logits=x, **kwargs)
        lp = d.log_prob(lib.tensor([2.0, 1.0], dtype=lib.float64)).sum()
        (g,) = lib.autograd.grad(lp, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        results.append((g.detach().numpy(), h.numpy()))
    (g_ours, h_ours), (g_torch, h_torch) = results
    np.testing.assert_allclose(g_ours, g_torch, rtol=1e-10)
    np.testing.assert_allclose(h_ours, h_torch, rtol=1e-10)
