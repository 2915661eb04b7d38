"""``torch.optim.adamw``: :class:`AdamW` under PyTorch's module path, for programs that import
it from there (and so that ``type(optimizer).__module__`` reads as PyTorch's).

Examples
--------
>>> from symgrad import optim
>>> from symgrad.optim.adamw import AdamW
>>> AdamW is optim.AdamW, AdamW.__module__
(True, 'symgrad.optim.adamw')
"""

from symgrad.optim.adam import AdamW

AdamW.__module__ = __name__

__all__ = ["AdamW"]
