"""``gradcheck`` and ``gradgradcheck``: the engine's Jacobians against central differences,
with PyTorch's signatures and meaning."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """A gradient check failed; the message names the output, the input and the worst element."""


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func: Callable, inputs: tuple) -> tuple[Tensor, ...]:
    out = _as_tuple(func(*inputs))
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise TypeError(f"gradcheck: output {i} of the function is a {type(o).__name__}, "
                            "not a Tensor")
    return out


def _differentiable(inputs: tuple) -> list[int]:
    found = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not found:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "inputs have requires_grad=True."
        )
    for i in found:
        if inputs[i].dtype.name != "float64":
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                f"tensor ({inputs[i].dtype!r}); finite differences in single precision are "
                "unreliable. Convert it with .double().",
                UserWarning,
                stacklevel=3,
            )
    return found


def _evaluate(func: Callable, inputs: tuple) -> list[np.ndarray]:
    # in grad mode: the function may itself differentiate (gradgradcheck's VJPs do)
    return [np.array(o._data, dtype=np.float64) for o in _outputs(func, inputs)]


def _numerical_jacobians(func: Callable, inputs: tuple, index: int, eps: float) -> list:
    """For input ``index``: one matrix (input elements x output elements) per output."""
    x = inputs[index]
    flat = x._data.reshape(-1)  # a view: perturb in place, restore after
    columns: list[list] = []
    for j in range(flat.size):
        original = flat[j]
        flat[j] = original + eps
        plus = _evaluate(func, inputs)
        flat[j] = original - eps
        minus = _evaluate(func, inputs)
        flat[j] = original
        columns.append([((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus)])
    n_out = len(columns[0]) if columns else len(_evaluate(func, inputs))
    return [np.array([c[o] for c in columns]).reshape(flat.size, -1) for o in range(n_out)]


def _analytical_jacobians(outputs: tuple, inputs: tuple, diff: list[int]) -> dict:
    """{(output, input): matrix (input elements x output elements)} from the engine."""
    from symgrad.autograd.engine import grad

    result = {}
    for o, out in enumerate(outputs):
        if not out.requires_grad:
            for i in diff:
                result[(o, i)] = np.zeros((inputs[i].numel(), out.numel()))
            continue
        rows: dict[int, list] = {i: [] for i in diff}
        for k in range(out.numel()):
            seed = np.zeros(out.shape, dtype=out._data.dtype)
            seed.reshape(-1)[k] = 1
            grads = grad(out, [inputs[i] for i in diff], Tensor._make(seed), retain_graph=True,
                         allow_unused=True)
            for i, g in zip(diff, grads):
                zero = np.zeros(inputs[i].numel())
                rows[i].append(zero if g is None else np.asarray(g._data, np.float64).reshape(-1))
        for i in diff:
            result[(o, i)] = np.array(rows[i]).T.reshape(inputs[i].numel(), out.numel())
    return result


def _mismatch(o: int, i: int, numerical: np.ndarray, analytical: np.ndarray) -> str:
    diff = np.abs(numerical - analytical)
    worst = np.unravel_index(int(np.nanargmax(np.where(np.isnan(diff), np.inf, diff))), diff.shape)
    return (
        f"Jacobian mismatch for output {o} with respect to input {i},\n"
        f"worst at input element {worst[0]}, output element {worst[1]}: numerical "
        f"{float(numerical[worst])!r} vs analytical {float(analytical[worst])!r} "
        f"(difference {diff[worst]:.3g})\n"
        f"numerical:{numerical}\nanalytical:{analytical}\n"
    )


def _fail(message: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    fast_mode: bool = False,
    check_undefined_grad: bool = True,
    nondet_tol: float = 0.0,
    **ignored: Any,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against central finite differences.

    Every output is checked against every input that requires grad; with ``fast_mode`` only
    random projections ``uᵀ J v`` are compared, with O(1) function evaluations per input.
    Returns True, or raises :class:`GradcheckError` naming the output, the input and the worst
    element (returns False instead with ``raise_exception=False``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.randn(3, dtype=symgrad.float64, requires_grad=True)
    >>> symgrad.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
    True
    """
    inputs = _as_tuple(inputs)
    diff = _differentiable(inputs)
    outputs = _outputs(func, inputs)
    if fast_mode:
        ok = _fast_check(func, inputs, outputs, diff, eps, atol, rtol, raise_exception)
    else:
        analytical = _analytical_jacobians(outputs, inputs, diff)
        ok = True
        for i in diff:
            numerical = _numerical_jacobians(func, inputs, i, eps)
            for o in range(len(outputs)):
                a, n = analytical[(o, i)], numerical[o]
                if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False):
                    ok = _fail(_mismatch(o, i, n, a), raise_exception)
    if ok and check_undefined_grad:
        ok = _check_zero_grad_outputs(outputs, inputs, diff, raise_exception)
    return ok


