"""PyTorch's import path ``torch.distributions.generalized_pareto``: ``GeneralizedPareto`` (defined
in ``symgrad.distributions.transformed_tails``)."""

from symgrad.distributions.transformed_tails import GeneralizedPareto

__all__ = ["GeneralizedPareto"]
