"""Bernoulli and Categorical, parameterized by ``probs`` or ``logits`` (the other one is
computed on first use), as ``torch.distributions``."""

from __future__ import annotations

import math
import numbers
from typing import Any

from symgrad import creation, dtypes, type_info
from symgrad._data import Size
from symgrad.autograd import grad_mode
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.exp_family import ExponentialFamily
from symgrad.distributions.utils import broadcast_all, lazy_property
from symgrad.distributions.utils import logits_to_probs as _to_probs
from symgrad.distributions.utils import probs_to_logits as _to_logits
from symgrad.nn import functional as F
from symgrad.ops import categorical_sampling, sampling, tiling
from symgrad.tensor import Tensor

__all__ = ["Bernoulli", "Categorical"]

# what expand carries over, when computed: the parameters and the one they were built from
_PARAMS = ("probs", "logits", "_param")


def _given(probs: Any, logits: Any) -> tuple:
    """``("probs", probs)`` or ``("logits", logits)``: exactly one of them may be given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("logits", logits) if probs is None else ("probs", probs)


def _store_binary(dist: Distribution, probs: Any, logits: Any) -> Size:
    """Keep the given parameter of a two-outcome distribution; return its batch shape."""
    name, given = _given(probs, logits)
    (dist._param,) = broadcast_all(given)
    setattr(dist, name, dist._param)
    # plain numbers make a scalar distribution, as in PyTorch
    return Size() if isinstance(given, numbers.Number) else dist._param.shape


def _store_binary_counted(dist: Distribution, total_count: Any, probs: Any, logits: Any) -> Size:
    """Keep ``total_count`` (in the given parameter's dtype) and the given parameter of a
    count of two-outcome trials; return their broadcast batch shape."""
    name, given = _given(probs, logits)
    total_count, param = broadcast_all(total_count, given)
    dist.total_count = total_count.type_as(param)
    setattr(dist, name, param)
    dist._param = param
    return param.shape


def _expand_binary(new: Distribution, old: Distribution, batch_shape: Any) -> None:
    """Give ``new`` the parameters ``old`` holds (``probs`` and/or ``logits``), expanded."""
    for name in ("probs", "logits"):
        if name in old.__dict__:
            setattr(new, name, old.__dict__[name].expand(batch_shape))
            new._param = new.__dict__[name]


def _expanded_counted(old: Distribution, cls: type, batch_shape: Any, instance: Any) -> Any:
    """What ``expand`` does for a count of two-outcome trials of class ``cls``."""
    new = old._get_checked_instance(cls, instance)
    new.total_count = old.total_count.expand(batch_shape)
    _expand_binary(new, old, batch_shape)
    super(cls, new).__init__(new.total_count.shape, validate_args=False)
    new._validate_args = old._validate_args
    return new


def _indexed_values(values: Tensor, batch_shape: Any, expand: bool) -> Tensor:
    """The values of a finite support stacked along dim 0, in front of the batch dims."""
    count = values.shape[0]
    column = values.view((count,) + (1,) * len(batch_shape) + tuple(values.shape[1:]))
    if not expand:
        return column
    return column.expand((count, *batch_shape, *values.shape[1:]))


class _BinaryProbsLogits:
    # probs and logits of one outcome, each computed from the other on first use
    @lazy_property
    def logits(self) -> Tensor:
        return _to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return _to_probs(self.logits, is_binary=True)


class _BinaryParams(_BinaryProbsLogits):
    # and the shape of the parameter given (Geometric has no param_shape, so it takes the base)
    param_shape = property(lambda self: self._param.shape)


class Bernoulli(_BinaryParams, ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Bernoulli(probs=symgrad.tensor(0.25))
    >>> d.log_prob(symgrad.tensor(1.0)), d.mean, d.support
    (tensor(-1.3863), tensor(0.2500), Boolean())
    """

    _mean_carrier_measure = 0
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        batch_shape = _store_binary(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        return self._expanded_copy(Bernoulli, batch_shape, _instance, grown=_PARAMS)

    mean = property(lambda self: self.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self) -> Tensor:
        # PyTorch's: 1 above 1/2, 0 below, nan at 1/2 (no single most likely value)
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, math.nan)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with grad_mode.no_grad():
            return sampling.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        x = self._checked(value)  # before logits is computed: it shows in the error's repr
        lg, x = broadcast_all(self.logits, x)
        return -F.binary_cross_entropy_with_logits(lg, x, reduction="none")

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        outcomes = creation.arange(2, dtype=self._param.dtype)
        return _indexed_values(outcomes, self._batch_shape, expand)

    @property
    def _natural_params(self) -> tuple:
        return (self.probs.logit(),)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.exp().log1p()


class Categorical(Distribution):
    """One of ``K`` categories, with probabilities ``probs`` (normalised along the last
    dimension) or ``softmax(logits)``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Categorical(probs=symgrad.tensor([0.5, 0.25, 0.25]))
    >>> d.log_prob(symgrad.tensor(1)).exp(), d.support
    (tensor(0.2500), IntegerInterval(lower_bound=0, upper_bound=2))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        name, given = _given(probs, logits)
        if given.ndim < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        # normalised along the categories: probs sum to 1, logits logsumexp to 0
        if name == "probs":
            self._param = given / given.sum(-1, keepdim=True)
        else:
            self._param = given - given.logsumexp(dim=-1, keepdim=True)
        setattr(self, name, self._param)
        *batch_shape, self._num_events = self._param.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        return self._expanded_copy(
            Categorical, batch_shape, _instance, shared=("_num_events",), grown=_PARAMS
        )

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return _to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return _to_probs(self.logits)

    param_shape = property(lambda self: self._param.shape)
    mode = property(lambda self: self.probs.argmax(dim=-1))

    @property
    def mean(self) -> Tensor:
        return creation.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    variance = mean

    def sample(self, sample_shape: Any = ()) -> Tensor:
        # one row of draws per distribution of the batch, then the draws moved in front
        rows = self.probs.detach().reshape(-1, self._num_events)
        draws = categorical_sampling.multinomial(rows, math.prod(tuple(sample_shape)), True)
        return draws.t().reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        index = self._checked(value).long().unsqueeze(-1)
        index, log_pmf = tiling.broadcast_tensors(index, self.logits)
        return log_pmf.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        # -inf logits (categories of probability 0) made finite, so that 0 * logit is 0
        finite = self.logits.clamp(min=type_info.finfo(self.logits.dtype).min)
        return -(finite * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        categories = creation.arange(self._num_events, dtype=dtypes.int64)
        return _indexed_values(categories, self._batch_shape, expand)
