"""``symgrad.utils``: PyTorch's utilities that scripts written for it use (``benchmark``,
``checkpoint``, ``data``)."""

from symgrad.utils import benchmark, checkpoint, data

__all__ = ["benchmark", "checkpoint", "data"]
