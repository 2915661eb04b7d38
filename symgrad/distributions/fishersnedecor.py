"""PyTorch's import path ``torch.distributions.fishersnedecor``: ``FisherSnedecor`` (defined in
``symgrad.distributions.heavy_tails``)."""

from symgrad.distributions.heavy_tails import FisherSnedecor

__all__ = ["FisherSnedecor"]
