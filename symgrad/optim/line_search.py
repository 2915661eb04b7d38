"""The strong-Wolfe line search of :class:`symgrad.optim.LBFGS`, as PyTorch runs it (after
minFunc): bracket a step that lowers the loss enough, then zoom in by cubic interpolation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["strong_wolfe", "cubic_interpolate"]


def cubic_interpolate(
    x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any, bounds: tuple | None = None
) -> Any:
    """The minimiser of the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes ``g1``,
    ``g2``, clamped to ``bounds`` (default: between the two points); their midpoint when the
    cubic has no minimum.

    Examples
    --------
    >>> from symgrad.optim.line_search import cubic_interpolate
    >>> float(cubic_interpolate(0.0, 1.0, -2.0, 2.0, 1.0, 2.0))  # (x - 1)**2, minimum at 1
    1.0
    """
    if bounds is not None:
        low, high = bounds
    else:
        low, high = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt() if hasattr(d2_square, "sqrt") else d2_square**0.5
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, low), high)
    return (low + high) / 2.0


def _bracket_phase(obj_func, x, t, d, f, g, gtd, c1, c2, max_ls):
    """Grow the step until it brackets a point satisfying the Wolfe conditions."""
    f_new, g_new = obj_func(x, t, d)
    evals, gtd_new = 1, g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    ls_iter = 0
    while ls_iter < max_ls:
        too_high = f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev)
        if too_high or gtd_new >= 0 and abs(gtd_new) > -c2 * gtd:
            pair = [t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            return (*pair, False, ls_iter, evals)
        if abs(gtd_new) <= -c2 * gtd:
            return [t], [f_new], [g_new], None, True, ls_iter, evals
        min_step, max_step = t + 0.01 * (t - t_prev), t * 10
        t_prev, t = (
            t,
            cubic_interpolate(
                t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
            ),
        )
        f_prev, g_prev, gtd_prev = f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals, gtd_new = evals + 1, g_new.dot(d)
        ls_iter += 1
    return [0, t], [f, f_new], [g, g_new], None, False, ls_iter, evals


def strong_wolfe(
    obj_func: Callable,
    x: Any,
    t: Any,
    d: Any,
    f: float,
    g: Any,
    gtd: Any,
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple:
    """``(loss, flat gradient, step, evaluations)`` at a step ``t`` along ``d`` from the
    parameters ``x`` that meets the strong Wolfe conditions (or the best one found in
    ``max_ls`` evaluations); ``obj_func(x, t, d)`` gives the loss and flat gradient there.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.optim.line_search import strong_wolfe
    >>> def along(x, t, d):  # the loss (w - 3)**2 at w = x + t d
    ...     w = x + t * d
    ...     return float((w - 3) ** 2), 2 * (w - 3).reshape(1)
    >>> x, d = symgrad.tensor(0.0), symgrad.tensor([1.0])
    >>> g = symgrad.tensor([-6.0])
    >>> loss, grad, step, evals = strong_wolfe(along, x, 1.0, d, 9.0, g, g.dot(d))
    >>> float(step), loss  # the full step already meets the Wolfe conditions
    (1.0, 4.0)
    """
    d_norm = d.abs().max()
    g = g.clone()
    bracket, bracket_f, bracket_g, bracket_gtd, done, ls_iter, evals = _bracket_phase(
        obj_func, x, t, d, f, g, gtd, c1, c2, max_ls
    )
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        # a point too near an end of the bracket makes too little progress: move it in
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals, gtd_new = evals + 1, g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.clone(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.clone(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], evals
