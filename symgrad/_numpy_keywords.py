"""NumPy's keyword names for PyTorch's: ``x.sum(axis=1, keepdims=True)`` is
``x.sum(dim=1, keepdim=True)``, as PyTorch's argument parser takes either.

Every Tensor method and ``symgrad`` function that has a ``dim`` or ``keepdim`` parameter is
wrapped once, at import, by a function that renames those two keywords when they are given;
a call without them goes straight through.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

__all__ = ["install"]

_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def _takes_dim(fn: Any) -> bool:
    """Whether ``fn`` (a plain function, or a wrapper of one) has a ``dim`` or ``keepdim``
    parameter and none named ``axis`` or ``keepdims`` of its own."""
    if not inspect.isfunction(fn):
        return False
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - no signature to read
        return False
    return ("dim" in params or "keepdim" in params) and not (
        "axis" in params or "keepdims" in params
    )


def _renamed(name: str, kwargs: dict) -> dict:
    renamed = {}
    for key, value in kwargs.items():
        torch_name = _ALIASES.get(key, key)
        if torch_name in renamed or (torch_name != key and torch_name in kwargs):
            raise TypeError(
                f"{name}() got both '{torch_name}' and its NumPy name '{key}': give one of them"
            )
        renamed[torch_name] = value
    return renamed


_WRAPPERS: dict = {}  # each function's one wrapper: modules that share a function share it


def _accepting_numpy_names(fn: Any) -> Any:
    wrapper = _WRAPPERS.get(fn)
    if wrapper is not None:
        return wrapper
    name = fn.__name__

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not kwargs:  # (the common call: straight through)
            return fn(*args)
        if "axis" in kwargs or "keepdims" in kwargs:
            kwargs = _renamed(name, kwargs)
        return fn(*args, **kwargs)

    call._numpy_keywords = True  # type: ignore[attr-defined]
    _WRAPPERS[fn] = call
    return call


def install(tensor_class: type | None, namespace: dict) -> None:
    """Wrap the methods of ``tensor_class`` (if given) and the functions of ``namespace`` (a
    module's globals) that take ``dim`` or ``keepdim``; a function two modules share gets the
    same wrapper in both."""
    targets = [namespace] if tensor_class is None else [vars(tensor_class), namespace]
    for k, names in enumerate(targets):
        for name, fn in list(names.items()):
            if name.startswith("_") or hasattr(fn, "_numpy_keywords") or not _takes_dim(fn):
                continue
            if k == 0 and tensor_class is not None:
                setattr(tensor_class, name, _accepting_numpy_names(fn))
            else:
                namespace[name] = _accepting_numpy_names(fn)


def share(module: Any) -> None:
    """Give ``module`` the wrappers of the functions it shares with a wrapped namespace
    (``nn.functional.pairwise_distance`` is ``symgrad.pairwise_distance``)."""
    for name, fn in list(vars(module).items()):
        if inspect.isfunction(fn) and fn in _WRAPPERS:
            setattr(module, name, _WRAPPERS[fn])
