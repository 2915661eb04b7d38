"""PyTorch's import path ``torch.distributions.mixture_same_family``: ``MixtureSameFamily``
(defined in ``symgrad.distributions.mixture``)."""

from symgrad.distributions.mixture import MixtureSameFamily

__all__ = ["MixtureSameFamily"]
