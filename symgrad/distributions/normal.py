"""PyTorch's import path ``torch.distributions.normal``: ``Normal`` (defined in
``symgrad.distributions.families``)."""

from symgrad.distributions.families import Normal

__all__ = ["Normal"]
