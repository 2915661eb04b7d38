"""PyTorch's import path ``torch.distributions.kumaraswamy``: ``Kumaraswamy`` (defined in
``symgrad.distributions.transformed_tails``)."""

from symgrad.distributions.transformed_tails import Kumaraswamy

__all__ = ["Kumaraswamy"]
