"""PyTorch's import path ``torch.distributions.cauchy``: ``Cauchy`` (defined in
``symgrad.distributions.continuous``)."""

from symgrad.distributions.continuous import Cauchy

__all__ = ["Cauchy"]
