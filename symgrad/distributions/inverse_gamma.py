"""PyTorch's import path ``torch.distributions.inverse_gamma``: ``InverseGamma`` (defined in
``symgrad.distributions.transformed_tails``)."""

from symgrad.distributions.transformed_tails import InverseGamma

__all__ = ["InverseGamma"]
