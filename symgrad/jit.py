"""``torch.jit``'s names, for programs that use them on the way: scripting and tracing leave
the function or module as it is, and it runs eagerly.

TorchScript compiles a subset of Python to its own graph; symgrad has no such graph, and its
own compiler is :func:`symgrad.compile`. So ``script`` and ``trace`` return what they are
given (``trace`` runs it once on the example inputs, as PyTorch's does, to check that it
runs), ``is_scripting()`` and ``is_tracing()`` are False, the decorators (``ignore``,
``unused``, ``export``, ``interface``) return what they decorate, ``save`` stores the whole
object with :func:`symgrad.save` (a pickle: ``load`` refuses it and says to load it, if
trusted, with ``symgrad.load(f, weights_only=False)``). ``fork`` runs its function at once.

Examples
--------
>>> import symgrad
>>> @symgrad.jit.script
... def double(x):
...     return 2 * x
>>> double(symgrad.tensor([1.0, 2.0])), symgrad.jit.is_scripting()
(tensor([2., 4.]), False)
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = [
    "Attribute",
    "Error",
    "Final",
    "Future",
    "ScriptFunction",
    "ScriptModule",
    "annotate",
    "enable_onednn_fusion",
    "export",
    "fork",
    "freeze",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "load",
    "onednn_fusion_enabled",
    "optimize_for_inference",
    "save",
    "script",
    "script_if_tracing",
    "set_fusion_strategy",
    "trace",
    "trace_module",
    "unused",
    "wait",
]

Final = typing.Final


class Error(RuntimeError):
    """TorchScript's error type (nothing in symgrad raises it; programs may catch it)."""


class ScriptModule:
    """TorchScript's module type. Nothing is an instance: ``script`` returns modules as they
    are, so ``isinstance(m, symgrad.jit.ScriptModule)`` is False, as for an eager module."""


class ScriptFunction:
    """TorchScript's function type; as :class:`ScriptModule`, nothing is an instance."""


class Attribute(NamedTuple):
    """A module attribute with its TorchScript type: in eager code, the pair itself."""

    value: Any
    type: Any


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None, **_: Any):
    """``obj`` (a function, a module or a class) as it is: it runs eagerly.

    Examples
    --------
    >>> import symgrad
    >>> layer = symgrad.nn.Linear(2, 1)
    >>> symgrad.jit.script(layer) is layer
    True
    """
    return obj


def trace(func: Any, example_inputs: Any = None, *args: Any, **options: Any) -> Any:
    """``func`` as it is, after one call on ``example_inputs`` (a tensor or a tuple of them;
    ``example_kwarg_inputs=`` a dict), as PyTorch's tracing runs it once.

    Examples
    --------
    >>> import symgrad
    >>> f = symgrad.jit.trace(lambda x: x + 1, symgrad.zeros(2))
    >>> f(symgrad.ones(2))
    tensor([2., 2.])
    """
    kwargs = options.get("example_kwarg_inputs")
    if example_inputs is None and kwargs is None:
        raise RuntimeError(
            "trace(): give example_inputs (a tensor or a tuple of tensors) or "
            "example_kwarg_inputs (a dict) to run the function on"
        )
    if kwargs is not None:
        func(**kwargs)
    elif isinstance(example_inputs, tuple):
        func(*example_inputs)
    else:
        func(example_inputs)
    return func


def trace_module(mod: Any, inputs: dict, *args: Any, **options: Any) -> Any:
    """``mod`` as it is, after calling each method named in ``inputs`` on its examples."""
    for name, example in inputs.items():
        method = getattr(mod, name)
        method(*example) if isinstance(example, tuple) else method(example)
    return mod


def script_if_tracing(fn: Callable) -> Callable:
    """``fn`` as it is."""
    return fn


def is_scripting() -> bool:
    """False: nothing is compiled by TorchScript."""
    return False


def is_tracing() -> bool:
    """False: nothing is traced by TorchScript."""
    return False


def _decorator(fn: Any = None, **_: Any) -> Any:
    """``fn`` as it is, used bare (``@ignore``) or with options (``@ignore(drop=True)``)."""
    if fn is None or not callable(fn):
        return lambda f: f
    return fn


ignore = _decorator
unused = _decorator
export = _decorator
interface = _decorator


def annotate(the_type: Any, the_value: Any) -> Any:
    """``the_value``: a type annotation TorchScript reads and eager code ignores."""
    return the_value


def freeze(mod: Any, preserved_attrs: Any = None, optimize_numerics: bool = True) -> Any:
    """``mod`` as it is (already eager and frozen)."""
    return mod


def optimize_for_inference(mod: Any, other_methods: Any = None) -> Any:
    """``mod`` as it is."""
    return mod


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """Store ``m`` whole with :func:`symgrad.save` (not a TorchScript archive)."""
    from symgrad.serialization import save as _save

    _save(m, f)


def load(f: Any, map_location: Any = None, _extra_files: Any = None, **_: Any) -> Any:
    """Refused, with the way to do it: a TorchScript archive can't be read, and a file
    :func:`save` wrote is a pickle, which can run any code when loaded; load one you trust
    with ``symgrad.load(f, weights_only=False)``."""
    raise RuntimeError(
        "symgrad.jit.load: symgrad has no TorchScript to read archives with. A file "
        "symgrad.jit.save wrote is a pickle of the whole object, which can run arbitrary "
        "code when loaded: if you trust it, load it with symgrad.load(f, weights_only=False)"
    )


class Future:
    """The result of :func:`fork`: already computed."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def wait(self) -> Any:
        """The function's result."""
        return self._value

    def value(self) -> Any:
        return self._value

    def done(self) -> bool:
        return True


def fork(func: Callable, *args: Any, **kwargs: Any) -> Future:
    """``func(*args, **kwargs)``, run now, as a :class:`Future`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.jit.wait(symgrad.jit.fork(lambda x: x * 3, symgrad.tensor(2.0)))
    tensor(6.)
    """
    return Future(func(*args, **kwargs))


def wait(future: Future) -> Any:
    """The result of a :func:`fork`."""
    return future.wait()


_onednn = [False]


def enable_onednn_fusion(enabled: bool) -> None:
    """Kept for compatibility: there is no oneDNN fusion to switch."""
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    return _onednn[0]


def set_fusion_strategy(strategy: list) -> list:
    """Kept for compatibility; returns the previous strategy (PyTorch's default)."""
    return [("STATIC", 2), ("DYNAMIC", 10)]
