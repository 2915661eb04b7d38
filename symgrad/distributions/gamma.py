"""PyTorch's import path ``torch.distributions.gamma``: ``Gamma`` (defined in
``symgrad.distributions.gamma_family``)."""

from symgrad.distributions.gamma_family import Gamma

__all__ = ["Gamma"]
