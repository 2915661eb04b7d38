"""PyTorch's import path ``torch.distributions.poisson``: ``Poisson`` (defined in
``symgrad.distributions.counts``)."""

from symgrad.distributions.counts import Poisson

__all__ = ["Poisson"]
