"""Closed-form KL divergences among the continuous families (Exponential, Laplace, Cauchy,
Gamma, Beta, Dirichlet, ContinuousBernoulli, the low-rank normal, with Normal, Uniform and
MultivariateNormal), the pairs PyTorch registers. Where ``p``
puts mass outside ``q``'s support the divergence is ``inf``."""

from __future__ import annotations

import math

from symgrad import _like
from symgrad.distributions.continuous import Cauchy, Exponential, Laplace
from symgrad.distributions.continuous_bernoulli import ContinuousBernoulli
from symgrad.distributions.families import Normal, Uniform
from symgrad.distributions.gamma_family import Beta, Dirichlet, Gamma
from symgrad.distributions.kl import register_kl
from symgrad.distributions.lowrank_normal import (
    LowRankMultivariateNormal,
    _lowrank_logdet,
    _lowrank_mahalanobis,
    _mahalanobis,
)
from symgrad.distributions.multivariate_normal import MultivariateNormal
from symgrad.distributions.utils import _assign_where
from symgrad.linalg import solve_triangular
from symgrad.ops import broadcast_shapes, diag_embed
from symgrad.ops.math import where
from symgrad.tensor import Tensor

__all__: list = []

_EULER = 0.57721566490153286060


def _infinite_like(t: Tensor) -> Tensor:
    return _like.full_like(t, math.inf)


def _x_log_x(t: Tensor) -> Tensor:
    return t * t.log()


# -- one family with itself ---------------------------------------------------------------------
@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return -scale_ratio.log() + distance / q.scale + scale_ratio * (-distance / p.scale).exp() - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    a, b = p.concentration, q.concentration
    t1 = b * (p.rate / q.rate).log()
    t2 = b.lgamma() - a.lgamma()
    t3 = (a - b) * a.digamma()
    t4 = (q.rate - p.rate) * (a / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    total_p = p.concentration1 + p.concentration0
    total_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + total_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + total_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (total_q - total_p) * total_p.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    total_p, total_q = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = total_p.lgamma() - total_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - total_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


# -- p's support reaching outside q's: infinite -------------------------------------------------
def _infinite_by_rate(p: Exponential, q: object) -> Tensor:
    return _infinite_like(p.rate)


def _infinite_by_concentration(p: Gamma, q: object) -> Tensor:
    return _infinite_like(p.concentration)


def _infinite_by_loc(p: Laplace | Normal, q: object) -> Tensor:
    return _infinite_like(p.loc)


for _q in (Beta, ContinuousBernoulli, Uniform):
    register_kl(Exponential, _q)(_infinite_by_rate)
    register_kl(Gamma, _q)(_infinite_by_concentration)
for _q in (Beta, ContinuousBernoulli, Exponential, Gamma, Uniform):
    register_kl(Laplace, _q)(_infinite_by_loc)
    register_kl(Normal, _q)(_infinite_by_loc)


# -- across families ----------------------------------------------------------------------------
@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() - q.rate.log() + q.rate * mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    total = p.concentration1 + p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - total.digamma())
    t4 = q.rate * p.concentration1 / total
    return -p.entropy() + t2 - t3 + t4


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    total = p.concentration1 + p.concentration0
    mean = p.concentration1 / total
    var_normal = q.scale.pow(2)
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (mean * (1 - mean) / (total + 1) + mean.pow(2)) * 0.5
    t4 = q.loc * mean
    t5 = q.loc.pow(2) * 0.5
    return -p.entropy() + t2 + (t3 - t4 + t5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return _assign_where(result, (q.low > 0.0) | (q.high < 1.0), math.inf)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return t1 + ratio + q.concentration.lgamma() + q.concentration * _EULER - (1 + _EULER)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    a = p.concentration
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    t1 = 0.5 * (beta_sqr * var_normal * 2 * math.pi).log() - a - a.lgamma()
    t2 = 0.5 * (a.pow(2) + a) / beta_sqr
    t3 = q.loc * a / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (a - 1) * a.digamma() + (t2 - t3 + t4) / var_normal


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * (2 * ratio / math.pi).log()
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    standardized = loc_diff / p.scale
    t1 = scale_ratio.log()
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * standardized.pow(2)).exp()
    t3 = loc_diff * (math.sqrt(0.5) * standardized).erf()
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    width = p.high - p.low
    t1 = width.log()
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = (
        q.concentration1.lgamma()
        + q.concentration0.lgamma()
        - (q.concentration1 + q.concentration0).lgamma()
    )
    return _assign_where(t3 + t4 - t1 - t2, (p.high > 1.0) | (p.low < 0.0), math.inf)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _assign_where(result, p.low < 0.0, math.inf)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    width = p.high - p.low
    t1 = width.log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    return _assign_where(-t1 + t2 + t3 + t4, p.low < 0.0, math.inf)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _assign_where(result, (q.low > p.low) | (q.high < p.high), math.inf)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


