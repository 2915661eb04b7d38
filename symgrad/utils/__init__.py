"""``symgrad.utils``: PyTorch's utilities that scripts written for it use (``benchmark``)."""

from symgrad.utils import benchmark

__all__ = ["benchmark"]
