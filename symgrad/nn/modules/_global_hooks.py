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
    "register_module_parameter_registration_hook",
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
]

# entries as a module's own: (hook, with_kwargs, always_call) for the forward ones
FORWARD_PRE: list = []
FORWARD: list = []
BACKWARD_PRE: list = []
BACKWARD: list = []
# hook(module, name, value) as a parameter, buffer or submodule is registered
PARAMETER_REGISTRATION: list = []
BUFFER_REGISTRATION: list = []
MODULE_REGISTRATION: list = []
# (before forward, after forward) of the backward hooks' machinery, set by its module
BACKWARD_SETUP: list = []


def any_hooks() -> bool:
    """Whether some global hook is registered (a module call then takes the hooks' path)."""
    return bool(FORWARD_PRE or FORWARD or BACKWARD_PRE or BACKWARD)


def backward_setup() -> Any:
    """The backward hooks' machinery when a global backward hook is registered, else None."""
    return BACKWARD_SETUP[0] if (BACKWARD_PRE or BACKWARD) and BACKWARD_SETUP else None


def registered(hooks: list, module: Any, name: str, value: Any) -> Any:
    """``value`` as the registration ``hooks`` leave it (a hook's non-None result replaces
    it for the hooks after it and for the module)."""
    for hook in list(hooks):
        result = hook(module, name, value)
        if result is not None:
            value = result
    return value


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


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, param)`` each time a module registers a parameter (not None);
    a non-None result is registered in its place.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.module import register_module_parameter_registration_hook
    >>> seen = []
    >>> h = register_module_parameter_registration_hook(lambda m, n, p: seen.append(n))
    >>> _ = symgrad.nn.Linear(1, 1)
    >>> h.remove()
    >>> seen
    ['weight', 'bias']
    """
    return _add(PARAMETER_REGISTRATION, hook)


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, buffer)`` each time a module registers a buffer (also one
    assigned as an attribute, or None); a non-None result is registered in its place.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.module import register_module_buffer_registration_hook
    >>> seen = []
    >>> h = register_module_buffer_registration_hook(lambda m, n, b: seen.append(n))
    >>> _ = symgrad.nn.BatchNorm1d(2)
    >>> h.remove()
    >>> seen
    ['running_mean', 'running_var', 'num_batches_tracked']
    """
    return _add(BUFFER_REGISTRATION, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, submodule)`` each time a module registers a submodule (or
    None); a non-None result is registered in its place.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.modules.module import register_module_module_registration_hook
    >>> seen = []
    >>> h = register_module_module_registration_hook(lambda m, n, s: seen.append(n))
    >>> _ = symgrad.nn.Sequential(symgrad.nn.ReLU(), symgrad.nn.Tanh())
    >>> h.remove()
    >>> seen
    ['0', '1']
    """
    return _add(MODULE_REGISTRATION, hook)
