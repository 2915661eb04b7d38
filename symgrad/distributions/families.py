"""Normal, Uniform and Independent (and, from their own modules, Bernoulli, Categorical and
MultivariateNormal): PyTorch's formulas for ``log_prob``, ``entropy``, moments and samples,
written over symgrad's ops."""

from __future__ import annotations

import math
import numbers
from typing import Any

from symgrad import creation
from symgrad._data import Size
from symgrad.autograd import grad_mode
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli_categorical import Bernoulli, Categorical
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.exp_family import ExponentialFamily
from symgrad.distributions.multivariate_normal import MultivariateNormal
from symgrad.distributions.utils import _sum_rightmost, broadcast_all
from symgrad.ops import sampling
from symgrad.ops.math_special import erfinv
from symgrad.tensor import Tensor

__all__ = ["Normal", "Uniform", "Bernoulli", "Categorical", "Independent", "MultivariateNormal"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def _batch_shape_of(first: Any, second: Any, broadcast: Tensor) -> Size:
    # two plain numbers make a scalar distribution, as in PyTorch
    if isinstance(first, numbers.Number) and isinstance(second, numbers.Number):
        return Size()
    return broadcast.shape


def _finish_expand(new: Distribution, old: Distribution, batch_shape: Size, event=()) -> Any:
    Distribution.__init__(new, batch_shape, event, validate_args=False)
    new._validate_args = old._validate_args
    return new


class Normal(ExponentialFamily):
    """The normal distribution ``N(loc, scale**2)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Normal(0.0, 1.0)
    >>> d.log_prob(symgrad.tensor(0.0)), d.cdf(symgrad.tensor(0.0))
    (tensor(-0.9189), tensor(0.5000))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape_of(loc, scale, self.loc), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Normal:
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = Size(batch_shape)
        new.loc, new.scale = self.loc.expand(batch_shape), self.scale.expand(batch_shape)
        return _finish_expand(new, self, batch_shape)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: self.scale)
    variance = property(lambda self: self.stddev.pow(2))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = creation.randn(tuple(shape), dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with grad_mode.no_grad():
            return sampling.normal(self.loc.expand(shape), self.scale.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value: Any) -> Tensor:
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    @property
    def _natural_params(self) -> tuple:
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Uniform(0.0, 4.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.mean, d.support
    (tensor(-1.3863), tensor(2.), Interval(lower_bound=0.0, upper_bound=4.0))
    """

    has_rsample = True

    @property
    def arg_constraints(self) -> dict:  # type: ignore[override]
        return {
            "low": constraints.less_than(self.high),
            "high": constraints.greater_than(self.low),
        }

    def __init__(self, low: Any, high: Any, validate_args: Any = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(_batch_shape_of(low, high, self.low), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = Size(batch_shape)
        new.low, new.high = self.low.expand(batch_shape), self.high.expand(batch_shape)
        return _finish_expand(new, self, batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.interval(self.low, self.high)

    mean = property(lambda self: (self.high + self.low) / 2)
    mode = property(lambda self: math.nan * self.high)
    stddev = property(lambda self: (self.high - self.low) / 12**0.5)
    variance = property(lambda self: (self.high - self.low).pow(2) / 12)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        rand = creation.rand(shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return (lb * ub).log() - (self.high - self.low).log()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Any) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()


class Independent(Distribution):
    """``base_distribution`` with its rightmost ``reinterpreted_batch_ndims`` batch
    dimensions read as event dimensions (``log_prob`` and ``entropy`` sum over them).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import Independent, Normal
    >>> d = Independent(Normal(symgrad.zeros(3), symgrad.ones(3)), 1)
    >>> d.batch_shape, d.event_shape, d.support
    (symgrad.Size([]), symgrad.Size([3]), IndependentConstraint(Real(), 1))
    """

    arg_constraints: dict = {}

    def __init__(
        self, base_distribution: Distribution, reinterpreted_batch_ndims: int, validate_args=None
    ) -> None:
        n = reinterpreted_batch_ndims
        if n > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {n} vs {len(base_distribution.batch_shape)}"
            )
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        split = len(shape) - n - len(base_distribution.event_shape)
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, n
        super().__init__(shape[:split], shape[split:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        n = self.reinterpreted_batch_ndims
        new.base_dist = self.base_dist.expand(tuple(batch_shape) + tuple(self.event_shape[:n]))
        new.reinterpreted_batch_ndims = n
        return _finish_expand(new, self, batch_shape, self.event_shape)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> Any:
        support = self.base_dist.support
        n = self.reinterpreted_batch_ndims
        return constraints.independent(support, n) if n else support

    mean = property(lambda self: self.base_dist.mean)
    mode = property(lambda self: self.base_dist.mode)
    variance = property(lambda self: self.base_dist.variance)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Any) -> Tensor:
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
