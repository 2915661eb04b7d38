"""``symgrad.utils``: PyTorch's utilities that scripts written for it use (``benchmark``,
``data``)."""

from symgrad.utils import benchmark, data

__all__ = ["benchmark", "data"]
