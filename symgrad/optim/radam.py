"""``torch.optim.radam``: :class:`RAdam` under PyTorch's module path, for programs that import
it from there (and so that ``type(optimizer).__module__`` reads as PyTorch's).

Examples
--------
>>> from symgrad import optim
>>> from symgrad.optim.radam import RAdam
>>> RAdam is optim.RAdam, RAdam.__module__
(True, 'symgrad.optim.radam')
"""

from symgrad.optim.adam_variants import RAdam

RAdam.__module__ = __name__

__all__ = ["RAdam"]
