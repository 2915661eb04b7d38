"""``torch.optim.adadelta``: :class:`Adadelta` under PyTorch's module path, for programs that import
it from there (and so that ``type(optimizer).__module__`` reads as PyTorch's).

Examples
--------
>>> from symgrad import optim
>>> from symgrad.optim.adadelta import Adadelta
>>> Adadelta is optim.Adadelta, Adadelta.__module__
(True, 'symgrad.optim.adadelta')
"""

from symgrad.optim.sign_steps import Adadelta

Adadelta.__module__ = __name__

__all__ = ["Adadelta"]
