"""``Module.state_dict`` and ``Module.load_state_dict`` as PyTorch runs them: module by module,
with each module's extra state (``_extra_state``) and its state-dict hooks."""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.parameter import Parameter, is_lazy
from symgrad.tensor import Tensor

__all__ = [
    "EXTRA_STATE_KEY",
    "state_dict",
    "save_own",
    "load_state_dict",
    "load_own",
    "get_extra_state",
    "set_extra_state",
]

EXTRA_STATE_KEY = "_extra_state"

_NEVER_CALLED = (
    "Reached a code path in Module.{}() that should never be called. Please file an issue at "
    "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug."
)


# the base methods of Module: a class that defines its own has extra state
def get_extra_state(self: Any) -> Any:
    """The state beyond parameters and buffers that ``state_dict`` saves under
    ``_extra_state``: override it together with :meth:`set_extra_state` (the base
    method is never called and raises).

    Examples
    --------
    >>> import symgrad
    >>> class Counter(symgrad.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.count = 3
    ...     def get_extra_state(self):
    ...         return {"count": self.count}
    ...     def set_extra_state(self, state):
    ...         self.count = state["count"]
    >>> dict(Counter().state_dict())
    {'_extra_state': {'count': 3}}
    """
    raise RuntimeError(_NEVER_CALLED.format("get_extra_state"))


def set_extra_state(self: Any, state: Any) -> None:
    """Take back what :meth:`get_extra_state` saved, from ``load_state_dict``: override
    the two together (the base method is never called and raises).

    Examples
    --------
    >>> import symgrad
    >>> class Counter(symgrad.nn.Module):
    ...     count = 0
    ...     def get_extra_state(self):
    ...         return self.count
    ...     def set_extra_state(self, state):
    ...         self.count = state
    >>> c = Counter()
    >>> c.load_state_dict({"_extra_state": 7}), c.count
    (<All keys matched successfully>, 7)
    """
    raise RuntimeError(_NEVER_CALLED.format("set_extra_state"))


def _hooks(module: Any, name: str) -> list:
    """A module's hooks of one kind (none for a module made without ``Module.__init__``)."""
    return list(module.__dict__.get(name, ()))


def _overrides(module: Any, name: str) -> bool:
    """Whether ``module``'s class defines its own ``get_extra_state``/``set_extra_state``."""
    return getattr(type(module), name, None) is not _BASE_METHODS[name]


_BASE_METHODS = {"get_extra_state": get_extra_state, "set_extra_state": set_extra_state}


# -- saving ----------------------------------------------------------------------------------
def state_dict(module: Any, args: tuple, destination: Any, prefix: str, keep_vars: bool) -> Any:
    """``Module.state_dict``: parameters, persistent buffers and extra state, then each
    child's (through the child's own ``state_dict``), between the hooks."""
    if args:
        warnings.warn(
            "Positional args are being deprecated, use kwargs instead. Refer to "
            "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
            "#torch.nn.Module.state_dict for details.",
            FutureWarning,
            stacklevel=3,
        )
        destination = args[0] if destination is None else destination
        prefix = args[1] if len(args) > 1 and prefix == "" else prefix
        keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": getattr(module, "_version", 1)}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in _hooks(module, "_state_dict_pre_hooks"):
        hook(module, prefix, keep_vars)
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(
                destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
            )
    for hook in _hooks(module, "_state_dict_hooks"):
        result = hook(module, destination, prefix, local_metadata)
        if result is None:
            continue
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("state_dict post-hook must return None")
        # the older private hooks may return a replacement (kept by the root call only)
        destination = result
    return destination


def save_own(module: Any, destination: Any, prefix: str, keep_vars: bool) -> None:
    """One module's own tensors and extra state (PyTorch's ``_save_to_state_dict``)."""
    for name, p in module._parameters.items():
        if p is not None:
            destination[prefix + name] = p if keep_vars or is_lazy(p) else p.detach()
    for name, b in module._buffers.items():
        if b is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = b if keep_vars or is_lazy(b) else b.detach()
    if _overrides(module, "get_extra_state"):
        destination[prefix + EXTRA_STATE_KEY] = module.get_extra_state()


# -- loading ---------------------------------------------------------------------------------
class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_POST_HOOK_RETURNED = (
    "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return "
    "new values, if incompatible_keys need to be modified, it should be done inplace."
)


