"""The two Jacobians that :func:`~symgrad.check.gradcheck` compares, and how it reports a
difference: numerical (central differences, one column per input element) and analytical
(the engine, one backward per output element), both as matrices with one row per input
element and one column per output element.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.check.finite_differences import jacobian_columns
from symgrad.tensor import Tensor

__all__ = ["GradcheckError"]


class GradcheckError(RuntimeError):
    """A gradient check failed; the message names the output, the input and the worst element.

    Examples
    --------
    >>> import symgrad
    >>> issubclass(symgrad.autograd.GradcheckError, RuntimeError)
    True
    """


# shown (in tracebacks, reprs) under its public home rather than this implementation module
GradcheckError.__module__ = "symgrad.check"


# -- inputs and outputs ----------------------------------------------------------------------


def as_tuple(x: Any) -> tuple:
    """``x`` itself if it is a tuple or a list (as a tuple), otherwise ``(x,)``."""
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def outputs_of(func: Callable, inputs: tuple) -> tuple[Tensor, ...]:
    """``func(*inputs)`` as a tuple, each element checked to be a Tensor."""
    out = as_tuple(func(*inputs))
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            # AttributeError, as PyTorch's (it reads requires_grad of every output)
            name = type(o).__name__
            raise AttributeError(
                f"'{name}' object has no attribute 'requires_grad': gradcheck: output {i} of "
                f"the function is a {name}, not a Tensor; return Tensors (or a tuple of them)"
            )
    return out


def live_outputs(outputs: tuple) -> list[int]:
    """The positions of the outputs that can carry a gradient (PyTorch checks only those)."""
    return [k for k, o in enumerate(outputs) if o.requires_grad and o.dtype.is_floating_point]


def _evaluate(
    func: Callable, inputs: tuple, like: tuple, live: list[int], eps: float
) -> list[np.ndarray]:
    """The live outputs as float64 arrays, checked to keep their shapes. Runs in grad mode,
    as PyTorch does: the function may differentiate (gradgradcheck's VJPs do)."""
    outs = outputs_of(func, inputs)
    result = []
    for k in live:
        if outs[k].shape != like[k].shape:
            # AssertionError, as PyTorch's (not a GradcheckError: raise_exception=False raises it)
            raise AssertionError(
                "Expected `func` to return outputs with the same shape when inputs are "
                f"perturbed by {eps}, but got: shapes {like[k].shape} and {outs[k].shape} "
                f"(output {k})."
            )
        result.append(np.array(outs[k]._data, dtype=np.float64))
    return result


def evaluator(func: Callable, inputs: tuple, like: tuple, live: list[int], eps: float) -> Callable:
    """A function of no arguments: the live outputs of ``func`` at the current ``inputs`` (moved
    by ``eps``), as float64 arrays of the same shapes as those of ``like``."""
    return lambda: _evaluate(func, inputs, like, live, eps)


# -- the Jacobians ---------------------------------------------------------------------------


def numerical_jacobians(
    func: Callable, inputs: tuple, i: int, eps: float, like: tuple, live: list[int]
) -> list[np.ndarray]:
    """For input ``i``: per live output, the matrix (input elements x output elements)."""
    data = inputs[i]._data
    columns = jacobian_columns(evaluator(func, inputs, like, live, eps), data, eps)
    return [
        np.array([c[n] for c in columns]).reshape(data.size, like[k].numel())
        for n, k in enumerate(live)
    ]


def vjp(out: Tensor, inputs: tuple, diff: list[int], seed: np.ndarray) -> list[np.ndarray]:
    """``seedᵀ J`` for each input in ``diff``, flattened float64 (zeros where unused)."""
    from symgrad.autograd.engine import grad

    found = grad(
        out,
        [inputs[i] for i in diff],
        Tensor._make(seed.astype(out._data.dtype)),
        retain_graph=True,
        allow_unused=True,
    )
    return [
        np.zeros(inputs[i].numel())
        if g is None
        else np.asarray(g._data, dtype=np.float64).reshape(-1)
        for i, g in zip(diff, found)
    ]


def analytical_jacobians(
    out: Tensor, k: int, inputs: tuple, diff: list[int], nondet_tol: float
) -> dict[int, np.ndarray]:
    """{input: matrix (input elements x output elements)} for output ``k``, from the engine;
    the first row is computed twice, to catch a backward that is not reentrant."""
    rows = []
    for j in range(out.numel()):
        seed = np.zeros(out.numel())
        seed[j] = 1
        rows.append(vjp(out, inputs, diff, seed.reshape(out.shape)))
    if rows:
        again = vjp(out, inputs, diff, np.eye(1, out.numel()).reshape(out.shape))
        check_reentrant(rows[0], again, nondet_tol)
    return {
        i: (np.array([r[n] for r in rows]).T if rows else np.zeros((inputs[i].numel(), 0)))
        for n, i in enumerate(diff)
    }


def check_reentrant(first: list, second: list, nondet_tol: float) -> None:
    """Raise :class:`GradcheckError` if two backward runs differ by more than ``nondet_tol``."""
    for a, b in zip(first, second):
        if a.size and not np.max(np.abs(a - b)) <= nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient. The tolerance for nondeterminism was "
                f"{nondet_tol}."
            )


