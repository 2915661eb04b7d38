"""Multinomial, OneHotCategorical and OneHotCategoricalStraightThrough: closed forms,
edge cases, validation, samples, and a cross-check against PyTorch."""

import math

import numpy as np
import pytest

import symgrad
from symgrad.distributions import (
    Multinomial,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)


def _np(t):
    return t.detach().numpy()


def _multinomial_log_pmf(counts, probs):
    n = sum(counts)
    out = math.lgamma(n + 1)
    for c, p in zip(counts, probs):
        out += -math.lgamma(c + 1) + (c * math.log(p) if c else 0.0)
    return out


def test_multinomial_log_prob_with_zero_probability_category():
    probs = symgrad.tensor([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])
    d = Multinomial(4, probs)
    lp = _np(d.log_prob(symgrad.tensor([[1.0, 1.0, 2.0], [0.0, 2.0, 2.0]])))
    expected = [_multinomial_log_pmf([1, 1, 2], [0.2, 0.3, 0.5]), math.log(6 / 16)]
    assert np.allclose(lp, expected)
    assert d.batch_shape == (2,) and d.event_shape == (3,) and d.param_shape == (2, 3)
    assert np.allclose(_np(d.mean), 4 * _np(probs))
    assert np.allclose(_np(d.variance), [[0.64, 0.84, 1.0], [0.0, 1.0, 1.0]])
    assert np.allclose(_np(d.entropy()), [2.3491, 1.4075], atol=1e-4)  # PyTorch's values
    # logits are normalised as Categorical's: softmax(logits) gives the same pmf
    d2 = Multinomial(4, logits=symgrad.tensor([0.0, math.log(1.5), math.log(2.5)]))
    lp2 = d2.log_prob(symgrad.tensor([1.0, 1.0, 2.0])).item()
    assert lp2 == pytest.approx(expected[0], rel=1e-5)


def test_multinomial_validation():
    probs = symgrad.tensor([0.2, 0.8])
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
        Multinomial(4.0, probs)
    with pytest.raises(ValueError, match=r"within the support \(Multinomial\(\)\)"):
        Multinomial(4, probs).log_prob(symgrad.tensor([3.0, 2.0]))
    with pytest.raises(ValueError, match=r"The right-most size of value must match event_shape"):
        Multinomial(4, probs).log_prob(symgrad.tensor([1.0, 1.0, 2.0]))
    assert repr(Multinomial(4, probs)) == "Multinomial()"


def test_multinomial_sample():
    d = Multinomial(10, symgrad.tensor([[0.2, 0.8], [0.5, 0.5]]))
    s = d.sample((3000,))
    assert s.shape == (3000, 2, 2) and s.dtype is symgrad.float32 and not s.requires_grad
    assert bool((s.sum(-1) == 10).all()) and bool((s >= 0).all())
    assert np.allclose(_np(s.mean(0)), [[2.0, 8.0], [5.0, 5.0]], atol=0.15)
    e = d.expand((4, 2))
    assert e.batch_shape == (4, 2) and e.sample().shape == (4, 2, 2)


def test_one_hot_categorical():
    logits = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = OneHotCategorical(logits=logits)
    log_z = math.log(sum(math.exp(x) for x in (1.0, 2.0, 3.0)))
    lp = d.log_prob(symgrad.tensor([0.0, 0.0, 1.0]))
    assert lp.item() == pytest.approx(3.0 - log_z)
    probs = np.exp(np.array([1.0, 2.0, 3.0]) - log_z)
    assert d.entropy().item() == pytest.approx(-(probs * np.log(probs)).sum(), rel=1e-5)
    assert np.allclose(_np(d.mean), probs) and np.allclose(_np(d.variance), probs * (1 - probs))
    assert _np(d.mode).tolist() == [0.0, 0.0, 1.0]
    lp.backward()
    assert np.allclose(logits.grad.numpy(), [0, 0, 1] - probs)
    support = d.enumerate_support()
    assert _np(support).tolist() == np.eye(3).tolist()
    b = OneHotCategorical(probs=symgrad.ones(2, 3))
    assert b.enumerate_support().shape == (3, 2, 3)
    assert b.enumerate_support(expand=False).shape == (3, 1, 3)
    with pytest.raises(ValueError, match=r"within the support \(OneHot\(\)\)"):
        d.log_prob(symgrad.tensor([0.0, 1.0, 1.0]))
    assert repr(d) == "OneHotCategorical()"


def test_one_hot_sample_and_expand():
    d = OneHotCategorical(symgrad.tensor([[0.1, 0.9], [0.7, 0.3]]))
    s = d.sample((4000,))
    assert s.shape == (4000, 2, 2) and s.dtype is symgrad.float32
    assert bool((s.sum(-1) == 1).all())
    assert np.allclose(_np(s.mean(0)), [[0.1, 0.9], [0.7, 0.3]], atol=0.04)
    e = d.expand((3, 2))
    assert e.batch_shape == (3, 2) and e.event_shape == (2,) and e.probs.shape == (3, 2, 2)


def test_straight_through_rsample_gradient():
    logits = symgrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    d = OneHotCategoricalStraightThrough(logits=logits)
    assert d.has_rsample and not OneHotCategorical.has_rsample
    x = d.rsample((5,))
    assert x.shape == (5, 3) and bool((x.sum(-1) == 1).all())
    weights = symgrad.tensor([1.0, 2.0, 3.0])
    (x * weights).sum().backward()
    # the gradient is that of 5 * (probs * weights).sum(): the softmax Jacobian times weights
    p = _np(d.probs)
    w = np.array([1.0, 2.0, 3.0])
    assert np.allclose(logits.grad.numpy(), 5 * p * (w - (p * w).sum()), atol=1e-6)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_against_torch(param, dtype):
    torch = pytest.importorskip("torch")
    raw = [[0.2, 1.3, 0.5], [1.0, 2.0, 0.5]]
    value = [[1.0, 2.0, 3.0], [0.0, 0.0, 6.0]]
    ours_p = symgrad.tensor(raw, dtype=getattr(symgrad, dtype), requires_grad=True)
    theirs_p = torch.tensor(raw, dtype=getattr(torch, dtype), requires_grad=True)
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10}
    pairs = [
        (
            Multinomial(6, **{param: ours_p}),
            torch.distributions.Multinomial(6, **{param: theirs_p}),
            value,
        ),
        (
            OneHotCategorical(**{param: ours_p}),
            torch.distributions.OneHotCategorical(**{param: theirs_p}),
            [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        ),
    ]
    for ours, theirs, v in pairs:
        lp_ours = ours.log_prob(symgrad.tensor(v, dtype=getattr(symgrad, dtype)))
        lp_theirs = theirs.log_prob(torch.tensor(v, dtype=getattr(torch, dtype)))
        np.testing.assert_allclose(_np(lp_ours), lp_theirs.detach().numpy(), **tol)
        for prop in ("mean", "variance", "probs", "logits"):
            np.testing.assert_allclose(
                _np(getattr(ours, prop)), getattr(theirs, prop).detach().numpy(), **tol
            )
        h_ours, h_theirs = ours.entropy(), theirs.entropy()
        np.testing.assert_allclose(_np(h_ours), h_theirs.detach().numpy(), **tol)
        ours_p.grad = None
        theirs_p.grad = None
        (lp_ours.sum() + h_ours.sum()).backward()
        (lp_theirs.sum() + h_theirs.sum()).backward()
        np.testing.assert_allclose(ours_p.grad.numpy(), theirs_p.grad.numpy(), **tol)
