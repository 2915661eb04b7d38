"""Distributions over count vectors of ``K`` categories: Multinomial, OneHotCategorical and
OneHotCategoricalStraightThrough, built on a :class:`Categorical` (samples are floats, as in
PyTorch)."""

from __future__ import annotations

import math
from typing import Any

from symgrad import creation
from symgrad.autograd import grad_mode
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli_categorical import Categorical, _indexed_values
from symgrad.distributions.counts import Binomial
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.utils import broadcast_all
from symgrad.nn import functional as F
from symgrad.tensor import Tensor

__all__ = ["Multinomial", "OneHotCategorical", "OneHotCategoricalStraightThrough"]


def _init_over_categories(dist: Distribution, categories: Categorical, validate: Any) -> None:
    # the batch of the categorical, with one event dim of its K categories
    width = categories.param_shape[-1:]
    Distribution.__init__(dist, categories.batch_shape, width, validate_args=validate)


class Multinomial(Distribution):
    """Counts of ``total_count`` draws from ``K`` categories of probabilities ``probs``
    (normalised along the last dimension) or ``softmax(logits)``. ``log_prob`` accepts any
    total count; ``sample`` draws ``total_count`` (a Python int) for every distribution.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Multinomial(5, symgrad.tensor([0.0, 0.5, 0.5]))
    >>> d.log_prob(symgrad.tensor([0.0, 2.0, 3.0]))
    tensor(-1.1632)
    >>> d.mean, d.event_shape
    (tensor([0.0000, 2.5000, 2.5000]), symgrad.Size([3]))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(
        self, total_count: int = 1, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        if isinstance(total_count, int):
            self.total_count = total_count
        else:
            raise NotImplementedError("inhomogeneous total_count is not supported")
        # the inner distributions validate by default whatever validate_args says, as PyTorch
        categories = self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=categories.probs)
        _init_over_categories(self, categories, validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        # the binomial counts of each category carry the event dim as a batch dim
        return self._expanded_copy(
            Multinomial,
            batch_shape,
            _instance,
            shared=("total_count",),
            grown=("_categorical", "_binomial"),
        )

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> Any:
        return constraints.multinomial(self.total_count)

    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)
    param_shape = property(lambda self: self._categorical.param_shape)
    mean = property(lambda self: self.probs * self.total_count)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        sample_shape = tuple(sample_shape)
        shape = tuple(self._extended_shape(sample_shape))
        with grad_mode.no_grad():
            drawn = self._categorical.sample((self.total_count, *sample_shape))
            counts = F.one_hot(drawn, self._categorical._num_events).sum(0)
            return counts.reshape(shape).to(self.probs.dtype)

    def log_prob(self, value: Any) -> Tensor:
        counts = self._checked(value)
        lg, counts = broadcast_all(self.logits, counts)
        lg = lg.clone()
        # log of n! / prod(x_i!) * prod(p_i^x_i), in PyTorch's steps
        log_factorial_n = (counts.sum(-1) + 1).lgamma()
        log_factorial_xs = (counts + 1).lgamma().sum(-1)
        # a category of probability 0 drawn 0 times contributes 0, not 0 * -inf
        lg[(counts == 0) & (lg == -math.inf)] = 0.0
        return log_factorial_n - log_factorial_xs + (lg * counts).sum(-1)

    def entropy(self) -> Tensor:
        # H = n H(categorical) - log n! + sum_i E[log x_i!], x_i ~ Binomial(n, p_i)
        n = creation.tensor(self.total_count)
        k = self._binomial.enumerate_support(expand=False)[1:]  # 0! adds nothing
        pmf = self._binomial.log_prob(k).exp()
        expected_log_factorials = (pmf * (k + 1).lgamma()).sum([0, -1])
        return n * self._categorical.entropy() - (n + 1).lgamma() + expected_log_factorials


class OneHotCategorical(Distribution):
    """A :class:`Categorical` whose samples are one-hot vectors of length ``K``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.OneHotCategorical(symgrad.tensor([0.5, 0.25, 0.25]))
    >>> d.log_prob(symgrad.tensor([0.0, 1.0, 0.0])).exp()
    tensor(0.2500)
    >>> d.mode, d.enumerate_support().shape
    (tensor([1., 0., 0.]), symgrad.Size([3, 3]))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        self._categorical = Categorical(probs, logits)
        _init_over_categories(self, self._categorical, validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        return self._expanded_copy(
            OneHotCategorical, batch_shape, _instance, grown=("_categorical",)
        )

    _param = property(lambda self: self._categorical._param)
    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    mean = property(lambda self: self._categorical.probs)
    variance = property(lambda self: self._categorical.probs * (1 - self._categorical.probs))
    param_shape = property(lambda self: self._categorical.param_shape)

    def _one_hot(self, index: Tensor) -> Tensor:
        # category indices as float one-hot rows, in the parameters' dtype
        categories = self._categorical
        return F.one_hot(index, categories._num_events).to(categories.probs.dtype)

    mode = property(lambda self: self._one_hot(self._categorical.probs.argmax(dim=-1)))

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self._one_hot(self._categorical.sample(sample_shape))

    def log_prob(self, value: Any) -> Tensor:
        return self._categorical.log_prob(self._checked(value).argmax(-1))

    def enumerate_support(self, expand: bool = True) -> Tensor:
        rows = creation.eye(self.event_shape[0], dtype=self._param.dtype)
        return _indexed_values(rows, self.batch_shape, expand)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A :class:`OneHotCategorical` with a straight-through ``rsample`` (Bengio et al.,
    2013): the forward value is a one-hot sample, the gradient that of ``probs``.

    Examples
    --------
    >>> import symgrad
    >>> logits = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> d = symgrad.distributions.OneHotCategoricalStraightThrough(logits=logits)
    >>> x = d.rsample()
    >>> bool(x.sum() == 1), x.requires_grad
    (True, True)
    """

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        # forward value: the one-hot draw; gradient: that of probs (their difference is 0)
        p = self._categorical.probs
        return self.sample(sample_shape) + (p - p.detach())
