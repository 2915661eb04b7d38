"""The layer classes of :mod:`symgrad.nn`."""

from symgrad.nn.modules.activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from symgrad.nn.modules.container import ModuleDict, ModuleList, Sequential
from symgrad.nn.modules.linear import Flatten, Identity, Linear
from symgrad.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
)
from symgrad.nn.modules.module import Module

__all__ = [
    "Module",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "Linear",
    "Identity",
    "Flatten",
    "ReLU",
    "Tanh",
    "Sigmoid",
    "Softmax",
    "LogSoftmax",
    "MSELoss",
    "L1Loss",
    "CrossEntropyLoss",
    "NLLLoss",
    "BCEWithLogitsLoss",
    "BCELoss",
]
