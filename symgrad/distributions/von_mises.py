"""VonMises: the circular normal distribution, density ``exp(k cos(x - loc)) / (2 pi
I0(k))``. As in PyTorch, ``log I0`` and ``log I1`` (in ``log_prob`` and the circular
``variance``) come from the polynomial approximations of Abramowitz and Stegun (9.8.1-9.8.4,
relative error about 1e-7), so float64 values and gradients are PyTorch's, not the exact
Bessel functions'; its samples are not reparameterized (as in PyTorch)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import creation
from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.utils import broadcast_all, lazy_property
from symgrad.ops.math import where
from symgrad.random import numpy_generator
from symgrad.tensor import Tensor

__all__ = ["VonMises"]


# Abramowitz and Stegun's polynomials for I0 and I1 (9.8.1-9.8.4): in (k / 3.75)^2 below
# k = 3.75 (I1's times k), and in 3.75 / k above it for sqrt(k) exp(-k) I_n(k)
_SMALL = (
    (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813),
    (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411),
)
_LARGE = (
    (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281)
    + (-0.02057706, 0.02635537, -0.01647633, 0.00392377),
    (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555)
    + (0.02282967, -0.02895312, 0.01787654, -0.00420059),
)


def _proposal_r(kappa: np.ndarray) -> np.ndarray:
    """The rejection loop's proposal parameter (a second-order expansion for tiny kappa)."""
    with np.errstate(all="ignore"):
        tau = 1 + np.sqrt(1 + 4 * kappa**2)
        rho = (tau - np.sqrt(2 * tau)) / (2 * kappa)
        return np.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho**2) / (2 * rho))


def _horner(y: Tensor, coefficients: tuple) -> Tensor:
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + y * result
    return result


def _log_bessel(k: Tensor, order: int) -> Tensor:
    """``log I_order(k)`` (order 0 or 1) for ``k > 0``, by the approximations PyTorch uses."""
    small = _horner((k / 3.75) * (k / 3.75), _SMALL[order])
    if order == 1:
        small = k.abs() * small
    large = k - 0.5 * k.log() + _horner(3.75 / k, _LARGE[order]).log()
    return where(k < 3.75, small.log(), large)


class VonMises(Distribution):
    """The von Mises distribution on the circle, of mean direction ``loc`` and
    concentration ``concentration``; samples lie in ``[-pi, pi)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.VonMises(symgrad.tensor(0.0), symgrad.tensor(1.0))
    >>> d.log_prob(symgrad.tensor(0.0)), d.variance
    (tensor(-1.0738), tensor(0.5536))
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: Any = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> VonMises:
        validate = self.__dict__.get("_validate_args")
        loc = self.loc.expand(batch_shape)
        concentration = self.concentration.expand(batch_shape)
        return type(self)(loc, concentration, validate_args=validate)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @lazy_property
    def variance(self) -> Tensor:
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - (_log_bessel(k, 1) - _log_bessel(k, 0)).exp()

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        return k * (value - self.loc).cos() - math.log(2 * math.pi) - _log_bessel(k, 0)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Samples in ``[-pi, pi)``, drawn in float64 by PyTorch's rejection loop (Best and
        Fisher's method: three uniforms per element and round, until every element is
        accepted), so a seeded program draws PyTorch's samples; no gradient."""
        shape = tuple(self._extended_shape(sample_shape))
        loc = np.broadcast_to(self.loc.detach().double().numpy(), shape)
        kappa = np.broadcast_to(self.concentration.detach().double().numpy(), shape)
        r = _proposal_r(kappa)
        stream = numpy_generator(None, self.loc)
        x = np.zeros(shape)
        done = np.zeros(shape, dtype=bool)
        with np.errstate(all="ignore"):
            while not done.all():
                u1, u2, u3 = stream.uniform_fill((3, *shape), np.float64)
                z = np.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | (np.log(c / u2) + 1 - c >= 0)
                x = np.where(accept, np.sign(u3 - 0.5) * np.arccos(f), x)
                done |= accept
            wrapped = np.mod(x + math.pi + loc, 2 * math.pi) - math.pi
        return creation.tensor(wrapped, dtype=self.loc.dtype)
