"""``symgrad.backends``: the backend switches PyTorch scripts query or set.

symgrad computes on the CPU with NumPy: ``backends.mps.is_available()``,
``backends.cudnn.is_available()`` and ``backends.cuda.is_built()`` are False, and cuDNN's
and CUDA's flags can be set (they change nothing).

Examples
--------
>>> import symgrad
>>> symgrad.backends.mps.is_available()
False
>>> symgrad.backends.cudnn.deterministic = True
"""

from symgrad.backends import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, openmp

__all__ = ["cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "openmp"]
