"""Exponential, Laplace and Cauchy: continuous families whose samples are a location and
scale (or rate) applied to a parameter-free draw, so ``rsample`` is differentiable by the
ordinary ops. The other continuous families live in ``gamma_family`` (Gamma, Chi2, Beta,
Dirichlet), ``heavy_tails`` (StudentT, FisherSnedecor), ``continuous_bernoulli``,
``von_mises`` and ``lowrank_normal``."""

from __future__ import annotations

import math
import numbers
from typing import Any

from symgrad import _like, creation, type_info
from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.exp_family import ExponentialFamily
from symgrad.distributions.utils import broadcast_all
from symgrad.ops.math import log1p, tan
from symgrad.tensor import Tensor

__all__ = ["Exponential", "Laplace", "Cauchy"]


def _batch_shape(params: tuple, broadcast: Tensor) -> Size:
    """Plain numbers make a scalar distribution, as in PyTorch."""
    if all(isinstance(p, numbers.Number) for p in params):
        return Size()
    return broadcast.shape


def _store_params(dist: Distribution, **params: Any) -> Size:
    """Keep ``params`` on ``dist``, broadcast to one shape; return the batch shape."""
    tensors = broadcast_all(*params.values())
    for name, tensor in zip(params, tensors):
        setattr(dist, name, tensor)
    return _batch_shape(tuple(params.values()), tensors[0])


def _draw(dist: Distribution, sample_shape: Any, like: Tensor) -> Tensor:
    """An empty tensor of the sample's shape and the parameters' dtype, to fill in place."""
    return creation.empty(tuple(dist._extended_shape(sample_shape)), dtype=like.dtype)


class Exponential(ExponentialFamily):
    """The exponential distribution of rate ``rate`` (density ``rate exp(-rate x)``, x >= 0).

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Exponential(symgrad.tensor([2.0]))
    >>> d.log_prob(symgrad.tensor([1.0])), d.mean, d.cdf(symgrad.tensor([0.5]))
    (tensor([-1.3069]), tensor([0.5000]), tensor([0.6321]))
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Any, validate_args: Any = None) -> None:
        super().__init__(_store_params(self, rate=rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        return self._expanded_copy(Exponential, batch_shape, _instance, grown=("rate",))

    mean = property(lambda self: self.rate.reciprocal())
    mode = property(lambda self: _like.zeros_like(self.rate))
    stddev = property(lambda self: self.rate.reciprocal())
    variance = property(lambda self: self.rate.pow(-2))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return _draw(self, sample_shape, self.rate).exponential_() / self.rate

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Any) -> Tensor:
        return -log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()

    _natural_params = property(lambda self: (-self.rate,))

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return -(-x).log()


class _LocScale(Distribution):
    # a real-valued family of a location ``loc`` and a positive ``scale``
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        batch_shape = _store_params(self, loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)


class Laplace(_LocScale):
    """The Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Laplace(0.0, 1.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.variance, d.cdf(symgrad.tensor(0.0))
    (tensor(-1.6931), tensor(2.), tensor(0.5000))
    """

    def expand(self, batch_shape: Any, _instance: Any = None) -> Laplace:
        return self._expanded_copy(Laplace, batch_shape, _instance, grown=("loc", "scale"))

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)
    variance = property(lambda self: 2 * self.scale.pow(2))
    stddev = property(lambda self: (2**0.5) * self.scale)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        # u in (-1, 1): the lower end moved in by eps so that log1p(-|u|) stays finite
        eps = type_info.finfo(self.loc.dtype).eps
        u = _draw(self, sample_shape, self.loc).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        shifted = value - self.loc
        return 0.5 - 0.5 * shifted.sign() * (-shifted.abs() / self.scale).expm1()

    def icdf(self, value: Any) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()


class Cauchy(_LocScale):
    """The Cauchy distribution of median ``loc`` and half width ``scale``; it has no mean
    (nan) and no variance (inf).

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Cauchy(0.0, 1.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.cdf(symgrad.tensor(1.0)), d.mean
    (tensor(-1.8379), tensor(0.7500), tensor(nan))
    """

    def expand(self, batch_shape: Any, _instance: Any = None) -> Cauchy:
        return self._expanded_copy(Cauchy, batch_shape, _instance, grown=("loc", "scale"))

    mode = property(lambda self: self.loc)

    @property
    def mean(self) -> Tensor:
        return creation.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self) -> Tensor:
        return creation.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.loc + _draw(self, sample_shape, self.loc).cauchy_() * self.scale

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.pow(2).log1p()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value: Any) -> Tensor:
        return tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()
