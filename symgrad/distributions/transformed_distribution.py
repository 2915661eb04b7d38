"""A base distribution pushed through a sequence of transforms, as
``torch.distributions.TransformedDistribution``."""

from __future__ import annotations

from typing import Any

from symgrad._data import Size
from symgrad.autograd import grad_mode
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.families import Independent
from symgrad.distributions.transforms import ComposeTransform, Transform
from symgrad.distributions.utils import _sum_rightmost
from symgrad.tensor import Tensor

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """The distribution of ``transforms[-1](...(transforms[0](x)))`` for ``x`` drawn from
    ``base_distribution``; ``log_prob`` adds the log-Jacobians of the inverse maps.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import Normal, TransformedDistribution
    >>> from symgrad.distributions.transforms import ExpTransform
    >>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
    >>> d.log_prob(symgrad.tensor(1.0)), d.support
    (tensor(-0.9189), GreaterThan(lower_bound=0.0))
    """

    arg_constraints: dict = {}

    def __init__(
        self, base_distribution: Distribution, transforms: Any, validate_args: Any = None
    ) -> None:
        self.transforms = _transform_list(transforms)
        chain = ComposeTransform(self.transforms)
        self.base_dist, out_shape = _fit_base(base_distribution, chain)
        # the chain changes the event rank, but never below the rank of its own output
        base_rank = len(base_distribution.event_shape)
        out_rank = max(
            chain.codomain.event_dim,
            base_rank + chain.codomain.event_dim - chain.domain.event_dim,
        )
        cut = len(out_shape) - out_rank
        if cut < 0:
            raise AssertionError(
                f"forward_shape length {len(out_shape)} must be >= event_dim {out_rank}"
            )
        super().__init__(out_shape[:cut], out_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(batch_shape)
        pulled = ComposeTransform(self.transforms).inverse_shape(
            Size(tuple(batch_shape) + tuple(self.event_shape))
        )
        base_batch = tuple(pulled)[: len(pulled) - len(self.base_dist.event_shape)]
        new.transforms = self.transforms
        new.base_dist = self.base_dist.expand(base_batch)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _expand_family(self, cls: type, batch_shape: Any, _instance: Any, own: tuple = ()) -> Any:
        """``expand`` for a named family ``cls`` built on this class: its base distribution
        and transforms as here, plus the tensors ``own`` it keeps itself, expanded."""
        new = self._get_checked_instance(cls, _instance)
        shape = tuple(batch_shape)
        for name in own:
            setattr(new, name, getattr(self, name).expand(shape))
        return TransformedDistribution.expand(self, batch_shape, _instance=new)

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> Any:
        if self.transforms:
            last = self.transforms[-1].codomain
            missing = len(self.event_shape) - last.event_dim
            return constraints.independent(last, missing) if missing > 0 else last
        return self.base_dist.support

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with grad_mode.no_grad():
            return _push(self.transforms, self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return _push(self.transforms, self.base_dist.rsample(sample_shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        # change of variables, last transform first: each pulled-back point costs the
        # log-Jacobian of the step, summed over the dims that step treats as batch
        rank = len(self.event_shape)
        point = value
        correction: Any = 0.0
        for step in self.transforms[::-1]:
            before = step.inv(point)
            rank = rank - step.codomain.event_dim + step.domain.event_dim
            ladj = _sum_rightmost(
                step.log_abs_det_jacobian(before, point), rank - step.domain.event_dim
            )
            correction = correction - ladj
            point = before
        base_rank = len(self.base_dist.event_shape)
        return correction + _sum_rightmost(self.base_dist.log_prob(point), rank - base_rank)

    def _monotonize_cdf(self, value: Any) -> Any:
        # a decreasing chain of transforms flips the cdf: F(y) = 1 - F_base(x)
        sign = ComposeTransform(self.transforms).sign
        if isinstance(sign, int) and sign == 1:
            return value
        return 0.5 + sign * (value - 0.5)

    def cdf(self, value: Any) -> Tensor:
        inverses = [t.inv for t in self.transforms[::-1]]
        base_value = _push(inverses, value)
        if self._validate_args:
            self.base_dist._validate_sample(base_value)
        return self._monotonize_cdf(self.base_dist.cdf(base_value))

    def icdf(self, value: Any) -> Tensor:
        return _push(self.transforms, self.base_dist.icdf(self._monotonize_cdf(value)))


def _transform_list(transforms: Any) -> list:
    """``transforms`` as a list of transforms (a single one is accepted too)."""
    if isinstance(transforms, Transform):
        return [transforms]
    if not isinstance(transforms, list):
        raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
    if any(not isinstance(t, Transform) for t in transforms):
        raise ValueError("transforms must be a Transform or a list of Transforms")
    return transforms


def _fit_base(base: Distribution, chain: ComposeTransform) -> tuple:
    """``base`` as ``chain`` reads it, and the shape of the chain's output.

    The chain's parameters may broadcast the base to a larger batch, and the chain may read
    more dimensions per event than the base has: those become ``Independent`` dimensions.
    """
    rank = len(base.event_shape)
    needed = chain.domain.event_dim
    shape = Size(tuple(base.batch_shape) + tuple(base.event_shape))
    if len(shape) < needed:
        raise ValueError(
            f"base_distribution needs to have shape with size at least {needed}, but got {shape}."
        )
    out_shape = chain.forward_shape(shape)
    pulled_back = tuple(chain.inverse_shape(out_shape))
    if pulled_back != tuple(shape):
        base = base.expand(pulled_back[: len(pulled_back) - rank])
    if needed > rank:
        base = Independent(base, needed - rank)
    return base, tuple(out_shape)


def _push(transforms: list, value: Any) -> Any:
    """``value`` sent through ``transforms`` in order."""
    for transform in transforms:
        value = transform(value)
    return value
