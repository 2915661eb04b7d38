"""Distributions as PyTorch gives them: the most specific registered KL, a scale_tril's
triangular solve (no gradient into its upper triangle), the covariance and precision given
returned as given, Bernoulli's mode nan at 1/2."""

from __future__ import annotations

import numpy as np

import symgrad

D = symgrad.distributions


def test_the_most_specific_registered_kl_is_used() -> None:
    class Narrow(D.Normal):
        pass

    @D.register_kl(Narrow, Narrow)
    def _kl(p, q):  # noqa: ANN001, ANN202
        return p.loc * 0 + 42.0

    t = symgrad.tensor
    assert D.kl_divergence(Narrow(t([0.0]), t([1.0])), Narrow(t([1.0]), t([1.0]))).tolist() == [
        42.0
    ]
    # a Normal and a Narrow: only the Normal-Normal rule applies
    assert D.kl_divergence(D.Normal(t([0.0]), t([1.0])), Narrow(t([1.0]), t([1.0]))).tolist() == [
        0.5
    ]


def test_scale_tril_log_prob_is_a_triangular_solve() -> None:
    tril = symgrad.tensor([[1.0, 0.0], [0.5, 2.0]], requires_grad=True)
    lp = D.MultivariateNormal(symgrad.zeros(2), scale_tril=tril).log_prob(
        symgrad.tensor([1.0, 2.0])
    )
    lp.backward()
    assert round(lp.item(), 4) == -3.3123
    np.testing.assert_allclose(tril.grad.numpy(), [[-0.1875, 0.0], [0.375, -0.21875]], atol=1e-6)
    assert tril.grad[0, 1].item() == 0.0


def test_covariance_and_precision_given_are_returned() -> None:
    cov = symgrad.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    m = D.MultivariateNormal(symgrad.zeros(2), covariance_matrix=cov)
    (m.covariance_matrix * symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert cov.grad.tolist() == [[1.0, 2.0], [3.0, 4.0]]  # not symmetrised through L L^T
    np.testing.assert_allclose(
        m.precision_matrix.detach().numpy(), [[0.6, -0.2], [-0.2, 0.4]], rtol=1e-5
    )
    precision = symgrad.tensor([[0.6, -0.2], [-0.2, 0.4]])
    m = D.MultivariateNormal(symgrad.zeros(2), precision_matrix=precision)
    assert m.precision_matrix.tolist() == precision.tolist()
    np.testing.assert_allclose(m.covariance_matrix.numpy(), [[2.0, 1.0], [1.0, 3.0]], rtol=1e-5)


def test_bernoulli_mode_is_nan_at_one_half() -> None:
    mode = D.Bernoulli(probs=symgrad.tensor([0.3, 0.5, 0.7])).mode.numpy()
    assert mode[0] == 0.0 and np.isnan(mode[1]) and mode[2] == 1.0


def test_kl_between_multivariate_normals() -> None:
    # PyTorch 2.13's values and gradients (the pair was not registered: NotImplementedError)
    f64 = symgrad.float64
    tril = symgrad.tensor(
        [[[1.5, 0.0], [0.2, 0.8]], [[1.0, 0.0], [-0.4, 1.3]]], dtype=f64, requires_grad=True
    )
    mu = symgrad.tensor([[0.0, 1.0], [2.0, -1.0]], dtype=f64, requires_grad=True)
    p = D.MultivariateNormal(mu, scale_tril=tril)
    q = D.MultivariateNormal(
        symgrad.tensor([1.0, 0.0], dtype=f64), symgrad.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=f64)
    )
    kl = D.kl_divergence(p, q)
    np.testing.assert_allclose(kl.tolist(), [1.1860577657451852, 1.6174436295002204], rtol=1e-13)
    kl.sum().backward()
    np.testing.assert_allclose(
        mu.grad.numpy().ravel(), [-6 / 7, 10 / 7, 6 / 7, -10 / 7], rtol=1e-13
    )
    assert D.kl_divergence(q, q).item() == 0.0
    wide = D.MultivariateNormal(symgrad.zeros(3, 1, 2), symgrad.eye(2))
    assert D.kl_divergence(
        D.MultivariateNormal(symgrad.zeros(4, 2), symgrad.eye(2)), wide
    ).shape == (3, 4)
