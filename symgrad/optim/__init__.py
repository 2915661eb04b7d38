"""Optimizers as in ``torch.optim``: :class:`SGD`, :class:`Adam`, :class:`AdamW` and their
base :class:`Optimizer`."""

from symgrad.optim.adam import Adam, AdamW
from symgrad.optim.optimizer import Optimizer
from symgrad.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
