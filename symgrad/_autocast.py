"""PyTorch's autocast queries: automatic mixed precision is not supported by symgrad.

Every op computes in the dtypes of its inputs (PyTorch's promotion rules), on NumPy, so
autocast is always off: the queries say so, turning it off (``enabled=False``) is accepted,
and turning it on raises ``NotImplementedError`` rather than silently computing in other
dtypes than the program expects.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from symgrad._arguments import invalid_combination, require_python_bool
from symgrad._device import device

__all__ = [
    "autocast",
    "is_autocast_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_ipu_enabled",
    "is_autocast_xla_enabled",
    "set_autocast_enabled",
    "set_autocast_cpu_enabled",
    "is_autocast_cache_enabled",
    "set_autocast_cache_enabled",
    "autocast_increment_nesting",
    "autocast_decrement_nesting",
    "clear_autocast_cache",
]

_UNSUPPORTED = (
    "symgrad does not support autocast (automatic mixed precision): every op computes in its "
    "inputs' dtypes. Convert explicitly instead (model.half(), x.to(symgrad.float16)), or "
    "pass enabled=False."
)


class _State:
    cache_enabled = True
    nesting = 0


_state = _State()


def _check_device_type(function: str, device_type: Any) -> None:
    if not isinstance(device_type, str):
        raise TypeError(
            f"{function}(): argument 'device_type' (position 1) must be str, not "
            f"{type(device_type).__name__}"
        )
    device(device_type)  # PyTorch's RuntimeError for an unknown device type


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` (without one, for CUDA): always False, as
    symgrad has no autocast.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.is_autocast_enabled(), symgrad.is_autocast_enabled("cpu")
    (False, False)
    """
    if device_type is not None:
        _check_device_type("is_autocast_enabled", device_type)
    return False


def _deprecated(old: str, new: str) -> None:
    old = old if old.endswith(")") else old + "()"
    warnings.warn(
        f"torch.{old} is deprecated. Please use torch.{new} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def _deprecated_query(device_type: str) -> Callable[[], bool]:
    """PyTorch's deprecated ``is_autocast_<device_type>_enabled()``: warns, and is False."""
    name = f"is_autocast_{device_type}_enabled"

    def query() -> bool:
        _deprecated(name, f"is_autocast_enabled('{device_type}')")
        return False

    query.__name__ = query.__qualname__ = name
    query.__doc__ = f"""Deprecated in PyTorch for ``is_autocast_enabled("{device_type}")``: \
always False.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.{name}()
    False
    """
    return query


is_autocast_cpu_enabled = _deprecated_query("cpu")
is_autocast_ipu_enabled = _deprecated_query("ipu")
is_autocast_xla_enabled = _deprecated_query("xla")


def _refuse(enabled: Any, function: str, position: int) -> None:
    require_python_bool(function, "enabled", enabled, position)
    if enabled:
        raise NotImplementedError(_UNSUPPORTED)


def set_autocast_enabled(*args: Any) -> None:
    """``set_autocast_enabled(enabled)`` or ``set_autocast_enabled(device_type, enabled)``:
    False is accepted (autocast is always off); True raises ``NotImplementedError``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_autocast_enabled("cpu", False)
    >>> symgrad.set_autocast_enabled(True)
    Traceback (most recent call last):
        ...
    NotImplementedError: symgrad does not support autocast (automatic mixed precision): ...
    """
    if len(args) == 2:
        _check_device_type("set_autocast_enabled", args[0])
        _refuse(args[1], "set_autocast_enabled", 2)
    elif len(args) == 1:
        _refuse(args[0], "set_autocast_enabled", 1)
    else:
        raise invalid_combination(
            "set_autocast_enabled", args, ("str device_type, bool enabled", "bool enabled")
        )


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated in PyTorch for ``set_autocast_enabled("cpu", enabled)``: False is
    accepted, True raises ``NotImplementedError``.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.set_autocast_cpu_enabled(False)
    """
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _refuse(enabled, "set_autocast_cpu_enabled", 1)


def is_autocast_cache_enabled() -> bool:
    """Whether autocast would cache its casts (True at start; there is nothing to cache).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.is_autocast_cache_enabled()
    True
    """
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Record the flag :func:`is_autocast_cache_enabled` reports.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_autocast_cache_enabled(False)
    >>> symgrad.is_autocast_cache_enabled()
    False
    >>> symgrad.set_autocast_cache_enabled(True)
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state.cache_enabled = enabled


def autocast_increment_nesting() -> int:
    """One more level of autocast regions; returns the new depth.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.autocast_increment_nesting(), symgrad.autocast_decrement_nesting()
    (1, 0)
    """
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    """One level of autocast regions less; returns the new depth (see
    :func:`autocast_increment_nesting`).

    Examples
    --------
    >>> import symgrad
    >>> _ = symgrad.autocast_increment_nesting()
    >>> symgrad.autocast_decrement_nesting()
    0
    """
    _state.nesting -= 1
    return _state.nesting


def clear_autocast_cache() -> None:
    """Clear autocast's cache of casts: there is none in symgrad.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.clear_autocast_cache()
    """


class autocast:  # noqa: N801 - PyTorch's name
    """PyTorch's autocast region (context manager and decorator). Only ``enabled=False``
    is supported, where it changes nothing; enabled, it raises ``NotImplementedError``.

    Examples
    --------
    >>> import symgrad
    >>> with symgrad.autocast("cpu", enabled=False):
    ...     symgrad.is_autocast_enabled("cpu")
    False
    >>> symgrad.autocast("cpu")
    Traceback (most recent call last):
        ...
    NotImplementedError: symgrad does not support autocast (automatic mixed precision): ...
    """

    def __init__(
        self,
        device_type: str,
        dtype: Any = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        device(device_type)
        if enabled:
            raise NotImplementedError(_UNSUPPORTED)
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = False

    def __enter__(self) -> autocast:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return wrapper
