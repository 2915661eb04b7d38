"""ContinuousBernoulli: the density ``C(p) p^x (1 - p)^(1 - x)`` on ``[0, 1]``.

Its normalizer ``C(p) = 2 artanh(1 - 2p) / (1 - 2p)`` and moments are 0/0 at ``p = 1/2``;
inside PyTorch's window ``lims`` around it (0.499 to 0.501 by default) they are replaced by
Taylor polynomials in ``p - 1/2``, and outside it evaluated at the probability itself.
"""

from __future__ import annotations

import math
from typing import Any

from symgrad import _like, creation
from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli_categorical import (
    _BinaryParams,
    _expand_binary,
    _store_binary,
)
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.exp_family import ExponentialFamily
from symgrad.distributions.utils import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
)
from symgrad.nn import functional as F
from symgrad.ops.math import where
from symgrad.tensor import Tensor

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_BinaryParams, ExponentialFamily):
    """The continuous Bernoulli distribution of ``probs`` (or ``logits``), a density on
    ``[0, 1]`` proportional to ``probs^x (1 - probs)^(1 - x)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.ContinuousBernoulli(probs=symgrad.tensor(0.8))
    >>> d.log_prob(symgrad.tensor(0.5)), d.mean
    (tensor(-0.0788), tensor(0.6120))
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(
        self,
        probs: Any = None,
        logits: Any = None,
        lims: tuple = (0.499, 0.501),
        validate_args: Any = None,
    ) -> None:
        batch = _store_binary(self, probs, logits)
        if probs is not None:
            if validate_args is not None and not bool(
                constraints.unit_interval.check(self.probs).all()
            ):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
            self._param = self.probs
        self._lims = lims
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ContinuousBernoulli:
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new._lims = self._lims
        _expand_binary(new, self, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def probs(self) -> Tensor:
        # kept inside (0, 1), as the probs given are
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self) -> Tensor:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        """The probabilities, moved off the window around 1/2 (to its lower end)."""
        return where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _log_odds_gap(self, cut: Tensor) -> Tensor:
        return (-cut).log1p() - cut.log()

    def _cont_bern_log_norm(self) -> Tensor:
        """``log C(probs)``."""
        cut = self._cut_probs()
        below = where(cut <= 0.5, cut, 0.0)
        above = where(cut >= 0.5, cut, 1.0)
        log_norm = self._log_odds_gap(cut).abs().log() - where(
            cut <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log()
        )
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        exact = cut / (2.0 * cut - 1.0) + 1.0 / self._log_odds_gap(cut)
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), exact, taylor)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        exact = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / self._log_odds_gap(cut).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), exact, taylor)

    stddev = property(lambda self: self.variance.sqrt())

    def _uniform(self, sample_shape: Any) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        return creation.rand(shape, dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        u = self._uniform(sample_shape)
        from symgrad.autograd import grad_mode

        with grad_mode.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.icdf(self._uniform(sample_shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = F.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        inside = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        inside = where(self._outside_unstable_region(), inside, value)
        zeros, ones = _like.zeros_like(value), _like.ones_like(value)
        return where(value <= 0.0, zeros, where(value >= 1.0, ones, inside))

    def icdf(self, value: Any) -> Tensor:
        cut = self._cut_probs()
        exact = ((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (
            cut.log() - (-cut).log1p()
        )
        return where(self._outside_unstable_region(), exact, value)

    def entropy(self) -> Tensor:
        log_probs0, log_probs1 = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    _natural_params = property(lambda self: (self.logits,))

    def _log_normalizer(self, x: Tensor) -> Tensor:
        """``log C`` as a function of the logits, with its own Taylor window around 0."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = where(outside, x, self._lims[0] - 0.5)
        log_norm = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return where(outside, log_norm, taylor)
