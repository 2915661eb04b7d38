"""PyTorch's import path ``torch.distributions.uniform``: ``Uniform`` (defined in
``symgrad.distributions.families``)."""

from symgrad.distributions.families import Uniform

__all__ = ["Uniform"]
