"""Hooks registered for every module at once (``torch.nn.modules.module``'s
``register_module_forward_pre_hook`` and the others): they run before each module's own
hooks of the same kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.autograd.node import RemovableHandle

__all__ = [
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
]

# entries as a module's own: (hook, with_kwargs, always_call) for the forward ones
FORWARD_PRE: list = []
FORWARD: list = []
BACKWARD_PRE: list = []
BACKWARD: list = []
# (before forward, after forward) of the backward hooks' machinery, set by its module
BACKWARD_SETUP: list = []


def any_hooks() -> bool:
    """Whether some global hook is registered (a module call then takes the hooks' path)."""
    return bool(FORWARD_PRE or FORWARD or BACKWARD_PRE or BACKWARD)


def backward_setup() -> Any:
    """The backward hooks' machinery when a global backward hook is registered, else None."""
    return BACKWARD_SETUP[0] if (BACKWARD_PRE or BACKWARD) and BACKWARD_SETUP else None


def _add(hooks: list, entry: Any) -> RemovableHandle:
    hooks.append(entry)
    return RemovableHandle(hooks, entry)


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, args)`` before the ``forward`` of every module, ahead of the module's
    own pre-hooks; a non-None result replaces ``args``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.module import register_module_forward_pre_hook
    >>> seen = []
    >>> h = register_module_forward_pre_hook(lambda m, args: seen.append(type(m).__name__))
    >>> _ = symgrad.nn.Sequential(symgrad.nn.ReLU())(symgrad.ones(1))
    >>> h.remove()
    >>> seen
    ['Sequential', 'ReLU']
    """
    return _add(FORWARD_PRE, (hook, False, False))


def register_module_forward_hook(
    hook: Callable, *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
    ``with_kwargs``) after the ``forward`` of every module, ahead of the module's own hooks; a
    non-None result replaces the output. ``always_call``: also when ``forward`` raised.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.module import register_module_forward_hook
    >>> seen = []
    >>> h = register_module_forward_hook(lambda m, args, out: seen.append(type(m).__name__))
    >>> _ = symgrad.nn.Sequential(symgrad.nn.ReLU())(symgrad.ones(1))
    >>> h.remove()
    >>> seen
    ['ReLU', 'Sequential']
    """
    return _add(FORWARD, (hook, with_kwargs, always_call))


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_output)`` for every module, ahead of the module's own backward
    pre-hooks (see ``Module.register_full_backward_pre_hook``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.module import register_module_full_backward_pre_hook
    >>> seen = []
    >>> h = register_module_full_backward_pre_hook(lambda m, go: seen.append(type(m).__name__))
    >>> symgrad.nn.Tanh()(symgrad.ones(1, requires_grad=True)).sum().backward()
    >>> h.remove()
    >>> seen
    ['Tanh']
    """
    return _add(BACKWARD_PRE, hook)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` for every module, ahead of the module's own
    backward hooks (see ``Module.register_full_backward_hook``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.module import register_module_full_backward_hook
    >>> seen = []
    >>> h = register_module_full_backward_hook(lambda m, gi, go: seen.append(gi[0].tolist()))
    >>> symgrad.nn.ReLU()(symgrad.tensor([-1.0, 2.0], requires_grad=True)).sum().backward()
    >>> h.remove()
    >>> seen
    [[0.0, 1.0]]
    """
    return _add(BACKWARD, hook)
