"""PyTorch's import path ``torch.distributions.categorical``: ``Categorical`` (defined in
``symgrad.distributions.bernoulli_categorical``)."""

from symgrad.distributions.bernoulli_categorical import Categorical

__all__ = ["Categorical"]
