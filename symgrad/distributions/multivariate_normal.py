"""The multivariate normal distribution, as ``torch.distributions.MultivariateNormal``."""

from __future__ import annotations

import math
from typing import Any

from symgrad import creation, linalg
from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.utils import lazy_property
from symgrad.ops import atleast
from symgrad.tensor import Tensor

__all__ = ["MultivariateNormal"]

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


class MultivariateNormal(Distribution):
    """The multivariate normal with mean ``loc`` and one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril`` (its Cholesky factor).

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.MultivariateNormal(symgrad.zeros(2), symgrad.eye(2))
    >>> d.log_prob(symgrad.zeros(2)), d.support
    (tensor(-1.8379), IndependentConstraint(Real(), 1))
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: Any = None,
    ) -> None:
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {
            name: m
            for name, m in zip(_MATRICES, (covariance_matrix, precision_matrix, scale_tril))
            if m is not None
        }
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        ((name, matrix),) = given.items()
        if matrix.ndim < 2:
            label = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(
                f"{label} must be at least two-dimensional, with optional leading batch dimensions"
            )
        batch = atleast.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        # the matrix given is kept (expanded) and returned as given, with its own gradient
        setattr(self, name, matrix.expand(*batch, -1, -1))
        self.loc = loc.expand(*batch, -1)
        super().__init__(batch, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = linalg.cholesky(linalg.inv(matrix))

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        event = tuple(self.event_shape)
        new.loc = self.loc.expand(*batch_shape, *event)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in _MATRICES:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(*batch_shape, *event, *event))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _expanded(self, matrix: Tensor) -> Tensor:
        return matrix.expand(*self._batch_shape, *self._event_shape, *self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._expanded(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        tril = self._unbroadcasted_scale_tril
        return self._expanded(tril @ tril.mT)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        from symgrad import cholesky_inverse

        return self._expanded(cholesky_inverse(self._unbroadcasted_scale_tril))

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @property
    def variance(self) -> Tensor:
        var = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return var.expand(*self._batch_shape, *self._event_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = creation.randn(tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = (value - self.loc).unsqueeze(-1)
        tril = self._unbroadcasted_scale_tril
        tril = tril.expand(*diff.shape[:-2], *tril.shape[-2:])
        solved = linalg.solve_triangular(tril, diff, upper=False).squeeze(-1)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + solved.pow(2).sum(-1)) - self._half_log_det()

    def entropy(self) -> Tensor:
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(self._batch_shape) if len(self._batch_shape) else h
