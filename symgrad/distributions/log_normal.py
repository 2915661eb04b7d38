"""PyTorch's import path ``torch.distributions.log_normal``: ``LogNormal`` (defined in
``symgrad.distributions.transformed_families``)."""

from symgrad.distributions.transformed_families import LogNormal

__all__ = ["LogNormal"]
