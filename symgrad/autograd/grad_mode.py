"""Thread-local switch that decides whether ops record graph nodes."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    enabled = True


_state = _State()


def is_grad_enabled() -> bool:
    """Whether ops on tensors that require grad record the graph (thread-local).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.is_grad_enabled()
    True
    >>> with symgrad.no_grad():
    ...     symgrad.is_grad_enabled()
    False
    """
    return _state.enabled


class _GradMode:
    """A context manager that is also a decorator, restoring the previous mode on exit."""

    _mode: bool

    def __enter__(self) -> None:
        self._previous = _state.enabled
        _state.enabled = self._mode

    def __exit__(self, *exc: object) -> None:
        _state.enabled = self._previous

    def __call__(self, func: F) -> F:
        mode_type = type(self)
        init_args = self._init_args()
        if inspect.isgeneratorfunction(func):
            return _generator_wrapper(func, lambda: mode_type(*init_args))  # type: ignore

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with mode_type(*init_args):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def _init_args(self) -> tuple:
        return ()


def _generator_wrapper(func: Callable, make_mode: Callable) -> Callable:
    """Wrap a generator function so the mode holds whenever its body runs (as in PyTorch),
    not while the caller runs between two ``next`` calls."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gen = func(*args, **kwargs)
        try:
            with make_mode():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_mode():
                        gen.close()
                    raise
                except BaseException as exc:
                    with make_mode():
                        response = gen.throw(exc)
                else:
                    with make_mode():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return wrapper


class _NoParamGradMode(_GradMode):
    """A grad mode without arguments, usable as ``@no_grad()`` and as bare ``@no_grad``."""

    def __new__(cls, func: Any = None) -> Any:
        if func is None:
            return super().__new__(cls)
        if not callable(func):
            raise TypeError(f"{cls.__name__}() takes no arguments, got {func!r}")
        return cls()(func)


class no_grad(_NoParamGradMode):  # noqa: N801 - the PyTorch name
    """Context manager and decorator that stops recording the graph.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, requires_grad=True)
    >>> with symgrad.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    _mode = False


class enable_grad(_NoParamGradMode):  # noqa: N801 - the PyTorch name
    """Context manager and decorator that records the graph, even inside ``no_grad``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, requires_grad=True)
    >>> with symgrad.no_grad():
    ...     with symgrad.enable_grad():
    ...         y = x * 2
    >>> y.requires_grad
    True
    """

    _mode = True


class set_grad_enabled(_GradMode):  # noqa: N801 - the PyTorch name
    """Turn recording on or off; works as a function, a context manager and a decorator.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, requires_grad=True)
    >>> with symgrad.set_grad_enabled(False):
    ...     (x * 2).requires_grad
    False
    """

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled expects True or False, got {mode!r}")
        self._mode = mode
        # like PyTorch, calling it as a plain function switches the mode at once
        self._previous = _state.enabled
        _state.enabled = mode

    def __enter__(self) -> None:
        _state.enabled = self._mode

    def _init_args(self) -> tuple:
        _state.enabled = self._previous
        return (self._mode,)
