"""``torch.optim.adamax``: :class:`Adamax` under PyTorch's module path, for programs that import
it from there (and so that ``type(optimizer).__module__`` reads as PyTorch's).

Examples
--------
>>> from symgrad import optim
>>> from symgrad.optim.adamax import Adamax
>>> Adamax is optim.Adamax, Adamax.__module__
(True, 'symgrad.optim.adamax')
"""

from symgrad.optim.adam_variants import Adamax

Adamax.__module__ = __name__

__all__ = ["Adamax"]
