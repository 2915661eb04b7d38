"""Element-wise transforms: exp, power, sigmoid, softplus, tanh, abs, affine, and a
distribution's cumulative distribution function.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions.transforms import SigmoidTransform
>>> SigmoidTransform()(symgrad.tensor([0.0]))
tensor([0.5000])
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from symgrad import _like, type_info
from symgrad.distributions import constraints
from symgrad.distributions.transform_base import Transform
from symgrad.distributions.utils import _sum_rightmost, broadcast_all, lazy_property
from symgrad.nn import functional as F
from symgrad.ops import atleast
from symgrad.tensor import Tensor

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "PowerTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
]


def _shape_of(value: Any) -> tuple:
    return tuple(value.shape) if isinstance(value, Tensor) else ()


class _Stateless(Transform):
    # transforms without parameters are equal to any other instance of their class
    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self))

    __hash__ = None  # type: ignore[assignment]


class _Bijective(_Stateless):
    # a parameter-free bijection
    bijective = True


class _Increasing(_Bijective):
    # a parameter-free bijection with a positive derivative everywhere
    sign = +1


def _real_events(event_dim: int) -> Any:
    # all of R^n, read as events of event_dim dimensions
    return constraints.independent(constraints.real, event_dim) if event_dim else constraints.real


class ExpTransform(_Increasing):
    """``y = exp(x)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import ExpTransform
    >>> ExpTransform().inv(symgrad.tensor([1.0])), ExpTransform().codomain
    (tensor([0.]), GreaterThan(lower_bound=0.0))
    """

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import PowerTransform
    >>> t = PowerTransform(2.0)
    >>> t(symgrad.tensor([3.0])), t.inv(symgrad.tensor([4.0]))
    (tensor([9.]), tensor([2.]))
    """

    bijective = True
    domain = codomain = constraints.positive

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._recached(cache_size, PowerTransform, self.exponent)

    @lazy_property
    def sign(self) -> Any:  # type: ignore[override]
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and _same(self.exponent, other.exponent)

    __hash__ = None  # type: ignore[assignment]

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # dy/dx = exponent * x^(exponent - 1) = exponent * y / x
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        return atleast.broadcast_shapes(tuple(shape), _shape_of(self.exponent))

    inverse_shape = forward_shape


def _into_unit(p: Tensor) -> Tensor:
    # kept inside (0, 1), so that logs and the logit stay finite
    finfo = type_info.finfo(p.dtype)
    return p.clamp(min=finfo.tiny, max=1.0 - finfo.eps)


def _clipped_sigmoid(x: Tensor) -> Tensor:
    return _into_unit(x.sigmoid())


class SigmoidTransform(_Increasing):
    """``y = sigmoid(x)``, clipped into the open unit interval.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import SigmoidTransform
    >>> x = symgrad.tensor([0.0])
    >>> SigmoidTransform().log_abs_det_jacobian(x, SigmoidTransform()(x))
    tensor([-1.3863])
    """

    domain = constraints.real
    codomain = constraints.unit_interval

    def _call(self, x: Tensor) -> Tensor:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        p = _into_unit(y)
        return p.log() - (-p).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(_Increasing):
    """``y = log(1 + exp(x))``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import SoftplusTransform
    >>> SoftplusTransform().inv(symgrad.tensor([2.0]))
    tensor([1.8546])
    """

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return F.softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        # log(exp(y) - 1) = y + log(1 - exp(-y)), which cannot overflow
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -F.softplus(-x)


class TanhTransform(_Increasing):
    """``y = tanh(x)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import TanhTransform
    >>> x = symgrad.tensor([0.5])
    >>> TanhTransform().log_abs_det_jacobian(x, x.tanh()), TanhTransform().codomain
    (tensor([-0.2402]), Interval(lower_bound=-1.0, upper_bound=1.0))
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # log(1 - tanh(x)^2) written to stay finite for large |x|
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(_Stateless):
    """``y = |x|`` (not bijective: the inverse returns the positive root).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import AbsTransform
    >>> AbsTransform()(symgrad.tensor([-2.0])), AbsTransform().inv(symgrad.tensor([2.0]))
    (tensor([2.]), tensor([2.]))
    """

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    return bool((a == b).all().item())


class AffineTransform(Transform):
    """``y = loc + scale * x``, over events of ``event_dim`` dimensions.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import AffineTransform
    >>> t = AffineTransform(1.0, 2.0)
    >>> x = symgrad.tensor([0.0, 1.0])
    >>> t(x), t.log_abs_det_jacobian(x, t(x))
    (tensor([1., 3.]), tensor([0.6931, 0.6931]))
    """

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc, self.scale = loc, scale
        self._rank = event_dim

    event_dim = property(lambda self: self._rank)  # type: ignore[assignment]
    domain = constraints.dependent_property(is_discrete=False)(
        lambda self: _real_events(self._rank)
    )
    codomain = domain

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._recached(cache_size, AffineTransform, self.loc, self.scale, self._rank)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, AffineTransform):
            return _same(self.loc, other.loc) and _same(self.scale, other.scale)
        return False

    __hash__ = None  # type: ignore[assignment]

    @property
    def sign(self) -> Any:  # type: ignore[override]
        if not isinstance(self.scale, numbers.Number):
            return self.scale.sign()
        return int(self.scale > 0) - int(self.scale < 0)

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not isinstance(self.scale, numbers.Number):
            log_scale = self.scale.abs().log()
        else:
            log_scale = _like.full_like(x, math.log(abs(self.scale)))
        # one log-determinant per event: the sum over its entries
        batch = tuple(x.shape)[: x.ndim - self._rank]
        return _sum_rightmost(log_scale, self._rank).expand(batch)

    def forward_shape(self, shape: Any) -> Any:
        return atleast.broadcast_shapes(tuple(shape), _shape_of(self.loc), _shape_of(self.scale))

    inverse_shape = forward_shape


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``, from the distribution's support onto ``[0, 1]``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import Normal
    >>> from symgrad.distributions.transforms import CumulativeDistributionTransform
    >>> t = CumulativeDistributionTransform(Normal(0.0, 1.0))
    >>> t(symgrad.tensor([0.0])), t.inv(symgrad.tensor([0.5]))
    (tensor([0.5000]), tensor([0.]))
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:  # type: ignore[override]
        return self.distribution.support

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._recached(cache_size, CumulativeDistributionTransform, self.distribution)
