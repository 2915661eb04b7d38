"""PyTorch's import path ``torch.distributions.half_normal``: ``HalfNormal`` (defined in
``symgrad.distributions.transformed_families``)."""

from symgrad.distributions.transformed_families import HalfNormal

__all__ = ["HalfNormal"]
