"""MixtureSameFamily: a batch of mixtures whose ``k`` components are one distribution's
rightmost batch dimension, weighted by a :class:`Categorical`."""

from __future__ import annotations

from typing import Any

from symgrad.autograd import grad_mode
from symgrad.distributions import constraints
from symgrad.distributions.bernoulli_categorical import Categorical
from symgrad.distributions.distribution import Distribution
from symgrad.nn import functional as F
from symgrad.tensor import Tensor

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """The mixture of the ``k`` components of ``component_distribution`` (its rightmost batch
    dimension) with weights ``mixture_distribution``, a :class:`Categorical` over ``k``
    categories whose batch shape broadcasts with the components' other batch dimensions.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import Categorical, MixtureSameFamily, Normal
    >>> mix = Categorical(symgrad.tensor([0.3, 0.7]))
    >>> comp = Normal(symgrad.tensor([0.0, 1.0]), symgrad.tensor([1.0, 2.0]))
    >>> gmm = MixtureSameFamily(mix, comp)
    >>> gmm.log_prob(symgrad.tensor([0.5, 3.0]))
    tensor([-1.4232, -2.4532])
    >>> gmm.mean, gmm.variance
    (tensor(0.7000), tensor(3.3100))
    """

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(
        self,
        mixture_distribution: Categorical,
        component_distribution: Distribution,
        validate_args: Any = None,
    ) -> None:
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(
                " The Mixture distribution needs to be an  instance of "
                "torch.distributions.Categorical"
            )
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "The Component distribution needs to be an instance of "
                "torch.distributions.Distribution"
            )
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                    f"`component_distribution.batch_shape`({cdbs})"
                )
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})"
            )
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(cdbs, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        batch_shape = tuple(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        comp = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._component_distribution = comp
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(batch_shape, comp.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self) -> Any:
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    mixture_distribution = property(lambda self: self._mixture_distribution)
    component_distribution = property(lambda self: self._component_distribution)

    def _weights(self) -> Tensor:
        """The mixture probabilities shaped ``(..., k, 1, ...)`` against the components'
        moments (batch dimensions broadcast from the right)."""
        probs = self.mixture_distribution.probs
        return probs.reshape((*probs.shape, *([1] * self._event_ndims)))

    @property
    def mean(self) -> Tensor:
        mixed = self._weights() * self.component_distribution.mean
        return mixed.sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        probs, comp, axis = self._weights(), self.component_distribution, -1 - self._event_ndims
        mean_cond_var = (probs * comp.variance).sum(axis)
        var_cond_mean = (probs * (comp.mean - self._pad(self.mean)).pow(2.0)).sum(axis)
        return mean_cond_var + var_cond_mean

    def cdf(self, x: Tensor) -> Tensor:
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = F.log_softmax(self.mixture_distribution.logits, dim=-1)
        return (log_prob_x + log_mix_prob).logsumexp(dim=-1)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with grad_mode.no_grad():
            gather_dim = len(tuple(sample_shape)) + len(self.batch_shape)
            event = tuple(self.event_shape)
            mixture = self.mixture_distribution
            if mixture.batch_shape != self.batch_shape:
                # one component choice per batch element (PyTorch fails to gather here)
                mixture = mixture.expand(self.batch_shape)
            mix_sample = mixture.sample(sample_shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            # each draw's component index, repeated over the event dimensions
            index = mix_sample.reshape(*mix_sample.shape, 1, *([1] * len(event)))
            index = index.expand(*comp_samples.shape[:gather_dim], 1, *event)
            return comp_samples.gather(gather_dim, index).squeeze(gather_dim)

    def _pad(self, x: Tensor) -> Tensor:
        return x.unsqueeze(-1 - self._event_ndims)

    def __repr__(self) -> str:
        return (
            f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"
        )
