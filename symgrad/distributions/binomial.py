"""PyTorch's import path ``torch.distributions.binomial``: ``Binomial`` (defined in
``symgrad.distributions.counts``)."""

from symgrad.distributions.counts import Binomial

__all__ = ["Binomial"]
