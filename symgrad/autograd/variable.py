"""``Variable``: PyTorch's deprecated alias from before tensors recorded gradients themselves."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)

    def __call__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Any:
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            data = Tensor._make(np.zeros((0,), dtypes.get_default_dtype().numpy))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = data.detach()
        t.requires_grad = requires_grad
        return t


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)``: a leaf tensor sharing ``tensor``'s memory.

    Kept, as in PyTorch, so old code runs: it returns a plain :class:`symgrad.Tensor` (cut from
    any graph), and every tensor is an instance of ``Variable``. Write
    ``tensor.detach().requires_grad_()`` in new code.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd import Variable
    >>> v = Variable(symgrad.ones(2), requires_grad=True)
    >>> v
    tensor([1., 1.], requires_grad=True)
    >>> isinstance(v, Variable), type(v).__name__
    (True, 'Tensor')
    """
