"""What a :class:`~symgrad.nn.Module` does with its tensors as a whole: conversion
(``to``/``double``/``type``), resetting gradients, and calling ``forward`` between its hooks
(``state_dict``/``load_state_dict`` are in ``_state_dict``)."""

from __future__ import annotations

import inspect
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._device import device
from symgrad._memory_format import memory_format
from symgrad._meta import NO_DATA
from symgrad._tracing import TRACE, hooks_at_every_call
from symgrad.autograd.grad_mode import no_grad
from symgrad.autograd.node import RemovableHandle
from symgrad.nn.modules import _global_hooks
from symgrad.nn.parameter import Buffer
from symgrad.ops.devices import to_arguments
from symgrad.tensor import Tensor

__all__ = ["zero_grads", "target_dtype", "module_to", "convert", "apply_to_tensors"]


def zero_grads(params: Iterable[Tensor], set_to_none: bool) -> None:
    """Set each gradient to None, or detach it and fill it with zeros (PyTorch's
    ``zero_grad``)."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if p.grad.grad_fn is not None:
            p.grad.detach_()
        else:
            p.grad.requires_grad_(False)
        p.grad.zero_()


# -- conversion ------------------------------------------------------------------------------
def target_dtype(args: tuple, kwargs: dict) -> dtypes.dtype | None:
    """The dtype ``Module.to(*args, **kwargs)`` converts to (None: only a device)."""
    # the devices and arguments that tensors accept, read as tensors read them (to(2.5) is
    # to a float64 tensor's dtype, to(float) to float64)
    Tensor._make(np.zeros((0,), np.float32)).to(*args, **kwargs)
    flags = [a for a in args if isinstance(a, bool)]  # non_blocking, then copy
    if "copy" in kwargs or len(flags) > 1:
        raise RuntimeError(".to() does not accept copy argument")
    _, dtype, _, _ = to_arguments(args, kwargs)
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError(
            "nn.Module.to only accepts floating point or complex dtypes, but got desired "
            f"dtype={dtype!r}"
        )
    return dtype


def module_to(module: Any, args: tuple, kwargs: dict) -> Any:
    """``Module.to(*args, **kwargs)``: the floating tensors to the dtype, and the 4-D
    (``channels_last``) or 5-D (``channels_last_3d``) ones to the ``memory_format``; other
    ranks keep their layout, as in PyTorch."""
    kwargs = dict(kwargs)
    fmt = kwargs.pop("memory_format", None)
    if fmt is not None and not isinstance(fmt, memory_format):
        Tensor._make(np.zeros((0,), np.float32)).to(*args, memory_format=fmt, **kwargs)
    dtype = target_dtype(args, kwargs)
    if wants_meta(args, kwargs):
        return to_meta(module, dtype)
    check_leaves_meta(module, args, kwargs)
    return convert(module, dtype, fmt)


def convert(module: Any, dtype: Any, fmt: memory_format | None = None) -> Any:
    """Convert ``module``'s floating parameters (in place: ``param.data``, so optimizers
    holding them keep working), their gradients and its buffers to ``dtype``, and those of
    rank 4 or 5 to the memory format ``fmt``."""
    if dtype is None and fmt is None:
        return module
    dtype = None if dtype is None else dtypes.as_dtype(dtype)

    def fn(t: Tensor) -> Tensor:
        how: dict = {}
        if dtype is not None and t.is_floating_point():
            how["dtype"] = dtype
        if fmt is not None and t.dim() in (4, 5):
            how["memory_format"] = fmt
        return t.to(**how) if how else t

    return apply_to_tensors(module, fn)


def apply_to_tensors(module: Any, fn: Any) -> Any:
    """Replace every parameter's value (in place, through ``param.data``), its gradient's and
    every buffer by ``fn`` of it (PyTorch's ``Module._apply`` on the CPU); ``module``."""
    for m in module.modules():
        for p in m._parameters.values():
            if p is None:
                continue
            with no_grad():
                value = fn(p)
                if value is not p:
                    p.data = value
                if p._grad is not None:
                    grad = fn(p._grad)
                    if grad is not p._grad:
                        p._grad.data = grad
        for name, b in m._buffers.items():
            if b is not None:
                m._buffers[name] = fn(b)
    return module


def assign_buffer(module: Any, name: str, value: Any) -> None:
    """``module.name = value`` for a buffer: an ``nn.Buffer`` brings its ``persistent``,
    a tensor keeps the buffer's."""
    if isinstance(value, Buffer):
        persistent = value.persistent
    elif "_buffers" in module.__dict__:
        persistent = name not in module._non_persistent_buffers_set
    else:
        raise AttributeError("cannot assign buffer before Module.__init__() call")
    # through register_buffer, as PyTorch: a subclass's override and the hooks run (an
    # override without ``persistent`` is called without it)
    owner = next(k for k in type(module).__mro__ if "register_buffer" in vars(k))
    if owner.__module__ == __name__.rpartition(".")[0] + ".module" or "persistent" in (
        inspect.signature(module.register_buffer).parameters
    ):
        module.register_buffer(name, value, persistent)
    else:
        module.register_buffer(name, value)


# -- calling ---------------------------------------------------------------------------------
def call_with_hooks(module: Any, args: tuple, kwargs: dict) -> Any:
    """``forward`` between the forward pre-hooks and the forward hooks."""
    if TRACE.log is not None and _hooked(module):
        hooks_at_every_call(type(module).__name__)  # (a compiled program would run them once)
    for hook, with_kwargs, _ in [*_global_hooks.FORWARD_PRE, *_pre_hooks(module)]:
        if with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of (new_args, "
                        f"new_kwargs), but got {result}."
                    )
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    backward_setup = module.__dict__.get("_backward_hook_setup") or _global_hooks.backward_setup()
    if backward_setup is not None:
        args = backward_setup[0](module, args) or args
    try:
        output = _forward_of(module)(*args, **kwargs)
    except Exception:
        for hook, with_kwargs, always in [*_global_hooks.FORWARD, *_hooks(module)]:
            if not always:
                continue
            try:
                hook(module, args, kwargs, None) if with_kwargs else hook(module, args, None)
            except Exception as e:  # the error of forward is the one to report
                warnings.warn(
                    "forward hook with ``always_call=True`` raised an exception that was "
                    f"silenced as another error was raised in forward: {e}",
                    stacklevel=3,
                )
        raise
    for hook, with_kwargs, _ in [*_global_hooks.FORWARD, *_hooks(module)]:
        result = hook(module, args, kwargs, output) if with_kwargs else hook(module, args, output)
        if result is not None:
            output = result
    if backward_setup is not None:
        wrapped = backward_setup[1](module, args, output)
        output = output if wrapped is None else wrapped
    return output


def add_hook(
    hooks: OrderedDict, hook: Callable, prepend: bool, flags: tuple, on: tuple
) -> RemovableHandle:
    """``hook`` keyed by its handle's id, as PyTorch's ``OrderedDict`` of hooks, with its
    flags (``with_kwargs``, ``always_call``) in the dicts beside it."""
    handle = RemovableHandle(hooks, extra=flags)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    for table, flag in zip(flags, on):
        if flag:
            table[handle.id] = True
    return handle


def compile_module(self: Any, *args: Any, **kwargs: Any) -> None:
    """Compile this module's ``forward`` in place (PyTorch's ``Module.compile``): later calls
    run it ``symgrad.compile``'d (the same arguments), its hooks around it as before; the
    module, its type and its state-dict keys stay as they are.

    Examples
    --------
    >>> import symgrad
    >>> layer = symgrad.nn.Linear(2, 1)
    >>> layer.compile()
    >>> layer(symgrad.ones(3, 2)).grad_fn.name(), list(layer.state_dict())
    ('CompiledFunctionBackward', ['weight', 'bias'])
    """
    from symgrad import compiler

    compiled = compiler.compile_call(self, *args, fresh=True, **kwargs)
    if compiled is None:
        self.__dict__.pop("_compile_options", None)
    else:
        self.__dict__["_compile_options"] = kwargs  # (a copy of the module compiles anew)


def _hooked(module: Any) -> bool:
    """Whether calling ``module`` runs hooks: its own, or global ones."""
    return bool(
        module._forward_hooks
        or module._forward_pre_hooks
        or "_backward_hook_setup" in module.__dict__
        or _global_hooks.any_hooks()
    )


def _forward_of(module: Any) -> Any:
    """The ``forward`` a call runs: the compiled one after ``module.compile()``."""
    options = module.__dict__.get("_compile_options")
    if options is None:
        return module.forward
    from symgrad import compiler

    return compiler.compile_call(module, **options)


_HOOK_TABLES = (
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
)


def set_state(module: Any, state: dict) -> None:
    """A pickled module's attributes, its forward hooks as PyTorch keeps them: a module saved
    when they were lists of ``(hook, with_kwargs, always_call)`` gets them keyed by fresh
    handle ids."""
    module.__dict__.update(state)
    for name in _HOOK_TABLES:
        if not isinstance(state.get(name), dict):
            module.__dict__[name] = OrderedDict()
    d = module.__dict__
    for hook, with_kwargs, always in _listed(state, "_forward_hooks"):
        key = next(RemovableHandle._ids)
        d["_forward_hooks"][key] = hook
        _flag(d["_forward_hooks_with_kwargs"], key, with_kwargs)
        _flag(d["_forward_hooks_always_called"], key, always)
    for hook, with_kwargs, _ in _listed(state, "_forward_pre_hooks"):
        key = next(RemovableHandle._ids)
        d["_forward_pre_hooks"][key] = hook
        _flag(d["_forward_pre_hooks_with_kwargs"], key, with_kwargs)


def _listed(state: dict, name: str) -> list:
    table = state.get(name)
    return table if isinstance(table, list) else []


def _flag(table: dict, key: int, on: bool) -> None:
    if on:
        table[key] = True


def _pre_hooks(module: Any) -> list:
    """``module``'s forward pre-hooks as ``(hook, with_kwargs, False)``."""
    with_kwargs = module._forward_pre_hooks_with_kwargs
    return [(hook, key in with_kwargs, False) for key, hook in module._forward_pre_hooks.items()]


def _hooks(module: Any) -> list:
    """``module``'s forward hooks as ``(hook, with_kwargs, always_call)``."""
    with_kwargs, always = module._forward_hooks_with_kwargs, module._forward_hooks_always_called
    hooks = module._forward_hooks.items()
    return [(hook, key in with_kwargs, key in always) for key, hook in hooks]


def wants_meta(args: tuple, kwargs: dict) -> bool:
    """Whether ``Module.to(*args, **kwargs)`` moves to the meta device."""
    targets = [kwargs.get("device"), *args]
    return any(
        (isinstance(a, str) and a.startswith("meta"))
        or (isinstance(a, device) and a.type == "meta")
        or (isinstance(a, Tensor) and a.is_meta)
        for a in targets
    )


def check_leaves_meta(module: Any, args: tuple, kwargs: dict) -> None:
    """PyTorch's error for moving a module with meta tensors to the CPU by copying."""
    targets = [kwargs.get("device"), *args]
    if not any(isinstance(a, (str, device)) for a in targets):
        return
    for m in module.modules():
        for t in (*m._parameters.values(), *m._buffers.values()):
            if t is not None and t.is_meta:
                raise NotImplementedError(
                    f"{NO_DATA} Please use symgrad.nn.Module.to_empty() instead of "
                    "symgrad.nn.Module.to() when moving module from meta to a different device."
                )


def to_empty(module: Any, target: Any, recurse: bool) -> Any:
    """Replace ``module``'s parameters, their gradients and its buffers by new tensors of the
    same shapes and dtypes on ``target`` (zeros on the CPU), in place."""
    from symgrad.creation import empty

    def fresh(t: Tensor) -> Tensor:
        return empty(tuple(t.shape), dtype=t.dtype, device=target)

    for m in module.modules() if recurse else (module,):
        for p in m._parameters.values():
            if p is not None:
                with no_grad():
                    p.data = fresh(p)
                    if p._grad is not None:
                        p._grad = fresh(p._grad)
        for name, b in m._buffers.items():
            if b is not None:
                m._buffers[name] = fresh(b)
    return module


def to_meta(module: Any, dtype: Any) -> Any:
    """Replace ``module``'s parameters' and buffers' values by meta arrays (in place)."""
    for m in module.modules():
        for p in m._parameters.values():
            if p is not None:
                target = dtype if dtype is not None and p.is_floating_point() else p.dtype
                p.data = p.to("meta", target)
                p._grad = None
        for name, b in m._buffers.items():
            if b is not None:
                target = dtype if dtype is not None and b.is_floating_point() else b.dtype
                m._buffers[name] = b.to("meta", target)
    return module
