"""PyTorch's import path ``torch.distributions.pareto``: ``Pareto`` (defined in
``symgrad.distributions.transformed_tails``)."""

from symgrad.distributions.transformed_tails import Pareto

__all__ = ["Pareto"]
