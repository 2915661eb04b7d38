"""Probability distributions with ``log_prob``, ``entropy``, ``sample`` and ``rsample``, as
``torch.distributions``: Normal, Uniform, Bernoulli, Categorical, Independent,
MultivariateNormal, and ``kl_divergence`` between them."""

from symgrad.distributions.distribution import Distribution
from symgrad.distributions.families import (
    Bernoulli,
    Categorical,
    Independent,
    MultivariateNormal,
    Normal,
    Uniform,
)
from symgrad.distributions.kl import kl_divergence, register_kl

__all__ = [
    "Distribution",
    "Normal",
    "Uniform",
    "Bernoulli",
    "Categorical",
    "Independent",
    "MultivariateNormal",
    "kl_divergence",
    "register_kl",
]
