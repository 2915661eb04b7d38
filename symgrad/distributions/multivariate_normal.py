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


def _precision_to_scale_tril(precision: Tensor) -> Tensor:
    """The Cholesky factor of ``precision^-1`` without inverting it: from the Cholesky
    factor of the flipped matrix (an upper factor of ``precision`` once flipped back)."""
    flipped = linalg.cholesky(precision.flip((-2, -1)))
    inverse_tril = flipped.flip((-2, -1)).mT
    identity = creation.eye(precision.shape[-1], dtype=precision.dtype)
    return linalg.solve_triangular(inverse_tril, identity, upper=False)


def _batch_mahalanobis(tril: Tensor, x: Tensor) -> Tensor:
    """``|tril^-1 x|^2`` over the last dimension, for ``x`` of more batch dimensions than
    ``tril``, in PyTorch's steps: ``x``'s batch dimensions are reshaped so that those of
    ``tril`` come last, and one triangular solve takes them all."""
    n = x.shape[-1]
    x_batch = tuple(x.shape[:-1])
    tril_dims = tril.ndim - 2
    outer = len(x_batch) - tril_dims
    new_dims = outer + 2 * tril_dims
    new_shape = x_batch[:outer]
    for s_tril, s_x in zip(tril.shape[:-2], x.shape[outer:-1]):
        new_shape += (s_x // s_tril, s_tril)
    x = x.reshape(new_shape + (n,))
    order = [*range(outer), *range(outer, new_dims, 2), *range(outer + 1, new_dims, 2), new_dims]
    x = x.permute(order)
    flat_tril = tril.reshape(-1, n, n)
    flat_x = x.reshape(-1, flat_tril.shape[0], n).permute(1, 2, 0)
    squares = linalg.solve_triangular(flat_tril, flat_x, upper=False).pow(2).sum(-2)
    permuted = squares.t().reshape(x.shape[:-1])
    inverse = list(range(outer))
    for i in range(tril_dims):
        inverse += [outer + i, outer + tril_dims + i]
    return permuted.permute(inverse).reshape(x_batch)


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
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

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
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self) -> Tensor:
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(self._batch_shape) if len(self._batch_shape) else h
