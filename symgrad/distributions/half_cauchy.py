"""PyTorch's import path ``torch.distributions.half_cauchy``: ``HalfCauchy`` (defined in
``symgrad.distributions.transformed_families``)."""

from symgrad.distributions.transformed_families import HalfCauchy

__all__ = ["HalfCauchy"]
