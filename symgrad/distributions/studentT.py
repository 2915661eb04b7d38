"""PyTorch's import path ``torch.distributions.studentT``: ``StudentT`` (defined in
``symgrad.distributions.heavy_tails``)."""

from symgrad.distributions.heavy_tails import StudentT

__all__ = ["StudentT"]
