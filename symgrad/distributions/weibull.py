"""PyTorch's import path ``torch.distributions.weibull``: ``Weibull`` (defined in
``symgrad.distributions.transformed_tails``)."""

from symgrad.distributions.transformed_tails import Weibull

__all__ = ["Weibull"]
