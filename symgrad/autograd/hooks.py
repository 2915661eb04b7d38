"""Gradient hooks on tensors: ``register_hook``, ``retain_grad`` and the checks on what a hook
returns. Bound as :class:`~symgrad.Tensor` methods when :mod:`symgrad.autograd` loads.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.tensor import Tensor, bind_methods

__all__ = [
    "register_hook",
    "retain_grad",
    "checked_hook_result",
    "move_retain_grad",
    "grad_tensor",
]


def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
    """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a
    replacement gradient.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 10)
    >>> (x * 3).sum().backward()
    >>> x.grad
    tensor([30., 30.])
    """
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is None:
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return RemovableHandle(self._hooks, hook)
    nr = self._output_nr

    def prehook(grads: list) -> None:
        if grads[nr] is None:
            return
        old = grad_tensor(grads[nr])
        new = checked_hook_result(hook, old, hook(old))
        if new is not None:
            grads[nr] = new if isinstance(grads[nr], Tensor) else new._data

    self.grad_fn.register_prehook(prehook)
    return RemovableHandle(self.grad_fn._pre_hooks, prehook)


def retain_grad(self) -> None:
    """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
    if self.grad_fn is None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        return
    if self._retains_grad:
        return
    self._retains_grad = True
    # PyTorch runs the retain_grad hook after every other hook, whatever the order
    self.grad_fn.register_prehook(_RetainGrad(self), last=True)


def grad_tensor(g: Any, copy: bool = False) -> Tensor:
    """A gradient as a Tensor, whichever form the pass holds it in (an array in a plain
    backward, a Tensor under ``create_graph``); with ``copy``, an array is copied so the
    caller's tensor owns its values."""
    if isinstance(g, Tensor):
        return g
    return Tensor._make(np.array(g) if copy else g)


def checked_hook_result(hook: Any, old: Tensor, new: Any) -> Tensor | None:
    """``new``, the value a gradient hook returned, once it is known to fit in ``old``'s place."""
    if new is None:
        return None
    name = getattr(hook, "__name__", repr(hook))
    if not isinstance(new, Tensor):
        raise TypeError(
            f"hook '{name}' returned a {type(new).__name__}; a gradient hook must return a "
            "Tensor or None"
        )
    if new.shape != old.shape:
        raise RuntimeError(
            f"hook '{name}' has changed the size of value: it got a gradient of shape "
            f"{list(old.shape)} and returned one of shape {list(new.shape)}; return a gradient "
            "of the same shape"
        )
    if new.dtype is not old.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {old.dtype!r} got "
            f"{new.dtype!r}); return a gradient of the same dtype"
        )
    return new


class _RetainGrad:
    """The pre-hook behind :meth:`Tensor.retain_grad`: keeps a copy of the gradient."""

    __slots__ = ("ref", "nr")

    def __init__(self, t: Tensor) -> None:
        self.ref = weakref.ref(t)
        self.nr = t._output_nr

    def __call__(self, grads: list) -> None:
        t, g = self.ref(), grads[self.nr]
        if t is None or g is None:
            return
        g = np.array(grad_tensor(g)._data)  # a copy the user may mutate
        t._grad = Tensor._make(g if t._grad is None else t._grad._data + g)


def move_retain_grad(t: Tensor, old_node: Any) -> None:
    """After an in-place op gave ``t`` a new ``grad_fn``, make ``.grad`` follow the new version
    (PyTorch moves the retain_grad hook; other hooks stay with the old version)."""
    if not t._retains_grad or old_node is None or t.grad_fn is old_node:
        return
    hooks = old_node._retain_hooks or []
    old_node._retain_hooks = [h for h in hooks if h.ref() is not t] or None
    t.grad_fn.register_prehook(_RetainGrad(t), last=True)


class RemovableHandle:
    """Returned by :meth:`Tensor.register_hook`; ``handle.remove()`` unregisters the hook."""

    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks: list, hook: Any) -> None:
        self._hooks = hooks
        self._hook = hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


bind_methods({"register_hook": register_hook, "retain_grad": retain_grad})
