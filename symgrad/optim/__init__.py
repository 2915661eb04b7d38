"""Optimizers as in ``torch.optim``: :class:`SGD`, :class:`Adam`, :class:`AdamW`,
:class:`RMSprop`, :class:`Adagrad`, their base :class:`Optimizer`, and the learning-rate
schedules of :mod:`symgrad.optim.lr_scheduler`."""

from symgrad.optim import lr_scheduler, schedules, schedules_adaptive, schedules_cyclic
from symgrad.optim import swa_utils
from symgrad.optim.adafactor import Adafactor
from symgrad.optim.adagrad import Adagrad
from symgrad.optim.adam import Adam
from symgrad.optim.adamw import AdamW
from symgrad.optim.optimizer import Optimizer
from symgrad.optim.rmsprop import RMSprop
from symgrad.optim.sgd import SGD
from symgrad.optim.adamax import Adamax
from symgrad.optim.nadam import NAdam
from symgrad.optim.radam import RAdam
from symgrad.optim.asgd import ASGD
from symgrad.optim.lbfgs import LBFGS
from symgrad.optim.muon import Muon
from symgrad.optim.adadelta import Adadelta
from symgrad.optim.rprop import Rprop
from symgrad.optim.sparse_adam import SparseAdam

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
__all__ += [
    "Adadelta",
    "Adafactor",
    "Adamax",
    "NAdam",
    "RAdam",
    "Rprop",
    "LBFGS",
    "Muon",
    "ASGD",
    "SparseAdam",
    "swa_utils",
]

# lr_scheduler is PyTorch's one module of schedules: the ones defined in the two modules above
# (which need its base class) join it here
for _module in (schedules, schedules_adaptive, schedules_cyclic):
    for _name in _module.__all__:
        _schedule = getattr(_module, _name)
        setattr(lr_scheduler, _name, _schedule)
        lr_scheduler.__all__.append(_name)
        if isinstance(_schedule, type):  # its class reads as PyTorch's: torch.optim.lr_scheduler
            _schedule.__module__ = lr_scheduler.__name__
del _module, _name, _schedule