# -- the continuous Bernoulli -------------------------------------------------------------------
@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


def _cross_entropy_to_cb(p: Beta | Uniform, q: ContinuousBernoulli) -> Tensor:
    return -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


register_kl(Beta, ContinuousBernoulli)(_cross_entropy_to_cb)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_cb(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    # (PyTorch's test: inf unless the Uniform lies strictly inside (0, 1))
    return where((p.high >= 1.0) | (p.low <= 0.0), math.inf, _cross_entropy_to_cb(p, q))


@register_kl(ContinuousBernoulli, Exponential)
def _kl_cb_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_cb_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).pow(2)) + q.scale.log()
    t3 = (p.variance + p.mean.pow(2) - 2.0 * q.loc * p.mean) / (2.0 * q.scale.pow(2))
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_cb_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    # (PyTorch's test, kept as it is: inf wherever q.low >= 0 or q.high <= 1)
    return where((q.low >= 0.0) | (q.high <= 1.0), math.inf, result)


# -- low-rank and full multivariate normals ------------------------------------------------------
def _trace_xxt(x: Tensor) -> Tensor:
    """``trace(X X^T)`` of a batch of matrices: the sum of their squared entries (over the
    matrices flattened, as PyTorch sums them)."""
    m, n = x.shape[-2:]
    return x.reshape(-1, m * n).pow(2).sum(-1).reshape(x.shape[:-2])


def _same_events(p: object, q: object, which: str) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(
            f"KL-divergence between two {which} with different event shapes cannot be computed"
        )


def _lowrank_parts(q: LowRankMultivariateNormal, p_loc: Tensor) -> tuple:
    """``log|Sigma_q|``, the Mahalanobis term of ``q.loc - p_loc`` and ``A = L^-1 W^T D^-1``."""
    w, d, tril = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q._capacitance_tril
    mahalanobis = _lowrank_mahalanobis(w, d, q.loc - p_loc, tril)
    a = solve_triangular(tril, w.mT / d.unsqueeze(-2), upper=False)
    return _lowrank_logdet(w, d, tril), mahalanobis, a


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _same_events(p, q, "Low Rank Multivariate Normals")
    log_det_q, term3, a = _lowrank_parts(q, p.loc)
    pw, pd = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = log_det_q - _lowrank_logdet(pw, pd, p._capacitance_tril)
    term21 = (pd / q._unbroadcasted_cov_diag).sum(-1)
    term22 = _trace_xxt(pw * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term23 = _trace_xxt(a * pd.sqrt().unsqueeze(-2))
    term24 = _trace_xxt(a @ pw)
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _same_events(p, q, "(Low Rank) Multivariate Normals")
    log_det_q, term3, a = _lowrank_parts(q, p.loc)
    p_tril = p._unbroadcasted_scale_tril
    term1 = log_det_q - 2 * p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term21 = _trace_xxt(p_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _trace_xxt(a @ p_tril)
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    _same_events(p, q, "(Low Rank) Multivariate Normals")
    q_tril = q._unbroadcasted_scale_tril
    pw, pd = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = 2 * q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _lowrank_logdet(
        pw, pd, p._capacitance_tril
    )
    term3 = _mahalanobis(q_tril, q.loc - p.loc)
    batch = tuple(broadcast_shapes(tuple(q_tril.shape[:-2]), tuple(pw.shape[:-2])))
    n = p.event_shape[0]
    q_tril = q_tril.expand(*batch, n, n)
    term21 = _trace_xxt(solve_triangular(q_tril, pw.expand(*batch, *pw.shape[-2:]), upper=False))
    root_d = diag_embed(pd.sqrt()).expand(*batch, n, n)
    term22 = _trace_xxt(solve_triangular(q_tril, root_d, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    # 1/2 (log|S_q|/|S_p| + tr(S_q^-1 S_p) + Mahalanobis(mu_q - mu_p) - n), through the
    # Cholesky factors: tr(S_q^-1 S_p) = |L_q^-1 L_p|_F^2
    _same_events(p, q, "Multivariate Normals")
    p_tril, q_tril = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    n = p.event_shape[0]
    # half the log-determinants added last, as PyTorch (its values and its AddBackward0)
    half_log_dets = q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) - p_tril.diagonal(
        dim1=-2, dim2=-1
    ).log().sum(-1)
    batch = tuple(broadcast_shapes(tuple(q_tril.shape[:-2]), tuple(p_tril.shape[:-2])))
    ratio = solve_triangular(q_tril.expand(*batch, n, n), p_tril.expand(*batch, n, n), upper=False)
    term3 = _mahalanobis(q_tril, q.loc - p.loc)
    return half_log_dets + 0.5 * (_trace_xxt(ratio) + term3 - n)
