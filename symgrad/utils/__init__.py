"""``symgrad.utils``: PyTorch's utilities that scripts written for it use (``benchmark``,
``checkpoint``, ``data``, ``hooks``)."""

from symgrad.utils import benchmark, checkpoint, data, hooks

__all__ = ["benchmark", "checkpoint", "data", "hooks"]
