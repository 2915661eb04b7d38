"""The hooks of an optimizer: around ``step()`` (its own and global ones), around
``state_dict()`` and around ``load_state_dict()``, with PyTorch's calling conventions."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad.autograd.node import RemovableHandle

__all__ = ["register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_pre_hooks: list = []
_global_post_hooks: list = []

_HOOK_LISTS = (
    "_optimizer_step_pre_hooks",
    "_optimizer_step_post_hooks",
    "_optimizer_state_dict_pre_hooks",
    "_optimizer_state_dict_post_hooks",
    "_optimizer_load_state_dict_pre_hooks",
    "_optimizer_load_state_dict_post_hooks",
)


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(optimizer, args, kwargs)`` before every optimizer's ``step()`` (before
    the optimizer's own pre-hooks); it may return ``(new_args, new_kwargs)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.optim.optimizer import register_optimizer_step_pre_hook
    >>> w = symgrad.tensor([1.0], requires_grad=True)
    >>> opt = symgrad.optim.SGD([w])
    >>> with register_optimizer_step_pre_hook(lambda o, a, k: print(type(o).__name__)):
    ...     opt.step()
    SGD
    """
    return _add(_global_pre_hooks, hook, False)


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(optimizer, args, kwargs)`` after every optimizer's ``step()`` (after the
    optimizer's own post-hooks).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.optim.optimizer import register_optimizer_step_post_hook
    >>> w = symgrad.tensor([1.0], requires_grad=True)
    >>> opt = symgrad.optim.SGD([w])
    >>> with register_optimizer_step_post_hook(lambda o, a, k: print("stepped")):
    ...     opt.step()
    stepped
    """
    return _add(_global_post_hooks, hook, False)


def _add(hooks: list, hook: Callable, prepend: bool) -> RemovableHandle:
    entry = _Entry(hook)
    hooks.insert(0, entry) if prepend else hooks.append(entry)
    return RemovableHandle(hooks, entry)


class _Entry:
    """One registered hook (its own object, so registering a function twice keeps two
    entries and a handle removes only its own)."""

    __slots__ = ("hook",)

    def __init__(self, hook: Callable) -> None:
        self.hook = hook


def hooked_step(step: Callable) -> Callable:
    """``step`` wrapped to run the global and the optimizer's step hooks around it (once per
    call: a ``super().step()`` inside an overriding ``step`` runs no hooks again)."""
    if getattr(step, "_runs_hooks", False):
        return step

    @functools.wraps(step)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(self, "_in_hooked_step", False):
            return step(self, *args, **kwargs)
        args = (self, *args)
        for entry in (*_global_pre_hooks, *self._optimizer_step_pre_hooks):
            result = entry.hook(self, args, kwargs)
            if result is None:
                continue
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(
                    f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                    f"{result}."
                )
            args, kwargs = result
        self._in_hooked_step = True
        try:
            out = step(*args, **kwargs)
        finally:
            self._in_hooked_step = False
        for entry in (*self._optimizer_step_post_hooks, *_global_post_hooks):
            entry.hook(self, args, kwargs)
        return out

    wrapper._runs_hooks = True  # type: ignore[attr-defined]
    return wrapper


class OptimizerHooks:
    """The hook registration methods of :class:`~symgrad.optim.Optimizer`."""

    def _init_hooks(self) -> None:
        for name in _HOOK_LISTS:
            setattr(self, name, [])

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in _HOOK_LISTS:  # (an optimizer pickled without hooks gets empty ones)
            self.__dict__.setdefault(name, [])

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` before each :meth:`step` (``args`` starts
        with the optimizer); a hook may return ``(new_args, new_kwargs)`` to call ``step``
        with. Returns a handle whose ``remove()`` unregisters it.

        Examples
        --------
        >>> import symgrad
        >>> w = symgrad.tensor([1.0], requires_grad=True)
        >>> opt = symgrad.optim.SGD([w])
        >>> handle = opt.register_step_pre_hook(lambda o, args, kwargs: print(kwargs))
        >>> opt.step(closure=None)
        {'closure': None}
        >>> handle.remove()
        """
        return _add(self._optimizer_step_pre_hooks, hook, False)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` after each :meth:`step`.

        Examples
        --------
        >>> import symgrad
        >>> w = symgrad.tensor([1.0], requires_grad=True)
        >>> (2 * w).sum().backward()
        >>> opt = symgrad.optim.SGD([w], lr=0.5)
        >>> _ = opt.register_step_post_hook(lambda o, args, kwargs: print(w.tolist()))
        >>> opt.step()
        [0.0]
        """
        return _add(self._optimizer_step_post_hooks, hook, False)

    def register_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(optimizer)`` at the start of ``state_dict()`` (``prepend``: before
        the hooks registered so far).

        Examples
        --------
        >>> import symgrad
        >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)])
        >>> _ = opt.register_state_dict_pre_hook(lambda o: print("saving"))
        >>> _ = opt.state_dict()
        saving
        """
        return _add(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(optimizer, state_dict)`` on the result of ``state_dict()``; a hook
        may return a new state dict, which the next hooks and the caller get.

        Examples
        --------
        >>> import symgrad
        >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)])
        >>> _ = opt.register_state_dict_post_hook(lambda o, sd: {**sd, "epoch": 3})
        >>> opt.state_dict()["epoch"]
        3
        """
        return _add(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(optimizer, state_dict)`` before ``load_state_dict()`` loads; a hook
        may return the state dict to load instead.

        Examples
        --------
        >>> import symgrad
        >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=0.1)
        >>> def drop_epoch(o, sd):
        ...     return {k: v for k, v in sd.items() if k != "epoch"}
        >>> _ = opt.register_load_state_dict_pre_hook(drop_epoch)
        >>> opt.load_state_dict({**opt.state_dict(), "epoch": 3})
        >>> opt.param_groups[0]["lr"]
        0.1
        """
        return _add(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(optimizer)`` once ``load_state_dict()`` has loaded.

        Examples
        --------
        >>> import symgrad
        >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)])
        >>> _ = opt.register_load_state_dict_post_hook(lambda o: print("loaded"))
        >>> opt.load_state_dict(opt.state_dict())
        loaded
        """
        return _add(self._optimizer_load_state_dict_post_hooks, hook, prepend)
