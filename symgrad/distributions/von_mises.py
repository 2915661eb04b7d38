"""VonMises: the circular normal distribution, density ``exp(k cos(x - loc)) / (2 pi
I0(k))``. Its normalizer is written with the exponentially scaled Bessel function,
``log I0(k) = log(i0e(k)) + k``, finite for every concentration; its samples are not
reparameterized (as in PyTorch)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import creation
from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.utils import broadcast_all, lazy_property
from symgrad.ops import special_functions
from symgrad.random import numpy_generator
from symgrad.tensor import Tensor

__all__ = ["VonMises"]


def _log_i0(k: Tensor) -> Tensor:
    from symgrad import special

    return special.i0e(k).log() + k


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
        # 1 - I1(k) / I0(k); the scaled functions have the same ratio
        k = self.concentration
        return 1 - special_functions.I1E(k) / special_functions.I0E(k)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        return k * (value - self.loc).cos() - math.log(2 * math.pi) - _log_i0(k)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Samples in ``[-pi, pi)``, drawn in float64 (Best and Fisher's rejection method,
        NumPy's), without gradient."""
        shape = tuple(self._extended_shape(sample_shape))
        loc = np.broadcast_to(self.loc.detach().double().numpy(), shape)
        kappa = np.broadcast_to(self.concentration.detach().double().numpy(), shape)
        drawn = numpy_generator(None, self.loc).vonmises(loc, kappa, shape)
        wrapped = np.mod(drawn + math.pi, 2 * math.pi) - math.pi
        return creation.tensor(wrapped, dtype=self.loc.dtype)