def _fast_check(func: Callable, inputs: tuple, outputs: tuple, diff: list[int], eps: float,
                atol: float, rtol: float, raise_exception: bool) -> bool:
    from symgrad.autograd.engine import grad

    rng = np.random.default_rng(0)
    us = [rng.standard_normal(o.shape) for o in outputs]
    ok = True
    for i in diff:
        x = inputs[i]
        v = rng.standard_normal(x.shape)
        base = x._data.copy()
        x._data[...] = base + eps * v
        plus = _evaluate(func, inputs)
        x._data[...] = base - eps * v
        minus = _evaluate(func, inputs)
        x._data[...] = base
        for o, out in enumerate(outputs):
            numerical = float(np.sum(us[o] * (plus[o] - minus[o]) / (2 * eps)))
            analytical = 0.0
            if out.requires_grad:
                (g,) = grad(out, [x], Tensor._make(us[o].astype(out._data.dtype)),
                            retain_graph=True, allow_unused=True)
                analytical = 0.0 if g is None else float(np.sum(np.asarray(g._data) * v))
            if not np.isclose(analytical, numerical, rtol=rtol, atol=atol):
                ok = _fail(
                    f"Jacobian mismatch for output {o} with respect to input {i} (fast mode: "
                    f"the projections u^T J v differ),\nnumerical: {numerical!r}\n"
                    f"analytical: {analytical!r}\nRun with fast_mode=False for the worst "
                    "element.\n",
                    raise_exception,
                )
    return ok


def _check_zero_grad_outputs(outputs: tuple, inputs: tuple, diff: list[int],
                             raise_exception: bool) -> bool:
    """A zero gradient reaching the outputs must give zero (or no) gradient at the inputs."""
    from symgrad.autograd.engine import grad

    live = [o for o in outputs if o.requires_grad]
    if not live:
        return True
    zeros = [Tensor._make(np.zeros(o.shape, o._data.dtype)) for o in live]
    grads = grad(live, [inputs[i] for i in diff], zeros, retain_graph=True, allow_unused=True)
    for i, g in zip(diff, grads):
        if g is not None and np.any(np.asarray(g._data) != 0):
            return _fail(
                f"backward of input {i} is not zero for a zero output gradient: {g}",
                raise_exception,
            )
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    fast_mode: bool = False,
    **ignored: Any,
) -> bool:
    """Check second derivatives: the gradients of ``func``'s vector-Jacobian products (built
    with ``create_graph=True``) against finite differences.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.randn(3, dtype=symgrad.float64, requires_grad=True)
    >>> symgrad.autograd.gradgradcheck(lambda t: t.exp() * t, (x,))
    True
    """
    from symgrad.autograd.engine import grad

    inputs = _as_tuple(inputs)
    diff = _differentiable(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._make(rng.standard_normal(o.shape).astype(o._data.dtype)).requires_grad_()
            for o in outputs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def vjp(*args: Any) -> tuple:
        outs = _outputs(func, args[:n])
        pairs = [(o, g) for o, g in zip(outs, args[n:]) if o.requires_grad]
        grads = grad([o for o, _ in pairs], [args[i] for i in diff], [g for _, g in pairs],
                     create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vjp, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, fast_mode=fast_mode,
                     check_undefined_grad=False)
