"""Helpers for modules beyond PyTorch's: :func:`name_parameters` gives each parameter its
dotted path as its name, so closed forms (``symgrad.symbolic``) call it ``fc.weight`` rather
than ``x_1``."""

from __future__ import annotations

from symgrad.nn.modules.module import Module

__all__ = ["name_parameters"]


def name_parameters(module: Module, prefix: str = "") -> Module:
    """Name every parameter of ``module`` after its path in ``named_parameters(prefix)``
    (parameters are unnamed leaves otherwise); returns ``module``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import name_parameters
    >>> net = name_parameters(nn.Sequential(nn.Linear(2, 1)), prefix="net")
    >>> [p.name for p in net.parameters()]
    ['net.0.weight', 'net.0.bias']
    """
    for name, p in module.named_parameters(prefix=prefix):
        p.name = name
    return module
