"""Weibull, Pareto, Kumaraswamy and InverseGamma (transforms of Exponential, Uniform and
Gamma variables, as PyTorch builds them) and the generalized Pareto distribution.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import Pareto
>>> Pareto(1.0, 2.0).log_prob(symgrad.tensor(2.0))
tensor(-1.3863)
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from symgrad import _like, creation
from symgrad.distributions import constraints
from symgrad.distributions.continuous import Exponential
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.families import Uniform
from symgrad.distributions.gamma_family import Gamma
from symgrad.distributions.transformed_distribution import TransformedDistribution
from symgrad.distributions.transforms import AffineTransform, ExpTransform, PowerTransform
from symgrad.distributions.utils import _assign_where, broadcast_all, euler_constant
from symgrad.ops import math as ops_math
from symgrad.ops import summaries
from symgrad.tensor import Tensor

__all__ = ["Weibull", "Pareto", "Kumaraswamy", "InverseGamma", "GeneralizedPareto"]


class Weibull(TransformedDistribution):
    """The Weibull distribution: ``scale * E ** (1 / concentration)`` for ``E ~ Exp(1)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Weibull(1.0, 2.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.mean, d.entropy()
    (tensor(-0.3069), tensor(0.8862), tensor(0.5955))
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any, validate_args: Any = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        unit_rate = Exponential(_like.ones_like(self.scale), validate_args=validate_args)
        super().__init__(unit_rate, self._transforms(), validate_args=validate_args)

    def _transforms(self) -> list:
        # scale * E ** (1 / concentration)
        root = PowerTransform(exponent=self.concentration_reciprocal)
        return [root, AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape: Any, _instance: Any = None) -> Weibull:
        own = ("scale", "concentration", "concentration_reciprocal")
        new = self._expand_family(Weibull, batch_shape, _instance, own=own)
        new.transforms = new._transforms()  # built on the expanded parameters
        return new

    def _gamma_of(self, n: int) -> Tensor:
        # Gamma(1 + n / k): E[X^n] = scale^n * Gamma(1 + n / k)
        shift = self.concentration_reciprocal if n == 1 else n * self.concentration_reciprocal
        return (1 + shift).lgamma().exp()

    mean = property(lambda self: self.scale * self._gamma_of(1))

    @property
    def mode(self) -> Tensor:
        k = self.concentration
        return self.scale * ((k - 1) / k).pow(self.concentration_reciprocal)

    @property
    def variance(self) -> Tensor:
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (self._gamma_of(2) - (2 * (1 + r).lgamma()).exp())

    def entropy(self) -> Tensor:
        r = self.concentration_reciprocal
        return euler_constant * (1 - r) + (self.scale * r).log() + 1


class Pareto(TransformedDistribution):
    """The Pareto (type I) distribution: ``scale * exp(E)`` for ``E ~ Exp(alpha)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Pareto(1.0, 3.0)
    >>> d.mean, d.variance, d.support
    (tensor(1.5000), tensor(0.7500), GreaterThanEq(lower_bound=1.0))
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: Any = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        rate_alpha = Exponential(self.alpha, validate_args=validate_args)
        steps = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(rate_alpha, steps, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Pareto:
        return self._expand_family(Pareto, batch_shape, _instance, own=("scale", "alpha"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.greater_than_eq(self.scale)

    mode = property(lambda self: self.scale)

    @property
    def mean(self) -> Tensor:
        a = self.alpha.clamp(min=1)  # infinite (a / 0) for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)  # infinite (a / 0) for alpha <= 2
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


def _root(degree: Tensor) -> PowerTransform:
    return PowerTransform(exponent=degree.reciprocal())


def _kumaraswamy_moment(a: Tensor, b: Tensor, n: int) -> Tensor:
    # E[X^n] = b * B(1 + n / a, b)
    arg = 1 + n / a
    return b * (arg.lgamma() + b.lgamma() - (arg + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on ``[0, 1]``: density
    ``a b x^(a-1) (1 - x^a)^(b-1)`` with ``a = concentration1``, ``b = concentration0``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Kumaraswamy(2.0, 3.0)
    >>> d.log_prob(symgrad.tensor(0.5)), d.mean, d.entropy()
    (tensor(0.5232), tensor(0.4571), tensor(-0.2084))
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Any = None):
        a, b = broadcast_all(concentration1, concentration0)
        self.concentration1, self.concentration0 = a, b
        unit = Uniform(_like.zeros_like(b), _like.ones_like(b), validate_args=validate_args)
        # X = (1 - U^(1/b))^(1/a): the inverse cdf, with U standing in for 1 - U
        steps = [_root(b), AffineTransform(loc=1.0, scale=-1.0), _root(a)]
        super().__init__(unit, steps, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Kumaraswamy:
        own = ("concentration1", "concentration0")
        return self._expand_family(Kumaraswamy, batch_shape, _instance, own=own)

    mean = property(lambda self: _kumaraswamy_moment(self.concentration1, self.concentration0, 1))

    @property
    def mode(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        # no interior mode unless both concentrations are at least 1 (PyTorch's masked
        # assignment)
        return _assign_where(log_mode, (b < 1) | (a < 1), math.nan).exp()

    @property
    def variance(self) -> Tensor:
        second = _kumaraswamy_moment(self.concentration1, self.concentration0, 2)
        return second - self.mean.pow(2)

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        harmonic = (b + 1).digamma() + euler_constant
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - a.log() - b.log()


class InverseGamma(TransformedDistribution):
    """``1 / X`` for ``X ~ Gamma(concentration, rate)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.InverseGamma(3.0, 2.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.mean, d.mode
    (tensor(-0.6137), tensor(1.), tensor(0.5000))
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: Any = None) -> None:
        gamma = Gamma(concentration, rate, validate_args=validate_args)
        reciprocal = PowerTransform(-gamma.rate.new_ones(()))
        super().__init__(gamma, reciprocal, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> InverseGamma:
        return self._expand_family(InverseGamma, batch_shape, _instance)

    concentration = property(lambda self: self.base_dist.concentration)
    rate = property(lambda self: self.base_dist.rate)
    mode = property(lambda self: self.rate / (self.concentration + 1))

    @property
    def mean(self) -> Tensor:
        a = self.concentration
        return ops_math.where(a > 1, self.rate / (a - 1), math.inf)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        return ops_math.where(a > 2, self.rate.square() / ((a - 1).square() * (a - 2)), math.inf)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution with location ``loc``, scale ``scale`` and shape
    ``concentration`` (exponential at ``concentration = 0``).

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.GeneralizedPareto(0.0, 1.0, 0.5)
    >>> d.log_prob(symgrad.tensor(1.0)), d.cdf(symgrad.tensor(1.0)), d.mean
    (tensor(-1.2164), tensor(0.5556), tensor(2.))
    """

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any, validate_args: Any = None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalars = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        batch_shape = () if scalars else self.loc.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> GeneralizedPareto:
        return self._expanded_copy(
            GeneralizedPareto, batch_shape, _instance, grown=("loc", "scale", "concentration")
        )

    def _safe_concentration(self, zero_like: Tensor) -> tuple:
        """Where the concentration is (close to) ``zero_like``, the exponential limit, and the
        concentration with 1 standing in there."""
        c = self.concentration
        flat = summaries.isclose(c, zero_like)
        return flat, ops_math.where(flat, _like.ones_like(c), c)

    def _standardized(self, value: Any) -> Tensor:
        return (self._checked(value) - self.loc) / self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        u = creation.rand(tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype)
        return self.icdf(u)

    # PyTorch's steps, for its values, gradients and nodes: a gradient reaches the
    # concentration through 1 / c + 1 even where that factor is 0 (c = -1), and a float64
    # concentration meets PyTorch's float32 0 in isclose (its RuntimeError)
    def log_prob(self, value: Any) -> Tensor:
        z = self._standardized(value)
        flat, c = self._safe_concentration(creation.tensor(0.0))
        y = 1 / c + _like.ones_like(z)
        tail = ops_math.where(y == 0, y, y * (c * z).log1p())
        return -self.scale.log() - ops_math.where(flat, z, tail)

    def log_survival_function(self, value: Any) -> Tensor:
        """``log(1 - cdf(value))``."""
        z = self._standardized(value)
        flat, c = self._safe_concentration(creation.tensor(0.0))
        return ops_math.where(flat, -z, -(c * z).log1p() / c)

    def log_cdf(self, value: Any) -> Tensor:
        """``log(cdf(value))``."""
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value: Any) -> Tensor:
        return self.log_cdf(value).exp()

    def icdf(self, value: Any) -> Tensor:
        flat, c = self._safe_concentration(_like.zeros_like(self.concentration))
        log_u = (-value).log1p()
        bent = self.loc + self.scale / c * (-c * log_u).expm1()
        return ops_math.where(flat, self.loc - self.scale * log_u, bent)

    def _finite_below(self, limit: float, formula: Any) -> Tensor:
        # formula(c) where the moment exists (c < limit), else nan; formula is evaluated
        # at a harmless c (limit / 2) where it does not
        exists = self.concentration < limit
        c = ops_math.where(exists, self.concentration, limit / 2)
        return ops_math.where(exists, formula(c), math.nan)

    mean = property(lambda self: self._finite_below(1, lambda c: self.loc + self.scale / (1 - c)))

    @property
    def variance(self) -> Tensor:
        return self._finite_below(0.5, lambda c: self.scale**2 / ((1 - c) ** 2 * (1 - 2 * c)))

    mode = property(lambda self: self.loc)

    def entropy(self) -> Tensor:
        return (self.scale.log() + self.concentration + 1).broadcast_to(tuple(self._batch_shape))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        c = self.concentration
        # bounded above only for negative concentration
        top = ops_math.where(c < 0, self.loc - self.scale / c, math.inf)
        return constraints.interval(self.loc, top)
