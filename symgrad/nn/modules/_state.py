"""What a :class:`~symgrad.nn.Module` does with its tensors as a whole: conversion
(``to``/``double``), ``state_dict``/``load_state_dict``, resetting gradients, and calling
``forward`` between its hooks."""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._device import device
from symgrad._meta import NO_DATA
from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.parameter import Buffer, Parameter, is_lazy
from symgrad.tensor import Tensor

__all__ = ["zero_grads", "target_dtype", "convert", "state_dict", "load_state_dict"]


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
    # the devices and arguments that tensors accept
    Tensor._make(np.zeros((0,), np.float32)).to(*args, **kwargs)
    dtype = kwargs.get("dtype")
    for a in args:
        if isinstance(a, dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError(
            "nn.Module.to only accepts floating point or complex dtypes, but got desired "
            f"dtype={dtype!r}"
        )
    return dtype


def convert(module: Any, dtype: Any) -> Any:
    """Convert ``module``'s floating parameters (in place: ``param.data``, so optimizers
    holding them keep working), their gradients and its buffers to ``dtype``."""
    if dtype is None:
        return module
    dtype = dtypes.as_dtype(dtype)
    for m in module.modules():
        for p in m._parameters.values():
            if p is None or not p.is_floating_point():
                continue
            with no_grad():
                p.data = p.to(dtype)
                if p._grad is not None:
                    p._grad.data = p._grad.to(dtype)
        for name, b in m._buffers.items():
            if b is not None and b.is_floating_point():
                m._buffers[name] = b.to(dtype)
    return module


# -- state dicts -----------------------------------------------------------------------------
def state_dict(module: Any, destination: Any, prefix: str, keep_vars: bool) -> OrderedDict:
    """``Module.state_dict``: parameters, then persistent buffers, then each child's."""
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = {"version": getattr(module, "_version", 1)}
    for name, p in module._parameters.items():
        if p is not None:
            destination[prefix + name] = p if keep_vars or is_lazy(p) else p.detach()
    for name, b in module._buffers.items():
        if b is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = b if keep_vars or is_lazy(b) else b.detach()
    for name, child in module._modules.items():
        if child is not None:
            state_dict(child, destination, prefix + name + ".", keep_vars)
    return destination


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def assign_buffer(module: Any, name: str, value: Any) -> None:
    """``module.name = value`` for a buffer: an ``nn.Buffer`` brings its ``persistent``,
    a tensor keeps the buffer's."""
    if isinstance(value, Buffer):
        module.register_buffer(name, value, value.persistent)
    elif "_buffers" in module.__dict__:
        module._buffers[name] = value
    else:
        raise AttributeError("cannot assign buffer before Module.__init__() call")


def load_state_dict(module: Any, state: Any, strict: bool, assign: bool) -> _IncompatibleKeys:
    """``Module.load_state_dict``: copy the values in, collecting PyTorch's errors."""
    if not isinstance(state, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state)}.")
    missing: list = []
    unexpected: list = []
    errors: list = []
    metadata = getattr(state, "_metadata", None) or {}
    for prefix, m in module.named_modules(prefix="", remove_duplicate=False):
        version = metadata.get(prefix, {}).get("version")
        prefix = prefix + "." if prefix else ""
        local = {k: v for k, v in state.items() if k.startswith(prefix)}
        upgrade = getattr(m, "_upgrade_state", None)
        if upgrade is not None:
            upgrade(local, prefix, version)
        _load_one(m, local, prefix, assign, (missing, unexpected, errors))
    if strict:
        if unexpected:
            keys = ", ".join(f'"{k}"' for k in unexpected)
            errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
        if missing:
            errors.insert(
                0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing))
            )
    if errors:
        raise RuntimeError(
            f"Error(s) in loading state_dict for {type(module).__name__}:\n\t" + "\n\t".join(errors)
        )
    return _IncompatibleKeys(missing, unexpected)


_META_NO_OP = (
    "for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in the "
    "current model, which is a no-op. (Did you mean to pass `assign=True` to assign items in the "
    "state dictionary to their corresponding key in the module instead of copying them in place?)"
)


def _load_one(m: Any, state: dict, prefix: str, assign: bool, out: tuple) -> None:
    """One module's own tensors (PyTorch's ``_load_from_state_dict``)."""
    missing, unexpected, errors = out
    persistent = {k: v for k, v in m._buffers.items() if k not in m._non_persistent_buffers_set}
    local = {k: v for k, v in [*m._parameters.items(), *persistent.items()] if v is not None}
    for name, param in local.items():
        key = prefix + name
        if key not in state:
            missing.append(key)  # reported without strict too (PyTorch 2.13)
            continue
        value = state[key]
        if not isinstance(value, Tensor):
            errors.append(
                f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(value)}"
            )
            continue
        if is_lazy(param):  # and so is value: the lazy module's load hook materialized it
            continue
        if param.ndim == 0 and value.ndim == 1:  # PyTorch's compatibility with old checkpoints
            value = value[0]
        if value.shape != param.shape:
            errors.append(
                f"size mismatch for {key}: copying a param with shape {value.shape} from "
                f"checkpoint, the shape in current model is {param.shape}."
            )
            continue
        with no_grad():
            if not assign:
                if param.is_meta and not value.is_meta:
                    warnings.warn(_META_NO_OP.format(key=key), UserWarning, stacklevel=4)
                param.copy_(value)
            elif isinstance(param, Parameter):
                setattr(m, name, Parameter(value, param.requires_grad))
            else:
                setattr(m, name, value)
    for key in state:
        head = key[len(prefix) :].split(".", 1)
        if (head[0] not in m._modules) if len(head) > 1 else (head[0] not in local):
            unexpected.append(key)


# -- calling ---------------------------------------------------------------------------------
def call_with_hooks(module: Any, args: tuple, kwargs: dict) -> Any:
    """``forward`` between the forward pre-hooks and the forward hooks."""
    for hook, with_kwargs, _ in list(module._forward_pre_hooks):
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
    backward_setup = module.__dict__.get("_backward_hook_setup")
    if backward_setup is not None:
        args = backward_setup[0](module, args) or args
    try:
        output = module.forward(*args, **kwargs)
    except Exception:
        for hook, with_kwargs, always in list(module._forward_hooks):
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
    for hook, with_kwargs, _ in list(module._forward_hooks):
        result = hook(module, args, kwargs, output) if with_kwargs else hook(module, args, output)
        if result is not None:
            output = result
    if backward_setup is not None:
        wrapped = backward_setup[1](module, args, output)
        output = output if wrapped is None else wrapped
    return output


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
