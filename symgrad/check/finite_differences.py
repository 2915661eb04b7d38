"""Central finite differences: the one place where an input's values are perturbed.

Every numerical derivative in :mod:`symgrad.check` comes from here. An input's array is moved
in place by ``+h`` and ``-h`` (one element, or the whole array along a direction), the function
is evaluated at both points, and the values are put back, also when the function raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["shifted", "central", "jacobian_columns", "directional", "scalar_gradient"]

ROUNDING = 64 * np.finfo(np.float64).eps  # the error of one evaluation, relative to its value


def shifted(
    evaluate: Callable[[], Any],
    data: np.ndarray,
    h: float,
    where: Any = ...,
    direction: Any = 1.0,
) -> tuple[Any, Any]:
    """``evaluate()`` with ``data[where]`` moved by ``+h * direction``, then by ``-h *
    direction``; ``data`` is restored bit for bit afterwards, also when ``evaluate`` raises.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.array([1.0, 2.0])
    >>> shifted(lambda: float(data @ data), data, 0.5, where=(1,))
    (7.25, 3.25)
    >>> data
    array([1., 2.])
    """
    base = data[where].copy()
    try:
        data[where] = base + h * direction
        plus = evaluate()
        data[where] = base - h * direction
        minus = evaluate()
    finally:
        data[where] = base
    return plus, minus


def central(plus: Any, minus: Any, h: float) -> Any:
    """The central difference ``(f(x + h) - f(x - h)) / (2 h)`` from the two values.

    Examples
    --------
    >>> central(7.25, 3.25, 0.5)
    4.0
    """
    return (plus - minus) / (2 * h)


def _central_arrays(
    evaluate: Callable[[], list], data: np.ndarray, h: float, where: Any, direction: Any = 1.0
) -> list[np.ndarray]:
    plus, minus = shifted(evaluate, data, h, where, direction)
    return [central(p, m, h).reshape(-1) for p, m in zip(plus, minus)]


def jacobian_columns(
    evaluate: Callable[[], list], data: np.ndarray, eps: float
) -> list[list[np.ndarray]]:
    """Per element of ``data`` (in C order), the central differences of each array that
    ``evaluate()`` returns, flattened: one Jacobian column per output.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.array([1.0, 2.0])
    >>> jacobian_columns(lambda: [data**2], data, 1e-3)
    [[array([2., 0.])], [array([0., 4.])]]
    """
    return [_central_arrays(evaluate, data, eps, idx) for idx in np.ndindex(data.shape)]


def directional(
    evaluate: Callable[[], list], data: np.ndarray, direction: np.ndarray, eps: float
) -> list[np.ndarray]:
    """The central differences of each array ``evaluate()`` returns, with all of ``data``
    moved along ``direction`` (``J u`` for each output's Jacobian ``J``), flattened.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.array([1.0, 2.0])
    >>> directional(lambda: [data**2], data, np.array([1.0, 1.0]), 1e-3)
    [array([2., 4.])]
    """
    return _central_arrays(evaluate, data, eps, ..., direction)


def scalar_gradient(
    f: Callable[[], float], data: np.ndarray, eps: float | None, rtol: float, atol: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The central-difference gradient of the scalar ``f()`` by each element of ``data``, the
    rounding noise of each difference, and a mask of the elements where the step straddles a
    kink (a slope jump above ``atol + noise + rtol * |gradient|`` that does not shrink with
    the step).

    The step is ``eps`` or, by default, ``6e-6 * max(1, |x|)`` per element.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.array([0.0, 1.0])
    >>> def f():
    ...     return float(np.abs(data).sum())
    >>> grads, noise, kinks = scalar_gradient(f, data, None, 1e-4, 1e-6)
    >>> grads, kinks
    (array([0., 1.]), array([ True, False]))
    """
    f0 = f()
    grads, noise = np.zeros(data.shape), np.zeros(data.shape)
    kinks = np.zeros(data.shape, dtype=bool)
    for idx in np.ndindex(data.shape):
        # the cube root of the machine epsilon balances truncation and rounding error
        h = eps if eps is not None else 6e-6 * max(1.0, abs(float(data[idx])))
        fp, fm = shifted(f, data, h, idx)
        grads[idx] = central(fp, fm, h)
        noise[idx] = ROUNDING * max(abs(f0), abs(fp), abs(fm)) / h
        bend = (fp - f0) / h - (f0 - fm) / h  # slope jump: O(h f'') if smooth
        if abs(bend) > atol + noise[idx] + rtol * abs(grads[idx]):
            kinks[idx] = _straddles_kink(f, data, idx, h, f0, bend)
    return grads, noise, kinks


def _straddles_kink(
    f: Callable[[], float], data: np.ndarray, idx: tuple, h: float, f0: float, bend: float
) -> bool:
    """A smooth function's slope jump shrinks with the step (a quarter of the step, a quarter
    of the jump); at a kink it stays (kink at x) or vanishes (kink between h/4 and h away)."""
    fp, fm = shifted(f, data, h / 4, idx)
    ratio = ((fp - f0) - (f0 - fm)) / (h / 4) / bend
    return not 0.1 < ratio < 0.45