def load_state_dict(module: Any, state: Any, strict: bool, assign: bool) -> _IncompatibleKeys:
    """``Module.load_state_dict``: copy the values in, collecting PyTorch's errors."""
    if not isinstance(state, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state)}.")
    metadata = getattr(state, "_metadata", None)
    keys = _IncompatibleKeys([], [])
    errors: list = []
    # a copy: the hooks may change it, the caller's stays as it was
    _load_tree(module, OrderedDict(state), "", (metadata, assign), (keys, errors))
    missing, unexpected = keys
    if strict:
        if unexpected:
            keys_text = ", ".join(f'"{k}"' for k in unexpected)
            errors.insert(0, f"Unexpected key(s) in state_dict: {keys_text}. ")
        if missing:
            keys_text = ", ".join(f'"{k}"' for k in missing)
            errors.insert(0, f"Missing key(s) in state_dict: {keys_text}. ")
    if errors:
        raise RuntimeError(
            f"Error(s) in loading state_dict for {type(module).__name__}:\n\t" + "\n\t".join(errors)
        )
    return keys


def _load_tree(module: Any, state: dict, prefix: str, how: tuple, out: tuple) -> None:
    """Load ``module``'s own entries, then each child's from the entries under its prefix,
    then run ``module``'s post-hooks on the keys found so far."""
    metadata, assign = how
    keys, errors = out
    local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
    if assign:
        local_metadata["assign_to_params_buffers"] = assign
    # (a subclass may override it, as PyTorch's modules do to rename old keys)
    module._load_from_state_dict(state, prefix, local_metadata, True, keys.missing_keys,
                                 keys.unexpected_keys, errors)  # fmt: skip
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            child_state = {k: v for k, v in state.items() if k.startswith(child_prefix)}
            _load_tree(child, child_state, child_prefix, how, out)
    for hook in _hooks(module, "_load_state_dict_post_hooks"):
        if hook(module, keys) is not None:
            raise AssertionError(_POST_HOOK_RETURNED)


_META_NO_OP = (
    "for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in the "
    "current model, which is a no-op. (Did you mean to pass `assign=True` to assign items in the "
    "state dictionary to their corresponding key in the module instead of copying them in place?)"
)


def load_own(m: Any, state: dict, prefix: str, local_metadata: dict, strict: bool,
             out: tuple) -> None:  # fmt: skip
    """One module's own tensors and extra state, after its load pre-hooks (PyTorch's
    ``_load_from_state_dict``); missing keys, and keys of ``prefix`` that are neither its own
    nor a child's, are noted only with ``strict``."""
    (missing, unexpected), errors = out
    upgrade = getattr(m, "_upgrade_state", None)
    if upgrade is not None:
        upgrade(state, prefix, local_metadata.get("version"))
    for hook in _hooks(m, "_load_state_dict_pre_hooks"):
        hook(m, state, prefix, local_metadata, strict, missing, unexpected, errors)
    assign = local_metadata.get("assign_to_params_buffers", False)
    persistent = {k: v for k, v in m._buffers.items() if k not in m._non_persistent_buffers_set}
    local = {k: v for k, v in [*m._parameters.items(), *persistent.items()] if v is not None}
    for name, param in local.items():
        key = prefix + name
        if key not in state:
            if strict:  # (load_state_dict passes True: strict=False reports them too)
                missing.append(key)
            continue
        value = _checked_value(key, param, state[key], errors)
        if value is None or is_lazy(param):  # lazy: its load hook materialized it already
            continue
        with no_grad():
            if not assign:
                if param.is_meta and not value.is_meta:
                    warnings.warn(_META_NO_OP.format(key=key), UserWarning, stacklevel=5)
                param.copy_(value)
            elif isinstance(param, Parameter):
                setattr(m, name, Parameter(value, param.requires_grad))
            else:
                setattr(m, name, value)
    extra_key = prefix + EXTRA_STATE_KEY
    if _overrides(m, "set_extra_state"):
        if extra_key in state:
            m.set_extra_state(state[extra_key])
        elif strict:
            missing.append(extra_key)
    elif extra_key in state and strict:
        unexpected.append(extra_key)
    if not strict:
        return
    for key in state:
        if not key.startswith(prefix) or key == extra_key:
            continue
        head = key[len(prefix) :].split(".", 1)
        if (head[0] not in m._modules) if len(head) > 1 else (head[0] not in local):
            unexpected.append(key)


def _checked_value(key: str, param: Tensor, value: Any, errors: list) -> Tensor | None:
    """The checkpoint's ``value`` for ``param``, or None after noting why it can't be used."""
    if not isinstance(value, Tensor):
        errors.append(
            f'While copying the parameter named "{key}", expected torch.Tensor or '
            f"Tensor-like object from checkpoint but received {type(value)}"
        )
        return None
    if is_lazy(param):
        return value
    if param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
        value = value[0]  # PyTorch's compatibility with old checkpoints
    if value.shape != param.shape:
        errors.append(
            f"size mismatch for {key}: copying a param with shape {value.shape} from "
            f"checkpoint, the shape in current model is {param.shape}."
        )
        return None
    return value
