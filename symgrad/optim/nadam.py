"""``torch.optim.nadam``: :class:`NAdam` under PyTorch's module path, for programs that import
it from there (and so that ``type(optimizer).__module__`` reads as PyTorch's).

Examples
--------
>>> from symgrad import optim
>>> from symgrad.optim.nadam import NAdam
>>> NAdam is optim.NAdam, NAdam.__module__
(True, 'symgrad.optim.nadam')
"""

from symgrad.optim.adam_variants import NAdam

NAdam.__module__ = __name__

__all__ = ["NAdam"]
