"""Gradient hooks: the tensor methods ``register_hook``, ``retain_grad`` and
``register_post_accumulate_grad_hook`` (bound as :class:`~symgrad.Tensor` methods when
:mod:`symgrad.autograd` loads), and how the engine runs a node's hooks and checks what they
return. Every hook lives on a node (a leaf's on its ``AccumulateGrad`` node): see
:class:`~symgrad.autograd.node.NodeHooks` for the order they run in.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._meta import is_meta
from symgrad.autograd.buffers import not_own
from symgrad.autograd.edges import as_public, from_public
from symgrad.autograd.grad_mode import enable_grad
from symgrad.autograd.node import NodeHooks, RemovableHandle, accumulator_of
from symgrad.tensor import Tensor, bind_methods

__all__ = [
    "register_hook",
    "retain_grad",
    "register_post_accumulate_grad_hook",
    "checked_hook_result",
    "move_retain_grad",
    "grad_tensor",
    "run_tensor_hooks",
    "run_prehooks",
    "run_posthooks",
    "RemovableHandle",
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
    nr = self._output_nr

    def prehook(grads: list) -> None:
        if grads[nr] is None:
            return
        old = grad_tensor(grads[nr])
        new = checked_hook_result(hook, old, hook(old))
        if new is not None:
            grads[nr] = new if isinstance(grads[nr], Tensor) else new._data

    node = self.grad_fn if self.grad_fn is not None else accumulator_of(self)
    hooks = node.hook_lists().tensor
    hooks.append(prehook)
    return RemovableHandle(hooks, prehook)


def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
    """Call ``hook(tensor)`` on this leaf once backward has accumulated its ``.grad`` (the
    place for an optimizer step per parameter); the hook must return None.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> def step(p):
    ...     with symgrad.no_grad():
    ...         p -= 0.5 * p.grad
    ...     p.grad = None
    >>> h = w.register_post_accumulate_grad_hook(step)
    >>> (w * w).sum().backward()
    >>> w, w.grad
    (tensor([0., 0.], requires_grad=True), None)
    """
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError(
            "post accumulate grad hooks cannot be registered on non-leaf tensors: this tensor "
            f"was made by {self.grad_fn.name()}; register it on the leaves it comes from"
        )
    hooks = accumulator_of(self).hook_lists().post_accumulate
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


def retain_grad(self) -> None:
    """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
    if self.grad_fn is None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        return
    if self._retains_grad:
        return
    self._retains_grad = True
    # PyTorch runs the retain_grad hook after every other tensor hook, whatever the order
    self.grad_fn.hook_lists().retain.append(_RetainGrad(self))


def grad_tensor(g: Any, copy: bool = False) -> Tensor:
    """A gradient as a Tensor, whichever form the pass holds it in (an array in a plain
    backward, a Tensor under ``create_graph``); with ``copy``, an array is copied so the
    caller's tensor owns its values."""
    if isinstance(g, Tensor):
        return g
    return Tensor._make((g.copy() if is_meta(g) else np.array(g)) if copy else g)


