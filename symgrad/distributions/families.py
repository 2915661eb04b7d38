"""Normal, Uniform, Bernoulli, Categorical, Independent and MultivariateNormal: PyTorch's
formulas for ``log_prob``, ``entropy``, moments and samples, written over symgrad's ops."""

from __future__ import annotations

import math
from typing import Any

from symgrad import creation, type_info
from symgrad.autograd import grad_mode
from symgrad.distributions import distribution as D
from symgrad.distributions.distribution import Distribution, broadcast_all, sum_rightmost
from symgrad.nn import functional as F
from symgrad.ops import categorical_sampling, sampling
from symgrad.tensor import Tensor

__all__ = ["Normal", "Uniform", "Bernoulli", "Categorical", "Independent", "MultivariateNormal"]


def _shape(sample_shape: Any, dist: Distribution) -> tuple:
    return tuple(dist._extended_shape(sample_shape))


class Normal(Distribution):
    """The normal distribution ``N(loc, scale**2)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.distributions.Normal(0.0, 1.0).log_prob(symgrad.tensor(0.0))
    tensor(-0.9189)
    """

    arg_constraints = {"loc": D.real, "scale": D.positive}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: self.scale)
    variance = property(lambda self: self.scale.pow(2))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = creation.randn(_shape(sample_shape, self), dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = _shape(sample_shape, self)
        with grad_mode.no_grad():
            return sampling.normal(self.loc.expand(shape), self.scale.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        var = self.scale**2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    def cdf(self, value: Any) -> Tensor:
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value: Any) -> Tensor:
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Uniform(0.0, 4.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.mean
    (tensor(-1.3863), tensor(2.))
    """

    arg_constraints = {"low": D.real, "high": D.real}
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: Any = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError("Expected parameter low to be less than high")

    mean = property(lambda self: (self.high + self.low) / 2)
    variance = property(lambda self: (self.high - self.low).pow(2) / 12)
    stddev = property(lambda self: (self.high - self.low) / 12**0.5)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        rand = creation.rand(_shape(sample_shape, self), dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return (lb * ub).log() - (self.high - self.low).log()

    def cdf(self, value: Any) -> Tensor:
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()


def _clamped(probs: Tensor) -> Tensor:
    eps = type_info.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def _probs_or_logits(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class Bernoulli(Distribution):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Bernoulli(probs=symgrad.tensor(0.25))
    >>> d.log_prob(symgrad.tensor(1.0)), d.mean
    (tensor(-1.3863), tensor(0.2500))
    """

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        _probs_or_logits(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self.logits = _clamped(self.probs).log() - (-_clamped(self.probs)).log1p()
            self.arg_constraints = {"probs": D.unit_interval}
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = self.logits.sigmoid()
            self.arg_constraints = {"logits": D.real}
        super().__init__(self.probs.shape, validate_args=validate_args)

    mean = property(lambda self: self.probs)
    # PyTorch's: 1 above 1/2, 0 below, nan at 1/2 (no single most likely value)
    mode = property(
        lambda self: (
            (self.probs >= 0.5).to(self.probs.dtype).masked_fill(self.probs == 0.5, float("nan"))
        )
    )
    variance = property(lambda self: self.probs * (1 - self.probs))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with grad_mode.no_grad():
            return sampling.bernoulli(self.probs.expand(_shape(sample_shape, self)))

    def log_prob(self, value: Any) -> Tensor:
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


class Categorical(Distribution):
    """One of ``K`` categories, with probabilities ``probs`` (normalised along the last
    dimension) or ``softmax(logits)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Categorical(probs=symgrad.tensor([0.5, 0.25, 0.25]))
    >>> d.log_prob(symgrad.tensor(1)).exp()
    tensor(0.2500)
    """

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        _probs_or_logits(probs, logits)
        given = probs if probs is not None else logits
        if not isinstance(given, Tensor) or given.ndim < 1:
            raise ValueError("`probs` or `logits` parameter must be at least one-dimensional.")
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
            self.logits = _clamped(self.probs).log()
            self.arg_constraints = {"probs": D.simplex}
        else:
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self.probs = F.softmax(self.logits, dim=-1)
            self.arg_constraints = {"logits": D.real}
        self._num_events = given.shape[-1]
        super().__init__(given.shape[:-1], validate_args=validate_args)

    param_shape = property(lambda self: self.probs.shape)
    mode = property(lambda self: self.probs.argmax(dim=-1))

    @property
    def mean(self) -> Tensor:
        return creation.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    variance = mean

    def sample(self, sample_shape: Any = ()) -> Tensor:
        n = math.prod(tuple(sample_shape))
        flat = self.probs.detach().reshape(-1, self._num_events)
        drawn = categorical_sampling.multinomial(flat, n, True).t()
        return drawn.reshape(_shape(sample_shape, self))

    def log_prob(self, value: Tensor) -> Tensor:
        value = value.long().unsqueeze(-1)
        from symgrad.ops import broadcast_tensors

        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        logits = self.logits.clamp(min=type_info.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = creation.arange(self._num_events).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values


class Independent(Distribution):
    """``base_distribution`` with its rightmost ``reinterpreted_batch_ndims`` batch
    dimensions read as event dimensions (``log_prob`` and ``entropy`` sum over them).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import Independent, Normal
    >>> d = Independent(Normal(symgrad.zeros(3), symgrad.ones(3)), 1)
    >>> d.batch_shape, d.event_shape
    (symgrad.Size([]), symgrad.Size([3]))
    """

    def __init__(
        self, base_distribution: Distribution, reinterpreted_batch_ndims: int, validate_args=None
    ) -> None:
        n = reinterpreted_batch_ndims
        shape = tuple(base_distribution.batch_shape)
        if n > len(shape):
            raise ValueError(
                f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {n} vs {len(shape)}"
            )
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, n
        event = shape[len(shape) - n :] + tuple(base_distribution.event_shape)
        super().__init__(shape[: len(shape) - n], event, validate_args=False)

    has_rsample = property(lambda self: self.base_dist.has_rsample)
    mean = property(lambda self: self.base_dist.mean)
    mode = property(lambda self: self.base_dist.mode)
    variance = property(lambda self: self.base_dist.variance)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Any) -> Tensor:
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


class MultivariateNormal(Distribution):
    """The multivariate normal with mean ``loc`` and one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril`` (its Cholesky factor).

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.MultivariateNormal(symgrad.zeros(2), symgrad.eye(2))
    >>> d.log_prob(symgrad.zeros(2))
    tensor(-1.8379)
    """

    arg_constraints = {"loc": D.real}
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: Any = None,
    ) -> None:
        from symgrad import linalg

        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if scale_tril is not None:
            tril = scale_tril
        elif covariance_matrix is not None:
            tril = linalg.cholesky(covariance_matrix)
        else:
            tril = linalg.cholesky(linalg.inv(precision_matrix))
        from symgrad.ops import broadcast_shapes

        batch = broadcast_shapes(tuple(tril.shape[:-2]), tuple(loc.shape[:-1]))
        self.loc = loc.expand(*batch, loc.shape[-1])
        self._unbroadcasted_scale_tril = tril
        self.scale_tril = tril.expand(*batch, *tril.shape[-2:])
        # the matrix given is the one returned (its own gradient), as in PyTorch
        square = tril.shape[-2:]
        self._covariance = (
            None if covariance_matrix is None else covariance_matrix.expand(*batch, *square)
        )
        self._precision = (
            None if precision_matrix is None else precision_matrix.expand(*batch, *square)
        )
        super().__init__(batch, loc.shape[-1:], validate_args=validate_args)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @property
    def covariance_matrix(self) -> Tensor:
        """The covariance: the matrix given, else ``scale_tril @ scale_tril.mT``."""
        if self._covariance is not None:
            return self._covariance
        return self.scale_tril @ self.scale_tril.mT

    @property
    def precision_matrix(self) -> Tensor:
        """The inverse covariance: the matrix given, else from ``scale_tril``."""
        if self._precision is not None:
            return self._precision
        from symgrad import cholesky_inverse

        inverse = cholesky_inverse(self._unbroadcasted_scale_tril)
        return inverse.expand(*self._batch_shape, *inverse.shape[-2:])

    variance = property(lambda self: self.scale_tril.pow(2).sum(-1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = creation.randn(_shape(sample_shape, self), dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        from symgrad import linalg

        diff = (value - self.loc).unsqueeze(-1)
        tril = self._unbroadcasted_scale_tril.expand(*diff.shape[:-2], *self.scale_tril.shape[-2:])
        solved = linalg.solve_triangular(tril, diff, upper=False).squeeze(-1)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + solved.pow(2).sum(-1)) - self._half_log_det()

    def entropy(self) -> Tensor:
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(self._batch_shape) if len(self._batch_shape) else h
