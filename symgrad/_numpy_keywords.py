"""NumPy's keyword names for PyTorch's: ``x.sum(axis=1, keepdims=True)`` is
``x.sum(dim=1, keepdim=True)``, as PyTorch's argument parser takes either; and its flags
taken as bools only: ``x.sum(0, 1)`` (dims 0 and 1 meant, keepdim given) is PyTorch's
TypeError, not a sum over dim 0 kept as 1.

Every Tensor method and ``symgrad`` function that has a ``dim`` or ``keepdim`` parameter is
wrapped once, at import, by a function that renames those two keywords when they are given
and checks the flags that are given; a call with neither goes straight through.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

__all__ = ["install"]

_ALIASES = {"axis": "dim", "keepdims": "keepdim"}

# parameters PyTorch's parser takes as a Python bool only (not 0/1, None or numpy.bool_)
_FLAGS = frozenset(
    "keepdim unbiased descending largest sorted return_inverse return_counts include_self".split()
)


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


def _not_a_bool(name: str, flag: str, value: Any) -> TypeError:
    kind = type(value)
    kind_name = (
        kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    )
    return TypeError(
        f"{name}(): argument '{flag}' must be bool, not {kind_name} (give True or False)"
    )


def _flags(fn: Any) -> tuple[tuple, frozenset]:
    """The positions (from 0, the input) and names of ``fn``'s bool flags."""
    positional, named = [], set()
    for k, p in enumerate(inspect.signature(fn).parameters.values()):
        if p.name in _FLAGS:
            named.add(p.name)
            if p.kind is p.POSITIONAL_OR_KEYWORD:
                positional.append((k, p.name))
    return tuple(positional), frozenset(named)


def _check_flags(name: str, args: tuple, kwargs: dict, positional: tuple, named: frozenset):
    for k, flag in positional:
        if k < len(args) and type(args[k]) is not bool:
            raise _not_a_bool(name, flag, args[k])
    for flag in named:
        if flag in kwargs and type(kwargs[flag]) is not bool:
            raise _not_a_bool(name, flag, kwargs[flag])


def _check_keyword_overload(name: str, args: tuple, kwargs: dict, keyword: str | None) -> None:
    """PyTorch's TypeError for positional arguments next to ``keyword``, which selects an
    overload that takes all of them by keyword (``x.sort(1, stable=True)``)."""
    if keyword is not None and keyword in kwargs and len(args) > 1:
        raise TypeError(
            f"{name}() received an invalid combination of arguments: with {keyword}= the "
            f"other arguments are keywords too ({name}(dim=..., {keyword}=...))"
        )


_WRAPPERS: dict = {}  # each function's one wrapper: modules that share a function share it


def _accepting_numpy_names(fn: Any) -> Any:
    wrapper = _WRAPPERS.get(fn)
    if wrapper is not None:
        return wrapper
    name = fn.__name__
    positional, named = _flags(fn)
    first = positional[0][0] if positional else float("inf")
    keyword = getattr(fn, "keyword_overload", None)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) > first:
            _check_flags(name, args, {}, positional, named)
        if not kwargs:  # (the common call: straight through)
            return fn(*args)
        if "axis" in kwargs or "keepdims" in kwargs:
            kwargs = _renamed(name, kwargs)
        if named:
            _check_flags(name, (), kwargs, (), named)
        _check_keyword_overload(name, args, kwargs, keyword)
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
