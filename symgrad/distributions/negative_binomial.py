"""PyTorch's import path ``torch.distributions.negative_binomial``: ``NegativeBinomial`` (defined
in ``symgrad.distributions.trials``)."""

from symgrad.distributions.trials import NegativeBinomial

__all__ = ["NegativeBinomial"]
