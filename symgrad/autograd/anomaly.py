"""Anomaly detection: where in the user's code did the NaN come from?

While it is on, every graph node remembers the lines of user code that ran its forward op (a
short traceback without symgrad's own frames, kept as ``node.metadata["traceback_"]``, the key
PyTorch uses). A backward step that returns NaN values raises PyTorch's ``RuntimeError``
naming the node; that error, or any other raised by a node's backward, is preceded by
PyTorch's ``UserWarning`` "Error detected in <node>" with that traceback. Infinite gradients
pass, as in PyTorch. Beyond PyTorch, a forward op whose output holds NaN or infinite values its
inputs did not hold warns with :class:`AnomalyWarning`.

The switch is global (one for all threads), as PyTorch's is. When it is off, the cost is one
attribute test per recorded op and per backward step.
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
import traceback
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "AnomalyWarning",
]

F = TypeVar("F", bound=Callable[..., Any])

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARIES = tuple(
    os.path.abspath(p) for p in {sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")}
)
_DEPTH = 8  # user frames kept per node: enough to see the call chain, short enough to read


class _State:
    """The global switch (PyTorch's anomaly mode is process-wide, not per thread)."""

    enabled = False
    check_nan = True


_state = _State()


class AnomalyWarning(RuntimeWarning):
    """Warned when, under anomaly detection, a forward op produces NaN or infinite values.

    A ``RuntimeWarning`` subclass, so ``warnings.simplefilter("error", AnomalyWarning)`` turns
    the first one into an exception at the line that produced it.
    """


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.autograd.is_anomaly_enabled()
    False
    """
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection also checks values for NaN and infinity.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.autograd.is_anomaly_check_nan_enabled()
    True
    """
    return _state.check_nan


def _set(mode: bool, check_nan: bool) -> None:
    for position, name, flag in ((1, "enabled", mode), (2, "check_nan", check_nan)):
        if not isinstance(flag, bool):  # (1 or "yes" is PyTorch's TypeError)
            raise TypeError(
                f"set_anomaly_enabled(): argument '{name}' (position {position}) must be bool, "
                f"not {type(flag).__name__}"
            )
    _state.enabled = mode
    _state.check_nan = check_nan


class _Switch:
    """Sets the mode on entry (or at construction), restores the previous one on exit; as a
    decorator, around every call of the function."""

    def __init__(self, mode: bool, check_nan: bool) -> None:
        self._mode = (mode, check_nan)
        self._saved: list[tuple[bool, bool]] = []

    def __enter__(self) -> None:
        self._saved.append((_state.enabled, _state.check_nan))
        _set(*self._mode)

    def __exit__(self, *exc: object) -> None:
        _set(*self._saved.pop())

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class detect_anomaly(_Switch):  # noqa: N801 - PyTorch's name
    """Context manager (and decorator) that turns anomaly detection on.

    Inside it, each graph node records where in your code its forward op ran. A backward step
    that returns NaN values raises ``RuntimeError`` naming the node, after a ``UserWarning``
    that shows where its forward op ran (as PyTorch; any other error raised in backward gets
    the same warning); a forward op that produces NaN or infinite values warns
    (:class:`AnomalyWarning`) with the location. With ``check_nan=False`` only the locations
    are recorded. Slows every op: use it to debug, not to train.

    Examples
    --------
    >>> import warnings, symgrad
    >>> x = symgrad.tensor([0.0, 1.0], requires_grad=True)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with symgrad.autograd.detect_anomaly():
    ...         y = symgrad.where(x > 0, x.log(), 0.0)
    ...         y.sum().backward()
    Traceback (most recent call last):
        ...
    RuntimeError: Function 'LogBackward0' returned nan values in its 0th output.
    >>> print(caught[-1].message)  # doctest: +ELLIPSIS
    Error detected in LogBackward0. Traceback of forward call that caused the error:
      File ...
        y = symgrad.where(x > 0, x.log(), 0.0)
    <BLANKLINE>
    """

    def __init__(self, check_nan: bool = True) -> None:
        super().__init__(True, check_nan)
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )


