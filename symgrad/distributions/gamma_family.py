"""Gamma, Chi2, Dirichlet and Beta: the families sampled from gamma draws.

Their ``rsample`` is differentiable through the implicit reparameterization of the gamma
draw (``_standard_gamma``'s ``StandardGammaBackward0``), and for Dirichlet and Beta through
PyTorch's ``_DirichletBackward`` function, which passes ``_dirichlet_grad`` on.
"""

from __future__ import annotations

import numbers
from typing import Any

from symgrad import creation, type_info
from symgrad._data import Size
from symgrad.autograd.function import Function, once_differentiable
from symgrad.distributions import constraints
from symgrad.distributions.continuous import _store_params
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.exp_family import ExponentialFamily
from symgrad.distributions.utils import broadcast_all
from symgrad.nn import functional as F
from symgrad.ops import gamma_sampling, joining
from symgrad.ops.math_special import xlogy as _xlogy
from symgrad.tensor import Tensor

__all__ = ["Gamma", "Chi2", "Dirichlet", "Beta"]


class Gamma(ExponentialFamily):
    """The gamma distribution of shape ``concentration`` and inverse scale ``rate``:
    density ``rate^a x^(a-1) exp(-rate x) / Gamma(a)`` on ``x >= 0``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Gamma(2.0, 3.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.mean, d.cdf(symgrad.tensor(1.0))
    (tensor(-0.8028), tensor(0.6667), tensor(0.8009))
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: Any = None) -> None:
        batch = _store_params(self, concentration=concentration, rate=rate)
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        grown = ("concentration", "rate")
        return self._expanded_copy(Gamma, batch_shape, _instance, grown=grown)

    mean = property(lambda self: self.concentration / self.rate)
    mode = property(lambda self: ((self.concentration - 1) / self.rate).clamp(min=0))
    variance = property(lambda self: self.concentration / self.rate.pow(2))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        draw = gamma_sampling._standard_gamma(self.concentration.expand(shape))
        value = draw / self.rate.expand(shape)
        # a quotient that underflows is moved to the smallest normal number, off the graph
        value.detach().clamp_(min=type_info.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value: Any) -> Tensor:
        value = creation.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return _xlogy(a, self.rate) + _xlogy(a - 1, value) - self.rate * value - a.lgamma()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        from symgrad.ops.special_functions import igamma

        return igamma(self.concentration, self.rate * value)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()

    _natural_params = property(lambda self: (self.concentration - 1, -self.rate))

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Chi2(symgrad.tensor([4.0]))
    >>> d.df, d.mean, d.variance
    (tensor([4.]), tensor([4.]), tensor([8.]))
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: Any = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    df = property(lambda self: self.concentration * 2)


class _Dirichlet(Function):
    """Dirichlet draws, differentiated as PyTorch's ``_Dirichlet`` function: the gradient
    ``_dirichlet_grad(x, alpha, total) * (g - sum(x * g))``."""

    @staticmethod
    def forward(ctx: Any, concentration: Tensor) -> Tensor:
        x = gamma_sampling._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = gamma_sampling._dirichlet_grad(x, concentration, total)
        return grad * (grad_output - (x * grad_output).sum(-1, True))


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex of the last dimension of
    ``concentration``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Dirichlet(symgrad.tensor([1.0, 2.0, 3.0]))
    >>> d.log_prob(symgrad.tensor([0.2, 0.3, 0.5])), d.mean
    (tensor(1.5041), tensor([0.1667, 0.3333, 0.5000]))
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: Any = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return _xlogy(a - 1.0, value).sum(-1) + a.sum(-1).lgamma() - a.lgamma().sum(-1)

    mean = property(lambda self: self.concentration / self.concentration.sum(-1, True))

    @property
    def mode(self) -> Tensor:
        above = (self.concentration - 1).clamp(min=0.0)
        mode = above / above.sum(-1, True)
        # all concentrations below 1: the density is largest at the corner of the largest
        # (written even where no batch entry has it, as PyTorch does: the node is IndexPutBackward0)
        corner = (self.concentration < 1).all(dim=-1)
        mode[corner] = F.one_hot(mode[corner].argmax(dim=-1), above.shape[-1]).to(mode)
        return mode

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        total = a.sum(-1, True)
        return a * (total - a) / (total.pow(2) * (total + 1))

    def entropy(self) -> Tensor:
        a = self.concentration
        k, total = a.size(-1), a.sum(-1)
        return (
            a.lgamma().sum(-1)
            - total.lgamma()
            - (k - total) * total.digamma()
            - ((a - 1.0) * a.digamma()).sum(-1)
        )

    _natural_params = property(lambda self: (self.concentration,))

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()


class Beta(ExponentialFamily):
    """The beta distribution on ``[0, 1]``: density ``x^(c1 - 1) (1 - x)^(c0 - 1) /
    B(c1, c0)``, built on a two-component Dirichlet as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Beta(2.0, 3.0)
    >>> d.log_prob(symgrad.tensor(0.5)), d.mean, d.variance
    (tensor(0.4055), tensor(0.4000), tensor(0.0400))
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Any = None):
        if isinstance(concentration1, numbers.Number) and isinstance(
            concentration0, numbers.Number
        ):
            pair = creation.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            pair = joining.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    concentration1 = property(lambda self: self._dirichlet.concentration[..., 0])
    concentration0 = property(lambda self: self._dirichlet.concentration[..., 1])
    mean = property(lambda self: self.concentration1 / (self.concentration1 + self.concentration0))
    mode = property(lambda self: self._dirichlet.mode[..., 0])

    @property
    def variance(self) -> Tensor:
        c1, c0 = self.concentration1, self.concentration0
        total = c1 + c0
        return c1 * c0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = joining.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()

    _natural_params = property(lambda self: (self.concentration1, self.concentration0))

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return x.lgamma() + y.lgamma() - (x + y).lgamma()
