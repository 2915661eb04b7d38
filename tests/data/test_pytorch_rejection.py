"""Gamma and Poisson draws are PyTorch's: its rejection samplers on its CPU generator, with
their float32 steps and float literals, leaving the generator where PyTorch leaves it (plain
expected values from PyTorch 2.13, then cross-checks against it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

D = symgrad.distributions


def test_standard_gamma_draws_pytorchs_numbers_in_each_precision():
    symgrad.manual_seed(0)
    alpha = symgrad.tensor([2.0, 0.5, 10.0], dtype=symgrad.float64)
    assert symgrad._standard_gamma(alpha).tolist() == [
        4.552622805135891,
        0.005511899363637205,
        10.173935451238226,
    ]
    symgrad.manual_seed(0)  # float32: boost and shift in float32, so not the float64 values
    drawn = symgrad._standard_gamma(symgrad.tensor([2.0, 0.5, 10.0])).numpy()
    np.testing.assert_array_equal(
        drawn, np.array([4.5526227951049805, 0.005511899013072252, 10.173935890197754], np.float32)
    )


def test_poisson_draws_pytorchs_counts_below_and_above_ten():
    symgrad.manual_seed(0)
    counts = symgrad.poisson(symgrad.tensor([0.5, 4.0, 30.0, 1000.0]))
    assert counts.tolist() == [2.0, 5.0, 26.0, 967.0]


def test_binomial_draws_pytorchs_counts_by_inversion_and_by_btrs():
    symgrad.manual_seed(0)
    counts = symgrad.tensor([10.0, 100.0, 5.5, -2.0, 7.0, 1000.0], dtype=symgrad.float64)
    probs = symgrad.tensor([0.3, 0.8, 1.0, 0.5, 1.5, 0.02], dtype=symgrad.float64)
    # (a probability of 1 or more gives the count itself, unrounded: PyTorch's)
    assert symgrad.binomial(counts, probs).tolist() == BINOMIAL


def test_von_mises_samples_by_pytorchs_rejection_loop():
    symgrad.manual_seed(0)
    loc = symgrad.tensor([0.0, 1.0], dtype=symgrad.float64)
    d = D.VonMises(loc, symgrad.tensor([0.5, 4.0], dtype=symgrad.float64))
    assert d.sample().tolist() == [-0.3667420967463304, 0.6953761460301537]


def test_distributions_built_on_gamma_draw_pytorchs_samples():
    symgrad.manual_seed(0)
    share = D.Dirichlet(symgrad.tensor([0.5, 1.0, 2.0], dtype=symgrad.float64)).sample()
    assert share.tolist() == [0.0003942486938404249, 0.05942697684226839, 0.9401787744638913]
    symgrad.manual_seed(0)
    beta = D.Beta(symgrad.tensor([2.0]), symgrad.tensor([3.0])).sample((2,))
    np.testing.assert_array_equal(
        beta.numpy(), np.array([[0.6726440787315369], [0.3900393545627594]], np.float32)
    )


def test_the_generator_moves_on_by_the_numbers_used():
    # rejections use a varying count of numbers, and a normal's second value stays cached:
    # what follows draws what it draws in PyTorch
    symgrad.manual_seed(0)
    symgrad._standard_gamma(symgrad.full((50,), 0.7, dtype=symgrad.float64))
    after = symgrad.randn(3, dtype=symgrad.float64)
    assert after.tolist() == [2.04391411380896, 0.9638077472303509, 0.3278113948462841]


def test_edges_of_the_concentration_and_the_rate():
    symgrad.manual_seed(0)
    out = symgrad._standard_gamma(symgrad.tensor([-1.0, 0.0, math.nan, math.inf]))
    tiny = float(np.finfo(np.float32).tiny)
    assert out.tolist() == [tiny, tiny, tiny, math.inf]
    counts = symgrad.poisson(symgrad.tensor([0.0, math.inf], dtype=symgrad.float64))
    assert counts.tolist() == [0.0, float(-(2**63))]


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "draw",
    [
        lambda T, f: T._standard_gamma(f(np.linspace(0.05, 6, 37))),
        lambda T, f: T._standard_gamma(f([-1.0, 0.0, math.nan, math.inf, 1 / 3])),
        lambda T, f: T.poisson(f([0.0, 0.3, 9.99, 10.0, 12.5, 77.0, 5000.0])),
        lambda T, f: T._sample_dirichlet(f([[0.1, 0.2], [5.0, 5.0], [1e-3, 1.0]])),
        lambda T, f: T.distributions.Gamma(f([2.0, 0.5]), f([1.0, 3.0])).rsample((4,)),
        lambda T, f: T.distributions.Chi2(f([3.0, 1.0])).sample((3,)),
        lambda T, f: T.distributions.StudentT(f([3.0, 10.0])).sample((3,)),
        lambda T, f: T.distributions.Poisson(f([0.5, 40.0])).sample((3,)),
        lambda T, f: T.distributions.NegativeBinomial(f([3.0]), probs=f([0.4])).sample((4,)),
        lambda T, f: T.binomial(f(np.arange(0.0, 400.0, 13.0)), f(np.linspace(0.01, 0.99, 31))),
        lambda T, f: T.distributions.Binomial(f([20.0, 3.0]), probs=f([0.7, 0.1])).sample((3,)),
        lambda T, f: T.distributions.VonMises(f([0.0, 1.0, -2.0]), f([0.5, 4.0, 1e-6])).sample(
            (9,)
        ),
    ],
)
def test_draws_and_what_follows_are_pytorchs(draw, dtype):
    torch = pytest.importorskip("torch")
    results = []
    for T in (symgrad, torch):
        T.manual_seed(0)
        made = draw(T, lambda v, T=T: T.tensor(np.asarray(v).tolist(), dtype=getattr(T, dtype)))
        after = T.randn(3, dtype=T.float64)
        results.append((np.asarray(made.tolist()), after.tolist()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


BINOMIAL = [6.0, 82.0, 5.5, 0.0, 7.0, 17.0]
