"""``gradcheck(..., fast_mode=True)``: one number per (output, input) pair, ``vᵀ J u`` for
random unit vectors ``u`` and ``v``, from central differences along ``u`` and one backward
seeded with ``v``: two evaluations and one backward per input, whatever the sizes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from symgrad.check.finite_differences import directional
from symgrad.check.jacobians import (
    GradcheckError,
    analytical_jacobians,
    check_reentrant,
    close,
    evaluator,
    numerical_jacobians,
    vjp,
    worst_element,
)

__all__ = ["check_fast"]

# a failing fast-mode pair is re-run element by element (for the worst element) up to this size
_SLOW_RERUN_LIMIT = 1024


def _unit(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    # PyTorch's choice: uniform in [0, 1), normalised (so atol scales by sum(u) * sum(v))
    u = rng.random(shape)
    norm = np.linalg.norm(u)
    return u / norm if norm > 0 else u


def _numerical(
    func: Callable, inputs: tuple, outputs: tuple, live: list[int], us: dict, vs: dict, eps: float
) -> dict[tuple[int, int], float]:
    """{(output, input): vᵀ J u} from central differences along each ``u``."""
    evaluate = evaluator(func, inputs, outputs, live)
    numerical = {}
    for i, u in us.items():
        jus = directional(evaluate, inputs[i]._data, u, eps)
        for ju, k in zip(jus, live):
            numerical[(k, i)] = float(np.dot(vs[k].reshape(-1), ju))
    return numerical


def check_fast(
    func: Callable,
    inputs: tuple,
    outputs: tuple,
    live: list[int],
    diff: list[int],
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
) -> None:
    """Compare ``vᵀ J u`` from both sides for every live output and every input in ``diff``;
    raise :class:`GradcheckError` at the first pair that differs."""
    rng = np.random.default_rng(0)  # fixed: verdicts reproducible, the user's generator untouched
    us = {i: _unit(rng, inputs[i].shape) for i in diff}
    vs = {k: _unit(rng, outputs[k].shape) for k in live}
    numerical = _numerical(func, inputs, outputs, live, us, vs, eps)
    for k in live:
        vjps = vjp(outputs[k], inputs, diff, vs[k])
        check_reentrant(vjps, vjp(outputs[k], inputs, diff, vs[k]), nondet_tol)
        for vj, i in zip(vjps, diff):
            a, n = float(np.dot(vj, us[i].reshape(-1))), numerical[(k, i)]
            scaled_atol = atol * float(us[i].sum()) * float(vs[k].sum())
            if not close(a, n, rtol, scaled_atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{n!r}\nanalytical:{a!r}\n(fast mode compares v^T J u for random "
                    "unit vectors u and v)\n"
                    + _slow_rerun(func, inputs, outputs, k, i, eps, atol, rtol)
                )


def _slow_rerun(
    func: Callable,
    inputs: tuple,
    outputs: tuple,
    k: int,
    i: int,
    eps: float,
    atol: float,
    rtol: float,
) -> str:
    """The element-by-element comparison of one failing pair, where it is small enough."""
    x, out = inputs[i], outputs[k]
    if x.numel() > _SLOW_RERUN_LIMIT or out.numel() > _SLOW_RERUN_LIMIT:
        return (
            f"Input {i} has {x.numel()} and output {k} {out.numel()} elements: run with "
            "fast_mode=False to find the worst element.\n"
        )
    (n,) = numerical_jacobians(func, inputs, i, eps, outputs, [k])
    a = analytical_jacobians(out, k, inputs, [i], nondet_tol=np.inf)[i]
    if close(a, n, rtol, atol):
        return (
            "Element by element (fast_mode=False) the Jacobians agree: the difference is in "
            "the tolerance scaling of fast mode; use fast_mode=False for this function.\n"
        )
    worst = worst_element(n, a, rtol, atol, x, out, k, i)
    return f"Element by element (fast_mode=False), the {worst}\n"
