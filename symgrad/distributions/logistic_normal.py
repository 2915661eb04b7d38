"""PyTorch's import path ``torch.distributions.logistic_normal``: ``LogisticNormal`` (defined in
``symgrad.distributions.transformed_families``)."""

from symgrad.distributions.transformed_families import LogisticNormal

__all__ = ["LogisticNormal"]
