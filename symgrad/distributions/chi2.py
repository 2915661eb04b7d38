"""PyTorch's import path ``torch.distributions.chi2``: ``Chi2`` (defined in
``symgrad.distributions.gamma_family``)."""

from symgrad.distributions.gamma_family import Chi2

__all__ = ["Chi2"]
