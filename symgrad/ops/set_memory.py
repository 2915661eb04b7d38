"""``Tensor.set_``: a tensor made to share another's memory (or none), in place.

As in PyTorch, the tensor takes the source's memory, shape and strides but keeps its own
version counter, which counts the change; the two are not views of each other. A leaf that
requires grad can't be set while the graph records, and a recorded ``set_`` has no
derivative: its node (``NotImplemented``) raises when backward reaches it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd import grad_mode
from symgrad.ops.inplace import _check_leaf, _snapshot
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor, bind_methods

__all__: list[str] = []


def _no_derivative(xp: Any, g: Any, ctx: Any) -> tuple:
    raise RuntimeError("derivative for set_ is not implemented")


_SET = Structural(
    "set_",
    lambda xp, *tensors, out: xp.constant(out),
    _no_derivative,
    backward="NotImplemented",
)


def set_(self: Tensor, source: Any = None, *rest: Any, **given: Any) -> Tensor:
    """Make this tensor share the memory of ``source`` (its shape, strides and values), or
    hold no elements when no source is given; returns ``self``.

    Examples
    --------
    >>> import symgrad
    >>> x, source = symgrad.ones(2), symgrad.zeros(3)
    >>> x.set_(source)
    tensor([0., 0., 0.])
    >>> x[0] = 5.0
    >>> source
    tensor([5., 0., 0.])
    >>> x.set_().shape
    symgrad.Size([0])
    """
    if rest or given:
        raise NotImplementedError(
            "set_ takes a source tensor or nothing here: the storage offset, size and stride "
            "of set_(source, storage_offset, size, stride) are not supported; use "
            "source.as_strided(size, stride, storage_offset) as the source"
        )
    if source is None:
        data = np.empty((0,), self._data.dtype)
    elif isinstance(source, Tensor):
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {source.dtype} to a tensor of type "
                f"{self.dtype}: convert the source first (source.to({self.dtype}))"
            )
        data = source._data
    else:
        raise TypeError(
            f"set_() received an invalid combination of arguments - got "
            f"({type(source).__name__}), but expected one of:\n * ()\n * (Tensor source)"
        )
    _check_leaf(self, "set_")
    tensors = (_snapshot(self),) if source is None else (_snapshot(self), source)
    if grad_mode.recording() and any(t._requires_grad for t in tensors):
        result = _SET(*tensors, out=data)
        self.grad_fn, self._output_nr, self._requires_grad = result.grad_fn, 0, True
    self._data = data
    self._views = None  # the tensors that shared its memory keep the old memory
    self._counter.value += 1
    return self


bind_methods({"set_": set_})
