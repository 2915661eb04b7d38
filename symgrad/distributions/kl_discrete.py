"""Closed-form KL divergences PyTorch registers between the counting and one-hot families and
Bernoulli: Binomial, Geometric, OneHotCategorical and Poisson pairs. Importing this module
registers them with :func:`~symgrad.distributions.kl_divergence`.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import Poisson, kl_divergence
>>> kl_divergence(Poisson(symgrad.tensor(2.0)), Poisson(symgrad.tensor(1.0)))
tensor(0.3863)
"""

from __future__ import annotations

import math

from symgrad import _like
from symgrad.distributions.bernoulli_categorical import Bernoulli
from symgrad.distributions.counts import Binomial, Poisson
from symgrad.distributions.kl import kl_divergence, register_kl
from symgrad.distributions.one_hot import OneHotCategorical
from symgrad.distributions.trials import Geometric
from symgrad.distributions.utils import _assign_where
from symgrad.tensor import Tensor

__all__: list = []


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    per_trial = p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p()
    kl = p.total_count * per_trial
    # p reaches counts q cannot
    return _assign_where(kl, p.total_count > q.total_count, math.inf)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return kl_divergence(p._categorical, q._categorical)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p: Poisson, q: Bernoulli | Binomial) -> Tensor:
    # a Poisson puts mass on every count, beyond q's bounded support
    return _like.full_like(p.rate, math.inf)
