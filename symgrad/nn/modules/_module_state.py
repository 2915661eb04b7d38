"""The methods of :class:`~symgrad.nn.Module` that act on all its tensors at once:
conversion (``to``, ``double``, ``type``, ...), ``share_memory``, and the state dict with its
extra state and hooks. ``Module`` inherits them from :class:`ModuleStateMethods`."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from symgrad import dtypes
from symgrad.autograd.node import RemovableHandle
from symgrad.nn.modules import _state, _state_dict

__all__ = ["ModuleStateMethods"]


class ModuleStateMethods:
    """Conversion and state-dict methods of :class:`~symgrad.nn.Module`.

    Examples
    --------
    >>> import symgrad
    >>> list(symgrad.nn.Linear(2, 1).double().state_dict())
    ['weight', 'bias']
    """

    # -- conversion ------------------------------------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> Any:
        """Convert the floating parameters and buffers in place (``to(dtype)``,
        ``to("cpu")``, ``to(tensor)``, ``to("meta")``: shapes and dtypes only, no values;
        ``memory_format=`` lays out the 4-D or 5-D ones, leaving other ranks alone); returns
        ``self``.

        Examples
        --------
        >>> import symgrad
        >>> conv = symgrad.nn.Conv2d(3, 4, 2).to(memory_format=symgrad.channels_last)
        >>> conv.weight.stride(), conv.bias.stride()
        ((12, 1, 6, 3), (1,))
        """
        return _state.module_to(self, args, kwargs)

    def to_empty(self, *, device: Any, recurse: bool = True) -> Any:
        """Give the parameters and buffers new, uninitialised tensors of the same shapes and
        dtypes on ``device`` (zeros on the CPU): how a module built on ``'meta'`` gets
        memory; initialise them next (``reset_parameters``). Returns ``self``.

        Examples
        --------
        >>> import symgrad
        >>> layer = symgrad.nn.Linear(2, 3, device="meta").to_empty(device="cpu")
        >>> layer.weight.device, layer.weight.shape
        (device(type='cpu'), symgrad.Size([3, 2]))
        """
        return _state.to_empty(self, device, recurse)

    def cpu(self) -> Any:
        """``self`` (parameters live on the CPU; a meta module raises, see ``to_empty``)."""
        _state.check_leaves_meta(self, ("cpu",), {})
        return self

    def cuda(self, device: Any = None) -> Any:
        """Move the parameters and buffers to a CUDA device: symgrad has none, so the first
        tensor raises ``Tensor.cuda``'s error (PyTorch's without CUDA); a module without
        tensors is returned as it is.

        Examples
        --------
        >>> import symgrad
        >>> symgrad.nn.ReLU().cuda()
        ReLU()
        """
        for t in (*self.parameters(), *self.buffers()):
            t.cuda(device)
        return self

    def bfloat16(self) -> Any:
        """Floating parameters and buffers to bfloat16, a dtype symgrad lacks: the first one
        raises ``Tensor.bfloat16``'s ``TypeError``; a module without any is returned as it is.

        Examples
        --------
        >>> import symgrad
        >>> symgrad.nn.Identity().bfloat16()
        Identity()
        """
        for t in (*self.parameters(), *self.buffers()):
            if t.is_floating_point():
                t.bfloat16()
        return self

    def double(self) -> Any:
        """Floating parameters and buffers to float64."""
        return _state.convert(self, dtypes.float64)

    def float(self) -> Any:
        """Floating parameters and buffers to float32."""
        return _state.convert(self, dtypes.float32)

    def half(self) -> Any:
        """Floating parameters and buffers to float16."""
        return _state.convert(self, dtypes.float16)

    def type(self, dst_type: Any) -> Any:
        """Cast every parameter and buffer, integer ones too, to ``dst_type`` (a dtype or
        a type name such as ``"torch.DoubleTensor"``), in place; returns ``self``.

        Examples
        --------
        >>> import symgrad
        >>> bn = symgrad.nn.BatchNorm1d(2).type(symgrad.float64)
        >>> bn.weight.dtype, bn.num_batches_tracked.dtype
        (symgrad.float64, symgrad.float64)
        """
        return _state.apply_to_tensors(self, lambda t: t.type(dst_type))

    def share_memory(self) -> Any:
        """Move the parameters and buffers to shared memory (``Tensor.share_memory_``, a
        no-op for NumPy arrays); returns ``self``.

        Examples
        --------
        >>> import symgrad
        >>> layer = symgrad.nn.Linear(2, 1)
        >>> layer.share_memory() is layer
        True
        """
        return _state.apply_to_tensors(self, lambda t: t.share_memory_())

    # -- state dicts -------------------------------------------------------------------------
    def state_dict(
        self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict:
        """The parameters, persistent buffers and extra state (``get_extra_state``) by
        dotted name, detached unless ``keep_vars``; positional arguments are PyTorch's
        deprecated ``(destination, prefix, keep_vars)`` and warn.

        Examples
        --------
        >>> import symgrad
        >>> list(symgrad.nn.Sequential(symgrad.nn.Linear(2, 1)).state_dict())
        ['0.weight', '0.bias']
        """
        return _state_dict.state_dict(self, args, destination, prefix, keep_vars)

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        """Copy the values of ``state_dict`` into the parameters and buffers (and hand
        ``_extra_state`` entries to ``set_extra_state``); with ``strict``, missing or
        unexpected keys are a RuntimeError. Returns the ``(missing_keys, unexpected_keys)``
        named tuple.

        Examples
        --------
        >>> import symgrad
        >>> a, b = symgrad.nn.Linear(2, 1), symgrad.nn.Linear(2, 1)
        >>> b.load_state_dict(a.state_dict())
        <All keys matched successfully>
        >>> bool((a.weight == b.weight).all())
        True
        """
        return _state_dict.load_state_dict(self, state_dict, strict, assign)

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        """Put this module's own parameters, persistent buffers and extra state (not its
        children's) into ``destination`` under ``prefix``; :meth:`state_dict` calls it for
        each module, so a subclass may override it."""
        _state_dict.save_own(self, destination, prefix, keep_vars)

    def _load_from_state_dict(
        self,
        state_dict: Any,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        """Run the load pre-hooks, then copy this module's own entries of ``state_dict``
        (under ``prefix``) in, noting missing and (with ``strict``) unexpected keys and
        errors in the lists given; :meth:`load_state_dict` calls it for each module, so a
        subclass may override it (to rename the keys of an older checkpoint, say).

        Examples
        --------
        >>> import symgrad
        >>> class Renamed(symgrad.nn.Linear):
        ...     def _load_from_state_dict(self, state_dict, prefix, *rest):
        ...         if prefix + "w" in state_dict:
        ...             state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
        ...         super()._load_from_state_dict(state_dict, prefix, *rest)
        >>> Renamed(1, 1).load_state_dict({"w": symgrad.ones(1, 1), "bias": symgrad.zeros(1)})
        <All keys matched successfully>
        """
        out = ((missing_keys, unexpected_keys), error_msgs)
        _state_dict.load_own(self, state_dict, prefix, local_metadata, strict, out)

    get_extra_state = _state_dict.get_extra_state
    set_extra_state = _state_dict.set_extra_state

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` before ``state_dict`` saves this module.

        Examples
        --------
        >>> import symgrad
        >>> layer = symgrad.nn.Linear(2, 1)
        >>> handle = layer.register_state_dict_pre_hook(lambda m, prefix, keep: print(prefix))
        >>> _ = symgrad.nn.Sequential(layer).state_dict()
        0.
        """
        return _add(self, "_state_dict_pre_hooks", hook)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict`` saved
        this module and its children; it may change ``state_dict`` in place and must return
        None.

        Examples
        --------
        >>> import symgrad
        >>> layer = symgrad.nn.Linear(2, 1)
        >>> def drop_bias(module, state, prefix, metadata):
        ...     del state[prefix + "bias"]
        >>> handle = layer.register_state_dict_post_hook(drop_bias)
        >>> list(layer.state_dict())
        ['weight']
        """
        hook._from_public_api = True  # type: ignore[attr-defined]
        return _add(self, "_state_dict_hooks", hook)

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """The older form of :meth:`register_state_dict_post_hook`, still used by libraries:
        a state dict the hook returns replaces the one :meth:`state_dict` returns (only the
        root module's, as in PyTorch)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        return _add(self, "_state_dict_hooks", hook)

    def _register_load_state_dict_pre_hook(
        self, hook: Callable, with_module: bool = False
    ) -> RemovableHandle:
        """The older form of :meth:`register_load_state_dict_pre_hook`, still used by
        libraries: without ``with_module`` the hook is called without the module."""
        return _add(self, "_load_state_dict_pre_hooks", hook if with_module else _Unbound(hook))

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before ``load_state_dict`` loads this module; it
        may change ``state_dict`` (a copy of the caller's) in place.

        Examples
        --------
        >>> import symgrad
        >>> layer = symgrad.nn.Linear(1, 1)
        >>> def rename(module, state, prefix, *rest):
        ...     state[prefix + "weight"] = state.pop(prefix + "w")
        >>> handle = layer.register_load_state_dict_pre_hook(rename)
        >>> layer.load_state_dict({"w": symgrad.ones(1, 1), "bias": symgrad.zeros(1)})
        <All keys matched successfully>
        """
        return _add(self, "_load_state_dict_pre_hooks", hook)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` after ``load_state_dict`` loaded this module
        and its children; it may change ``incompatible_keys.missing_keys`` and
        ``.unexpected_keys`` in place (``strict`` judges what remains) and must return None.

        Examples
        --------
        >>> import symgrad
        >>> layer = symgrad.nn.Linear(1, 1)
        >>> handle = layer.register_load_state_dict_post_hook(
        ...     lambda module, keys: keys.missing_keys.remove("bias"))
        >>> layer.load_state_dict({"weight": symgrad.ones(1, 1)})
        <All keys matched successfully>
        """
        return _add(self, "_load_state_dict_post_hooks", hook)


class _Unbound:
    """A load pre-hook called without the module (``with_module=False``)."""

    __slots__ = ("hook",)

    def __init__(self, hook: Callable) -> None:
        self.hook = hook

    def __call__(self, module: Any, *args: Any) -> Any:
        return self.hook(*args)


def _add(module: Any, name: str, hook: Callable) -> RemovableHandle:
    # a module unpickled from before these hooks existed gets its list on first use
    hooks = module.__dict__.setdefault(name, [])
    hooks.append(hook)
    return RemovableHandle(hooks, hook)
