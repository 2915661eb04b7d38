"""Switches of PyTorch's backward engine that symgrad's engine has no use for, kept so that
programs setting them run: multithreaded backward and view replay."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["is_multithreading_enabled", "set_multithreading_enabled", "is_view_replay_enabled"]


class _State(threading.local):
    multithreading = True


_state = _State()


def is_multithreading_enabled() -> bool:
    """Whether backward may run on device worker threads (PyTorch's default, True); set by
    :class:`set_multithreading_enabled`. symgrad's backward always runs on the calling
    thread, as PyTorch's does for CPU tensors.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.autograd.is_multithreading_enabled()
    True
    """
    return _state.multithreading


class set_multithreading_enabled:  # noqa: N801 (PyTorch's name)
    """Set :func:`is_multithreading_enabled` for this thread: at once when called, restored
    at the end of a ``with`` block; also a decorator.

    Examples
    --------
    >>> import symgrad
    >>> with symgrad.autograd.set_multithreading_enabled(False):
    ...     symgrad.autograd.is_multithreading_enabled()
    False
    >>> symgrad.autograd.is_multithreading_enabled()
    True
    """

    def __init__(self, mode: bool) -> None:
        self.prev = _state.multithreading
        _state.multithreading = mode
        self.mode = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _state.multithreading = self.prev

    def __call__(self, func: Callable) -> Callable:
        _state.multithreading = self.prev  # as a decorator, it changes nothing until called

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self) -> set_multithreading_enabled:
        """A new switch to the same mode."""
        return type(self)(self.mode)


def is_view_replay_enabled() -> bool:
    """Whether autograd regenerates a changed view by replaying its views (False: PyTorch's
    default; symgrad has no other way).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.autograd.is_view_replay_enabled()
    False
    """
    return False
