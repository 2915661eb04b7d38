"""Optimizers as in ``torch.optim``: :class:`SGD`, :class:`Adam`, :class:`AdamW`,
:class:`RMSprop`, :class:`Adagrad`, their base :class:`Optimizer`, and the learning-rate
schedules of :mod:`symgrad.optim.lr_scheduler`."""

from symgrad.optim import lr_scheduler
from symgrad.optim.adagrad import Adagrad
from symgrad.optim.adam import Adam, AdamW
from symgrad.optim.optimizer import Optimizer
from symgrad.optim.rmsprop import RMSprop
from symgrad.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
