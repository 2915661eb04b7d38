"""Computing without NumPy's floating-point warnings, cheaply.

inf and nan (``log(0)``, ``1/0``, ``inf - inf``) come out of symgrad's kernels silently, as in
PyTorch; anomaly mode is the way to be told. NumPy 2 keeps its error state in a context
variable, and setting that directly costs a fifth of entering ``np.errstate``: it matters, since
it happens once per op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["quiet", "silence", "restore", "silencer", "cast", "through_float"]

_DOUBLE, _HALF = np.dtype(np.float64), np.dtype(np.float16)

try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _SILENT = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - older NumPy
    _extobj_contextvar = None


if _extobj_contextvar is None:  # pragma: no cover - older NumPy

    def silence() -> Any:
        """Switch NumPy's floating-point warnings off; returns what ``restore`` needs."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore(token: Any) -> None:
        """Undo the ``silence`` call that returned ``token``."""
        token.__exit__(None, None, None)

    def quiet(kernel: Callable) -> Callable:
        """``kernel`` computing without NumPy's floating-point warnings."""

        def quiet_kernel(*args: Any, **kwargs: Any) -> Any:
            with np.errstate(all="ignore"):
                return kernel(*args, **kwargs)

        quiet_kernel.__wrapped__ = kernel  # type: ignore[attr-defined]
        return quiet_kernel

else:
    _set, _reset = _extobj_contextvar.set, _extobj_contextvar.reset

    def silence() -> Any:
        """Switch NumPy's floating-point warnings off; returns what ``restore`` needs."""
        return _set(_SILENT)

    def restore(token: Any) -> None:
        """Undo the ``silence`` call that returned ``token``."""
        _reset(token)

    def quiet(kernel: Callable) -> Callable:
        """``kernel`` computing without NumPy's floating-point warnings."""

        def quiet_kernel(*args: Any, **kwargs: Any) -> Any:
            token = _set(_SILENT)
            try:
                return kernel(*args, **kwargs)
            finally:
                _reset(token)

        quiet_kernel.__wrapped__ = kernel  # type: ignore[attr-defined]
        return quiet_kernel


def silencer() -> tuple:
    """``(set, reset, silent)`` such that ``token = set(silent)`` switches the warnings off
    and ``reset(token)`` back on, with no Python call between (for the hottest paths), or
    ``(None, None, None)`` on a NumPy without that context variable."""
    if _extobj_contextvar is None:  # pragma: no cover - older NumPy
        return None, None, None
    return _extobj_contextvar.set, _extobj_contextvar.reset, _SILENT


def cast(a: np.ndarray, dtype: Any) -> np.ndarray:
    """``a.astype(dtype)`` as PyTorch converts: a double becomes a half through a float (two
    roundings, which differ from one now and then: -957.7499999 is -958, not -957.5), and
    values that overflow the narrower dtype are inf without NumPy's warning."""
    token = silence()
    try:
        return through_float(a, dtype).astype(dtype)
    finally:
        restore(token)


def through_float(a: Any, dtype: Any) -> Any:
    """``a`` rounded to float32 first where it is a double array to be stored as a half, as
    PyTorch converts one (else ``a`` itself)."""
    if getattr(a, "dtype", None) == _DOUBLE and np.dtype(dtype) == _HALF:
        return a.astype(np.float32)
    return a
