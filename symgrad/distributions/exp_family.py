"""``ExponentialFamily``: the base of distributions with density
``exp(<t(x), theta> - F(theta) + k(x))``, as ``torch.distributions.ExponentialFamily``.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import ExponentialFamily, Normal
>>> isinstance(Normal(0.0, 1.0), ExponentialFamily)
True
"""

from __future__ import annotations

from typing import Any

from symgrad.autograd import grad_api, grad_mode
from symgrad.distributions.distribution import Distribution
from symgrad.tensor import Tensor

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential families. A subclass gives its natural parameters
    ``_natural_params``, its log-normalizer ``_log_normalizer(*natural_params)`` and
    ``_mean_carrier_measure`` (``E[k(x)]``); the entropy then follows from the gradient of
    the log-normalizer (a Bregman divergence), with ``create_graph`` so it stays
    differentiable.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import ExponentialFamily, Normal
    >>> d = Normal(symgrad.tensor([0.0]), symgrad.tensor([2.0]))
    >>> ExponentialFamily.entropy(d), d.entropy()
    (tensor([2.1121], grad_fn=<SubBackward0>), tensor([2.1121]))
    """

    @property
    def _natural_params(self) -> tuple:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        result: Any = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        with grad_mode.enable_grad():
            log_norm = self._log_normalizer(*params)
            grads = grad_api.grad(log_norm.sum(), params, create_graph=True)
        result = result + log_norm
        for param, g in zip(params, grads):
            result = result - (param * g).reshape(*self._batch_shape, -1).sum(-1)
        return result