def checked_hook_result(hook: Any, old: Tensor, new: Any) -> Tensor | None:
    """``new``, the value a gradient hook returned, once it is known to fit in ``old``'s place."""
    if new is None:
        return None
    name = getattr(hook, "__name__", repr(hook))
    if not isinstance(new, Tensor):
        raise TypeError(
            f"expected Variable, but hook returned '{type(new).__name__}'\n(hook '{name}': a "
            "gradient hook must return a Tensor or None)"
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
        if isinstance(g, Tensor) and g._requires_grad:  # create_graph: recorded, as PyTorch
            with enable_grad():
                t._grad = g.clone() if t._grad is None else t._grad + g
            return
        g = np.array(grad_tensor(g)._data)  # a copy the user may mutate
        t._grad = Tensor._make(g if t._grad is None else t._grad._data + g)


def move_retain_grad(t: Tensor, old_node: Any) -> None:
    """After an in-place op gave ``t`` a new ``grad_fn``, make ``.grad`` follow the new version
    (PyTorch moves the retain_grad hook; other hooks stay with the old version)."""
    if not t._retains_grad or old_node is None or t.grad_fn is old_node:
        return
    if old_node._hooks is not None:
        old_node._hooks.retain[:] = [h for h in old_node._hooks.retain if h.ref() is not t]
    t.grad_fn.hook_lists().retain.append(_RetainGrad(t))


# -- running a node's hooks (the engine) ---------------------------------------------------------
# The engine holds gradients as arrays (as tensors under create_graph); hooks see tensors, and
# what they return goes back in the engine's form. The ids of returned gradients join
# ``foreign``: the user may hold them, so a leaf copies them rather than keeping them as .grad.


def run_tensor_hooks(hooks: NodeHooks, grads: list, foreign: dict) -> None:
    """The output tensors' hooks, then the retain_grad ones, changing ``grads`` in place."""
    before = [id(g) for g in grads]
    for hook in hooks.tensor + hooks.retain:  # a copy: a hook may remove itself
        hook(grads)
    not_own(foreign, (id(g) for g, old in zip(grads, before) if id(g) != old))
    if hooks.tensor:
        # a hook may keep the gradient it saw: it is never summed into in place afterwards
        # (PyTorch's AccumulateGrad takes over only a gradient no one else holds)
        not_own(
            foreign, (id(g._data if isinstance(g, Tensor) else g) for g in grads if g is not None)
        )


def run_prehooks(hooks: NodeHooks, grads: list, foreign: dict) -> list:
    """``grads``, the node's output gradients, after its :meth:`Node.register_prehook` hooks."""
    for hook in list(hooks.pre):
        new = hook(_as_tensors(grads))
        if new is not None:
            grads = _replaced(hook, grads, new, foreign)
    return grads


def run_posthooks(
    hooks: NodeHooks, grads_in: Any, grads: list, foreign: dict, node: Any = None
) -> Any:
    """``grads_in``, the gradients for the inputs of ``node``'s primitive, after its
    :meth:`Node.register_hook` hooks (``grads`` being its output gradients), which see and
    return one gradient per entry of its ``next_functions``."""
    public = grads_in if node is None else as_public(node, grads_in)
    changed = False
    for hook in list(hooks.post):
        new = hook(_as_tensors(public), _as_tensors(grads))
        if new is not None:
            public, changed = _replaced(hook, public, new, foreign), True
    if not changed:
        return grads_in
    return public if node is None else from_public(node, public, grads_in)


def run_post_accumulate_hooks(hooks: NodeHooks, leaf: Tensor) -> None:
    for hook in list(hooks.post_accumulate):
        result = hook(leaf)
        if result is not None:
            if isinstance(result, Tensor):
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
            raise TypeError(f"expected None, but hook returned '{type(result).__name__}'")


def _as_tensors(grads: Any) -> tuple:
    return tuple(None if g is None else grad_tensor(g) for g in grads)


def _replaced(hook: Any, old: Any, new: Any, foreign: dict) -> list:
    """``new``, the gradients a node hook returned for ``old``, checked as PyTorch checks them
    and in the engine's form."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        name = getattr(hook, "__name__", repr(hook))
        raise RuntimeError(
            f"hook '{name}' has returned an incorrect number of values (got {len(new)}, but "
            f"expected {len(old)})"
        )
    result = []
    for o, n in zip(old, new):
        if n is not None:
            if o is None:
                raise RuntimeError("can't replace a None gradient with a non-None value")
            n = checked_hook_result(hook, grad_tensor(o), n)
            n = n if isinstance(o, Tensor) else n._data
            foreign.setdefault(id(n), None)
        result.append(n)
    return result


bind_methods(
    {
        "register_hook": register_hook,
        "retain_grad": retain_grad,
        "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    }
)
