"""PyTorch's import path ``torch.distributions.bernoulli``: ``Bernoulli`` (defined in
``symgrad.distributions.bernoulli_categorical``)."""

from symgrad.distributions.bernoulli_categorical import Bernoulli

__all__ = ["Bernoulli"]
