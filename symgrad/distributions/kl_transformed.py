"""The closed-form KL divergences PyTorch registers for the transformed families (Gumbel,
Pareto, HalfNormal, and any two TransformedDistributions with equal transforms), among
themselves and with the other families. Importing this module registers them.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import LogNormal, kl_divergence
>>> kl_divergence(LogNormal(0.0, 1.0), LogNormal(1.0, 1.0))
tensor(0.5000)
"""

from __future__ import annotations

import math

from symgrad import _like
from symgrad.distributions.continuous import Exponential, Laplace
from symgrad.distributions.continuous_bernoulli import ContinuousBernoulli
from symgrad.distributions.families import Normal, Uniform
from symgrad.distributions.gamma_family import Beta, Gamma
from symgrad.distributions.kl import kl_divergence, register_kl
from symgrad.distributions.transformed_distribution import TransformedDistribution
from symgrad.distributions.transformed_families import Gumbel, HalfNormal
from symgrad.distributions.transformed_tails import Pareto
from symgrad.distributions.utils import _assign_where
from symgrad.ops import math_special
from symgrad.tensor import Tensor

__all__: list = []

_EULER = 0.57721566490153286060


def _infinite_like(t: Tensor) -> Tensor:
    return _like.full_like(t, math.inf)


def _x_log_x(t: Tensor) -> Tensor:
    return math_special.xlogy(t, t)  # 0 at 0


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    # the same bijection applied to both leaves the divergence unchanged
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ratio = p.scale / q.scale
    q_loc, p_loc = q.loc / q.scale, p.loc / q.scale
    t1 = -ratio.log() - q_loc + p_loc
    t3 = (q_loc + (1 + ratio).lgamma() - p_loc).exp()
    return t1 + ratio * _EULER + t3 - (1 + _EULER)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    alpha_ratio = q.alpha / p.alpha
    t1 = q.alpha * (p.scale / q.scale).log()
    t2 = -alpha_ratio.log()
    result = t1 + t2 + alpha_ratio - 1
    # p puts mass below q's lower bound
    return _assign_where(result, p.support.lower_bound < q.support.lower_bound, math.inf)


def _kl_gumbel_infinity(p: Gumbel, q: object) -> Tensor:
    return _infinite_like(p.loc)


def _kl_pareto_infinity(p: Pareto, q: object) -> Tensor:
    return _infinite_like(p.scale)


for _q in (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform):
    register_kl(Gumbel, _q)(_kl_gumbel_infinity)
for _q in (Beta, ContinuousBernoulli, Uniform):
    register_kl(Pareto, _q)(_kl_pareto_infinity)
register_kl(Beta, Pareto)(lambda p, q: _infinite_like(p.concentration1))
register_kl(ContinuousBernoulli, Pareto)(lambda p, q: _infinite_like(p.probs))
register_kl(Exponential, Pareto)(lambda p, q: _infinite_like(p.rate))
register_kl(Gamma, Pareto)(lambda p, q: _infinite_like(p.concentration))
register_kl(Laplace, Pareto)(lambda p, q: _infinite_like(p.loc))
register_kl(Normal, Pareto)(lambda p, q: _infinite_like(p.loc))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    prod = p.rate * q.scale
    ratio = q.loc / q.scale
    return prod.log() - 1 - ratio + ratio.exp() * prod / (prod + 1) + prod.reciprocal()


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    a, prod, ratio = p.concentration, p.rate * q.scale, q.loc / q.scale
    t1 = (a - 1) * a.digamma() - a.lgamma() - a
    t2 = prod.log() + a / prod
    t3 = ratio.exp() * (1 + prod.reciprocal()).pow(-a) - ratio
    return t1 + t2 + t3


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * _EULER - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (_EULER + 1)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    t1 = var_ratio.log() * 0.5
    t2 = mean_ratio - loc_ratio
    t3 = (-mean_ratio + 0.5 * var_ratio + loc_ratio).exp()
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    ratio = q.scale / (p.high - p.low)
    high = (p.high - q.loc) / q.scale
    low = (p.low - q.loc) / q.scale
    t1 = ratio.log() + 0.5 * (high + low)
    return t1 - ratio * ((-high).exp() - (-low).exp())


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    prod = p.scale * q.rate
    result = (p.alpha / prod).log() - p.alpha.reciprocal() + p.alpha * prod / (p.alpha - 1) - 1
    return _assign_where(result, p.alpha <= 1, math.inf)  # p has no finite mean


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return _assign_where(t1 + t2 + t3 + t4 - 1, p.alpha <= 1, math.inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    two_var = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / two_var - 1
    return _assign_where(result, p.alpha <= 2, math.inf)  # p has no finite variance


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = t2 * (q.alpha + 1) - t1
    return _assign_where(result, p.low < q.support.lower_bound, math.inf)
