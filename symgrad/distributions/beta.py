"""PyTorch's import path ``torch.distributions.beta``: ``Beta`` (defined in
``symgrad.distributions.gamma_family``)."""

from symgrad.distributions.gamma_family import Beta

__all__ = ["Beta"]
