"""``Parameter``: the tensor a module registers as one of its learnable weights."""

from __future__ import annotations

import numpy as np

from symgrad import dtypes
from symgrad.tensor import Tensor, _init, link_view

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A tensor that a :class:`symgrad.nn.Module` lists in ``parameters()`` when assigned
    as one of its attributes. It requires grad unless told otherwise, and shares its memory
    with ``data``; ops on it give plain tensors, as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> p = nn.Parameter(symgrad.tensor([1.0, 2.0]))
    >>> p
    Parameter containing:
    tensor([1., 2.], requires_grad=True)
    >>> type(p * 2).__name__
    'Tensor'
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = Tensor._make(np.zeros((0,), dtypes.get_default_dtype().numpy))
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): data must be a Tensor, got {type(data).__name__}; wrap it "
                "first, e.g. nn.Parameter(symgrad.tensor(data))"
            )
        p = object.__new__(cls)
        _init(p, data._data, None)
        p._requires_grad = False
        link_view(data, p, "alias")  # shares data's memory and version counter, as detach()
        p.requires_grad = requires_grad
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything is done in __new__

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> Parameter:
        # PyTorch copies the values and the flag, not the gradient
        p = Parameter(Tensor._make(self._data.copy()), self._requires_grad)
        p._name = self._name
        memo[id(self)] = p
        return p
