"""KL divergences among Poisson, Binomial, Geometric, OneHotCategorical and Bernoulli:
closed forms against direct sums over the support, edge cases, and PyTorch."""

import math

import numpy as np
import pytest

import symgrad
from symgrad.distributions import (
    Bernoulli,
    Binomial,
    Geometric,
    OneHotCategorical,
    Poisson,
    kl_divergence,
)


def _np(t):
    return t.detach().numpy()


def _direct_kl(log_p, log_q, support):
    return sum(math.exp(log_p(k)) * (log_p(k) - log_q(k)) for k in support)


def _poisson_log_pmf(rate):
    return lambda k: k * math.log(rate) - rate - math.lgamma(k + 1)


def _geometric_log_pmf(p):
    return lambda k: k * math.log1p(-p) + math.log(p)


def _binomial_log_pmf(n, p):
    return lambda k: math.log(math.comb(n, k)) + k * math.log(p) + (n - k) * math.log1p(-p)


def test_poisson_poisson_and_edges():
    kl = kl_divergence(Poisson(symgrad.tensor(2.0)), Poisson(symgrad.tensor(0.7))).item()
    direct = _direct_kl(_poisson_log_pmf(2.0), _poisson_log_pmf(0.7), range(60))
    assert kl == pytest.approx(direct, rel=1e-5)
    edges = kl_divergence(Poisson(symgrad.tensor([0.0, 2.0])), Poisson(symgrad.tensor([1.0, 0.0])))
    # PyTorch's values: 0 * log 0 is left as nan, a zero rate q gives inf
    assert math.isnan(edges[0].item()) and edges[1].item() == math.inf


def test_binomial_binomial():
    p = Binomial(10, symgrad.tensor([0.3, 0.5]))
    q = Binomial(symgrad.tensor([10.0, 8.0]), symgrad.tensor([0.4, 0.5]))
    kl = _np(kl_divergence(p, q))
    direct = _direct_kl(_binomial_log_pmf(10, 0.3), _binomial_log_pmf(10, 0.4), range(11))
    assert kl[0] == pytest.approx(direct, rel=1e-5) and kl[1] == math.inf
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        kl_divergence(Binomial(5, symgrad.tensor([0.3])), Binomial(10, symgrad.tensor([0.3])))


def test_geometric_geometric():
    kl = _np(
        kl_divergence(Geometric(symgrad.tensor([0.3, 0.9])), Geometric(symgrad.tensor([0.5, 0.2])))
    )
    d0 = _direct_kl(_geometric_log_pmf(0.3), _geometric_log_pmf(0.5), range(400))
    d1 = _direct_kl(_geometric_log_pmf(0.9), _geometric_log_pmf(0.2), range(400))
    assert np.allclose(kl, [d0, d1], rtol=1e-5)


def test_bernoulli_poisson_and_infinite_pairs():
    p, q = Bernoulli(symgrad.tensor([0.3, 0.0])), Poisson(symgrad.tensor([0.5, 2.0]))
    kl = _np(kl_divergence(p, q))
    log_q = _poisson_log_pmf(0.5)
    direct = 0.7 * (math.log(0.7) - log_q(0)) + 0.3 * (math.log(0.3) - log_q(1))
    assert kl[0] == pytest.approx(direct, rel=1e-5) and kl[1] == pytest.approx(2.0, rel=1e-5)
    rates = Poisson(symgrad.tensor([0.5, 2.0]))
    for q in (Bernoulli(symgrad.tensor([0.3, 0.0])), Binomial(3, symgrad.tensor([0.3, 0.0]))):
        assert _np(kl_divergence(rates, q)).tolist() == [math.inf, math.inf]


def test_one_hot_categorical_pair():
    p = OneHotCategorical(symgrad.tensor([0.3, 0.7, 0.0]))
    q = OneHotCategorical(symgrad.tensor([0.5, 0.25, 0.25]))
    direct = 0.3 * math.log(0.3 / 0.5) + 0.7 * math.log(0.7 / 0.25)
    assert kl_divergence(p, q).item() == pytest.approx(direct, rel=1e-5)
    far = kl_divergence(
        OneHotCategorical(symgrad.tensor([0.3, 0.7])), OneHotCategorical(symgrad.tensor([1.0, 0.0]))
    )
    assert far.item() == math.inf


_PAIRS = [
    ("Poisson", {"rate": [0.5, 3.0]}, "Poisson", {"rate": [1.5, 2.0]}),
    (
        "Binomial",
        {"total_count": 6.0, "probs": [0.2, 0.7]},
        "Binomial",
        {"total_count": 6.0, "logits": [0.5, -1.0]},
    ),
    ("Geometric", {"logits": [0.3, -1.0]}, "Geometric", {"probs": [0.4, 0.8]}),
    ("Bernoulli", {"probs": [0.3, 0.6]}, "Poisson", {"rate": [0.5, 2.0]}),
    (
        "OneHotCategorical",
        {"logits": [[0.3, -1.0, 2.0]]},
        "OneHotCategorical",
        {"probs": [[0.2, 0.5, 0.3]]},
    ),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("p_name, p_params, q_name, q_params", _PAIRS)
def test_against_torch(p_name, p_params, q_name, q_params, dtype):
    torch = pytest.importorskip("torch")
    sg, th = getattr(symgrad, dtype), getattr(torch, dtype)

    def build(lib, dtype, name, params):
        made = {k: lib.tensor(v, dtype=dtype, requires_grad=True) for k, v in params.items()}
        return getattr(lib.distributions, name)(**made), made

    ours_p, ours_pp = build(symgrad, sg, p_name, p_params)
    ours_q, ours_qp = build(symgrad, sg, q_name, q_params)
    theirs_p, theirs_pp = build(torch, th, p_name, p_params)
    theirs_q, theirs_qp = build(torch, th, q_name, q_params)
    ours = symgrad.distributions.kl_divergence(ours_p, ours_q)
    theirs = torch.distributions.kl_divergence(theirs_p, theirs_q)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-10}
    np.testing.assert_allclose(_np(ours), theirs.detach().numpy(), **tol)
    ours.sum().backward()
    theirs.sum().backward()
    for mine, ref in zip(
        [*ours_pp.values(), *ours_qp.values()], [*theirs_pp.values(), *theirs_qp.values()]
    ):
        if ref.grad is None:
            assert mine.grad is None or not bool(mine.grad.ne(0).any())
        else:
            np.testing.assert_allclose(mine.grad.numpy(), ref.grad.numpy(), **tol)
