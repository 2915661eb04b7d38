"""``kl_divergence(p, q)`` and ``register_kl``: closed-form KL divergences between pairs of
distribution types, found by the most specific registered pair."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from symgrad.autograd import grad_api
from symgrad.distributions.distribution import Distribution, sum_rightmost
from symgrad.distributions.exp_family import ExponentialFamily
from symgrad.distributions.families import Bernoulli, Categorical, Independent, Normal
from symgrad.nn import functional as F
from symgrad.tensor import Tensor

__all__ = ["kl_divergence", "register_kl"]

_KL: dict = {}


def register_kl(type_p: type, type_q: type) -> Callable:
    """Decorator registering ``fn(p, q)`` as the KL divergence of ``type_p`` from ``type_q``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import Uniform, kl_divergence, register_kl
    >>> class Box(Uniform): pass
    >>> @register_kl(Box, Box)
    ... def _kl_box(p, q):
    ...     return symgrad.tensor(0.0)
    ...
    >>> kl_divergence(Box(0.0, 1.0), Box(0.0, 2.0))
    tensor(0.)
    """

    def decorate(fn: Callable) -> Callable:
        _KL[type_p, type_q] = fn
        return fn

    return decorate


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, batched over the distributions' batch shape.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
    tensor(0.5000)
    """
    # the most specific registered pair: the classes nearest p's and q's in their MROs
    mro_p, mro_q = type(p).__mro__, type(q).__mro__
    matches = [
        (mro_p.index(tp) + mro_q.index(tq), mro_p.index(tp), fn)
        for (tp, tq), fn in _KL.items()
        if tp in mro_p and tq in mro_q
    ]
    if matches:
        return min(matches, key=lambda m: m[:2])[2](p, q)
    raise NotImplementedError(
        f"No KL(p || q) is implemented for p type {type(p).__name__} and q type {type(q).__name__}"
    )


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    # PyTorch's masked assignments (IndexPutBackward0 nodes)
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0.0
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    # PyTorch's masked assignments (IndexPutBackward0 nodes), the masks not broadcast: batch
    # shapes that differ raise its IndexError
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0.0
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0.0
    return t1 + t2


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Any, q: Any) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL of Independent distributions of different event dims")
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: Any, q: Any) -> Tensor:
    # the Bregman divergence of the log-normalizer between the natural parameters
    if type(p) is not type(q):
        # the run of spaces is PyTorch's (a line continuation inside its string)
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot"
            + " " * 29
            + "be computed using Bregman divergences"
        )
    p_params = [t.detach().requires_grad_() for t in p._natural_params]
    q_params = q._natural_params
    log_norm = p._log_normalizer(*p_params)
    grads = grad_api.grad(log_norm.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - log_norm
    for pp, qp, g in zip(p_params, q_params, grads):
        result = result - sum_rightmost((qp - pp) * g, len(q.event_shape))
    return result
