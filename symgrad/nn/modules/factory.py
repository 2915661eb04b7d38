"""Small helpers of ``torch.nn`` for writing modules: ``factory_kwargs`` and the deprecated
``Container``."""

from __future__ import annotations

import warnings
from typing import Any

from symgrad.nn.modules.module import Module

__all__ = ["factory_kwargs", "Container"]

_SIMPLE = ("device", "dtype", "memory_format")


def factory_kwargs(kwargs: dict | None) -> dict:
    """The ``device``, ``dtype`` and ``memory_format`` of ``kwargs`` as one dict to hand to
    factories such as ``symgrad.empty``, merged with its ``factory_kwargs`` entry (for names
    that clash with a module's own arguments); any other key is a ``TypeError``, as is one
    given both ways.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nn.factory_kwargs({"dtype": symgrad.float64, "factory_kwargs": {"device": "cpu"}})
    {'device': 'cpu', 'dtype': symgrad.float64}
    """
    if kwargs is None:
        return {}
    unexpected = kwargs.keys() - {*_SIMPLE, "factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    merged = dict(kwargs.get("factory_kwargs", {}))
    for key in _SIMPLE:
        if key in kwargs:
            if key in merged:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            merged[key] = kwargs[key]
    return merged


class Container(Module):
    """A module holding the modules given as keyword arguments (deprecated in PyTorch, with
    its ``FutureWarning``: subclass :class:`Module` instead).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     box = symgrad.nn.Container(relu=symgrad.nn.ReLU())
    >>> box.relu
    ReLU()
    """

    def __init__(self, **kwargs: Any) -> None:
        warnings.warn(
            "`nn.Container` is deprecated. All of its functionality is now implemented in "
            "`nn.Module`. Subclass that instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