class set_detect_anomaly:  # noqa: N801 - PyTorch's name
    """Turn anomaly detection on or off, at once; as a context manager, only until the block
    ends.

    Examples
    --------
    >>> import symgrad
    >>> with symgrad.autograd.set_detect_anomaly(True):
    ...     symgrad.autograd.is_anomaly_enabled()
    True
    >>> symgrad.autograd.is_anomaly_enabled()
    False
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._previous = (_state.enabled, _state.check_nan)
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _set(*self._previous)


# -- recording where a node came from ------------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def _is_symgrad(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE + os.sep)


@functools.lru_cache(maxsize=1024)
def _is_internal(filename: str) -> bool:
    """symgrad's own files, the standard library and installed packages (pytest, IPython)."""
    if filename.startswith("<frozen "):  # the interpreter's own frozen modules (runpy)
        return True
    return _is_symgrad(filename) or os.path.abspath(filename).startswith(_LIBRARIES)


def _user_frames() -> list:
    """The innermost user frames of the current stack, outermost first (when the code runs
    from an installed package, every frame outside symgrad)."""
    frames = _frames(_is_internal) or _frames(_is_symgrad)
    return frames[::-1]


def _frames(skip: Callable[[str], bool]) -> list:
    frames = []
    frame: Any = sys._getframe(1)
    while frame is not None and len(frames) < _DEPTH:
        code = frame.f_code
        if not skip(code.co_filename):
            frames.append(traceback.FrameSummary(code.co_filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    return frames


def record(node: Any) -> None:
    """Keep the user's forward traceback in ``node.metadata["traceback_"]``."""
    node.metadata["traceback_"] = traceback.format_list(_user_frames())


# -- checks ---------------------------------------------------------------------------------------


def _data(value: Any) -> Any:
    return getattr(value, "_data", value)


def _nonfinite(array: np.ndarray) -> tuple[bool, bool]:
    """(has NaN, has inf) of a floating array; (False, False) for any other value."""
    array = np.asarray(array)
    if array.dtype.kind not in "fc" or np.isfinite(array).all():
        return False, False
    return bool(np.isnan(array).any()), bool(np.isinf(array).any())


def check_forward(prim: Any, out: np.ndarray, inputs: Any, params: Any = None) -> None:
    """Warn when ``prim`` (called with ``params``) produced NaN or inf values that none of
    its inputs held."""
    if not _state.check_nan:
        return
    nan, inf = _nonfinite(out)
    if not (nan or inf):
        return
    for value in inputs:
        had_nan, had_inf = _nonfinite(_data(value))
        nan, inf = nan and not had_nan, inf and not had_inf
    kinds = " and ".join(k for k, new in (("nan", nan), ("inf", inf)) if new)
    if not kinds:
        return
    frames = _user_frames()
    where = "".join(traceback.format_list(frames)).rstrip() or "  (no user frame on the stack)"
    meta = [(np.shape(_data(v)), None) for v in inputs]
    warnings.warn(
        f"Forward of '{prim.name}' ({prim.node_name(params, meta)}) produced {kinds} values.\n"
        f"Traceback of forward call that produced them:\n{where}",
        AnomalyWarning,
        stacklevel=_stacklevel(),
    )


def _stacklevel() -> int:
    """The ``warnings.warn`` stacklevel, counted from check_forward, of the user frame."""
    for skip in (_is_internal, _is_symgrad):
        level, frame = 2, sys._getframe(2)
        while frame is not None and skip(frame.f_code.co_filename):
            level, frame = level + 1, frame.f_back
        if frame is not None:
            return level
    return 1


def check_backward(node: Any, grads: tuple) -> None:
    """Raise PyTorch's error when a backward step returned NaN values (infinite ones pass, as
    in PyTorch: ``sqrt``'s gradient at 0 is inf, and a program may well mean it)."""
    if not _state.check_nan:
        return
    for i, g in enumerate(grads):
        if g is None:
            continue
        array = np.asarray(_data(g))
        if array.dtype.kind in "fc" and np.isnan(array).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def warn_error(node: Any) -> None:
    """PyTorch's warning when ``node``'s backward raised in anomaly mode: which node, and the
    lines of user code that ran its forward op (from the user's ``backward`` call)."""
    lines = (node._metadata or {}).get("traceback_")
    if lines:
        where = "Traceback of forward call that caused the error:\n" + "".join(lines)
    else:
        where = (
            "No forward pass information available. Enable detect anomaly during forward pass "
            "for more information."
        )
    message = f"Error detected in {node.name()}. {where}"
    warnings.warn(message, UserWarning, stacklevel=_stacklevel())
