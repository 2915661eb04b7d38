"""``symgrad.backends``: the backend switches PyTorch scripts query or set.

symgrad computes on the CPU with NumPy: ``backends.mps.is_available()`` and
``backends.cudnn.is_available()`` are False, and cuDNN's flags can be set (they change
nothing).

Examples
--------
>>> import symgrad
>>> symgrad.backends.mps.is_available()
False
>>> symgrad.backends.cudnn.deterministic = True
"""

from symgrad.backends import cudnn, mha, mps

__all__ = ["cudnn", "mha", "mps"]
