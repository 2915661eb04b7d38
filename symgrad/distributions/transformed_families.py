"""Families built by transforming a simpler one, as PyTorch builds them: LogNormal,
HalfNormal, HalfCauchy, LogisticNormal and Gumbel.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import LogNormal
>>> LogNormal(0.0, 1.0).log_prob(symgrad.tensor(1.0))
tensor(-0.9189)
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from symgrad import _like, creation, type_info
from symgrad.distributions import constraints
from symgrad.distributions.continuous import Cauchy
from symgrad.distributions.families import Normal, Uniform
from symgrad.distributions.transformed_distribution import TransformedDistribution
from symgrad.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    ExpTransform,
    StickBreakingTransform,
)
from symgrad.distributions.utils import broadcast_all, euler_constant
from symgrad.ops import math as ops_math
from symgrad.tensor import Tensor

__all__ = ["LogNormal", "HalfNormal", "HalfCauchy", "LogisticNormal", "Gumbel"]


class LogNormal(TransformedDistribution):
    """``exp(X)`` for ``X ~ Normal(loc, scale)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.LogNormal(0.0, 1.0)
    >>> d.mean, d.mode, d.support
    (tensor(1.6487), tensor(0.3679), GreaterThan(lower_bound=0.0))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogNormal:
        return self._expand_family(LogNormal, batch_shape, _instance)

    loc = property(lambda self: self.base_dist.loc)
    scale = property(lambda self: self.base_dist.scale)
    mean = property(lambda self: (self.loc + self.scale.pow(2) / 2).exp())
    mode = property(lambda self: (self.loc - self.scale.square()).exp())

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc


class _Folded(TransformedDistribution):
    # |X| for X symmetric about 0: twice the base density on the half line
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    scale = property(lambda self: self.base_dist.scale)
    mode = property(lambda self: _like.zeros_like(self.scale))

    def _as_value(self, value: Any) -> Any:
        return value

    def log_prob(self, value: Any) -> Tensor:
        x = self._as_value(self._checked(value))
        # the mass of -x folds onto x; nothing is left below 0
        folded = math.log(2) + self.base_dist.log_prob(x)
        return ops_math.where(x >= 0, folded, -math.inf)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)

    def cdf(self, value: Any) -> Tensor:
        return 2 * self.base_dist.cdf(self._checked(value)) - 1

    def icdf(self, prob: Any) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)


class HalfNormal(_Folded):
    """``|X|`` for ``X ~ Normal(0, scale)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.HalfNormal(1.0)
    >>> d.log_prob(symgrad.tensor(0.0)), d.mean, d.cdf(symgrad.tensor(1.0))
    (tensor(-0.2258), tensor(0.7979), tensor(0.6827))
    """

    def __init__(self, scale: Any, validate_args: Any = None) -> None:
        base = Normal(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfNormal:
        return self._expand_family(HalfNormal, batch_shape, _instance)

    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    variance = property(lambda self: self.scale.pow(2) * (1 - 2 / math.pi))


class HalfCauchy(_Folded):
    """``|X|`` for ``X ~ Cauchy(0, scale)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.HalfCauchy(1.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.mean
    (tensor(-1.1447), tensor(inf))
    """

    def __init__(self, scale: Any, validate_args: Any = None) -> None:
        base = Cauchy(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfCauchy:
        return self._expand_family(HalfCauchy, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        return _like.full_like(self.scale.expand(self._extended_shape()), math.inf)

    variance = property(lambda self: self.base_dist.variance)

    def _as_value(self, value: Any) -> Any:
        # PyTorch's HalfCauchy reads numbers and integer values in the scale's dtype
        return creation.as_tensor(value, dtype=self.scale.dtype)


class LogisticNormal(TransformedDistribution):
    """A point of the simplex: ``Normal(loc, scale)`` vectors mapped by stick-breaking.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.LogisticNormal(symgrad.zeros(2), symgrad.ones(2))
    >>> d.event_shape, d.log_prob(symgrad.tensor([0.25, 0.25, 0.5]))
    (symgrad.Size([3]), tensor(1.3054))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        normal = Normal(loc, scale, validate_args=validate_args)
        # stick-breaking needs a vector: a scalar normal becomes one of length 1
        vector = normal if normal.batch_shape else normal.expand([1])
        super().__init__(vector, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogisticNormal:
        return self._expand_family(LogisticNormal, batch_shape, _instance)

    loc = property(lambda self: self.base_dist.base_dist.loc)
    scale = property(lambda self: self.base_dist.base_dist.scale)


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution: ``loc - scale * log(-log(U))``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Gumbel(0.0, 1.0)
    >>> d.log_prob(symgrad.tensor(0.0)), d.mean, d.entropy()
    (tensor(-1.), tensor(0.5772), tensor(1.5772))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = type_info.finfo(self.loc.dtype)
        # uniforms kept off 0 and 1 so that both logs stay finite; numbers stay numbers
        bounds: tuple = (finfo.tiny, 1 - finfo.eps)
        if not all(isinstance(v, numbers.Number) for v in (loc, scale)):
            bounds = tuple(_like.full_like(self.loc, b) for b in bounds)
        uniform = Uniform(*bounds, validate_args=validate_args)
        # loc - scale * log(-log(U)), one step at a time
        negate = AffineTransform(loc=0, scale=-_like.ones_like(self.scale))
        place = AffineTransform(loc=loc, scale=-self.scale)
        steps = [ExpTransform().inv, negate, ExpTransform().inv, place]
        super().__init__(uniform, steps, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gumbel:
        return self._expand_family(Gumbel, batch_shape, _instance, own=("loc", "scale"))

    def log_prob(self, value: Any) -> Tensor:
        y = (self.loc - self._checked(value)) / self.scale
        return (y - y.exp()) - self.scale.log()

    mean = property(lambda self: self.loc + self.scale * euler_constant)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: (math.pi / math.sqrt(6)) * self.scale)
    variance = property(lambda self: self.stddev.pow(2))

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + euler_constant)
