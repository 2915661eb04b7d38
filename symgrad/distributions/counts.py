"""Counting distributions: Poisson and Binomial, with PyTorch's formulas for ``log_prob``,
moments and samples, written over symgrad's ops (samples are floats, as in PyTorch)."""

from __future__ import annotations

from typing import Any

from symgrad import creation
from symgrad.autograd import grad_mode
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli_categorical import (
    _BinaryParams,
    _expanded_counted,
    _store_binary_counted,
)
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.utils import broadcast_all
from symgrad.ops import distribution_fills
from symgrad.ops.math_special import lgamma
from symgrad.tensor import Tensor

__all__ = ["Poisson", "Binomial"]


def _uniform_batch(total_count: Tensor, method: str) -> int:
    """The one total count all of ``total_count`` shares (``method`` needs it)."""
    largest = int(total_count.max())
    if not bool(total_count.min() == largest):
        raise NotImplementedError(f"Inhomogeneous total count not supported by `{method}`.")
    return largest


class Poisson(Distribution):
    """The number of events in a unit interval when they occur at ``rate``:
    ``P(k) = rate**k * exp(-rate) / k!``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Poisson(symgrad.tensor([0.0, 2.0]))
    >>> d.log_prob(symgrad.tensor([0.0, 3.0]))
    tensor([ 0.0000, -1.7123])
    >>> d.mean, d.mode
    (tensor([0., 2.]), tensor([0., 2.]))
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: Any = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    mean = property(lambda self: self.rate)
    mode = property(lambda self: self.rate.floor())
    variance = property(lambda self: self.rate)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        new = self._get_checked_instance(Poisson, _instance)
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(new.rate.shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with grad_mode.no_grad():
            return distribution_fills.poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    # the exponential-family form: natural parameter log(rate), log-normalizer exp(.)
    @property
    def _natural_params(self) -> tuple:
        return (self.rate.log(),)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.exp()


class Binomial(_BinaryParams, Distribution):
    """The number of successes in ``total_count`` independent trials, each a success with
    probability ``probs`` (or ``sigmoid(logits)``).

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Binomial(10, symgrad.tensor([0.0, 1.0, 0.5]))
    >>> d.log_prob(symgrad.tensor([0.0, 10.0, 5.0]))
    tensor([-9.5367e-07,  0.0000e+00, -1.4020e+00])
    >>> d.mean
    tensor([ 0., 10.,  5.])
    >>> d.support
    IntegerInterval(lower_bound=0, upper_bound=tensor([10., 10., 10.]))
    """

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(
        self, total_count: Any = 1, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        batch_shape = _store_binary_counted(self, total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Binomial:
        return _expanded_counted(self, Binomial, batch_shape, _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with grad_mode.no_grad():
            count, probs = self.total_count.expand(shape), self.probs.expand(shape)
            return distribution_fills.binomial(count.detach(), probs.detach())

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        # log(1 + exp(logits)), stable for logits of either sign; the positive part is written
        # so that its derivative at 0 is 1/2, keeping the gradient at probs = 1/2 exact
        positive = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
        log_norm = n * positive + n * (-logits.abs()).exp().log1p() - (n + 1).lgamma()
        return value * logits - lgamma(value + 1) - (n - value + 1).lgamma() - log_norm

    def entropy(self) -> Tensor:
        _uniform_batch(self.total_count, "entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        count = _uniform_batch(self.total_count, "enumerate_support")
        values = creation.arange(1 + count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values
