"""Distributions of runs of Bernoulli trials: Geometric (failures before the first success)
and NegativeBinomial (successes before ``total_count`` failures), with PyTorch's formulas,
written over symgrad's ops (samples are floats, as in PyTorch)."""

from __future__ import annotations

from typing import Any

from symgrad import _like, creation, type_info
from symgrad.autograd import grad_mode
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli_categorical import (
    _BinaryParams,
    _BinaryProbsLogits,
    _expand_binary,
    _expanded_counted,
    _store_binary,
    _store_binary_counted,
)
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.utils import broadcast_all
from symgrad.nn import functional as F
from symgrad.ops import distribution_fills
from symgrad.ops.gamma_sampling import _standard_gamma
from symgrad.ops.math_special import lgamma
from symgrad.tensor import Tensor

__all__ = ["Geometric", "NegativeBinomial"]


class Geometric(_BinaryProbsLogits, Distribution):
    """The number of failures before the first success in Bernoulli trials of success
    probability ``probs`` (or ``sigmoid(logits)``): ``P(k) = (1 - p)**k * p``, ``k >= 0``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Geometric(symgrad.tensor([1.0, 0.5]))
    >>> d.log_prob(symgrad.tensor([0.0, 2.0]))
    tensor([ 0.0000, -2.0794])
    >>> d.mean
    tensor([0., 1.])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        super().__init__(_store_binary(self, probs, logits), validate_args=validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter probs (Tensor of shape {tuple(self.probs.shape)}) of "
                    f"distribution {self!r} to be positive but found invalid values:\n"
                    f"{self.probs.detach()[~valid]}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Geometric:
        new = self._get_checked_instance(Geometric, _instance)
        _expand_binary(new, self, batch_shape)
        super(Geometric, new).__init__(new._param.shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    mean = property(lambda self: 1.0 / self.probs - 1.0)
    mode = property(lambda self: _like.zeros_like(self.probs))
    variance = property(lambda self: (1.0 / self.probs - 1.0) / self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        tiny = type_info.finfo(self.probs.dtype).tiny
        with grad_mode.no_grad():
            u = creation.rand(tuple(shape), dtype=self.probs.dtype).clamp(min=tiny)
            return (u.log() / (-self.probs.detach()).log1p()).floor()

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # a sure success has log P(0) = 0, not 0 * log(0) (PyTorch's masked assignment)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0.0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        bce = F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs


class NegativeBinomial(_BinaryParams, Distribution):
    """The number of successes before ``total_count`` failures in Bernoulli trials of success
    probability ``probs`` (or ``sigmoid(logits)``); ``total_count`` may be any real >= 0.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.NegativeBinomial(3.0, symgrad.tensor(0.4))
    >>> d.log_prob(symgrad.tensor(2.0))
    tensor(-1.5733)
    >>> d.mean
    tensor(2.)
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(
        self, total_count: Any, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        batch_shape = _store_binary_counted(self, total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> NegativeBinomial:
        return _expanded_counted(self, NegativeBinomial, batch_shape, _instance)

    mean = property(lambda self: self.total_count * self.logits.exp())
    variance = property(lambda self: self.mean / (-self.logits).sigmoid())

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with grad_mode.no_grad():
            # a Gamma(total_count, rate=exp(-logits)) draw is the Poisson rate
            alpha = self.total_count.detach().expand(shape)
            tiny = type_info.finfo(alpha.dtype).tiny
            rate = (_standard_gamma(alpha) * self.logits.detach().exp()).clamp(min=tiny)
            return distribution_fills.poisson(rate)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_unnormalized = n * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = (n + value).lgamma().neg() + lgamma(1.0 + value) + n.lgamma()
        # zero failures to wait for and zero successes: probability 1
        log_normalization = log_normalization.masked_fill(n + value == 0.0, 0.0)
        return log_unnormalized - log_normalization
