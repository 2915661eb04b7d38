"""PyTorch's import path ``torch.distributions.dirichlet``: ``Dirichlet`` (defined in
``symgrad.distributions.gamma_family``)."""

from symgrad.distributions.gamma_family import Dirichlet

__all__ = ["Dirichlet"]
