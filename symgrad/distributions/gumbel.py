"""PyTorch's import path ``torch.distributions.gumbel``: ``Gumbel`` (defined in
``symgrad.distributions.transformed_families``)."""

from symgrad.distributions.transformed_families import Gumbel

__all__ = ["Gumbel"]
