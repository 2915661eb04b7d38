"""Thread-local switches that decide whether ops record graph nodes: grad mode (``no_grad``,
``enable_grad``, ``set_grad_enabled``) and inference mode (``inference_mode``)."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from symgrad import _version
from symgrad.tensor import Tensor, bind_methods, count_inference_thread

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
    "recording",
]

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    enabled = True  # ops record: grad mode on, inference mode off (every op reads this one)
    grad = True  # grad mode, as is_grad_enabled() tells it


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
    return _state.grad


def recording() -> bool:
    """Whether ops on tensors that require grad record the graph now: grad mode is on and
    inference mode off."""
    return _state.enabled


def _set_grad(mode: bool) -> tuple:
    """Switch grad mode to ``mode``; returns what to give :func:`_restore` to undo it."""
    previous = (_state.grad, _state.enabled)
    _state.grad = mode
    _state.enabled = mode and not _version.state.inference
    return previous


def _restore(previous: tuple) -> None:
    _state.grad, _state.enabled = previous


class _GradMode:
    """A context manager that is also a decorator, restoring the previous mode on exit."""

    _mode: bool

    def __enter__(self) -> None:
        self._previous = _set_grad(self._mode)

    def __exit__(self, *exc: object) -> None:
        _restore(self._previous)

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
        self._previous = _set_grad(mode)

    def __enter__(self) -> None:
        _set_grad(self._mode)

    def _init_args(self) -> tuple:
        _restore(self._previous)
        return (self._mode,)


def is_inference_mode_enabled() -> bool:
    """Whether this thread is in inference mode (see :class:`inference_mode`).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.is_inference_mode_enabled()
    False
    >>> with symgrad.inference_mode():
    ...     symgrad.is_inference_mode_enabled()
    True
    """
    return _version.state.inference


def _set_inference(mode: bool) -> bool:
    """Switch this thread's inference mode to ``mode``; returns the previous one."""
    previous = _version.state.inference
    if mode != previous:
        _version.state.inference = mode
        count_inference_thread(mode)
    return previous


class inference_mode(_GradMode):  # noqa: N801 - the PyTorch name
    """Context manager and decorator for code that will never need gradients: like
    :class:`no_grad`, and the tensors it makes are *inference tensors*.

    An inference tensor can't be saved for backward later (using it in a recorded op that
    needs its values raises a RuntimeError) nor changed in place outside inference mode; clone
    it to get a normal tensor. Nothing records inside, even under ``enable_grad``.
    ``inference_mode(False)`` turns the mode off (and grad mode on), as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, requires_grad=True)
    >>> with symgrad.inference_mode():
    ...     y = x * 2
    >>> y.requires_grad, y.is_inference()
    (False, True)
    >>> (x * y.clone()).sum().backward()
    >>> x.grad
    tensor([2., 2.])
    """

    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        if not callable(mode):
            raise TypeError(
                f"inference_mode expects True or False (or a function to decorate), got {mode!r}"
            )
        return cls()(mode)  # bare @inference_mode

    def __init__(self, mode: bool = True) -> None:
        self._mode = mode

    def __enter__(self) -> None:
        self._previous = (_state.grad, _state.enabled, _set_inference(self._mode))
        _state.grad = _state.enabled = not self._mode

    def __exit__(self, *exc: object) -> None:
        _state.grad, _state.enabled, inference = self._previous
        _set_inference(inference)

    def _init_args(self) -> tuple:
        return (self._mode,)


def is_inference(self: Tensor) -> bool:
    """Whether this is an inference tensor: made in :class:`inference_mode` (or a view of
    one that was).

    Examples
    --------
    >>> import symgrad
    >>> with symgrad.inference_mode():
    ...     t = symgrad.ones(2)
    >>> t.is_inference(), t.clone().is_inference()
    (True, False)
    """
    return self._counter is _version.NO_VERSION


bind_methods({"is_inference": is_inference})
