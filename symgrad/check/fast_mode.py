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
    jacobian_text,
    numerical_jacobians,
    vjp,
    worst_element,
)
from symgrad.random import Generator
from symgrad.tensor import Tensor

__all__ = ["check_fast"]

# a failing fast-mode pair is re-run element by element (for the worst element) up to this size
_SLOW_RERUN_LIMIT = 1024


def _unit(generator: object, x: Tensor) -> np.ndarray:
    """PyTorch's random vector for ``x``: uniform in [0, 1) from ``generator`` in float32, in
    ``x``'s dtype, divided by its norm (so atol scales by sum(u) * sum(v)), shaped like ``x``."""
    from symgrad.creation import rand

    vec = rand(x.numel(), generator=generator).to(dtype=x.dtype)
    if vec.numel():
        vec /= vec.norm()
    return np.asarray(vec._data).reshape(x.shape)


def _numerical(
    func: Callable, inputs: tuple, outputs: tuple, live: list[int], us: dict, vs: dict, eps: float
) -> dict[tuple[int, int], float]:
    """{(output, input): vᵀ J u} from central differences along each ``u``."""
    evaluate = evaluator(func, inputs, outputs, live, eps)
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
    # PyTorch's vectors: from a new generator (its default seed), every input's u, then every
    # output's v; so verdicts are PyTorch's, reproducible, and the user's generator untouched
    generator = Generator()
    us = {i: _unit(generator, inputs[i]) for i in diff}
    vs = {k: _unit(generator, outputs[k]) for k in live}
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
                    f"numerical:{n!r}\nanalytical:{a!r}\n"
                    + _slow_rerun(func, inputs, outputs, k, i, eps, atol, rtol)
                )


_FAST_MODE_NOTE = (
    "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
    "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
    "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
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
    """PyTorch's note on fast mode, then the element-by-element comparison of one failing
    pair (where it is small enough), as PyTorch's slow mode would show it."""
    x, out = inputs[i], outputs[k]
    if x.numel() > _SLOW_RERUN_LIMIT or out.numel() > _SLOW_RERUN_LIMIT:
        return (
            f"\n(fast mode compares v^T J u for random unit vectors u and v.) Input {i} has "
            f"{x.numel()} and output {k} {out.numel()} elements: run with fast_mode=False to "
            "find the worst element.\n"
        )
    (n,) = numerical_jacobians(func, inputs, i, eps, outputs, [k])
    a = analytical_jacobians(out, k, inputs, [i], nondet_tol=np.inf)[i]
    text = (
        f"{_FAST_MODE_NOTE}Numerical:\n {jacobian_text(n, x)}\nAnalytical:\n"
        f"{jacobian_text(a, x)}\n\nThe max per-element difference (slow mode) is: "
        f"{float(np.max(np.abs(n - a), initial=0.0))!r}.\n"
    )
    if close(a, n, rtol, atol):
        return text + (
            "Fast gradcheck failed but element-wise differences are small. This means that the "
            "test might've passed in slow_mode! Use fast_mode=False for this function.\n"
        )
    return text + f"The {worst_element(n, a, rtol, atol, x, out, k, i)}\n"
