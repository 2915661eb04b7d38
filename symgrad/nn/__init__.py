"""Neural-network helpers: ``symgrad.nn.functional`` (PyTorch's ``torch.nn.functional``)."""

from symgrad.nn import functional

__all__ = ["functional"]
