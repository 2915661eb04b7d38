"""``torch.optim.rprop``: :class:`Rprop` under PyTorch's module path, for programs that import
it from there (and so that ``type(optimizer).__module__`` reads as PyTorch's).

Examples
--------
>>> from symgrad import optim
>>> from symgrad.optim.rprop import Rprop
>>> Rprop is optim.Rprop, Rprop.__module__
(True, 'symgrad.optim.rprop')
"""

from symgrad.optim.sign_steps import Rprop

Rprop.__module__ = __name__

__all__ = ["Rprop"]
