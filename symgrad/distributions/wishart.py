"""Wishart: the distribution of ``X X^T`` for ``df`` columns ``X`` drawn from ``N(0,
Sigma)``, over positive definite ``p x p`` matrices.

Samples follow Bartlett's decomposition ``L A A^T L^T``, with ``L`` the Cholesky factor of
``Sigma`` and ``A`` lower triangular: the square roots of chi-squared draws of ``df - i``
degrees of freedom on its diagonal (reparameterized through the gamma draws) and standard
normal draws below it.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from symgrad import creation, linalg, type_info
from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.exp_family import ExponentialFamily
from symgrad.distributions.gamma_family import Chi2
from symgrad.distributions.multivariate_normal import _precision_to_scale_tril
from symgrad.distributions.utils import lazy_property
from symgrad.ops import broadcast_shapes, cholesky_solve, diag_embed, mvlgamma
from symgrad.ops.assembling import tril_indices
from symgrad.tensor import Tensor

__all__ = ["Wishart"]

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")
_LOG_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """``sum_{j < p} digamma(x - j / 2)``, the derivative of ``mvlgamma(x, p)``."""
    halves = creation.arange(p, dtype=x.dtype) / 2
    return (x.unsqueeze(-1) - halves.expand(*x.shape, -1)).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution of ``df`` degrees of freedom and scale matrix given by one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Wishart(symgrad.tensor(4.0), covariance_matrix=symgrad.eye(2))
    >>> d.log_prob(symgrad.eye(2)), d.entropy()
    (tensor(-4.2242), tensor(6.3014))
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict:  # type: ignore[override]
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self,
        df: Any,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: Any = None,
    ) -> None:
        given = {
            name: m
            for name, m in zip(_MATRICES, (covariance_matrix, precision_matrix, scale_tril))
            if m is not None
        }
        if len(given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        ((name, param),) = given.items()
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, numbers.Number):
            batch_shape = Size(param.shape[:-2])
            self.df = creation.tensor(df, dtype=param.dtype)
        else:
            batch_shape = Size(broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        if bool(self.df.lt(p).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = param
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg.cholesky(param)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(param)
        self._dist_chi2 = self._chi2(batch_shape)

    def _chi2(self, batch_shape: Size) -> Chi2:
        """The chi-squared distributions of Bartlett's diagonal: ``df - i``, ``i < p``."""
        p = self._event_shape[-1]
        steps = creation.arange(p, dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(self.df.unsqueeze(-1) - steps.expand(*batch_shape, -1))

    def expand(self, batch_shape: Any, _instance: Any = None) -> Wishart:
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        for name in _MATRICES:
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._chi2(batch_shape)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.mT).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        tril = self._unbroadcasted_scale_tril
        identity = creation.eye(self._event_shape[-1], dtype=tril.dtype)
        return cholesky_solve(identity, tril).expand(self._batch_shape + self._event_shape)

    def _per_batch(self, t: Tensor) -> Tensor:
        return t.view(self._batch_shape + (1, 1))

    @property
    def mean(self) -> Tensor:
        return self._per_batch(self.df) * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan  # PyTorch's masked assignment
        return self._per_batch(factor) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        v = self.covariance_matrix
        diag = v.diagonal(dim1=-2, dim2=-1)
        return self._per_batch(self.df) * (v.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape: Any) -> Tensor:
        p = self._event_shape[-1]
        roots = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = diag_embed(roots.clamp(min=type_info.finfo(roots.dtype).eps))
        # one normal draw per entry below the diagonal, row by row, as PyTorch draws them
        i, j = tril_indices(p, p, offset=-1)
        shape = tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,)
        noise[..., i, j] = creation.randn(shape, dtype=noise.dtype)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.mT

    def _any_in_batch(self, flags: Tensor) -> Tensor:
        if self._batch_shape:
            return flags.amax(tuple(range(-1, -len(self._batch_shape) - 1, -1)))
        return flags

    def rsample(self, sample_shape: Any = (), max_try_correction: Any = None) -> Tensor:
        """Samples by Bartlett's decomposition, corrected as PyTorch 2.13 corrects them: each
        sample its support check accepts is drawn again (warning "Singular sample
        detected."), and the redrawn samples carry the gradients. (PyTorch's backward
        through samples of a ``sample_shape`` raises a RuntimeError: it changes the index of
        the correction in place.)"""
        tries = 10 if max_try_correction is None else max_try_correction
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # PyTorch 2.13 marks the samples its support check accepts (the check is not
        # negated): those are drawn again, and the ones it rejects are kept
        marked = self._any_in_batch(self.support.check(sample))
        if bool(marked.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(tries):
                fresh = self._bartlett_sampling(marked[marked].shape)
                sample[marked.clone()] = fresh  # (kept from the change below)
                marked[marked.clone()] = self._any_in_batch(~self.support.check(fresh))
                if not bool(marked.any()):
                    break
        return sample

    def _log_det_scale(self, p: int) -> Tensor:
        """``p log(2) / 2 + log|L|``."""
        diagonal = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1)
        return p * _LOG_2 / 2 + diagonal.log().sum(-1)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        solved = cholesky_solve(value, self._unbroadcasted_scale_tril)
        return (
            -nu * self._log_det_scale(p)
            - mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet
            - solved.diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2
        )

    def entropy(self) -> Tensor:
        nu, p = self.df, self._event_shape[-1]
        return (
            (p + 1) * self._log_det_scale(p)
            + mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self) -> tuple:
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        p = self._event_shape[-1]
        log_det = linalg.slogdet(-2 * x).logabsdet
        return (y + (p + 1) / 2) * (-log_det + _LOG_2 * p) + mvlgamma(y + (p + 1) / 2, p=p)
