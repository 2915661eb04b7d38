"""PyTorch's import path ``torch.distributions.geometric``: ``Geometric`` (defined in
``symgrad.distributions.trials``)."""

from symgrad.distributions.trials import Geometric

__all__ = ["Geometric"]
