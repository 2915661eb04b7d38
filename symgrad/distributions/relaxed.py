"""Continuous relaxations of Bernoulli and one-hot categorical variables (Concrete /
Gumbel-softmax), with a ``temperature``: LogitRelaxedBernoulli, RelaxedBernoulli,
ExpRelaxedCategorical and RelaxedOneHotCategorical.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import RelaxedBernoulli
>>> d = RelaxedBernoulli(symgrad.tensor(0.5), probs=symgrad.tensor(0.3))
>>> d.log_prob(symgrad.tensor(0.5))
tensor(-0.8675)
"""

from __future__ import annotations

from typing import Any

from symgrad import _like, creation
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli_categorical import (
    _PARAMS,
    Categorical,
    _BinaryParams,
    _store_binary,
)
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.transformed_distribution import TransformedDistribution
from symgrad.distributions.transforms import ExpTransform, SigmoidTransform
from symgrad.distributions.utils import broadcast_all, clamp_probs
from symgrad.tensor import Tensor

__all__ = [
    "LogitRelaxedBernoulli",
    "RelaxedBernoulli",
    "ExpRelaxedCategorical",
    "RelaxedOneHotCategorical",
]


def _uniform(shape: tuple, dtype: Any) -> Tensor:
    # U(0, 1) noise kept off 0 and 1, so that its logs stay finite
    return clamp_probs(creation.rand(shape, dtype=dtype))


class LogitRelaxedBernoulli(_BinaryParams, Distribution):
    """The logit of a relaxed Bernoulli variable: ``(logit(U) + logits) / temperature``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.relaxed import LogitRelaxedBernoulli
    >>> d = LogitRelaxedBernoulli(symgrad.tensor(1.0), logits=symgrad.tensor(0.0))
    >>> d.log_prob(symgrad.tensor(0.0)), d.support
    (tensor(-1.3863), Real())
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(
        self, temperature: Tensor, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        self.temperature = temperature
        batch_shape = _store_binary(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        return self._expanded_copy(
            LogitRelaxedBernoulli, batch_shape, _instance, shared=("temperature",), grown=_PARAMS
        )

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        p = clamp_probs(self.probs.expand(shape))
        u = _uniform(shape, p.dtype)
        # logit(u) + logit(p), written with log1p for accuracy near 0, summed left to right
        # as PyTorch sums them
        logit_sum = u.log() - (-u).log1p() + p.log() - (-p).log1p()
        return logit_sum / self.temperature

    def log_prob(self, value: Any) -> Tensor:
        x = self._checked(value)
        lg, x = broadcast_all(self.logits, x)
        t = self.temperature
        z = lg - x.mul(t)
        return t.log() + z - 2 * z.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed Bernoulli variable on ``(0, 1)``: the sigmoid of a LogitRelaxedBernoulli.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import RelaxedBernoulli
    >>> d = RelaxedBernoulli(symgrad.tensor(0.1), logits=symgrad.zeros(3))
    >>> d.rsample().shape, d.support
    (symgrad.Size([3]), Interval(lower_bound=0.0, upper_bound=1.0))
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self, temperature: Tensor, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedBernoulli:
        return self._expand_family(RelaxedBernoulli, batch_shape, _instance)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)


class ExpRelaxedCategorical(Distribution):
    """The log of a relaxed one-hot categorical vector (log-space Gumbel-softmax).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.relaxed import ExpRelaxedCategorical
    >>> d = ExpRelaxedCategorical(symgrad.tensor(1.0), logits=symgrad.zeros(2))
    >>> d.log_prob(symgrad.tensor([-0.5, -0.9328])), d.event_shape
    (tensor(-1.4328), symgrad.Size([2]))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector  # in fact a submanifold: logsumexp(value) = 0
    has_rsample = True

    def __init__(
        self, temperature: Tensor, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        self.temperature = temperature
        inner = self._categorical = Categorical(probs, logits)
        super().__init__(inner.batch_shape, inner.param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        return self._expanded_copy(
            ExpRelaxedCategorical,
            batch_shape,
            _instance,
            shared=("temperature",),
            grown=("_categorical",),
        )

    param_shape = property(lambda self: self._categorical.param_shape)
    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        gumbel = -((-(_uniform(shape, self.logits.dtype).log())).log())
        perturbed = (self.logits + gumbel) / self.temperature
        return perturbed - perturbed.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Any) -> Tensor:
        k = self._categorical._num_events
        x = self._checked(value)
        lg, x = broadcast_all(self.logits, x)
        t = self.temperature
        # density of the log-Concrete: (k - 1)! t^(k - 1) prod(...) / (sum ...)^k, in logs
        log_norm = _like.full_like(t, float(k)).lgamma() + (k - 1) * t.log()
        z = lg - x.mul(t)
        return (z - z.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_norm


class RelaxedOneHotCategorical(TransformedDistribution):
    """A relaxed one-hot categorical vector on the simplex (Gumbel-softmax / Concrete).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import RelaxedOneHotCategorical
    >>> d = RelaxedOneHotCategorical(symgrad.tensor(1.0), probs=symgrad.tensor([0.5, 0.5]))
    >>> d.log_prob(symgrad.tensor([0.25, 0.75])), d.rsample((4,)).shape
    (tensor(0.), symgrad.Size([4, 2]))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(
        self, temperature: Tensor, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedOneHotCategorical:
        return self._expand_family(RelaxedOneHotCategorical, batch_shape, _instance)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)
