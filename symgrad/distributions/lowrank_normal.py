"""LowRankMultivariateNormal: a multivariate normal whose covariance is ``W W^T + diag(D)``
for a ``n x m`` factor ``W`` (``m`` small).

Only the ``m x m`` capacitance matrix ``C = I + W^T D^-1 W`` is factorized: the matrix
determinant lemma gives ``log|W W^T + D| = log|C| + log|D|`` and Woodbury's identity the
Mahalanobis distance ``x^T D^-1 x - |L^-1 W^T D^-1 x|^2`` with ``L`` the Cholesky factor of
``C``.
"""

from __future__ import annotations

import math
from typing import Any

from symgrad import creation, linalg
from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.multivariate_normal import _batch_mahalanobis
from symgrad.distributions.utils import lazy_property
from symgrad.ops import broadcast_tensors, diag_embed
from symgrad.tensor import Tensor

__all__ = ["LowRankMultivariateNormal"]


def _plus_identity(k: Tensor) -> Tensor:
    return k + creation.eye(k.shape[-1], dtype=k.dtype)


def _capacitance_tril(w: Tensor, d: Tensor) -> Tensor:
    """The Cholesky factor of ``I + W^T diag(D)^-1 W``."""
    wt_dinv = w.mT / d.unsqueeze(-2)
    return linalg.cholesky(_plus_identity(wt_dinv @ w))


def _lowrank_logdet(w: Tensor, d: Tensor, tril: Tensor) -> Tensor:
    return 2 * tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.log().sum(-1)


def _mahalanobis(tril: Tensor, x: Tensor) -> Tensor:
    """``|tril^-1 x|^2`` over the last dimension, batches broadcast: in PyTorch's steps where
    its steps take ``x`` (the batch dimensions of ``tril`` among ``x``'s last ones)."""
    lead = x.ndim - tril.ndim + 1
    if lead >= 0 and all(sx % st == 0 for st, sx in zip(tril.shape[:-2], x.shape[lead:-1]) if st):
        return _batch_mahalanobis(tril, x)
    batch = Size(broadcast_tensors(tril[..., 0], x)[0].shape[:-1])
    solved = linalg.solve_triangular(
        tril.expand(*batch, *tril.shape[-2:]),
        x.expand(*batch, x.shape[-1]).unsqueeze(-1),
        upper=False,
    )
    return solved.squeeze(-1).pow(2).sum(-1)


def _lowrank_mahalanobis(w: Tensor, d: Tensor, x: Tensor, tril: Tensor) -> Tensor:
    wt_dinv = w.mT / d.unsqueeze(-2)
    projected = (wt_dinv @ x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / d).sum(-1) - _mahalanobis(tril, projected)


class LowRankMultivariateNormal(Distribution):
    """The multivariate normal of mean ``loc`` and covariance ``cov_factor @ cov_factor.mT +
    diag(cov_diag)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.LowRankMultivariateNormal(
    ...     symgrad.zeros(2), symgrad.tensor([[1.0], [0.0]]), symgrad.ones(2))
    >>> d.log_prob(symgrad.zeros(2)), d.variance
    (tensor(-2.1845), tensor([2., 1.]))
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor, validate_args: Any = None
    ) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(
                f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m"
            )
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, diag_ = broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as error:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}"
            ) from error
        self.loc, self.cov_diag = loc_[..., 0], diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LowRankMultivariateNormal:
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        loc_shape = Size(batch_shape) + self.event_shape
        new.loc, new.cov_diag = self.loc.expand(loc_shape), self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    def _square_shape(self) -> Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def variance(self) -> Tensor:
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w.pow(2).sum(-1) + d).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        # D^(1/2) chol(I + D^-1/2 W W^T D^-1/2): the Cholesky factor of the covariance
        sqrt_d = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / sqrt_d
        tril = sqrt_d * linalg.cholesky(_plus_identity(scaled @ scaled.mT))
        return tril.expand(self._square_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        w = self._unbroadcasted_cov_factor
        cov = w @ w.mT + diag_embed(self._unbroadcasted_cov_diag)
        return cov.expand(self._square_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        d = self._unbroadcasted_cov_diag
        wt_dinv = self._unbroadcasted_cov_factor.mT / d.unsqueeze(-2)
        a = linalg.solve_triangular(self._capacitance_tril, wt_dinv, upper=False)
        return (diag_embed(d.reciprocal()) - a.mT @ a).expand(self._square_shape())

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        w_shape = shape[:-1] + self.cov_factor.shape[-1:]
        eps_w = creation.randn(tuple(w_shape), dtype=self.loc.dtype)
        eps_d = creation.randn(tuple(shape), dtype=self.loc.dtype)
        w = self._unbroadcasted_cov_factor
        return (
            self.loc
            + (w @ eps_w.unsqueeze(-1)).squeeze(-1)
            + self._unbroadcasted_cov_diag.sqrt() * eps_d
        )

    def _log_det(self) -> Tensor:
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return _lowrank_logdet(w, d, self._capacitance_tril)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        m = _lowrank_mahalanobis(w, d, value - self.loc, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + m)

    def entropy(self) -> Tensor:
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
