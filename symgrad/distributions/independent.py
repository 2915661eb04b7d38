"""PyTorch's import path ``torch.distributions.independent``: ``Independent`` (defined in
``symgrad.distributions.families``)."""

from symgrad.distributions.families import Independent

__all__ = ["Independent"]
