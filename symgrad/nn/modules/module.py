"""``Module``: the base class of layers, holding parameters, buffers and submodules by name."""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from symgrad._leaf_paths import add_path_finder
from symgrad.autograd.node import RemovableHandle
from symgrad.nn.modules import _global_hooks, _state
from symgrad.nn.modules._global_hooks import *  # noqa: F403 - (re-exported, as PyTorch's)
from symgrad.nn.modules._module_state import ModuleStateMethods
from symgrad.nn.parameter import Buffer, Parameter
from symgrad.tensor import Tensor

__all__ = ["Module", *_global_hooks.__all__]


# every live module, oldest first: the roots among them name their parameters' symbols
_live_modules: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_created = itertools.count()


def parameter_path(t: Tensor) -> str | None:
    """``t``'s name in ``named_parameters()`` of the newest live model holding it (a module
    that is no other live module's child), or None."""
    modules = list(_live_modules.values())
    children = {id(c) for m in modules for c in m.__dict__.get("_modules", {}).values()}
    for root in reversed(modules):
        if id(root) in children or "_parameters" not in root.__dict__:
            continue
        for name, p in root.named_parameters():
            if p is t:
                return name
    return None


add_path_finder(parameter_path)


def _addindent(text: str, spaces: int) -> str:
    """Indent every line of ``text`` but the first (PyTorch's ``_addindent``)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module(ModuleStateMethods):
    """Base class of neural-network layers: assign :class:`~symgrad.nn.Parameter`\\ s,
    tensors registered with :meth:`register_buffer` and other modules as attributes in
    ``__init__``, and define ``forward``; calling the module runs ``forward`` with its hooks.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> class Net(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Linear(2, 1)
    ...     def forward(self, x):
    ...         return self.fc(x).relu()
    >>> net = Net()
    >>> [name for name, _ in net.named_parameters()]
    ['fc.weight', 'fc.bias']
    >>> net(symgrad.ones(3, 2)).shape
    symgrad.Size([3, 1])
    """

    training: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments {args!r} {kwargs!r}"
            )
        set_ = object.__setattr__
        set_(self, "training", True)
        # plain dicts, as PyTorch's (its hook tables stay OrderedDicts)
        set_(self, "_parameters", {})
        set_(self, "_buffers", {})
        set_(self, "_non_persistent_buffers_set", set())
        set_(self, "_modules", {})
        for hooks in ("_forward_hooks", "_forward_hooks_with_kwargs",
                      "_forward_hooks_always_called", "_forward_pre_hooks",
                      "_forward_pre_hooks_with_kwargs"):  # fmt: skip
            set_(self, hooks, OrderedDict())
        for hooks in ("_state_dict_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
                      "_load_state_dict_post_hooks"):  # fmt: skip
            set_(self, hooks, [])
        _live_modules[next(_created)] = self

    forward: Callable[..., Any]

    def _forward_unimplemented(self, *input: Any) -> None:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    forward = _forward_unimplemented

    # -- registration ----------------------------------------------------------------------
    def _check_name(self, name: Any, what: str, where: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{what} name should be a string. Got {type(name).__name__}")
        if "." in name:
            got = f", got: {name}" if what == "module" else ""
            raise KeyError(f'{what} name can\'t contain "."{got}')
        if name == "":
            raise KeyError(f'{what} name can\'t be empty string ""')
        if hasattr(self, name) and name not in getattr(self, where):
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` (a :class:`Parameter`, or None for a missing one) under ``name``."""
        self._check_name(name, "parameter", "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                "be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        if param is not None:
            param = _global_hooks.registered(
                _global_hooks.PARAMETER_REGISTRATION, self, name, param
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add ``tensor`` under ``name`` as state that is not a parameter (kept in the
        ``state_dict`` unless ``persistent=False``, converted by ``to()``)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = _global_hooks.registered(
            _global_hooks.BUFFER_REGISTRATION, self, name, tensor
        )
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add the submodule ``module`` under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_name(name, "module", "_modules")
        self._set_module(name, module)

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""`` is the module itself)."""
        module = self
        for item in target.split(".") if target else ():
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at the dotted path ``target``, replacing the submodule there or
        (unless ``strict``) adding it to the existing parent.

        Examples
        --------
        >>> from symgrad import nn
        >>> net = nn.Sequential(nn.Sequential(nn.Linear(2, 2)), nn.ReLU())
        >>> net.set_submodule("0.0", nn.Tanh())
        >>> net[0]
        Sequential(
          (0): Tanh()
        )
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep=self._parameters)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if self.__dict__.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep=self._modules)
            self._set_module(name, value)
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            self._set_module(name, value)
        elif isinstance(value, Buffer) or name in self.__dict__.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            _state.assign_buffer(self, name, value)
        else:
            object.__setattr__(self, name, value)

    def _set_module(self, name: str, module: Module | None) -> None:
        hooks = _global_hooks.MODULE_REGISTRATION
        self._modules[name] = _global_hooks.registered(hooks, self, name, module)

    def _forget(self, name: str, keep: dict) -> None:
        """Drop ``name`` from where it is held other than ``keep`` (where a reassignment keeps
        its place in the order)."""
        for where in (self.__dict__, self._parameters, self._buffers, self._modules):
            if where is not keep:
                where.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    __setstate__ = _state.set_state

    def __getattr__(self, name: str) -> Any:
        # called only when normal lookup fails: the registered members
        d = self.__dict__
        for where in ("_parameters", "_buffers", "_modules"):
            if where in d and name in d[where]:
                return d[where][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for where in (self._parameters, self._buffers, self._modules):
            if name in where:
                del where[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        keys = list(super().__dir__()) + list(self._parameters) + list(self._modules)
        # names that are not Python identifiers (a container's "0", "1", ...) left out
        return sorted(k for k in set(keys + list(self._buffers)) if not k[:1].isdigit())

    # -- iteration -------------------------------------------------------------------------
    def _named_members(self, members: Callable, prefix: str, recurse: bool, dedup: bool):
        seen = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=dedup)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or (dedup and id(value) in seen):
                    continue
                if dedup:
                    seen.add(id(value))
                yield (module_prefix + "." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs, this module's first, each shared one once."""
        yield from self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module and (``recurse``) its submodules, in order."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs."""
        yield from self._named_members(
            lambda m: m._buffers.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of this module and (``recurse``) its submodules."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for the direct submodules, each once."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct submodules."""
        for _, module in self.named_children():
            yield module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` for this module (name ``prefix``) and all below it,
        depth first."""
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """This module and every module below it (a shared one once, unless
        ``remove_duplicate=False``)."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    # -- modes and gradients -----------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``mode=True``) or evaluation mode here and below; ``self``."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode (``train(False)``); returns ``self``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter; returns ``self``."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the parameters' gradients: to None, or (``set_to_none=False``) to zeros."""
        _state.zero_grads(self.parameters(), set_to_none)

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first) and on ``self``; ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- calling -------------------------------------------------------------------------------
    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """``hook(module, args)`` before ``forward``; a non-None result replaces ``args``
        (with ``with_kwargs``: ``hook(module, args, kwargs)`` returning ``(args, kwargs)``)."""
        flags = (self._forward_pre_hooks_with_kwargs,)
        return _state.add_hook(self._forward_pre_hooks, hook, prepend, flags, (with_kwargs,))

    def register_forward_hook(
        self,
        hook: Callable,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """``hook(module, args, output)`` after ``forward``; a non-None result replaces the
        output (with ``with_kwargs``: ``hook(module, args, kwargs, output)``)."""
        flags = (self._forward_hooks_with_kwargs, self._forward_hooks_always_called)
        on = (with_kwargs, always_call)
        return _state.add_hook(self._forward_hooks, hook, prepend, flags, on)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if (
            not self._forward_hooks
            and not self._forward_pre_hooks
            and "_backward_hook_setup" not in self.__dict__
            and "_compile_options" not in self.__dict__
            and not _global_hooks.any_hooks()
        ):
            return self.forward(*args, **kwargs)
        return _state.call_with_hooks(self, args, kwargs)

    compile = _state.compile_module

    # -- printing -------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text between this module's parentheses in its repr (override to set it)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(m), 2) for name, m in self._modules.items()]
        return self._get_name() + "(" + _body(extra_lines, child_lines) + ")"


def _body(extra_lines: list, child_lines: list) -> str:
    """What goes between a module's parentheses (PyTorch's layout)."""
    if len(extra_lines) == 1 and not child_lines:
        return extra_lines[0]
    lines = extra_lines + child_lines
    return "\n  " + "\n  ".join(lines) + "\n" if lines else ""


def _type_name(value: Any) -> str:
    """How PyTorch names a value's type in its assignment errors (``torch.FloatTensor``)."""
    if isinstance(value, Tensor):
        return f"torch.{value.dtype.scalar_type}Tensor"
    return type(value).__name__
