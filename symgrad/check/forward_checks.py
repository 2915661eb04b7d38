"""The checks of :func:`~symgrad.check.gradcheck` beyond reverse mode: forward-mode Jacobians
(``check_forward_ad``: one Jacobian-vector product per input element, against central
differences) and batched gradients (``check_batched_grad``: the vector-Jacobian products of a
batch of output gradients, against one backward per row).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from symgrad.autograd import forward_ad
from symgrad.check.jacobians import (
    GradcheckError,
    close,
    mismatch,
    numerical_jacobians,
    outputs_of,
    vjp,
    worst_element,
)
from symgrad.tensor import Tensor

__all__ = ["check_forward", "check_batched"]


def forward_jacobians(
    func: Callable, inputs: tuple, i: int, outputs: tuple, live: list[int]
) -> list[np.ndarray]:
    """For input ``i``: per live output, the matrix (input elements x output elements) whose
    rows are the tangents of the outputs when input ``i`` carries a unit tangent."""
    x = inputs[i]
    rows: list[list[np.ndarray]] = [[] for _ in live]
    with forward_ad.dual_level():
        for e in range(x.numel()):
            seed = np.zeros(x.numel(), dtype=x._data.dtype)
            seed[e] = 1
            args = list(inputs)
            args[i] = forward_ad.make_dual(x, Tensor._make(seed.reshape(x.shape)))
            outs = outputs_of(func, tuple(args))
            for n, k in enumerate(live):
                tangent = forward_ad.unpack_dual(outs[k]).tangent
                size = outs[k].numel()
                rows[n].append(
                    np.zeros(size)
                    if tangent is None
                    else np.asarray(tangent._data, dtype=np.float64).reshape(size)
                )
    return [np.array(r) if r else np.zeros((0, outputs[k].numel())) for r, k in zip(rows, live)]


def check_forward(
    func: Callable,
    inputs: tuple,
    outputs: tuple,
    live: list[int],
    diff: list[int],
    eps: float,
    atol: float,
    rtol: float,
) -> None:
    """Compare the forward-mode Jacobian with central differences for every live output and
    every input in ``diff``; raise :class:`GradcheckError` at the first pair that differs."""
    for i in diff:
        numerical = numerical_jacobians(func, inputs, i, eps, outputs, live)
        analytical = forward_jacobians(func, inputs, i, outputs, live)
        for n, a, k in zip(numerical, analytical, live):
            a = a.reshape(n.shape)
            if not close(a, n, rtol, atol):
                worst = worst_element(n, a, rtol, atol, inputs[i], outputs[k], k, i)
                mode = "computed with forward mode "
                raise GradcheckError(mismatch(k, i, n, a, worst, inputs[i], mode))


_BATCH = 3


def check_batched(
    func: Callable, inputs: tuple, live: list[int], diff: list[int], atol: float, rtol: float
) -> None:
    """For each live output, the VJPs of a batch of random output gradients: computed together
    (one backward of a random combination of the batch, which a backward that is linear in its
    incoming gradient gives as the same combination of the rows) and row by row on a fresh
    evaluation of ``func``, compared with each other."""
    rng = np.random.default_rng(0)
    for k in live:
        out = outputs_of(func, inputs)[k]
        seeds = [rng.standard_normal(out.shape) for _ in range(_BATCH)]
        weights = rng.standard_normal(_BATCH)
        rows = [vjp(out, inputs, diff, s) for s in seeds]
        fresh = outputs_of(func, inputs)[k]
        combined = vjp(fresh, inputs, diff, sum(w * s for w, s in zip(weights, seeds)))
        again = [vjp(fresh, inputs, diff, s) for s in reversed(seeds)][::-1]
        for n, i in enumerate(diff):
            expected = sum(w * r[n] for w, r in zip(weights, rows))
            for b in range(_BATCH):
                if not close(again[b][n], rows[b][n], rtol, atol):
                    raise GradcheckError(
                        _batched(k, i, f"row {b} of the batch", again[b][n], rows[b][n])
                    )
            if not close(combined[n], expected, rtol, atol):
                raise GradcheckError(_batched(k, i, "the batch combined", combined[n], expected))


def _batched(k: int, i: int, what: str, got: np.ndarray, expected: np.ndarray) -> str:
    return (
        f"For output {k} and input {i}:\n\nBatched grad check failed for {what}: the "
        "vector-Jacobian products of a batch of output gradients differ from those computed "
        "one row at a time, so the backward is not linear in its incoming gradient or "
        "depends on earlier calls.\n"
        f"batched:{Tensor._make(np.asarray(got))!r}\n"
        f"per row:{Tensor._make(np.asarray(expected))!r}\n"
    )
