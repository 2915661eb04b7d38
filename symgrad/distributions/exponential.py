"""PyTorch's import path ``torch.distributions.exponential``: ``Exponential`` (defined in
``symgrad.distributions.continuous``)."""

from symgrad.distributions.continuous import Exponential

__all__ = ["Exponential"]
