"""``Tensor.apply_``, ``Tensor.map_`` and ``Tensor.map2_``: a Python callable run on every
element, in place, as PyTorch's CPU-only methods run it (slowly, one element at a time, outside
autograd: a tensor that requires grad is refused, and the version counter is left as it is, as
PyTorch leaves it).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._data import check_number
from symgrad._meta import is_meta
from symgrad.ops.math_special import require_tensor
from symgrad.tensor import Tensor, bind_methods

__all__: list[str] = []


def _refuse_grad(op: str, *tensors: Tensor) -> None:
    if any(t.requires_grad for t in tensors):
        raise RuntimeError(
            f"Can't call {op}() on Variable that requires grad. Use var.detach().{op}() instead."
        )


def _writable(t: Tensor, op: str) -> np.ndarray:
    """``t``'s array, to write into (PyTorch writes an expanded tensor's one element once per
    place that reads it; symgrad refuses, as its other in-place ops do)."""
    if not t._data.flags.writeable:
        raise RuntimeError(
            f"{op}(): more than one element of the written-to tensor refers to a single memory "
            "location (an expanded tensor); clone() it first"
        )
    return t._data


def _number(value: Any, t: Tensor, op: str) -> Any:
    """A callable's result as the element to write, with PyTorch's errors."""
    if not isinstance(value, (numbers.Real, np.bool_)):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    value = check_number(value, t.dtype, op)
    return value


def apply_(self: Tensor, callable: Callable) -> Tensor:
    """Replace each element ``v`` by ``callable(v)`` (a Python number in, one out), in place.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0, 3.0])
    >>> x.apply_(lambda v: v * v)
    tensor([1., 4., 9.])
    """
    _refuse_grad("apply_", self)
    if is_meta(self._data):  # no values to call it on
        return self
    data = _writable(self, "apply_")
    for place in np.ndindex(data.shape):
        data[place] = _number(callable(data[place].item()), self, "apply_")
    return self


def map_(self: Tensor, tensor: Tensor, callable: Callable) -> Tensor:
    """Replace each element ``v`` by ``callable(v, w)``, ``w`` the element of ``tensor`` (of the
    same dtype, broadcast to this tensor's shape) at the same place, in place.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0, 3.0])
    >>> x.map_(symgrad.tensor([10.0, 20.0, 30.0]), lambda v, w: v + w)
    tensor([11., 22., 33.])
    """
    require_tensor("map_", "other", 1, tensor)
    _refuse_grad("map_", self, tensor)
    if tensor.dtype is not self.dtype:
        raise TypeError(f"map_: expected {self.type()} for 'other' (got {tensor.type()})")
    others = tensor.expand(self.shape)._data
    if is_meta(self._data):
        return self
    data = _writable(self, "map_")
    for place in np.ndindex(data.shape):
        value = callable(data[place].item(), others[place].item())
        data[place] = _number(value, self, "map_")
    return self


def map2_(self: Tensor, x: Tensor, y: Tensor, callable: Callable) -> Tensor:
    """Replace each element ``v`` by ``callable(v, a, b)``, ``a`` and ``b`` the elements of
    ``x`` and ``y`` (of the same dtype, broadcast to this tensor's shape) at the same place,
    in place.

    Examples
    --------
    >>> import symgrad
    >>> t = symgrad.tensor([1.0, 2.0])
    >>> t.map2_(symgrad.tensor([3.0]), symgrad.tensor([1.0, 10.0]), lambda v, a, b: v + a * b)
    tensor([ 4., 32.])
    """
    require_tensor("map2_", "x", 1, x)
    require_tensor("map2_", "y", 2, y)
    _refuse_grad("map2_", self, x, y)
    for name, other in (("x", x), ("y", y)):
        if other.dtype is not self.dtype:
            raise TypeError(
                f"map2_: expected {self.type()} for argument '{name}' (got {other.type()})"
            )
    firsts, seconds = x.expand(self.shape)._data, y.expand(self.shape)._data
    if is_meta(self._data):
        return self
    data = _writable(self, "map2_")
    for place in np.ndindex(data.shape):
        value = callable(data[place].item(), firsts[place].item(), seconds[place].item())
        data[place] = _number(value, self, "map2_")
    return self


bind_methods({"apply_": apply_, "map_": map_, "map2_": map2_})
