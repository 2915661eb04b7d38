"""PyTorch's import path ``torch.distributions.laplace``: ``Laplace`` (defined in
``symgrad.distributions.continuous``)."""

from symgrad.distributions.continuous import Laplace

__all__ = ["Laplace"]