# -- comparing them --------------------------------------------------------------------------


def close(a: Any, n: Any, rtol: float, atol: float) -> bool:
    """PyTorch's ``allclose(analytical, numerical)``: the tolerance is relative to the
    numerical value."""
    return bool(np.all(np.abs(a - n) <= atol + rtol * np.abs(n)))


def worst_element(
    n: np.ndarray, a: np.ndarray, rtol: float, atol: float, x: Tensor, out: Tensor, o: int, i: int
) -> str:
    """The element furthest beyond its tolerance, with both values, as a sentence."""
    excess = np.abs(a - n) - (atol + rtol * np.abs(n))
    flat = int(np.argmax(np.where(np.isnan(excess), np.inf, excess)))
    row, col = np.unravel_index(flat, n.shape)
    at_in = tuple(int(v) for v in np.unravel_index(row, x.shape))
    at_out = tuple(int(v) for v in np.unravel_index(col, out.shape))
    diff = abs(a[row, col] - n[row, col])
    return (
        f"worst element: d(output {o}){list(at_out)} / d(input {i}){list(at_in)}: "
        f"numerical {float(n[row, col])!r} vs analytical {float(a[row, col])!r} "
        f"(difference {diff:.3g}; allowed atol + rtol * |numerical| = "
        f"{atol + rtol * abs(n[row, col]):.3g})."
    )


def jacobian_text(m: np.ndarray, x: Tensor) -> str:
    """A Jacobian as PyTorch prints it: a tensor of the input's dtype, as it allocates one."""
    return repr(Tensor._make(m.astype(x._data.dtype)))


def mismatch(
    o: int, i: int, n: np.ndarray, a: np.ndarray, worst: str, x: Tensor, mode: str = ""
) -> str:
    """PyTorch's message for Jacobians that differ (``mode`` is "computed with forward mode "
    for forward-mode ones), then the worst element."""
    return (
        f"Jacobian {mode}mismatch for output {o} with respect to input {i},\n"
        f"numerical:{jacobian_text(n, x)}\nanalytical:{jacobian_text(a, x)}\nThe {worst}\n"
    )


def check_full(
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
    """Compare both Jacobians element by element for every live output and every input in
    ``diff``; raise :class:`GradcheckError` at the first pair that differs."""
    analytical = {k: analytical_jacobians(outputs[k], k, inputs, diff, nondet_tol) for k in live}
    for i in diff:
        numerical = numerical_jacobians(func, inputs, i, eps, outputs, live)
        for n, k in zip(numerical, live):
            a = analytical[k][i]
            if not close(a, n, rtol, atol):
                worst = worst_element(n, a, rtol, atol, inputs[i], outputs[k], k, i)
                raise GradcheckError(mismatch(k, i, n, a, worst, inputs[i]))
