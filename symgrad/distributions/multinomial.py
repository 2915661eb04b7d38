"""PyTorch's import path ``torch.distributions.multinomial``: ``Multinomial`` (defined in
``symgrad.distributions.one_hot``)."""

from symgrad.distributions.one_hot import Multinomial

__all__ = ["Multinomial"]
